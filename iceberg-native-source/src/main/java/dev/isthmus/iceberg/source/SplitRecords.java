package dev.isthmus.iceberg.source;

import java.util.Set;
import org.apache.flink.connector.base.source.reader.RecordsWithSplitIds;
import org.apache.flink.table.data.RowData;
import org.apache.iceberg.flink.source.reader.RecordAndPosition;

/**
 * What the native reader's records share: one split, and Iceberg's position after each record,
 * counted as Iceberg's {@code DataIterator} counts them (the records of file {@code fileOffset}
 * after its first {@code firstRecordOffset}), so a checkpoint taken between two records resumes
 * exactly after the last one emitted. One {@link RecordAndPosition} is reused for every record.
 */
abstract class SplitRecords implements RecordsWithSplitIds<RecordAndPosition<RowData>> {
    private final RecordAndPosition<RowData> position = new RecordAndPosition<>();
    private final int fileOffset;
    private final long firstRecordOffset;
    private String nextSplit;

    SplitRecords(String splitId, int fileOffset, long firstRecordOffset) {
        this.nextSplit = splitId;
        this.fileOffset = fileOffset;
        this.firstRecordOffset = firstRecordOffset;
    }

    /** {@code row} as the record after which {@code emitted} records of these have been emitted. */
    final RecordAndPosition<RowData> record(RowData row, long emitted) {
        position.set(row, fileOffset, firstRecordOffset + emitted);
        return position;
    }

    @Override
    public final String nextSplit() {
        String s = nextSplit;
        nextSplit = null;
        return s;
    }

    @Override
    public final Set<String> finishedSplits() {
        return Set.of();
    }
}
