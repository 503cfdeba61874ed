package dev.isthmus.iceberg.sink;

import dev.isthmus.arrow.memory.MemoryTracker;
import dev.isthmus.iceberg.sink.write.DataFileAppenders;
import dev.isthmus.iceberg.sink.write.NativeDataFiles;
import dev.isthmus.iceberg.sink.write.SinkTaskWriterFactory;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.DataStreamSink;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.table.catalog.ResolvedSchema;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;
import org.apache.iceberg.DistributionMode;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionField;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SerializableTable;
import org.apache.iceberg.Table;
import org.apache.iceberg.flink.FlinkSchemaUtil;
import org.apache.iceberg.flink.FlinkWriteConf;
import org.apache.iceberg.flink.FlinkWriteOptions;
import org.apache.iceberg.flink.TableLoader;
import org.apache.iceberg.flink.sink.EqualityFieldKeySelector;
import org.apache.iceberg.flink.sink.SinkUtil;
import org.apache.iceberg.types.TypeUtil;
import org.apache.iceberg.util.SerializableSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Flink sink for Iceberg tables, built like Iceberg's {@code FlinkSink}:
 *
 * <pre>{@code
 * NativeIcebergSink.forRowData(rows)
 *     .tableLoader(TableLoader.fromHadoopTable(location))
 *     .upsert(true)
 *     .append();
 * }</pre>
 *
 * <p>Its topology is a writer per subtask ({@link WriterOperator}), after a shuffle chosen by the
 * distribution mode, and one committer ({@link CommitterOperator}); docs/sink.md describes the
 * exactly-once protocol. Data files are written by {@link #DEFAULT_DATA_FILES} unless
 * {@link Builder#dataFileAppenders} says otherwise.
 */
public final class NativeIcebergSink {
    private static final Logger LOG = LoggerFactory.getLogger(NativeIcebergSink.class);

    /**
     * Writes the data files of every sink that does not choose otherwise: natively, falling back
     * to Iceberg's Java writers for tables the encoder cannot write ({@link NativeDataFiles}).
     */
    public static final DataFileAppenders DEFAULT_DATA_FILES = NativeDataFiles.lenient();

    static final String WRITER_NAME = "IsthmusIcebergWriter";
    static final String COMMITTER_NAME = "IsthmusIcebergCommitter";

    private NativeIcebergSink() {}

    public static Builder forRowData(DataStream<RowData> input) {
        return new Builder(Objects.requireNonNull(input, "input"));
    }

    public static final class Builder {
        private final DataStream<RowData> input;
        private final Map<String, String> writeOptions = new HashMap<>();
        private final Map<String, String> snapshotProperties = new HashMap<>();
        private Table table;
        private TableLoader tableLoader;
        private ResolvedSchema resolvedSchema;
        private ReadableConfig flinkConf = new Configuration();
        private List<String> equalityFieldColumns;
        private String uidPrefix;
        private DataFileAppenders dataFiles = DEFAULT_DATA_FILES;
        private long maxNativeBytes = MemoryTracker.NO_LIMIT;

        private Builder(DataStream<RowData> input) {
            this.input = input;
        }

        /** The table as loaded by the client; without it, the table loader loads it. */
        public Builder table(Table newTable) {
            this.table = newTable;
            return this;
        }

        /** Loads the table in the committer (and in the client if no {@link #table} is given). Required. */
        public Builder tableLoader(TableLoader newTableLoader) {
            this.tableLoader = newTableLoader;
            return this;
        }

        /** A write option of Iceberg's {@code FlinkWriteOptions} (write-format, target-file-size-bytes, ...). */
        public Builder set(String option, String value) {
            writeOptions.put(option, value);
            return this;
        }

        public Builder setAll(Map<String, String> options) {
            writeOptions.putAll(options);
            return this;
        }

        /** The Flink schema of the input when it differs from the table's (narrower integer types). */
        public Builder resolvedSchema(ResolvedSchema schema) {
            this.resolvedSchema = schema;
            return this;
        }

        /** Replace the partitions written to (the whole table if unpartitioned) instead of appending. */
        public Builder overwrite(boolean enabled) {
            writeOptions.put(FlinkWriteOptions.OVERWRITE_MODE.key(), Boolean.toString(enabled));
            return this;
        }

        /** The Flink configuration write options fall back to (before the table's properties). */
        public Builder flinkConf(ReadableConfig config) {
            this.flinkConf = config;
            return this;
        }

        /** NONE, or HASH by partition key (by equality fields on unpartitioned tables with a key). */
        public Builder distributionMode(DistributionMode mode) {
            if (mode != null) {
                writeOptions.put(FlinkWriteOptions.DISTRIBUTION_MODE.key(), mode.modeName());
            }
            return this;
        }

        /** The writers' parallelism; the input's by default. */
        public Builder writeParallelism(int parallelism) {
            writeOptions.put(FlinkWriteOptions.WRITE_PARALLELISM.key(), Integer.toString(parallelism));
            return this;
        }

        /** +I and +U replace the row with the same key; needs equality fields, excludes overwrite. */
        public Builder upsert(boolean enabled) {
            writeOptions.put(FlinkWriteOptions.WRITE_UPSERT_ENABLED.key(), Boolean.toString(enabled));
            return this;
        }

        /** The key of delta writes; the table's identifier fields by default. */
        public Builder equalityFieldColumns(List<String> columns) {
            this.equalityFieldColumns = columns;
            return this;
        }

        /** Prefixes the operators' uids (writer, committer, dummysink) and names: keep it stable across upgrades. */
        public Builder uidPrefix(String prefix) {
            this.uidPrefix = prefix;
            return this;
        }

        public Builder setSnapshotProperties(Map<String, String> properties) {
            snapshotProperties.putAll(properties);
            return this;
        }

        public Builder setSnapshotProperty(String property, String value) {
            snapshotProperties.put(property, value);
            return this;
        }

        /** Commit to this branch instead of main. */
        public Builder toBranch(String branch) {
            writeOptions.put(FlinkWriteOptions.BRANCH.key(), branch);
            return this;
        }

        /** What writes the data files: the seam for the native encoder. */
        public Builder dataFileAppenders(DataFileAppenders appenders) {
            this.dataFiles = Objects.requireNonNull(appenders, "appenders");
            return this;
        }

        /**
         * The native memory each writer subtask may hold at once (Arrow batches being built and
         * the open row groups' buffered pages); a writer that would exceed it fails, naming the
         * cap. No cap by default: the row group size bounds a writer (docs/memory.md).
         */
        public Builder maxNativeBytes(long bytes) {
            this.maxNativeBytes = MemoryTracker.requireValidLimit(bytes);
            return this;
        }

        /** Adds the writers, the committer and a discarding sink after them. */
        public DataStreamSink<Void> append() {
            if (tableLoader == null) {
                throw new IllegalArgumentException("A table loader is required: call tableLoader(...)");
            }
            if (table == null) {
                table = loadTable();
            }
            FlinkWriteConf conf = new FlinkWriteConf(table, writeOptions, flinkConf);
            List<Integer> equalityFieldIds = equalityFieldIds();
            boolean upsert = conf.upsertMode();
            boolean overwrite = conf.overwriteMode();
            if (upsert) {
                if (overwrite) {
                    throw new IllegalArgumentException("Upsert and overwrite cannot be combined: an overwrite "
                            + "replaces partitions, an upsert deletes rows by key");
                }
                if (equalityFieldIds.isEmpty()) {
                    throw new IllegalArgumentException("Upsert needs equality fields: table " + table.name()
                            + " has no identifier fields; set equalityFieldColumns(...)");
                }
                requirePartitionSourcesInKey(equalityFieldIds, "In upsert mode");
            }
            RowType flinkType = flinkType();
            int parallelism = conf.writeParallelism() != null ? conf.writeParallelism() : input.getParallelism();

            FileFormat format = conf.dataFileFormat();
            Table copy = SerializableTable.copyOf(table);
            SerializableSupplier<Table> tableSupplier = () -> copy;
            SinkTaskWriterFactory writers = new SinkTaskWriterFactory(
                    tableSupplier,
                    flinkType,
                    format,
                    conf.targetDataFileSize(),
                    SinkUtil.writeProperties(format, conf, table),
                    equalityFieldIds,
                    upsert,
                    dataFiles,
                    maxNativeBytes);

            DataStream<RowData> distributed = distribute(conf.distributionMode(), equalityFieldIds, flinkType);
            SingleOutputStreamOperator<FlushedFiles> written = distributed
                    .transform(
                            name(WRITER_NAME),
                            TypeInformation.of(FlushedFiles.class),
                            new WriterOperator(table.name(), writers))
                    .setParallelism(parallelism);
            SingleOutputStreamOperator<Void> committed = written.transform(
                            name(COMMITTER_NAME),
                            Types.VOID,
                            new CommitterOperator(
                                    tableLoader,
                                    overwrite,
                                    snapshotProperties,
                                    conf.branch(),
                                    table.spec(),
                                    conf.workerPoolSize()))
                    .setParallelism(1)
                    .setMaxParallelism(1)
                    // A checkpoint records each operator's max parallelism as that of its chain's
                    // head: chained after writers of parallelism 1, the committer's state would be
                    // recorded with theirs and not restore into a job with more writers.
                    .startNewChain();
            DataStreamSink<Void> sink = committed
                    .sinkTo(new DiscardingSink<>())
                    .name(name("IsthmusIcebergSink " + table.name()))
                    .setParallelism(1);
            if (uidPrefix != null) {
                // The same suffixes as Iceberg's FlinkSink: the committer's state has the same shape.
                written.uid(uidPrefix + "-writer");
                committed.uid(uidPrefix + "-committer");
                sink.uid(uidPrefix + "-dummysink");
            }
            return sink;
        }

        private Table loadTable() {
            if (!tableLoader.isOpen()) {
                tableLoader.open();
            }
            try (TableLoader loader = tableLoader) {
                return loader.loadTable();
            } catch (IOException e) {
                throw new UncheckedIOException("Cannot load the table from " + tableLoader, e);
            }
        }

        private List<Integer> equalityFieldIds() {
            Schema schema = table.schema();
            if (equalityFieldColumns == null || equalityFieldColumns.isEmpty()) {
                return new ArrayList<>(schema.identifierFieldIds());
            }
            Set<Integer> ids = new LinkedHashSet<>();
            for (String column : equalityFieldColumns) {
                var field = schema.findField(column);
                if (field == null) {
                    throw new IllegalArgumentException("Equality field column '" + column + "' is not in the schema of "
                            + table.name() + ": " + schema);
                }
                ids.add(field.fieldId());
            }
            return new ArrayList<>(ids);
        }

        private void requirePartitionSourcesInKey(List<Integer> equalityFieldIds, String context) {
            for (PartitionField field : table.spec().fields()) {
                if (!equalityFieldIds.contains(field.sourceId())) {
                    throw new IllegalArgumentException(context + ", the source column '"
                            + table.schema().findColumnName(field.sourceId()) + "' of partition field " + field
                            + " must be one of the equality fields " + equalityFieldIds
                            + ": otherwise a row could not delete its older version in another partition");
                }
            }
        }

        private RowType flinkType() {
            if (resolvedSchema == null) {
                return FlinkSchemaUtil.convert(table.schema());
            }
            Schema writeSchema = FlinkSchemaUtil.convert(table.schema(), resolvedSchema);
            TypeUtil.validateWriteSchema(table.schema(), writeSchema, true, true);
            // The input's own types: a TINYINT column is read as one byte, though Iceberg widens it.
            return (RowType) resolvedSchema.toSinkRowDataType().getLogicalType();
        }

        private DataStream<RowData> distribute(
                DistributionMode mode, List<Integer> equalityFieldIds, RowType flinkType) {
            Schema schema = table.schema();
            PartitionSpec spec = table.spec();
            Set<Integer> keys = new LinkedHashSet<>(equalityFieldIds);
            return switch (mode) {
                case NONE ->
                    keys.isEmpty()
                            ? input
                            // Every change of a key must reach the writer that wrote the key before.
                            : input.keyBy(new EqualityFieldKeySelector(schema, flinkType, keys));
                case HASH -> {
                    if (spec.isUnpartitioned()) {
                        if (keys.isEmpty()) {
                            LOG.warn("Distribution mode hash on an unpartitioned table without equality fields: "
                                    + "rows are not shuffled");
                            yield input;
                        }
                        yield input.keyBy(new EqualityFieldKeySelector(schema, flinkType, keys));
                    }
                    if (!keys.isEmpty()) {
                        requirePartitionSourcesInKey(equalityFieldIds, "In hash distribution with equality fields");
                    }
                    yield input.keyBy(new PartitionPathKeySelector(spec, schema, flinkType));
                }
                case RANGE -> {
                    if (keys.isEmpty()) {
                        throw new UnsupportedOperationException(
                                "Distribution mode range is not supported by this " + "sink; use none or hash");
                    }
                    // As Iceberg's sink: with a key, rows are hashed by it whatever the mode says.
                    LOG.warn("Distribution mode range with equality fields: rows are hashed by the equality fields");
                    yield input.keyBy(new EqualityFieldKeySelector(schema, flinkType, keys));
                }
            };
        }

        private String name(String operator) {
            return uidPrefix != null ? uidPrefix + "-" + operator : operator;
        }
    }
}
