package dev.isthmus.iceberg.source.parquet;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.isthmus.arrow.LeakCheckExtension;
import dev.isthmus.arrow.cdata.ImportedArray;
import dev.isthmus.arrow.flink.vector.ArrowColumnarBatch;
import dev.isthmus.arrow.flink.vector.ArrowRowData;
import dev.isthmus.arrow.memory.MemoryTracker;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.apache.iceberg.Files;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Files and scans closed while eight threads use them: every call either returns the right values
 * or throws an {@link IllegalStateException} naming what is closed, nothing reaches freed memory
 * (which would kill the JVM), and every allocation is released.
 */
@ExtendWith(LeakCheckExtension.class)
class NativeParquetFileConcurrencyTest {
    private static final int THREADS = 8;
    private static final int ROUNDS = 150;
    private static final int ROWS = 3_000;
    private static final int NAMES = 7;
    private static final Schema SCHEMA = new Schema(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.optional(2, "name", Types.StringType.get()));

    @TempDir
    Path dir;

    private final MemoryTracker tracker = MemoryTracker.root().child("NativeParquetFileConcurrencyTest");
    private final AtomicLong succeeded = new AtomicLong();
    private final AtomicLong refused = new AtomicLong();

    @AfterEach
    void closeTracker() {
        tracker.close();
    }

    @Test
    void closingWhileEightThreadsReadNeverReachesFreedMemory() throws Exception {
        Path path = dir.resolve("shared.parquet");
        List<Record> records = new ArrayList<>();
        for (long id = 0; id < ROWS; id++) {
            GenericRecord record = GenericRecord.create(SCHEMA);
            record.setField("id", id);
            record.setField("name", "n" + (id % NAMES));
            records.add(record);
        }
        IcebergParquetFiles.write(
                path,
                SCHEMA,
                records,
                Map.of("write.parquet.row-group-size-bytes", "4096", "write.parquet.page-row-limit", "100"));
        Expected expected = Expected.of(path, tracker);
        assertTrue(expected.chunks.length > 2, "several row groups to race over");

        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        try {
            for (int round = 0; round < ROUNDS; round++) {
                NativeParquetFile file = round % 2 == 0
                        ? NativeParquetFile.open(path)
                        : NativeParquetFile.open(Files.localInput(path.toFile()));
                AtomicBoolean closed = new AtomicBoolean();
                ConcurrentLinkedQueue<NativeParquetScan> openScans = new ConcurrentLinkedQueue<>();
                List<Future<?>> workers = new ArrayList<>();
                for (int t = 0; t < THREADS; t++) {
                    workers.add(pool.submit(() -> {
                        // Keep going a little after the close, so calls on a closed file are raced too.
                        int afterClose = 0;
                        while (afterClose < 3) {
                            if (closed.get()) {
                                afterClose++;
                            }
                            callSomething(file, expected, openScans);
                        }
                        return null;
                    }));
                }
                LockSupport.parkNanos(ThreadLocalRandom.current().nextLong(2_000_000));
                // Scans are closed from here while their owners iterate them, and the file too.
                for (NativeParquetScan scan : openScans) {
                    if (ThreadLocalRandom.current().nextBoolean()) {
                        scan.close();
                    }
                }
                file.close();
                closed.set(true);
                for (Future<?> worker : workers) {
                    worker.get();
                }
                file.close();
            }
        } finally {
            pool.shutdown();
        }
        assertTrue(
                succeeded.get() > 0 && refused.get() > 0,
                "calls both succeeded and were refused: " + succeeded + " / " + refused);
    }

    /** One random call on {@code file}, which may be closed before, during or after it. */
    private void callSomething(
            NativeParquetFile file, Expected expected, ConcurrentLinkedQueue<NativeParquetScan> scans) {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        int group = random.nextInt(expected.chunks.length);
        try {
            switch (random.nextInt(5)) {
                case 0 -> {
                    int leaf = random.nextInt(2);
                    assertChunk(expected.chunks[group][leaf], file.columnChunk(group, leaf));
                }
                case 1 -> {
                    try (ImportedArray dictionary = file.dictionary(group, 1, tracker)) {
                        assertEquals(expected.names, dictionaryNames(dictionary));
                    }
                }
                case 2 -> assertEquals(expected.rowGroups.get(group), file.rowGroup(group));
                case 3 -> assertEquals(2, file.columns().size());
                default -> scan(file, scans, random);
            }
            succeeded.incrementAndGet();
        } catch (IllegalStateException e) {
            assertTrue(e.getMessage().contains(file.name()), "names what is closed: " + e.getMessage());
            refused.incrementAndGet();
        }
    }

