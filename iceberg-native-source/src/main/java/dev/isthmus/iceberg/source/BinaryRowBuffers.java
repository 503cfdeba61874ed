package dev.isthmus.iceberg.source;

import dev.isthmus.arrow.vector.BinaryRows;
import java.util.ArrayDeque;
import org.apache.flink.table.types.logical.RowType;

/**
 * The heap arrays one reader transposes its batches into ({@link NativeReadOptions.RowFormat#BINARY}),
 * for rows of one type. An array is reused only once Flink has recycled the batch that held it:
 * Flink's reader queues a few batches (two by default) besides the one it emits, so a few arrays
 * circulate. Taken and given back by the task thread, which transposes the batches as it emits them.
 */
final class BinaryRowBuffers {
    /** Enough for Flink's default queue of two batches, the batch being emitted and one being read. */
    private static final int KEPT = 4;
    /** A larger array (a batch of big strings) is left to the garbage collector rather than kept. */
    private static final int MAX_KEPT_BYTES = 64 << 20;

    private final RowType rowType;
    private final ArrayDeque<BinaryRows> free = new ArrayDeque<>();

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
}
