package dev.isthmus.iceberg.sink.write;

import org.apache.flink.table.data.RowData;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.deletes.EqualityDeleteWriter;
import org.apache.iceberg.deletes.PositionDeleteWriter;
import org.apache.iceberg.encryption.EncryptedOutputFile;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.io.FileAppenderFactory;
import org.apache.iceberg.io.FileWriterFactory;

/**
 * Splits the files of one task writer between two factories: data files from the pluggable
 * {@link DataFileAppenders}, equality and position delete files from Iceberg's Java writers, so
 * that delete files keep Iceberg's exact layout whatever encodes the data.
 *
 * <p>A {@link FileWriterFactory} rather than a {@link FileAppenderFactory} because only the
 * former lets Iceberg's task writers write deletion vectors on format-v3 tables.
 */
final class SinkFileWriters implements FileWriterFactory<RowData> {
    private final FileAppenderFactory<RowData> dataFiles;
    private final FileAppenderFactory<RowData> deleteFiles;
    private final FileFormat dataFormat;
    private final FileFormat deleteFormat;

    SinkFileWriters(
            FileAppenderFactory<RowData> dataFiles,
            FileFormat dataFormat,
            FileAppenderFactory<RowData> deleteFiles,
            FileFormat deleteFormat) {
        this.dataFiles = dataFiles;
        this.dataFormat = dataFormat;
        this.deleteFiles = deleteFiles;
        this.deleteFormat = deleteFormat;
    }

    @Override
    public DataWriter<RowData> newDataWriter(EncryptedOutputFile file, PartitionSpec spec, StructLike partition) {
        return dataFiles.newDataWriter(file, dataFormat, partition);
    }

    @Override
    public EqualityDeleteWriter<RowData> newEqualityDeleteWriter(
            EncryptedOutputFile file, PartitionSpec spec, StructLike partition) {
        return deleteFiles.newEqDeleteWriter(file, deleteFormat, partition);
    }

    @Override
    public PositionDeleteWriter<RowData> newPositionDeleteWriter(
            EncryptedOutputFile file, PartitionSpec spec, StructLike partition) {
        return deleteFiles.newPosDeleteWriter(file, deleteFormat, partition);
    }
}
