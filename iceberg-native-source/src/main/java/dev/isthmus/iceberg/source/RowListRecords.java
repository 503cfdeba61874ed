package dev.isthmus.iceberg.source;

import java.util.List;
import java.util.Set;
import org.apache.flink.connector.base.source.reader.RecordsWithSplitIds;
import org.apache.flink.table.data.RowData;
import org.apache.iceberg.flink.source.reader.RecordAndPosition;

/**
 * Rows a fallback task read with Iceberg's stock reader (copies, since that reader reuses its
 * row), with positions after each record, counted as that reader counts them.
 */
final class RowListRecords implements RecordsWithSplitIds<RecordAndPosition<RowData>> {
    private final List<RowData> rows;
    private final RecordAndPosition<RowData> position = new RecordAndPosition<>();
    private final int fileOffset;
    private final long firstRecordOffset;
    private String nextSplit;
    private int next;

    RowListRecords(String splitId, List<RowData> rows, int fileOffset, long firstRecordOffset) {
        this.nextSplit = splitId;
        this.rows = rows;
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
        if (next >= rows.size()) {
            return null;
        }
        RowData row = rows.get(next);
        next++;
        position.set(row, fileOffset, firstRecordOffset + next);
        return position;
    }

    @Override
    public Set<String> finishedSplits() {
        return Set.of();
    }

    @Override
    public void recycle() {}
}
