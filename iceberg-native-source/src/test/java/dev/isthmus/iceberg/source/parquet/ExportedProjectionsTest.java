package dev.isthmus.iceberg.source.parquet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.isthmus.arrow.LeakCheckExtension;
import dev.isthmus.arrow.memory.MemoryTracker;
import dev.isthmus.ffm.NativeException;
import dev.isthmus.ffm.gen.ArrowSchema;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * A split's projections built and exported once: equal columns share one {@link Schema}, scans
 * that borrow its export read what scans exporting their own read, and every export is released
 * exactly once, when it is dropped or at close, even with a close racing an open.
 */
@ExtendWith(LeakCheckExtension.class)
class ExportedProjectionsTest {
    private static final Schema SCHEMA = IdNameDetails.SCHEMA;
    private static final int FILES = 3;
    private static final int ROWS = 200;

    @TempDir
    Path dir;

    private final MemoryTracker scans = MemoryTracker.root().child("ExportedProjectionsTest scans");
    private final MemoryTracker exports = MemoryTracker.root().child("ExportedProjectionsTest exports");
    private final List<Path> files = new ArrayList<>();

    @BeforeEach
    void writeFiles() {
        for (int f = 0; f < FILES; f++) {
            List<Record> records = new ArrayList<>();
            for (long id = 0; id < ROWS; id++) {
                records.add(IdNameDetails.record(
                        f * 1_000L + id,
                        id % 7 == 0 ? null : "name " + id,
                        id % 11 == 0 ? null : "city " + (id % 5),
                        (int) id));
            }
            Path path = dir.resolve("part-" + f + ".parquet");
            IcebergParquetFiles.write(path, SCHEMA, records, Map.of());
            files.add(path);
        }
    }

    @AfterEach
    void closeTrackers() {
        assertEquals(0, exports.liveBytes(), "every export released");
        scans.close();
        exports.close();
    }

    @Test
    void equalColumnsShareOneProjection() {
        try (ExportedProjections projections = new ExportedProjections(exports)) {
            Schema whole = projections.schema(SCHEMA.columns());
            assertSame(whole, projections.schema(new ArrayList<>(SCHEMA.columns())));
            assertEquals(SCHEMA.asStruct(), whole.asStruct());
            Schema names = projections.schema(List.of(SCHEMA.findField("name")));
            assertNotSame(whole, names);
            assertSame(names, projections.schema(List.of(SCHEMA.findField("name"))));
        }
    }

    @Test
    void scansBorrowTheKeptExportAndReadAsScansExportingTheirOwn() {
        try (ExportedProjections projections = new ExportedProjections(exports)) {
            for (Schema wanted : List.of(SCHEMA, IdNameDetails.NAME_AND_ZIP)) {
                Schema projection = projections.schema(wanted.columns());
                long exportedBefore = exports.allocatedBytes();
                for (Path path : files) {
                    try (NativeParquetFile file = NativeParquetFile.open(path)) {
                        long before = scans.allocatedBytes();
                        List<List<Object>> own = NativeRows.read(file, ScanOptions.of(wanted), scans);
                        long ownBytes = scans.allocatedBytes() - before;
                        before = scans.allocatedBytes();
                        List<List<Object>> borrowed =
                                NativeRows.read(file, ScanOptions.of(projection), scans, projections);
                        long borrowedBytes = scans.allocatedBytes() - before;
                        assertEquals(ROWS, own.size());
                        assertEquals(own, borrowed, path + " read with the kept export");
                        // The one export, made at the first file, is the only difference in memory.
                        long oneExport = exports.allocatedBytes() - exportedBefore;
                        assertTrue(oneExport > 0, "exported at the first scan");
                        assertEquals(oneExport, ownBytes - borrowedBytes, "the scan borrowed the export");
                    }
                }
            }
            assertTrue(exports.liveBytes() > 0, "both exports kept until the close");
        }
    }

    @Test
    void aProjectionNotKeptIsExportedForItsScanAlone() {
        try (ExportedProjections projections = new ExportedProjections(exports);
                NativeParquetFile file = NativeParquetFile.open(files.get(0))) {
            projections.schema(SCHEMA.columns());
            Schema names = new Schema(SCHEMA.findField("name"));
            List<List<Object>> rows = NativeRows.read(file, ScanOptions.of(names), scans, projections);
            assertEquals(NativeRows.read(file, ScanOptions.of(names), scans), rows);
            assertEquals(0, exports.allocatedBytes(), "nothing exported into the kept ones");
        }
    }

    @Test
    void theLeastRecentlyUsedProjectionIsDroppedAndReleased() {
        try (ExportedProjections projections = new ExportedProjections(exports);
                NativeParquetFile file = NativeParquetFile.open(files.get(0))) {
            List<Schema> made = new ArrayList<>();
            long oneExport = 0;
            for (int i = 0; i <= ExportedProjections.KEPT; i++) {
                if (i == ExportedProjections.KEPT) {
                    // The first projection used again: the second is now the least recently used.
                    assertSame(made.get(0), projections.schema(made.get(0).columns()));
                }
                // Columns the file lacks (read as nulls), with names of one length: every export
                // takes the same bytes.
                Schema projection = projections.schema(
                        List.of(Types.NestedField.optional(100 + i, "column" + i, Types.LongType.get())));
                assertEquals(
                        ROWS,
                        NativeRows.read(file, ScanOptions.of(projection), scans, projections)
                                .size());
                if (i == 0) {
                    oneExport = exports.liveBytes();
                    assertTrue(oneExport > 0);
                }
                made.add(projection);
            }
            assertEquals(ExportedProjections.KEPT * oneExport, exports.liveBytes(), "one export released");
            assertSame(made.get(0), projections.schema(made.get(0).columns()), "kept");
            // The dropped projection's Schema still reads, with an export of its own.
            List<List<Object>> rows = NativeRows.read(file, ScanOptions.of(made.get(1)), scans, projections);
            assertEquals(ROWS, rows.size());
            rows.forEach(row -> assertEquals(Collections.singletonList(null), row));
            assertEquals(ExportedProjections.KEPT * oneExport, exports.liveBytes(), "nothing kept for it");
            assertNotSame(made.get(1), projections.schema(made.get(1).columns()), "built again");
        }
    }

