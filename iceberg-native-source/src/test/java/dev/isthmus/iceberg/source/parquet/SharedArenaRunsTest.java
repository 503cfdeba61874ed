package dev.isthmus.iceberg.source.parquet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.isthmus.arrow.LeakCheckExtension;
import dev.isthmus.arrow.cdata.ArenaRuns;
import dev.isthmus.arrow.flink.vector.ArrowColumnarBatch;
import dev.isthmus.arrow.memory.MemoryTracker;
import dev.isthmus.ffm.NativeArrowStats;
import java.nio.file.Path;
import java.util.List;
import org.apache.flink.table.data.columnar.vector.LongColumnVector;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The scans of one split sharing arena runs, over real files and the library's pools (the
 * source's path; the build's checked batches give every array its own arena, so the shared runs
 * are built here explicitly): a scan's memory stays mapped until the run with its batches ends,
 * then everything is freed, and a scan opened on closed runs frees what it opened.
 */
@ExtendWith(LeakCheckExtension.class)
class SharedArenaRunsTest {
    private static final int FILES = 5;
    private static final int ROWS = 300;

    @TempDir
    Path dir;

    private final MemoryTracker tracker = MemoryTracker.root().child("SharedArenaRunsTest");
    private List<Path> files;

    @BeforeEach
    void writeFiles() {
        files = SplitFiles.write(dir, FILES, ROWS);
    }

    @AfterEach
    void closeTracker() {
        tracker.close();
    }

    /** Reads every file's batches through {@code runs}; keeps the first file's first batch open. */
    private ArrowColumnarBatch readAll(ArenaRuns runs) {
        ArrowColumnarBatch kept = null;
        for (int f = 0; f < FILES; f++) {
            try (NativeParquetFile file = NativeParquetFile.open(files.get(f));
                    NativeParquetScan scan = file.scan(
                            ScanOptions.of(SplitFiles.SCHEMA).withBatchSize(100), tracker, runs, null, null)) {
                long rows = 0;
                while (scan.hasNext()) {
                    ArrowColumnarBatch batch = scan.next();
                    SplitFiles.assertRow(f, rows, batch.row(0));
                    rows += batch.numRows();
                    if (kept == null) {
                        kept = batch;
                    } else {
                        batch.close();
                    }
                }
                assertEquals(ROWS, rows);
            }
        }
        return kept;
    }

    @Test
    void aSplitsScansKeepTheirMemoryUntilTheSharedRunEnds() {
        long before = NativeArrowStats.read().allocatedBytes();
        ArenaRuns runs = new ArenaRuns(64, Long.MAX_VALUE);
        ArrowColumnarBatch kept = readAll(runs);
        LongColumnVector keptIds = (LongColumnVector) kept.batch().columns[0];
        // Every scan is closed, but all fifteen batches share one run, which the open batch keeps.
        runs.close();
        assertEquals(0, keptIds.getLong(0));
        assertTrue(NativeArrowStats.read().allocatedBytes() > before, "the closed scans' pools stay mapped");
        kept.close();
        assertEquals(before, NativeArrowStats.read().allocatedBytes(), "the run ended: every pool is freed");
        assertThrows(IllegalStateException.class, () -> keptIds.getLong(0), "the shared arena closed");
        assertEquals(0, tracker.liveArrays());
    }

    @Test
    void aRunEndsOnceTheClosedScansPoolsReachItsBound() {
        long before = NativeArrowStats.read().allocatedBytes();
        // A bound of one byte: each closed scan ends the run it was in.
        ArenaRuns runs = new ArenaRuns(64, 1);
        ArrowColumnarBatch kept = readAll(runs);
        LongColumnVector keptIds = (LongColumnVector) kept.batch().columns[0];
        assertTrue(NativeArrowStats.read().allocatedBytes() > before, "the open batch keeps its scan's pool");
        kept.close();
        // The first scan's run took no more batches once it closed; its open batch closing ends it.
        assertThrows(IllegalStateException.class, () -> keptIds.getLong(0));
        assertEquals(before, NativeArrowStats.read().allocatedBytes(), "the later scans' runs ended with them");
        runs.close();
        assertEquals(before, NativeArrowStats.read().allocatedBytes());
    }

    @Test
    void aScanOpenedOnClosedRunsFailsAndFreesWhatItOpened() {
        long before = NativeArrowStats.read().allocatedBytes();
        ArenaRuns runs = new ArenaRuns(64, Long.MAX_VALUE);
        runs.close();
        try (NativeParquetFile file = NativeParquetFile.open(files.get(0))) {
            IllegalStateException e = assertThrows(
                    IllegalStateException.class,
                    () -> file.scan(ScanOptions.of(SplitFiles.SCHEMA), tracker, runs, null, null));
            assertEquals("these arena runs are closed", e.getMessage());
        }
        assertEquals(before, NativeArrowStats.read().allocatedBytes());
    }
}
