package dev.isthmus.iceberg.sink.write;

import java.io.Serializable;
import org.apache.flink.table.data.RowData;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.deletes.EqualityDeleteWriter;
import org.apache.iceberg.deletes.PositionDeleteWriter;
import org.apache.iceberg.encryption.EncryptedOutputFile;
import org.apache.iceberg.flink.sink.FlinkAppenderFactory;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.io.FileAppender;
import org.apache.iceberg.io.FileAppenderFactory;
import org.apache.iceberg.io.OutputFile;

/**
 * The seam through which the sink gets its data files written: everything else (partitioning,
 * rolling at the target size, delete files, manifests, commits) is the sink's and Iceberg's.
 *
 * <p>It is serialised with the job graph and called once per writer subtask on the task manager,
 * so the {@link FileAppenderFactory} it returns need not be serialisable itself. Only
 * {@code newAppender} and {@code newDataWriter} of that factory are used: equality and position
 * delete files are always written by Iceberg's Java writers ({@link SinkFileWriters}).
 *
 * <p>To plug in another encoder, pass {@code DataFileAppenders.of((context, file) -> ...)} to
 * {@code NativeIcebergSink.Builder#dataFileAppenders}, or change the builder's default.
 */
@FunctionalInterface
public interface DataFileAppenders extends Serializable {

    FileAppenderFactory<RowData> create(DataFileContext context);

    /** Iceberg's own Java Parquet/Avro/ORC writers: the data files the stock FlinkSink writes. */
    @SuppressWarnings("deprecation") // FlinkAppenderFactory: the public entry to Iceberg's Flink writers
    DataFileAppenders ICEBERG_JAVA = context -> new FlinkAppenderFactory(
            context.table(),
            context.schema(),
            context.flinkType(),
            context.writeProperties(),
            context.spec(),
            null,
            null);

    /** Data files from any producer of a {@link FileAppender}, one call per file. */
    static DataFileAppenders of(AppenderProducer producer) {
        return context -> new ProducedAppenders(context, producer);
    }

    /** Opens the appender that encodes one data file. */
    @FunctionalInterface
    interface AppenderProducer extends Serializable {
        FileAppender<RowData> newAppender(DataFileContext context, OutputFile file);
    }

    /** A data-only factory: the sink never asks it for delete writers. */
    final class ProducedAppenders implements FileAppenderFactory<RowData> {
        private final DataFileContext context;
        private final AppenderProducer producer;

        ProducedAppenders(DataFileContext context, AppenderProducer producer) {
            this.context = context;
            this.producer = producer;
        }

        @Override
        public FileAppender<RowData> newAppender(OutputFile file, FileFormat format) {
            if (format != context.format()) {
                throw new IllegalArgumentException(
                        "This data-file writer writes " + context.format() + ", not " + format);
            }
            return producer.newAppender(context, file);
        }

        @Override
        public DataWriter<RowData> newDataWriter(EncryptedOutputFile file, FileFormat format, StructLike partition) {
            return new DataWriter<>(
                    newAppender(file.encryptingOutputFile(), format),
                    format,
                    file.encryptingOutputFile().location(),
                    context.spec(),
                    partition,
                    file.keyMetadata());
        }

        @Override
        public EqualityDeleteWriter<RowData> newEqDeleteWriter(
                EncryptedOutputFile file, FileFormat format, StructLike partition) {
            throw new UnsupportedOperationException("Delete files are written by Iceberg's Java writers");
        }

        @Override
        public PositionDeleteWriter<RowData> newPosDeleteWriter(
                EncryptedOutputFile file, FileFormat format, StructLike partition) {
            throw new UnsupportedOperationException("Delete files are written by Iceberg's Java writers");
        }
    }
}