    /** A scan of every row, checked value by value; it may be closed by the main thread at any time. */
    private void scan(
            NativeParquetFile file, ConcurrentLinkedQueue<NativeParquetScan> scans, ThreadLocalRandom random) {
        try (NativeParquetScan scan =
                file.scan(ScanOptions.of(SCHEMA).withBatchSize(1 + random.nextInt(400)), tracker)) {
            scans.add(scan);
            long next = 0;
            try {
                while (scan.hasNext()) {
                    try (ArrowColumnarBatch batch = scan.next()) {
                        ArrowRowData row = batch.row(0);
                        for (int i = 0; i < batch.numRows(); i++, next++) {
                            row.setRowId(i);
                            assertEquals(next, row.getLong(0));
                            assertEquals("n" + (next % NAMES), row.getString(1).toString());
                        }
                    }
                    if (random.nextInt(8) == 0) {
                        LockSupport.parkNanos(random.nextLong(100_000));
                    }
                }
                assertEquals(ROWS, next, "a scan that ends read every row");
            } finally {
                scans.remove(scan);
            }
        }
    }

    private static void assertChunk(NativeParquetFile.ColumnChunk expected, NativeParquetFile.ColumnChunk actual) {
        assertEquals(expected.byteOffset(), actual.byteOffset());
        assertEquals(expected.compressedSize(), actual.compressedSize());
        assertEquals(expected.valueCount(), actual.valueCount());
        assertEquals(expected.nullCount(), actual.nullCount());
        assertArrayEquals(expected.min(), actual.min());
        assertArrayEquals(expected.max(), actual.max());
        assertEquals(expected.dictionaryPageOffset(), actual.dictionaryPageOffset());
        assertEquals(expected.dataPageOffset(), actual.dataPageOffset());
        assertEquals(expected.encodings(), actual.encodings());
        assertEquals(expected.allDictionary(), actual.allDictionary());
    }

    private static Set<String> dictionaryNames(ImportedArray dictionary) {
        var vector = dev.isthmus.arrow.flink.vector.ArrowVectors.of(dictionary.view());
        Set<String> names = new HashSet<>();
        for (int i = 0; i < dictionary.length(); i++) {
            var bytes = ((org.apache.flink.table.data.columnar.vector.BytesColumnVector) vector).getBytes(i);
            names.add(new String(bytes.data, bytes.offset, bytes.len, java.nio.charset.StandardCharsets.UTF_8));
        }
        return names;
    }

    /** What the file holds, read before any thread races. */
    private record Expected(
            NativeParquetFile.ColumnChunk[][] chunks, List<NativeParquetFile.RowGroup> rowGroups, Set<String> names) {
        static Expected of(Path path, MemoryTracker tracker) {
            try (NativeParquetFile file = NativeParquetFile.open(path)) {
                NativeParquetFile.ColumnChunk[][] chunks = new NativeParquetFile.ColumnChunk[file.rowGroupCount()][2];
                List<NativeParquetFile.RowGroup> groups = new ArrayList<>();
                for (int g = 0; g < chunks.length; g++) {
                    groups.add(file.rowGroup(g));
                    for (int leaf = 0; leaf < 2; leaf++) {
                        chunks[g][leaf] = file.columnChunk(g, leaf);
                    }
                    assertTrue(chunks[g][1].dictionaryCoversValues(), "every name is in the dictionary");
                }
                Set<String> names = new HashSet<>();
                for (int i = 0; i < NAMES; i++) {
                    names.add("n" + i);
                }
                try (ImportedArray dictionary = file.dictionary(0, 1, tracker)) {
                    assertEquals(names, dictionaryNames(dictionary));
                }
                return new Expected(chunks, groups, names);
            }
        }
    }
}
