package dev.isthmus.iceberg.sink.write;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.deletes.DeleteGranularity;
import org.apache.iceberg.flink.FlinkSchemaUtil;
import org.apache.iceberg.flink.data.RowDataProjection;
import org.apache.iceberg.io.BaseTaskWriter;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.FileWriterFactory;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.types.TypeUtil;

/**
 * Writes a changelog (+I, -U, +U, -D) to a table with equality fields, with the semantics of
 * Iceberg's Flink delta writers: a row whose key was written earlier into a file this writer
 * still has open gets a position delete, any other key an equality delete. In upsert mode
 * +I/+U delete by key before inserting, -U is dropped (its +U deletes) and -D deletes by key
 * only, because the deleted row's other columns may not be known.
 *
 * <p>One delta writer per partition ({@link Partitioned}) or one for the table
 * ({@link Unpartitioned}). Position deletes are sorted per data file
 * ({@link DeleteGranularity#FILE}), or deletion vectors on format-v3 tables.
 */
abstract sealed class DeltaTaskWriter extends BaseTaskWriter<RowData>
        permits DeltaTaskWriter.Unpartitioned, DeltaTaskWriter.Partitioned {
    private final Schema schema;
    private final Schema keySchema;
    private final RowDataStruct rowWrapper;
    private final RowDataStruct keyWrapper;
    private final RowDataProjection keyProjection;
    private final boolean upsert;

    DeltaTaskWriter(
            PartitionSpec spec,
            FileFormat format,
            FileWriterFactory<RowData> writers,
            OutputFileFactory files,
            FileIO io,
            long targetFileSize,
            Schema schema,
            RowType flinkType,
            Set<Integer> equalityFieldIds,
            boolean upsert,
            boolean useDv) {
        super(spec, format, writers, files, io, targetFileSize, useDv);
        this.schema = schema;
        this.keySchema = TypeUtil.select(schema, equalityFieldIds);
        this.rowWrapper = new RowDataStruct(flinkType, schema.asStruct());
        this.keyWrapper = new RowDataStruct(FlinkSchemaUtil.convert(keySchema), keySchema.asStruct());
        this.keyProjection = RowDataProjection.create(flinkType, schema.asStruct(), keySchema.asStruct());
        this.upsert = upsert;
    }

    abstract KeyedWriter writerFor(RowData row);

    RowDataStruct rowWrapper() {
        return rowWrapper;
    }

    @Override
    public void write(RowData row) throws IOException {
        KeyedWriter writer = writerFor(row);
        switch (row.getRowKind()) {
            case INSERT, UPDATE_AFTER -> {
                if (upsert) {
                    writer.deleteKey(keyProjection.wrap(row));
                }
                writer.write(row);
            }
            case UPDATE_BEFORE -> {
                // In upsert mode the +U that follows deletes the key; deleting here too would
                // write the same delete twice.
                if (!upsert) {
                    writer.delete(row);
                }
            }
            case DELETE -> {
                if (upsert) {
                    writer.deleteKey(keyProjection.wrap(row));
                } else {
                    writer.delete(row);
                }
            }
        }
    }

    /** The equality delta writer of one partition (or of the whole unpartitioned table). */
    final class KeyedWriter extends BaseEqualityDeltaWriter {
        KeyedWriter(PartitionKey partition) {
            super(partition, schema, keySchema, DeleteGranularity.FILE, dvFileWriter());
        }

        @Override
        protected StructLike asStructLike(RowData data) {
            return rowWrapper.wrap(data);
        }

        @Override
        protected StructLike asStructLikeKey(RowData key) {
            return keyWrapper.wrap(key);
        }
    }

    static final class Unpartitioned extends DeltaTaskWriter {
        private final KeyedWriter writer;

        Unpartitioned(
                PartitionSpec spec,
                FileFormat format,
                FileWriterFactory<RowData> writers,
                OutputFileFactory files,
                FileIO io,
                long targetFileSize,
                Schema schema,
                RowType flinkType,
                Set<Integer> equalityFieldIds,
                boolean upsert,
                boolean useDv) {
            super(spec, format, writers, files, io, targetFileSize, schema, flinkType, equalityFieldIds, upsert, useDv);
            this.writer = new KeyedWriter(null);
        }

        @Override
        KeyedWriter writerFor(RowData row) {
            return writer;
        }

        @Override
        public void close() throws IOException {
            writer.close();
            // Closes the deletion-vector writer, if any, after the last position delete.
            super.close();
        }
    }

    static final class Partitioned extends DeltaTaskWriter {
        private final PartitionKey partitionKey;
        private final Map<PartitionKey, KeyedWriter> writers = new HashMap<>();

        Partitioned(
                PartitionSpec spec,
                FileFormat format,
                FileWriterFactory<RowData> fileWriters,
                OutputFileFactory files,
                FileIO io,
                long targetFileSize,
                Schema schema,
                RowType flinkType,
                Set<Integer> equalityFieldIds,
                boolean upsert,
                boolean useDv) {
            super(
                    spec,
                    format,
                    fileWriters,
                    files,
                    io,
                    targetFileSize,
                    schema,
                    flinkType,
                    equalityFieldIds,
                    upsert,
                    useDv);
            this.partitionKey = new PartitionKey(spec, schema);
        }

        @Override
        KeyedWriter writerFor(RowData row) {
            partitionKey.partition(rowWrapper().wrap(row));
            KeyedWriter writer = writers.get(partitionKey);
            if (writer == null) {
                // The map keeps its own copy: partitionKey is reused for the next row.
                PartitionKey copy = partitionKey.copy();
                writer = new KeyedWriter(copy);
                writers.put(copy, writer);
            }
            return writer;
        }

        @Override
        public void close() throws IOException {
            IOException first = null;
            for (KeyedWriter writer : writers.values()) {
                try {
                    writer.close();
                } catch (IOException e) {
                    if (first == null) {
                        first = e;
                    } else {
                        first.addSuppressed(e);
                    }
                }
            }
            writers.clear();
            try {
                super.close();
            } catch (UncheckedIOException e) {
                if (first == null) {
                    throw e;
                }
                first.addSuppressed(e);
            }
            if (first != null) {
                throw first;
            }
        }
    }
}
