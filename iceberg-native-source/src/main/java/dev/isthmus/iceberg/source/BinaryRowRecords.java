package dev.isthmus.iceberg.source;

import dev.isthmus.arrow.flink.vector.ArrowColumnarBatch;
import dev.isthmus.arrow.flink.vector.BinaryRowTransposer;
import dev.isthmus.arrow.flink.vector.BinaryRows;
import java.lang.ref.Cleaner;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.data.columnar.vector.ColumnVector;
import org.apache.iceberg.flink.source.reader.RecordAndPosition;

/**
 * One decoded batch of a split as Flink binary rows ({@link NativeReadOptions.RowFormat#BINARY}).
 * Every record is the same {@link BinaryRowData} pointed at the next row, with Iceberg's position
 * after it, counted as {@link ArrowBatchRecords} counts them.
 *
 * <p>The rows are either transposed already ({@link #transposed}: by the fetcher thread, when the
 * task thread is behind, see {@link BinaryRowBuffers#taskThreadBehind}) or transposed as they are emitted,
 * {@value #CHUNK} at a time, on the task thread, into one small heap array: splitting the
 * transposes between the two threads Flink runs per reader keeps either from waiting on the
 * other, and a chunk's rows stay in the core's cache while every column writes its slots into
 * them and while Flink copies them downstream. The batch's Arrow memory is released once its last
 * chunk is transposed.
 *
 * <p>Rows must not be kept past the emit: the next chunk overwrites them (downstream operators
 * copy them without object reuse, one array copy each). {@link #recycle()} gives the array back
 * for a later batch. Records Flink drops without recycling (a failed or cancelled reader) release
 * their batch through a cleaner, as {@link ArrowBatchRecords} do.
 */
final class BinaryRowRecords extends SplitRecords {
    /** Rows per transpose: about 150 KB of typical rows, which stay in a core's L2 cache. */
    static final int CHUNK = 1024;

    private final BinaryRowBuffers buffers;
    private final BinaryRowTransposer transposer;
    private final Cleaner.Cleanable release;
    private final ColumnVector[] columns;
    private final int[] selection;
    private final int count;
    private final int[] chunkRows;
    private final BinaryRowData row;
    private BinaryRows rows;
    /** Rows of the batch transposed so far, and the next row to emit of the current chunk. */
    private int transposed;

    private int next;
    private boolean recycled;

    /**
     * {@code rows}, taken from {@code buffers} and already transposed (by the fetcher thread, the
     * batch they came from already released): the records of file {@code fileOffset} after its
     * first {@code firstRecordOffset}.
     */
    static BinaryRowRecords transposed(
            String splitId, BinaryRows rows, BinaryRowBuffers buffers, int fileOffset, long firstRecordOffset) {
        BinaryRowRecords records = new BinaryRowRecords(
                splitId, null, null, null, rows.count(), null, buffers, fileOffset, firstRecordOffset);
        records.rows = rows;
        records.transposed = rows.count();
        return records;
    }

    /**
     * Rows {@code selection[0..count)} of {@code columns} (rows {@code 0..count)} when the selection
     * is {@code null}), which read {@code batch}: the records of file {@code fileOffset} after its
     * first {@code firstRecordOffset}, transposed as they are emitted. {@code transposer} must be
     * used by one thread at a time: the task thread that emits these records. {@code batch} and
     * {@code transposer} are {@code null} for rows transposed already ({@link #transposed}).
     */
    BinaryRowRecords(
            String splitId,
            ArrowColumnarBatch batch,
            ColumnVector[] columns,
            int[] selection,
            int count,
            BinaryRowTransposer transposer,
            BinaryRowBuffers buffers,
            int fileOffset,
            long firstRecordOffset) {
        super(splitId, fileOffset, firstRecordOffset);
        this.release = batch == null ? () -> {} : BatchCleaner.register(this, batch);
        this.columns = columns;
        this.selection = selection;
        this.count = count;
        this.chunkRows = new int[transposer == null ? 0 : Math.min(count, CHUNK)];
        this.transposer = transposer;
        this.buffers = buffers;
        this.row = new BinaryRowData(buffers.rowType().getFieldCount());
        buffers.handedOver();
    }

    @Override
    public RecordAndPosition<RowData> nextRecordFromSplit() {
        if (rows == null || next >= rows.count()) {
            if (transposed >= count) {
                return null;
            }
            transposeNextChunk();
        }
        rows.pointTo(row, next);
        next++;
        return record(row, transposed - rows.count() + next);
    }

    private void transposeNextChunk() {
        if (rows == null) {
            rows = buffers.take();
        }
        int n = Math.min(CHUNK, count - transposed);
        for (int k = 0; k < n; k++) {
            chunkRows[k] = selection == null ? transposed + k : selection[transposed + k];
        }
        try {
            transposer.transpose(columns, chunkRows, n, rows);
        } catch (RuntimeException e) {
            release.clean();
            throw e;
        }
        transposed += n;
        next = 0;
        if (transposed == count) {
            release.clean();
        }
    }

    @Override
    public void recycle() {
        release.clean();
        if (!recycled) {
            recycled = true;
            buffers.recycled();
        }
        if (rows != null) {
            buffers.give(rows);
            rows = null;
        }
    }
}