    @Test
    void aScanThatFailsLeavesTheExportKeptForTheNext() {
        Schema lacking =
                new Schema(SCHEMA.findField("id"), Types.NestedField.required(99, "missing", Types.LongType.get()));
        try (ExportedProjections projections = new ExportedProjections(exports);
                NativeParquetFile file = NativeParquetFile.open(files.get(0))) {
            Schema projection = projections.schema(lacking.columns());
            assertThrows(
                    NativeException.class, () -> file.scan(ScanOptions.of(projection), scans, null, projections, null));
            long kept = exports.liveBytes();
            assertTrue(kept > 0, "the export stays kept");
            assertThrows(
                    NativeException.class, () -> file.scan(ScanOptions.of(projection), scans, null, projections, null));
            assertEquals(kept, exports.allocatedBytes(), "and is lent again, not exported anew");
            Schema whole = projections.schema(SCHEMA.columns());
            assertEquals(
                    ROWS,
                    NativeRows.read(file, ScanOptions.of(whole), scans, projections)
                            .size());
        }
    }

    @Test
    void closeReleasesEveryExportAndRefusesLaterUse() {
        ExportedProjections projections = new ExportedProjections(exports);
        Schema projection = projections.schema(SCHEMA.columns());
        MemorySegment exported = projections.withExported(projection, scans, Arena.ofAuto(), expected -> expected);
        assertNotEquals(MemorySegment.NULL, ArrowSchema.release(exported));
        projections.close();
        assertEquals(MemorySegment.NULL, ArrowSchema.release(exported), "released by the close");
        assertEquals(0, exports.liveBytes());
        projections.close();
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> projections.schema(SCHEMA.columns()));
        assertEquals("these exported projections are closed", e.getMessage());
        try (NativeParquetFile file = NativeParquetFile.open(files.get(0))) {
            assertThrows(
                    IllegalStateException.class,
                    () -> file.scan(ScanOptions.of(projection), scans, null, projections, null));
        }
    }

    @Test
    @Timeout(60)
    void aCloseFromAnotherThreadWaitsForAnOpenInFlight() throws Exception {
        ExportedProjections projections = new ExportedProjections(exports);
        Schema projection = projections.schema(SCHEMA.columns());
        CountDownLatch borrowing = new CountDownLatch(1);
        CountDownLatch finish = new CountDownLatch(1);
        AtomicReference<MemorySegment> seen = new AtomicReference<>();
        AtomicReference<MemorySegment> releaseAtReturn = new AtomicReference<>();
        Thread opener = new Thread(() -> projections.withExported(projection, scans, Arena.ofAuto(), expected -> {
            seen.set(expected);
            borrowing.countDown();
            try {
                finish.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            releaseAtReturn.set(ArrowSchema.release(expected));
            return null;
        }));
        opener.setDaemon(true);
        opener.start();
        Thread closer = new Thread(projections::close);
        closer.setDaemon(true);
        try {
            assertTrue(borrowing.await(10, TimeUnit.SECONDS), "the open borrowed the export");
            closer.start();
            waitUntilBlockedInClose(closer);
            assertNotEquals(MemorySegment.NULL, ArrowSchema.release(seen.get()), "not released while borrowed");
        } finally {
            // A failure above still lets both threads end, and the close release the export.
            finish.countDown();
            if (closer.getState() == Thread.State.NEW) {
                projections.close();
            }
        }
        opener.join();
        closer.join();
        assertNotEquals(MemorySegment.NULL, releaseAtReturn.get(), "unreleased until the open returned");
        assertEquals(MemorySegment.NULL, ArrowSchema.release(seen.get()), "released once the open returned");
        assertThrows(
                IllegalStateException.class,
                () -> projections.withExported(projection, scans, Arena.ofAuto(), expected -> expected));
    }

    /**
     * Waits until {@code closer} waits for the monitor inside {@link ExportedProjections#close};
     * fails if it ends first or after ten seconds, so a close that does not wait fails the test.
     */
    private static void waitUntilBlockedInClose(Thread closer) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!(closer.getState() == Thread.State.BLOCKED && inClose(closer))) {
            assertTrue(closer.isAlive(), "the close returned while the open was in flight");
            assertTrue(System.nanoTime() < deadline, "the close never waited");
            Thread.sleep(5);
        }
    }

    private static boolean inClose(Thread thread) {
        for (StackTraceElement frame : thread.getStackTrace()) {
            if (frame.getClassName().equals(ExportedProjections.class.getName())
                    && frame.getMethodName().equals("close")) {
                return true;
            }
        }
        return false;
    }
}
