package dev.isthmus.arrow.cdata;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.isthmus.arrow.LeakCheckExtension;
import dev.isthmus.arrow.NativeRoundTrip;
import dev.isthmus.arrow.flink.vector.ArrowColumnarBatch;
import dev.isthmus.arrow.flink.vector.ArrowVectors;
import dev.isthmus.arrow.memory.MemoryTracker;
import dev.isthmus.ffm.NativeArrowStats;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.columnar.vector.BytesColumnVector;
import org.apache.flink.table.data.columnar.vector.LongColumnVector;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarCharType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Imported batches closed, by several threads at once, while eight threads read them through
 * rows, column vectors and the raw view: every read returns the batch's value or throws an
 * {@link IllegalStateException}, every array is released exactly once, nothing leaks.
 */
@ExtendWith(LeakCheckExtension.class)
class ImportedArrayConcurrencyTest {
    private static final int THREADS = 8;
    private static final int ROUNDS = 300;
    private static final int ROWS = 500;
    private static final RowType TYPE =
            RowType.of(new LogicalType[] {new BigIntType(), new VarCharType(100)}, new String[] {"id", "name"});

    private final MemoryTracker tracker = MemoryTracker.root().child("ImportedArrayConcurrencyTest");

    @AfterEach
    void closeTracker() {
        tracker.close();
    }

    @Test
    void closingWhileEightThreadsReadReleasesOnceAndNeverReadsFreedMemory() throws Exception {
        List<GenericRowData> rows = new ArrayList<>();
        for (long id = 0; id < ROWS; id++) {
            rows.add(GenericRowData.of(id, StringData.fromString("name " + id)));
        }
        long importedBefore = NativeArrowStats.read().importedLive();
        AtomicLong read = new AtomicLong();
        AtomicLong refused = new AtomicLong();
        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        try {
            for (int round = 0; round < ROUNDS; round++) {
                ArrowColumnarBatch batch = NativeRoundTrip.batch(rows, TYPE, tracker);
                List<Future<?>> readers = new ArrayList<>();
                for (int t = 0; t < THREADS; t++) {
                    int thread = t;
                    readers.add(pool.submit(() -> {
                        ThreadLocalRandom random = ThreadLocalRandom.current();
                        // Read until the close is seen, then once more.
                        boolean closedSeen = false;
                        while (!closedSeen) {
                            closedSeen = batch.array().isClosed();
                            int row = random.nextInt(ROWS);
                            try {
                                readOne(batch, row, random.nextInt(3));
                                read.incrementAndGet();
                            } catch (IllegalStateException e) {
                                refused.incrementAndGet();
                            }
                            if (thread == 0 && random.nextInt(64) == 0) {
                                batch.close(); // a reader closing too: still released once
                            }
                        }
                        return null;
                    }));
                }
                LockSupport.parkNanos(ThreadLocalRandom.current().nextLong(500_000));
                batch.close();
                for (Future<?> reader : readers) {
                    reader.get();
                }
                batch.close();
                assertEquals(0, tracker.liveArrays(), "round " + round);
                assertEquals(importedBefore, NativeArrowStats.read().importedLive(), "released in round " + round);
            }
        } finally {
            pool.shutdown();
        }
        assertTrue(
                read.get() > 0 && refused.get() > 0,
                "reads both succeeded and were refused after close: " + read + " / " + refused);
    }

    /** One value of {@code row}, checked, through a row, a column vector or the view's buffers. */
    private static void readOne(ArrowColumnarBatch batch, int row, int path) {
        switch (path) {
            case 0 -> {
                RowData data = batch.row(row);
                assertEquals(row, data.getLong(0));
                assertEquals("name " + row, data.getString(1).toString());
            }
            case 1 -> {
                BytesColumnVector.Bytes bytes = ((BytesColumnVector) batch.batch().columns[1]).getBytes(row);
                assertEquals(
                        "name " + row,
                        new String(bytes.data, bytes.offset, bytes.len, java.nio.charset.StandardCharsets.UTF_8));
            }
            default -> {
                ArrowArrayView ids = batch.array().view().child(0);
                assertEquals(row, ((LongColumnVector) ArrowVectors.of(ids)).getLong(row));
            }
        }
    }
}
