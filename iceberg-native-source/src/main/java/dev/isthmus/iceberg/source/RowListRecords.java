package dev.isthmus.iceberg.source;

import java.util.List;
import org.apache.flink.table.data.RowData;
import org.apache.iceberg.flink.source.reader.RecordAndPosition;

/**
 * Rows a fallback task read with Iceberg's stock reader (copies, since that reader reuses its
 * row), with positions after each record, counted as that reader counts them.
 */
final class RowListRecords extends SplitRecords {
    private final List<RowData> rows;
    private int next;

    RowListRecords(String splitId, List<RowData> rows, int fileOffset, long firstRecordOffset) {
        super(splitId, fileOffset, firstRecordOffset);
        this.rows = rows;
    }

    @Override
    public RecordAndPosition<RowData> nextRecordFromSplit() {
        if (next >= rows.size()) {
            return null;
        }
        RowData row = rows.get(next);
        next++;
        return record(row, next);
    }

    @Override
    public void recycle() {}
}
