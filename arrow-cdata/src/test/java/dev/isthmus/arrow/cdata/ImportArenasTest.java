package dev.isthmus.arrow.cdata;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.isthmus.arrow.flink.vector.ArrowVectors;
import dev.isthmus.arrow.memory.MemoryTracker;
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
 * once when closed, the arena closed when its run ends, the hold released once after the last arena;
 * and runs shared by several producers ({@link ArenaRuns}).
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
        assertThrows(
                IllegalStateException.class,
                () -> arenas.receive(tracker, (array, schema) -> {
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
            assertFalse(
                    importedAfterRelease.get(), "an array was imported after the hold was released, round " + round);
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

    /** The buffer bytes of one single-long array: what a closed producer of such arrays keeps mapped. */
    private static final long ONE_LONG = Long.BYTES;

    private static long read(ImportedArray array) {
        return ((LongColumnVector) ArrowVectors.of(array.view())).getLong(0);
    }

    // Runs shared by several producers (the scans of one split, ArenaRuns): one arena for
    // consecutive arrays of different producers, each producer's hold released once, after it is
    // closed and the last run with its arrays has ended, and a run ended early once closed
    // producers keep enough mapped.

    @Test
    void producersShareARunAndEachHoldWaitsForTheRunToEnd() {
        AtomicInteger firstHold = new AtomicInteger();
        AtomicInteger secondHold = new AtomicInteger();
        ArenaRuns runs = new ArenaRuns(4, Long.MAX_VALUE);
        ImportArenas first = runs.open(firstHold::incrementAndGet);
        ImportedArray a = longs(first, 1);
        LongColumnVector aValues = (LongColumnVector) ArrowVectors.of(a.view());
        a.close();
        first.close();
        assertEquals(0, firstHold.get(), "its array's run is still open");

        ImportArenas second = runs.open(secondHold::incrementAndGet);
        ImportedArray b = longs(second, 2);
        // One arena for both producers' arrays: the first's closed view still reads mapped memory.
        aValues.getLong(0);
        b.close();
        second.close();
        assertEquals(0, firstHold.get() + secondHold.get());

        runs.close();
        assertEquals(1, firstHold.get(), "released once the shared run ended");
        assertEquals(1, secondHold.get());
        assertThrows(IllegalStateException.class, () -> aValues.getLong(0), "the run's arena closed");
        assertEquals(4, releases());
        runs.close();
        first.close();
        assertEquals(1, firstHold.get(), "closing again releases nothing twice");
    }

    @Test
    void aRunEndsEarlyOnceClosedProducersKeepTheBoundMapped() {
        List<AtomicInteger> holds = new ArrayList<>();
        ArenaRuns runs = new ArenaRuns(64, 2 * ONE_LONG);
        for (int i = 0; i < 3; i++) {
            AtomicInteger hold = new AtomicInteger();
            holds.add(hold);
            ImportArenas producerArenas = runs.open(hold::incrementAndGet);
            longs(producerArenas, i).close();
            producerArenas.close();
            if (i == 0) {
                assertEquals(0, hold.get(), "below the bound the run goes on, keeping the closed producer's memory");
            }
        }
        // The first two filled the run's bound: it ended when the second closed; the third is in a new run.
        assertEquals(1, holds.get(0).get());
        assertEquals(1, holds.get(1).get());
        assertEquals(0, holds.get(2).get());
        runs.close();
        assertEquals(1, holds.get(2).get());
        assertEquals(6, releases());
    }

    @Test
    void anOpenArrayKeepsItsRunAndEveryHoldInItUntilItIsClosed() {
        AtomicInteger firstHold = new AtomicInteger();
        AtomicInteger secondHold = new AtomicInteger();
        ArenaRuns runs = new ArenaRuns(2, Long.MAX_VALUE);
        ImportArenas first = runs.open(firstHold::incrementAndGet);
        ImportedArray kept = longs(first, 7);
        first.close();
        ImportArenas second = runs.open(secondHold::incrementAndGet);
        longs(second, 8).close();
        ImportedArray nextRun = longs(second, 9);
        second.close();
        runs.close();
        assertEquals(0, firstHold.get() + secondHold.get(), "the first run has an open array");
        assertEquals(7, read(kept));
        kept.close();
        assertEquals(1, firstHold.get());
        assertEquals(0, secondHold.get(), "its second run is still open");
        assertEquals(9, read(nextRun));
        nextRun.close();
        assertEquals(1, secondHold.get());
        assertEquals(6, releases());
        assertEquals(0, tracker.liveArrays());
    }

    @Test
    void closedRunsAndProducersTakeNoImports() {
        ArenaRuns runs = new ArenaRuns(4, Long.MAX_VALUE);
        AtomicInteger hold = new AtomicInteger();
        ImportArenas closedProducer = runs.open(hold::incrementAndGet);
        closedProducer.close();
        assertEquals(1, hold.get(), "nothing imported: released at once");
        assertThrows(IllegalStateException.class, () -> longs(closedProducer, 1));
        ImportArenas open = runs.open(() -> {});
        runs.close();
        assertThrows(IllegalStateException.class, () -> runs.open(() -> {}));
        assertThrows(IllegalStateException.class, () -> longs(open, 1));
        open.close();
        assertEquals(0, releases(), "the refused imports took nothing from the producer");
    }

    /** Producers of one split close on the importing thread while the consumer closes arrays on another. */
    @Test
    void holdsAreReleasedOnceAndNeverUnderAnOpenArrayWhenClosesRace() throws InterruptedException {
        for (int round = 0; round < 200; round++) {
            ArenaRuns runs = new ArenaRuns(3, 2 * ONE_LONG);
            List<AtomicInteger> holds = new ArrayList<>();
            List<ImportedArray> handedOver = java.util.Collections.synchronizedList(new ArrayList<>());
            AtomicBoolean releasedUnderOpenArray = new AtomicBoolean();
            List<List<ImportedArray>> byProducer = new ArrayList<>();
            Thread consumer;
            List<ImportArenas> producers = new ArrayList<>();
            for (int p = 0; p < 5; p++) {
                AtomicInteger hold = new AtomicInteger();
                List<ImportedArray> own = java.util.Collections.synchronizedList(new ArrayList<>());
                byProducer.add(own);
                holds.add(hold);
                producers.add(runs.open(() -> {
                    hold.incrementAndGet();
                    synchronized (own) {
                        for (ImportedArray array : own) {
                            // Closed, and its arena too: no view of it can still reach the memory.
                            if (!array.isClosed()
                                    || array.view().buffer(1).scope().isAlive()) {
                                releasedUnderOpenArray.set(true);
                            }
                        }
                    }
                }));
            }
            consumer = Thread.ofPlatform().start(() -> {
                for (int taken = 0; taken < 10; ) {
                    ImportedArray array = null;
                    synchronized (handedOver) {
                        if (!handedOver.isEmpty()) {
                            array = handedOver.remove(0);
                        }
                    }
                    if (array == null) {
                        Thread.onSpinWait();
                        continue;
                    }
                    for (int spin = ThreadLocalRandom.current().nextInt(200); spin > 0; spin--) {
                        Thread.onSpinWait();
                    }
                    array.close();
                    taken++;
                }
            });
            for (int p = 0; p < 5; p++) {
                for (int i = 0; i < 2; i++) {
                    ImportedArray array = longs(producers.get(p), i);
                    byProducer.get(p).add(array);
                    handedOver.add(array);
                }
                producers.get(p).close();
            }
            runs.close();
            consumer.join();
            assertFalse(
                    releasedUnderOpenArray.get(),
                    "a hold was released while its array or arena was open, round " + round);
            for (AtomicInteger hold : holds) {
                assertEquals(1, hold.get(), "round " + round);
            }
        }
        assertEquals(0, tracker.liveArrays());
    }
}
