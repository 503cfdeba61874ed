package dev.isthmus.iceberg.sink.parquet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.isthmus.arrow.LeakCheckExtension;
import dev.isthmus.arrow.builder.BufferAllocator;
import dev.isthmus.arrow.flink.builder.RowDataAppender;
import dev.isthmus.arrow.flink.vector.ArrowColumnarBatch;
import dev.isthmus.arrow.flink.vector.ArrowRowData;
import dev.isthmus.arrow.memory.MemoryTracker;
import dev.isthmus.iceberg.source.parquet.NativeParquetFile;
import dev.isthmus.iceberg.source.parquet.NativeParquetScan;
import dev.isthmus.iceberg.source.parquet.ScanOptions;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.StringData;
import org.apache.iceberg.Files;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * A writer closed or aborted while eight threads add rows, write batches and ask for its length
 * and metrics: every call either works or throws an {@link IllegalStateException} naming the
 * file, nothing reaches freed memory, nothing leaks, and a file that was completed holds exactly
 * the rows whose add or write returned.
 */
@ExtendWith(LeakCheckExtension.class)
class NativeParquetWriterConcurrencyTest {
    private static final int THREADS = 8;
    private static final int ROUNDS = 60;
    private static final Schema SCHEMA = new Schema(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.optional(2, "name", Types.StringType.get()));

    @TempDir
    Path dir;

    private final MemoryTracker tracker = MemoryTracker.root().child("NativeParquetWriterConcurrencyTest");

    @AfterEach
    void closeTracker() {
        tracker.close();
    }

    @Test
    void closingWhileEightThreadsWriteNeverReachesFreedMemory() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        AtomicLong refused = new AtomicLong();
        try {
            for (int round = 0; round < ROUNDS; round++) {
                Path path = dir.resolve("round-" + round + ".parquet");
                NativeParquetWriter writer = (round % 2 == 0
                                ? NativeParquet.write(Files.localOutput(path.toFile()))
                                : NativeParquet.write(path))
                        .schema(SCHEMA)
                        .batchSize(64)
                        .memoryTracker(tracker)
                        .build();
                AtomicLong ids = new AtomicLong();
                Set<Long> written = ConcurrentHashMap.newKeySet();
                AtomicBoolean ended = new AtomicBoolean();
                List<Future<?>> workers = new ArrayList<>();
                for (int t = 0; t < THREADS; t++) {
                    workers.add(pool.submit(() -> {
                        int afterEnd = 0;
                        while (afterEnd < 3) {
                            if (ended.get()) {
                                afterEnd++;
                            }
                            try {
                                callSomething(writer, ids, written);
                            } catch (IllegalStateException e) {
                                assertTrue(e.getMessage().contains(writer.location()), e.getMessage());
                                refused.incrementAndGet();
                            }
                        }
                        return null;
                    }));
                }
                LockSupport.parkNanos(ThreadLocalRandom.current().nextLong(3_000_000));
                boolean abort = round % 5 == 4;
                if (abort) {
                    writer.abort();
                } else {
                    writer.close();
                }
                ended.set(true);
                for (Future<?> worker : workers) {
                    worker.get();
                }
                writer.close();
                // A worker may have closed the writer before the abort came.
                Long recordCount = recordCountIfCompleted(writer);
                if (recordCount == null) {
                    assertTrue(abort, "only an abort fails the writer");
                    assertTrue(!java.nio.file.Files.exists(path), "an aborted writer leaves no file");
                } else {
                    assertEquals(written.size(), recordCount, "every row whose add or write returned");
                    if (!written.isEmpty()) {
                        assertEquals(written, readIds(path));
                    }
                }
            }
        } finally {
            pool.shutdown();
        }
        assertTrue(refused.get() > 0, "calls after the close were refused");
    }

    /** One random call; the rows it wrote are added to {@code written} once the call returned. */
    private void callSomething(NativeParquetWriter writer, AtomicLong ids, Set<Long> written) throws IOException {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        if (random.nextInt(200) == 0) {
            writer.close();
            return;
        }
        switch (random.nextInt(10)) {
            case 0 -> assertTrue(writer.length() >= 0);
            case 1 -> assertTrue(writer.metrics().recordCount() >= 0);
            case 2 -> writer.splitOffsets();
            case 3 -> {
                // A batch built apart and handed over whole.
                List<Long> batch = new ArrayList<>();
                RowDataAppender appender =
                        new RowDataAppender(NativeParquetWriter.flinkType(SCHEMA), new BufferAllocator(tracker));
                try (appender) {
                    for (int i = random.nextInt(1, 100); i > 0; i--) {
                        long id = ids.getAndIncrement();
                        appender.append(row(id));
                        batch.add(id);
                    }
                    writer.write(appender.finish());
                }
                written.addAll(batch);
            }
            default -> {
                for (int i = random.nextInt(1, 50); i > 0; i--) {
                    long id = ids.getAndIncrement();
                    writer.add(row(id));
                    written.add(id);
                }
            }
        }
    }

    /** The file's record count, or {@code null} if the writer failed (was aborted). */
    private static Long recordCountIfCompleted(NativeParquetWriter writer) {
        try {
            return writer.metrics().recordCount();
        } catch (IllegalStateException e) {
            return null;
        }
    }

    private static GenericRowData row(long id) {
        return GenericRowData.of(id, StringData.fromString("name " + id % 13));
    }

    private Set<Long> readIds(Path path) {
        Set<Long> ids = new java.util.HashSet<>();
        try (NativeParquetFile file = NativeParquetFile.open(path);
                NativeParquetScan scan = file.scan(ScanOptions.of(SCHEMA), tracker)) {
            while (scan.hasNext()) {
                try (ArrowColumnarBatch batch = scan.next()) {
                    ArrowRowData row = batch.row(0);
                    for (int i = 0; i < batch.numRows(); i++) {
                        row.setRowId(i);
                        long id = row.getLong(0);
                        assertEquals("name " + id % 13, row.getString(1).toString());
                        assertTrue(ids.add(id), "row " + id + " written once");
                    }
                }
            }
        } catch (UncheckedIOException e) {
            throw new AssertionError(e);
        }
        return ids;
    }
}
