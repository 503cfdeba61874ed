package dev.isthmus.iceberg.source;

import dev.isthmus.arrow.flink.vector.BinaryRows;
import java.util.ArrayDeque;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.flink.table.types.logical.RowType;

/**
 * The heap arrays one reader transposes its batches into ({@link NativeReadOptions.RowFormat#BINARY}),
 * for rows of one type. An array is reused only once Flink has recycled the batch that held it:
 * Flink's reader queues a few batches (two by default) besides the one it emits, so a few arrays
 * circulate. Taken by whichever thread transposes a batch, given back by the task thread.
 *
 * <p>They also count the batches handed to the task thread and not yet recycled, which tells the
 * fetcher thread which of the two is behind ({@link #taskThreadBehind}).
 */
final class BinaryRowBuffers {
    /** Enough for Flink's default queue of two batches, the batch being emitted and one being read. */
    private static final int KEPT = 4;
    /** A larger array (a batch of big strings) is left to the garbage collector rather than kept. */
    private static final int MAX_KEPT_BYTES = 64 << 20;

    /**
     * At this many batches handed over and not yet recycled, the task thread has a whole batch
     * waiting behind the one it emits: it is the slower thread.
     */
    static final int BEHIND = 2;

    private final RowType rowType;
    private final ArrayDeque<BinaryRows> free = new ArrayDeque<>();
    private final AtomicInteger unrecycled = new AtomicInteger();

    BinaryRowBuffers(RowType rowType) {
        this.rowType = rowType;
    }

    RowType rowType() {
        return rowType;
    }

    /** An array no batch that Flink has not recycled uses. */
    synchronized BinaryRows take() {
        BinaryRows rows = free.poll();
        return rows == null ? new BinaryRows() : rows;
    }

    /** Gives back an array whose rows nothing reads any more. */
    synchronized void give(BinaryRows rows) {
        if (free.size() < KEPT && rows.capacityInBytes() <= MAX_KEPT_BYTES) {
            free.push(rows);
        }
    }

    /** A batch of binary records handed to the task thread (by the fetcher thread). */
    void handedOver() {
        unrecycled.incrementAndGet();
    }

    /** A batch of binary records recycled (by the task thread). */
    void recycled() {
        unrecycled.decrementAndGet();
    }

    /**
     * Whether the task thread has a batch waiting besides the one it emits, so that the fetcher
     * thread, which would otherwise soon wait for room in Flink's queue, had better transpose the
     * next batch itself.
     */
    boolean taskThreadBehind() {
        return unrecycled.get() >= BEHIND;
    }
}
