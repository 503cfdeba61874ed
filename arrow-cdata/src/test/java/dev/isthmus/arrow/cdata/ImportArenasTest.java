package dev.isthmus.arrow.cdata;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.isthmus.arrow.memory.MemoryTracker;
import dev.isthmus.arrow.vector.ArrowVectors;
import dev.isthmus.ffm.gen.isthmus_h;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.flink.table.data.columnar.vector.LongColumnVector;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Runs of imports sharing an arena, from a producer that holds their memory: each array released
 * once when closed, the arena closed when its run ends, the hold released once after the last arena.
 */
@ExtendWith(dev.isthmus.arrow.LeakCheckExtension.class)
class ImportArenasTest {
    private Arena producerMemory;
    private HandMadeArrays producer;
    private MemoryTracker tracker;
    private int releasedBefore;
    private final AtomicInteger holdReleases = new AtomicInteger();

    @BeforeEach
    void setUp() {
        producerMemory = Arena.ofShared();
        producer = new HandMadeArrays(producerMemory);
        tracker = MemoryTracker.root().child("import-arenas-test");
        releasedBefore = HandMadeArrays.ARRAY_RELEASES.get() + HandMadeArrays.SCHEMA_RELEASES.get();
    }

    @AfterEach
    void tearDown() {
        tracker.close();
        producerMemory.close();
    }

    /** Releases of arrays and schemas since the test began. */
    private int releases() {
        return HandMadeArrays.ARRAY_RELEASES.get() + HandMadeArrays.SCHEMA_RELEASES.get() - releasedBefore;
    }

    private ImportedArray longs(ImportArenas arenas, long value) {
        MemorySegment schema = producer.schema("l", "v", isthmus_h.ARROW_FLAG_NULLABLE());
        MemorySegment array = producer.array(1, 0, 0, new MemorySegment[] {MemorySegment.NULL, producer.longs(value)});
        return arenas.receive(tracker, (outArray, outSchema) -> {
            HandMadeArrays.move(array, outArray);
            HandMadeArrays.moveSchema(schema, outSchema);
        });
    }

    private ImportArenas arenas(int arraysPerArena) {
        return new ImportArenas(arraysPerArena, holdReleases::incrementAndGet);
    }

    @Test
    void arraysAreReleasedAtOnceTheirRunsArenaWhenItEndsAndTheHoldAfterTheLastArena() {
        ImportArenas arenas = arenas(2);
        ImportedArray first = longs(arenas, 1);
        ImportedArray second = longs(arenas, 2);
        ImportedArray nextRun = longs(arenas, 3);
        LongColumnVector firstValues = (LongColumnVector) ArrowVectors.of(first.view());

        first.close();
        assertEquals(2, releases(), "released when closed, not when its run ends");
        assertEquals(2, tracker.liveArrays());
        // The producer keeps the memory mapped, so the open arena's view still reads it.
        assertEquals(1, firstValues.getLong(0));
        second.close();
        assertEquals(4, releases());
        assertThrows(IllegalStateException.class, () -> firstValues.getLong(0), "the full run's arena closed");

        arenas.close();
        assertEquals(0, holdReleases.get(), "an arena is still open");
        assertEquals(3, ((LongColumnVector) ArrowVectors.of(nextRun.view())).getLong(0));
        nextRun.close();
        nextRun.close();
        assertEquals(6, releases());
        assertEquals(1, holdReleases.get(), "released once, after the last arena closed");
        assertEquals(0, tracker.liveArrays());
        assertEquals(0, tracker.liveBytes());
    }

    @Test
    void viewsAreInvalidBeforeTheHoldIsReleased() {
        List<String> seenAtRelease = new ArrayList<>();
        List<LongColumnVector> views = new ArrayList<>();
        ImportArenas arenas = new ImportArenas(2, () -> {
            for (LongColumnVector values : views) {
                try {
                    seenAtRelease.add("read " + values.getLong(0));
                } catch (IllegalStateException e) {
                    seenAtRelease.add("closed");
                }
            }
        });
        ImportedArray first = longs(arenas, 1);
        ImportedArray second = longs(arenas, 2);
        ImportedArray third = longs(arenas, 3);
        for (ImportedArray array : List.of(first, second, third)) {
            views.add((LongColumnVector) ArrowVectors.of(array.view()));
        }
        arenas.close();
        first.close();
        second.close();
        third.close();
        // A reader racing with the producer's free can never reach freed memory: every arena is closed first.
        assertEquals(List.of("closed", "closed", "closed"), seenAtRelease);
        assertEquals(6, releases());
    }

