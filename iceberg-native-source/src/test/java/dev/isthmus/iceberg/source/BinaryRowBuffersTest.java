package dev.isthmus.iceberg.source;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.isthmus.arrow.flink.vector.BinaryRows;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.RowType;
import org.junit.jupiter.api.Test;

/**
 * The arrays binary rows are transposed into go round: reused once given back, a few kept; and the
 * count of batches handed over tells when the task thread is behind.
 */
class BinaryRowBuffersTest {
    private final BinaryRowBuffers buffers = new BinaryRowBuffers(RowType.of(new BigIntType()));

    @Test
    void anArrayIsReusedOnlyOnceGivenBack() {
        BinaryRows first = buffers.take();
        BinaryRows second = buffers.take();
        assertNotSame(first, second, "an array still in use is not handed out again");
        buffers.give(first);
        assertSame(first, buffers.take());
    }

    @Test
    void aFewArraysAreKept() {
        List<BinaryRows> taken = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            taken.add(buffers.take());
        }
        taken.forEach(buffers::give);
        List<BinaryRows> again = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            again.add(buffers.take());
        }
        again.removeIf(rows -> taken.stream().anyMatch(t -> t == rows));
        assertEquals(2, again.size(), "four of the six were kept");
    }

    @Test
    void theTaskThreadIsBehindWhileABatchWaitsBesidesTheOneItEmits() {
        assertFalse(buffers.taskThreadBehind(), "nothing handed over");
        buffers.handedOver();
        assertFalse(buffers.taskThreadBehind(), "one batch: the one being emitted");
        buffers.handedOver();
        assertTrue(buffers.taskThreadBehind(), "a second batch waits");
        buffers.handedOver();
        assertTrue(buffers.taskThreadBehind());
        buffers.recycled();
        buffers.recycled();
        assertFalse(buffers.taskThreadBehind(), "caught up to one batch again");
    }
}
