package dev.isthmus.iceberg.source;

import org.apache.flink.connector.base.source.reader.RecordsWithSplitIds;
import org.apache.flink.table.data.RowData;
import org.apache.iceberg.flink.source.reader.RecordAndPosition;

/** The records of one file scan task of a split, batch by batch. */
interface TaskReader extends AutoCloseable {
    /** The next batch of at least one record, or {@code null} when the task (or the limit) is done. */
    RecordsWithSplitIds<RecordAndPosition<RowData>> next();

    @Override
    void close();
}
