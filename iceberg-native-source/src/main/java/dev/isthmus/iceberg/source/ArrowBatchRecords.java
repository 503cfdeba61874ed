package dev.isthmus.iceberg.source;

import dev.isthmus.arrow.flink.vector.ArrowColumnarBatch;
import dev.isthmus.arrow.flink.vector.ArrowRowData;
import java.lang.ref.Cleaner;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.columnar.vector.VectorizedColumnBatch;
import org.apache.iceberg.flink.source.reader.RecordAndPosition;

/**
 * One decoded Arrow batch of a split, handed to Flink's source reader: every row is the same
 * {@link ArrowRowData} moved along the batch (no copy), with Iceberg's position after it,
 * so a checkpoint taken between two records resumes exactly after the last one emitted.
 * {@link #recycle()}, called once the reader has emitted the batch, releases its native memory.
 *
 * <p>A batch may emit only some of its rows (those a filter kept, up to a limit): the selection
 * lists them, and positions count emitted records, as Iceberg's own reader counts them.
 *
 * <p>Rows must not be kept past the emit: downstream operators copy them (Flink's default
 * without object reuse), as they do for Flink's own columnar formats.
 *
 * <p>Flink does not recycle the batches still queued in a source reader that is cancelled or
 * fails; a cleaner releases a batch that becomes unreachable without having been recycled, so a
 * failover does not leak the decoder's memory.
 */
final class ArrowBatchRecords extends SplitRecords {
    private final Cleaner.Cleanable release;
    private final ArrowRowData row;
    private final int[] selection;
    private final int rows;
    private int next;

    private ArrowBatchRecords(
            String splitId,
            ArrowColumnarBatch batch,
            VectorizedColumnBatch columns,
            int[] selection,
            int rows,
            int fileOffset,
            long firstRecordOffset) {
        super(splitId, fileOffset, firstRecordOffset);
        this.release = BatchCleaner.register(this, batch);
        this.selection = selection;
        this.rows = rows;
        this.row = new ArrowRowData(columns);
    }

    /**
     * Rows {@code selection[0..rows)} of {@code columns} (all rows {@code 0..rows) when the selection
     * is {@code null}), the records of file {@code fileOffset} of the split that come after the
     * first {@code firstRecordOffset} records; {@code columns} reads {@code batch}'s memory, which
     * {@link #recycle()} releases.
     */
    static ArrowBatchRecords of(
            String splitId,
            ArrowColumnarBatch batch,
            VectorizedColumnBatch columns,
            int[] selection,
            int rows,
            int fileOffset,
            long firstRecordOffset) {
        return new ArrowBatchRecords(splitId, batch, columns, selection, rows, fileOffset, firstRecordOffset);
    }

    @Override
    public RecordAndPosition<RowData> nextRecordFromSplit() {
        if (next >= rows) {
            return null;
        }
        row.setRowId(selection == null ? next : selection[next]);
        next++;
        return record(row, next);
    }

    @Override
    public void recycle() {
        release.clean();
    }
}
