package dev.isthmus.iceberg.sink.write;

import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.FileWriterFactory;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.io.PartitionedFanoutWriter;

/** Appends to a partitioned table: one rolling data file writer per partition seen. */
final class PartitionedAppendWriter extends PartitionedFanoutWriter<RowData> {
    private final PartitionKey partitionKey;
    private final RowDataStruct wrapper;

    PartitionedAppendWriter(
            PartitionSpec spec,
            FileFormat format,
            FileWriterFactory<RowData> writers,
            OutputFileFactory files,
            FileIO io,
            long targetFileSize,
            Schema schema,
            RowType flinkType) {
        super(spec, format, writers, files, io, targetFileSize);
        this.partitionKey = new PartitionKey(spec, schema);
        this.wrapper = new RowDataStruct(flinkType, schema.asStruct());
    }

    @Override
    protected PartitionKey partition(RowData row) {
        partitionKey.partition(wrapper.wrap(row));
        return partitionKey;
    }
}
