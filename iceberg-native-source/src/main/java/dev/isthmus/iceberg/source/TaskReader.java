package dev.isthmus.iceberg.source;

import org.apache.flink.connector.base.source.reader.RecordsWithSplitIds;
import org.apache.flink.table.data.RowData;
import org.apache.iceberg.flink.source.reader.RecordAndPosition;

/** The records of one file scan task of a split, batch by batch. */
interface TaskReader extends AutoCloseable {
    /** The next batch of at least one record, or {@code null} when the task (or the limit) is done. */
    RecordsWithSplitIds<RecordAndPosition<RowData>> next();

    /**
     * Once {@link #next} has returned {@code null}: whether the file had no record at all (after
     * deletes and filters), so that the records it was asked to skip were not its to skip. A file
     * with records, but fewer than it was asked to skip, fails instead, as Iceberg's
     * {@code DataIterator.seek} does.
     */
    boolean empty();

    @Override
    void close();
}
