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
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
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