    @Test
    void aProducerWithNothingOpenIsReleasedOnCloseOnce() {
        ImportArenas empty = arenas(4);
        empty.close();
        empty.close();
        assertEquals(1, holdReleases.get());

        ImportArenas used = arenas(4);
        longs(used, 1).close();
        assertEquals(1, holdReleases.get(), "the run is open until the arenas close");
        used.close();
        assertEquals(2, holdReleases.get());
        assertEquals(2, releases());
    }

    @Test
    void closingTheArenasLeavesOpenArraysReadableUntilTheyAreClosed() {
        ImportedArray open;
        try (ImportArenas arenas = arenas(8)) {
            longs(arenas, 1).close();
            open = longs(arenas, 7);
        }
        assertEquals(2, releases());
        assertEquals(7, ((LongColumnVector) ArrowVectors.of(open.view())).getLong(0));
        assertEquals(0, holdReleases.get());
        open.close();
        open.close();
        assertEquals(4, releases());
        assertEquals(1, holdReleases.get());
    }

    @Test
    void importsAfterCloseAreRefusedAndAFailedImportGivesItsPlaceBack() {
        ImportArenas arenas = arenas(2);
        assertThrows(IllegalStateException.class, () -> arenas.receive(tracker, (array, schema) -> {
            throw new IllegalStateException("the native call failed");
        }));
        ImportedArray survivor = longs(arenas, 5);
        // The failed import and the survivor filled the run: closing the survivor ends it.
        survivor.close();
        assertEquals(2, releases());
        arenas.close();
        assertEquals(1, holdReleases.get(), "no run is left open");
        assertThrows(IllegalStateException.class, () -> longs(arenas, 6));
    }

    @Test
    void arraysClosedOnOtherThreadsAreEachReleasedOnce() throws Exception {
        int count = 200;
        List<ImportedArray> arrays = new ArrayList<>();
        try (ImportArenas arenas = arenas(ImportArenas.DEFAULT_ARRAYS_PER_ARENA)) {
            for (int i = 0; i < count; i++) {
                arrays.add(longs(arenas, i));
            }
        }
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<?>> closes = new ArrayList<>();
            for (ImportedArray array : arrays) {
                closes.add(pool.submit(array::close));
                closes.add(pool.submit(array::close));
            }
            for (Future<?> close : closes) {
                close.get();
            }
        } finally {
            pool.shutdown();
        }
        assertEquals(2 * count, releases());
        assertEquals(0, tracker.liveArrays());
        assertEquals(1, holdReleases.get());
    }

    /** A close racing the importing thread: the hold is released once, and never while an array is open. */
    @Test
    void aCloseRacingImportsNeverReleasesTheHoldUnderAnOpenArray() throws InterruptedException {
        for (int round = 0; round < 500; round++) {
            AtomicInteger released = new AtomicInteger();
            AtomicBoolean importedAfterRelease = new AtomicBoolean();
            ImportArenas arenas = new ImportArenas(2, released::incrementAndGet);
            Thread importer = Thread.ofPlatform().start(() -> {
                for (int i = 0; i < 20; i++) {
                    ImportedArray array;
                    try {
                        array = longs(arenas, i);
                    } catch (IllegalStateException e) {
                        return; // closed
                    }
                    if (released.get() > 0) {
                        importedAfterRelease.set(true);
                    }
                    array.close();
                }
            });
            for (int spin = ThreadLocalRandom.current().nextInt(2_000); spin > 0; spin--) {
                Thread.onSpinWait();
            }
            arenas.close();
            importer.join();
            assertFalse(importedAfterRelease.get(), "an array was imported after the hold was released, round " + round);
            assertEquals(1, released.get(), "round " + round);
        }
        assertEquals(0, tracker.liveArrays());
    }

    /** Checked batches: each array's arena closes with the array, so a kept view fails at once. */
    @Test
    void checkedBatchesCloseEveryArraysArenaWithIt() {
        assertTrue(CheckedBatches.ENABLED, "the build runs tests with -D" + CheckedBatches.PROPERTY + "=true");
        ImportArenas arenas = ImportArenas.forBatches(holdReleases::incrementAndGet);
        ImportedArray first = longs(arenas, 1);
        ImportedArray second = longs(arenas, 2);
        LongColumnVector firstValues = (LongColumnVector) ArrowVectors.of(first.view());
        assertEquals(1, firstValues.getLong(0));
        first.close();
        assertEquals(2, releases());
        assertThrows(IllegalStateException.class, () -> firstValues.getLong(0), "closed with its array");
        assertEquals(2, ((LongColumnVector) ArrowVectors.of(second.view())).getLong(0));
        arenas.close();
        second.close();
        assertEquals(4, releases());
        assertEquals(1, holdReleases.get());
    }
}
