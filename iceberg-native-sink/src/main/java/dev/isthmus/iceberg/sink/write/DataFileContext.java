package dev.isthmus.iceberg.sink.write;

import dev.isthmus.arrow.memory.MemoryTracker;
import java.util.Map;
import org.apache.flink.table.types.logical.RowType;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;

/**
 * What a data-file writer needs to know about the table it writes for, handed to
 * {@link DataFileAppenders#create} on the task manager once per writer subtask.
 *
 * @param table the table as loaded by the task (its FileIO, properties, metrics config)
 * @param schema the Iceberg schema rows are written with
 * @param flinkType the Flink type of the incoming rows (TINYINT/SMALLINT stay as such here,
 *     while the Iceberg schema widens them to INTEGER)
 * @param spec the partition spec data files belong to
 * @param format the data file format (Parquet unless {@code write.format.default} says otherwise)
 * @param writeProperties table properties overlaid with the job's write options (codec, level)
 * @param memory the writer subtask's memory tracker, under which a native encoder counts (and
 *     caps) its Arrow batches and buffered pages
 * @param jobId the id of the job the writer subtask runs in (Flink's {@code JobID#toHexString()}),
 *     or {@code null} when not known; the native writers log a fallback once per job and table
 */
public record DataFileContext(
        Table table,
        Schema schema,
        RowType flinkType,
        PartitionSpec spec,
        FileFormat format,
        Map<String, String> writeProperties,
        MemoryTracker memory,
        String jobId) {}
