package dev.isthmus.arrow.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.isthmus.arrow.LeakCheckExtension;
import dev.isthmus.arrow.builder.BufferAllocator;
import dev.isthmus.arrow.builder.NativeBuffer;
import dev.isthmus.arrow.cdata.ArrowExporter;
import dev.isthmus.arrow.flink.builder.RowDataAppender;
import dev.isthmus.ffm.gen.ArrowArray;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/** A closed tracker leaves its parent once it holds nothing, and not before. */
@ExtendWith(LeakCheckExtension.class)
class MemoryTrackerTest {
    private final MemoryTracker parent = MemoryTracker.root().child("MemoryTrackerTest");

    @AfterEach
    void closeParent() {
        parent.close();
    }

    @Test
    void closedIdleTrackersLeaveTheirParent() {
        for (int i = 0; i < 100; i++) {
            MemoryTracker owner = parent.child("owner-" + i);
            new BufferAllocator(owner).allocate(100).free();
            owner.close();
        }
        assertEquals(0, parent.children().size(), "a hundred finished owners leave nothing behind");
        assertEquals(100 * 128, parent.allocatedBytes(), "their counts stay in the parent's totals");
    }

    @Test
    void aTrackerClosedWhileHoldingMemoryLeavesWhenTheLastByteIsFreed() {
        MemoryTracker owner = parent.child("owner");
        NativeBuffer first = new BufferAllocator(owner).allocate(64);
        NativeBuffer second = new BufferAllocator(owner).allocate(64);
        owner.close();
        assertTrue(owner.isClosed());
        assertEquals(1, parent.children().size(), "still holding memory: still counted under the parent");
        first.free();
        assertEquals(1, parent.children().size(), "still holding 64 bytes");
        second.free();
        assertEquals(0, parent.children().size(), "drained: gone");
        assertEquals(0, parent.liveBytes());
    }

    /** A fetcher can still import after its reader closed: what it holds shows under the parent. */
    @Test
    void aDrainedClosedTrackerThatAllocatesAgainRejoinsItsParentUntilDrained() {
        MemoryTracker owner = parent.child("owner");
        owner.close();
        assertEquals(0, parent.children().size(), "closed and idle: gone");
        NativeBuffer late = new BufferAllocator(owner).allocate(64);
        assertEquals(List.of(owner), parent.children(), "holding memory again: counted under the parent");
        late.free();
        assertEquals(0, parent.children().size(), "drained again: gone");
        owner.arrayOpened();
        assertEquals(List.of(owner), parent.children(), "an array counts as memory held");
        owner.arrayClosed();
        assertEquals(0, parent.children().size());
    }

    /**
     * An import on one thread and a release on another, on a closed tracker, at the same moment,
     * round after round: each round starts holding 8 bytes, one thread frees them while the other
     * opens an array, so the tracker holds something throughout and must stay among its parent's
     * children however the two interleave (a release that saw it drained must not remove it after
     * the import put it back).
     */
    @Test
    @Timeout(120)
    void racingCountsOnAClosedTrackerLeaveItsMembershipRight() throws Exception {
        MemoryTracker owner = parent.child("owner");
        owner.close();
        owner.allocated(8);
        int rounds = 200_000;
        AtomicInteger missing = new AtomicInteger();
        // Both threads spin on `round` so that they start each round within a few dozen
        // nanoseconds of each other; the second to finish a round checks it and starts the next.
        AtomicInteger round = new AtomicInteger();
        AtomicInteger finished = new AtomicInteger();
        Runnable endRound = () -> {
            if (!parent.children().contains(owner)) {
                missing.incrementAndGet();
            }
            owner.arrayClosed();
            owner.allocated(8);
        };
        ExecutorService threads = Executors.newFixedThreadPool(2);
        try {
            Future<?> release = threads.submit(() -> race(rounds, round, finished, () -> owner.freed(8), endRound));
            Future<?> acquire = threads.submit(() -> race(rounds, round, finished, owner::arrayOpened, endRound));
            release.get();
            acquire.get();
        } finally {
            threads.shutdownNow();
        }
        assertEquals(0, missing.get(), "rounds that left a holding tracker out of its parent's children");
        owner.freed(8);
        assertEquals(0, parent.children().size(), "drained: gone");
    }

    /** One side of {@link #racingCountsOnAClosedTrackerLeaveItsMembershipRight}. */
    private static void race(
            int rounds, AtomicInteger round, AtomicInteger finished, Runnable step, Runnable endRound) {
        for (int i = 0; i < rounds; i++) {
            while (round.get() != i) {
                Thread.onSpinWait();
            }
            step.run();
            if (finished.incrementAndGet() == 2 * (i + 1)) {
                endRound.run();
                round.set(i + 1);
            }
        }
    }

    @Test
    void aTrackerClosedWhileABatchIsExportedLeavesWhenTheConsumerReleasesIt() {
        RowType type = RowType.of(new LogicalType[] {new BigIntType(false)}, new String[] {"id"});
        MemoryTracker owner = parent.child("owner");
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment array = ArrowArray.allocate(arena);
            try (RowDataAppender appender = new RowDataAppender(type, new BufferAllocator(owner))) {
                appender.append(GenericRowData.of(7L));
                ArrowExporter.exportArray(appender.finish(), array);
            }
            owner.close();
            assertEquals(1, owner.liveArrays());
            assertTrue(parent.children().contains(owner), "the exported batch is still the owner's");
            ArrowArray.release.invoke(ArrowArray.release(array), array);
        }
        assertFalse(parent.children().contains(owner), "released by the consumer: the owner's tracker is gone");
        assertEquals(0, owner.liveBytes());
        assertEquals(0, owner.liveArrays());
    }
}
