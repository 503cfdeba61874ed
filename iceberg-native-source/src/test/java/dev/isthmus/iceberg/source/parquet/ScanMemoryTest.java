package dev.isthmus.iceberg.source.parquet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.isthmus.arrow.LeakCheckExtension;
import dev.isthmus.arrow.flink.vector.ArrowColumnarBatch;
import dev.isthmus.arrow.memory.MemoryTracker;
import dev.isthmus.ffm.NativeArrowStats;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The scans of one split sharing the library's memory, over real files: once the first file's
 * batches are closed, the next files decode into what it left mapped and allocate nothing more;
 * the pool outlives the split's hold while a scan still uses it, and is freed once everything is
 * done.
 */
@ExtendWith(LeakCheckExtension.class)
class ScanMemoryTest {
    private static final int FILES = 4;
    private static final int ROWS = 3_000;

    @TempDir
    Path dir;

    private final MemoryTracker tracker = MemoryTracker.root().child("ScanMemoryTest");
    private List<Path> files;

    @BeforeEach
    void writeFiles() {
        files = SplitFiles.write(dir, FILES, ROWS);
    }

    @AfterEach
    void closeTracker() {
        tracker.close();
    }

    private static long allocated() {
        return NativeArrowStats.read().allocatedBytes();
    }

    /** Reads file {@code f} whole through {@code scan}, checking every row, closing each batch. */
    private static void readFile(int f, NativeParquetScan scan) {
        long rows = 0;
        while (scan.hasNext()) {
            try (ArrowColumnarBatch batch = scan.next()) {
                for (int r = 0; r < batch.numRows(); r++, rows++) {
                    SplitFiles.assertRow(f, rows, batch.row(r));
                }
            }
        }
        assertEquals(ROWS, rows);
    }

    private NativeParquetScan scan(NativeParquetFile file, ScanMemory memory) {
        return file.scan(ScanOptions.of(SplitFiles.SCHEMA).withBatchSize(1_000), tracker, null, null, memory);
    }

    @Test
    void aSplitsLaterFilesDecodeIntoWhatTheFirstLeftMapped() {
        long before = allocated();
        try (ScanMemory memory = new ScanMemory()) {
            long afterFirst = 0;
            for (int f = 0; f < FILES; f++) {
                try (NativeParquetFile file = NativeParquetFile.open(files.get(f));
                        NativeParquetScan scan = scan(file, memory)) {
                    readFile(f, scan);
                    if (f == 0) {
                        afterFirst = allocated();
                        assertTrue(afterFirst > before, "the first file's buffers are the split's pool");
                    } else {
                        // Measured with the scan still open: a pool of its own would be counted too.
                        assertEquals(afterFirst, allocated(), "file " + f + " allocated nothing more");
                    }
                }
                assertEquals(afterFirst, allocated(), "the split holds its pool past the scan");
            }
        }
        assertEquals(before, allocated(), "the split's hold released, the pool is freed");
        assertEquals(0, tracker.liveArrays());
    }

    @Test
    void aScanKeepsThePoolAfterTheSplitReleasesIt() {
        long before = allocated();
        ScanMemory memory = new ScanMemory();
        try (NativeParquetFile first = NativeParquetFile.open(files.get(0));
                NativeParquetScan scan = scan(first, memory)) {
            readFile(0, scan);
        }
        long pooled = allocated();
        try (NativeParquetFile second = NativeParquetFile.open(files.get(1));
                NativeParquetScan scan = scan(second, memory)) {
            memory.close();
            memory.close();
            assertEquals(pooled, allocated(), "the open scan holds the pool");
            readFile(1, scan);
            assertEquals(pooled, allocated(), "and decodes into it");
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> scan(second, memory));
            assertEquals("this split's scan memory is closed", e.getMessage());
        }
        assertEquals(before, allocated(), "the last scan closed, the pool is freed");
    }
}
