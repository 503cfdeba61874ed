package dev.isthmus.iceberg.source;

import org.apache.flink.table.data.columnar.vector.ColumnVector;
import org.apache.flink.table.data.columnar.vector.LongColumnVector;

/**
 * A row-lineage metadata column (format v3) as Iceberg's Parquet readers give it: the file's own
 * value where it holds one (a file rewritten with its lineage), otherwise the data file's first
 * row id plus the row's position ({@code _row_id}), or the data file's sequence number
 * ({@code _last_updated_sequence_number}).
 *
 * @param base the data file's first row id, or its sequence number
 * @param perRow whether the row's position is added to {@code base}
 */
record RowLineage(long base, boolean perRow) {
    static RowLineage rowId(long firstRowId) {
        return new RowLineage(firstRowId, true);
    }

    static RowLineage lastUpdated(long fileSequenceNumber) {
        return new RowLineage(fileSequenceNumber, false);
    }

    /** The column of one batch whose first row is at {@code firstPosition}, over the decoded {@code file} column. */
    LongColumnVector over(ColumnVector file, long firstPosition) {
        LongColumnVector values = (LongColumnVector) file;
        long first = perRow ? base + firstPosition : base;
        long step = perRow ? 1 : 0;
        return new LongColumnVector() {
            @Override
            public boolean isNullAt(int i) {
                return false;
            }

            @Override
            public long getLong(int i) {
                return values.isNullAt(i) ? first + step * i : values.getLong(i);
            }
        };
    }
}
