package dev.isthmus.iceberg.source;

import dev.isthmus.arrow.vector.BinaryRows;
import java.util.Set;
import org.apache.flink.connector.base.source.reader.RecordsWithSplitIds;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.iceberg.flink.source.reader.RecordAndPosition;

/**
 * One decoded batch of a split as Flink binary rows transposed on the fetcher thread, before the
 * records were handed over, the batch's Arrow memory already released ({@link BinaryRowRecords}
 * transposes on the task thread instead; {@link NativeTaskReader} says which runs when). Every record is the same {@link BinaryRowData} pointed at the next row, with Iceberg's
 * position after it, counted as {@link ArrowBatchRecords} counts them. Rows must not be kept past
 * the emit: {@link #recycle()} gives their array back for a later batch.
 */
final class TransposedRowRecords implements RecordsWithSplitIds<RecordAndPosition<RowData>> {
    private final BinaryRowBuffers buffers;
    private final BinaryRowData row;
    private final RecordAndPosition<RowData> position = new RecordAndPosition<>();
    private final int fileOffset;
    private final long firstRecordOffset;
    private BinaryRows rows;
    private String nextSplit;
    private int next;

    /** {@code rows}, taken from {@code buffers}: the records of file {@code fileOffset} after its first {@code firstRecordOffset}. */
    TransposedRowRecords(String splitId, BinaryRows rows, BinaryRowBuffers buffers, int fileOffset,
            long firstRecordOffset) {
        this.nextSplit = splitId;
        this.rows = rows;
        this.buffers = buffers;
        this.row = new BinaryRowData(buffers.rowType().getFieldCount());
        this.fileOffset = fileOffset;
        this.firstRecordOffset = firstRecordOffset;
    }

    @Override
    public String nextSplit() {
        String s = nextSplit;
        nextSplit = null;
        return s;
    }

    @Override
    public RecordAndPosition<RowData> nextRecordFromSplit() {
        if (rows == null || next >= rows.count()) {
            return null;
        }
        rows.pointTo(row, next);
        next++;
        position.set(row, fileOffset, firstRecordOffset + next);
        return position;
    }

    @Override
    public Set<String> finishedSplits() {
        return Set.of();
    }

    @Override
    public void recycle() {
        if (rows != null) {
            buffers.give(rows);
            rows = null;
        }
    }
}
