package dev.isthmus.iceberg.source;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.connector.source.Boundedness;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.api.java.typeutils.ResultTypeQueryable;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.DataStreamSource;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.config.ExecutionConfigOptions;
import org.apache.flink.table.catalog.ResolvedSchema;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;
import org.apache.iceberg.BaseMetadataTable;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.flink.FlinkConfigOptions;
import org.apache.iceberg.flink.FlinkReadConf;
import org.apache.iceberg.flink.FlinkReadOptions;
import org.apache.iceberg.flink.FlinkSchemaUtil;
import org.apache.iceberg.flink.TableLoader;
import org.apache.iceberg.flink.source.FlinkSplitPlanner;
import org.apache.iceberg.flink.source.IcebergSource;
import org.apache.iceberg.flink.source.ScanContext;
import org.apache.iceberg.flink.source.StreamingStartingStrategy;
import org.apache.iceberg.flink.source.assigner.SplitAssignerFactory;
import org.apache.iceberg.flink.source.enumerator.IcebergEnumeratorState;
import org.apache.iceberg.flink.source.reader.ColumnStatsWatermarkExtractor;
import org.apache.iceberg.flink.source.reader.IcebergSourceReader;
import org.apache.iceberg.flink.source.reader.IcebergSourceReaderMetrics;
import org.apache.iceberg.flink.source.split.IcebergSourceSplit;
import org.apache.iceberg.flink.source.split.SerializableComparator;
import org.apache.iceberg.flink.util.FlinkCompatibilityUtil;
import org.apache.iceberg.util.ThreadPools;

/**
 * Iceberg's own FLIP-27 {@link IcebergSource} with Parquet decoded natively, reporting the
 * native reader's Flink metrics. Planning, split assignment, streaming discovery of snapshots
 * and checkpoints are Iceberg's: every method but {@link #createReader} delegates to the
 * {@code IcebergSource}, and that one hands the reader's metric group to the native reader
 * function first (Iceberg's {@code ReaderFunction} is never given one), and tells the function
 * when the reader closes.
 *
 * <p>The builder's options are {@code IcebergSource.Builder}'s, with the same meaning (they are
 * passed on to it, and the reader function is given what Iceberg's would be given: projection,
 * filters, limit, name mapping, case sensitivity, resolved from the same read options, table
 * properties and Flink configuration). The native options are {@link Builder#strict},
 * {@link Builder#batchSize}, {@link Builder#localReads} and {@link Builder#rowFormat}.
 *
 * <pre>{@code
 * NativeIcebergSource source = NativeIcebergSource.forRowData().tableLoader(loader).strict(true).build();
 * DataStream<RowData> rows = env.fromSource(source, WatermarkStrategy.noWatermarks(), "orders");
 * }</pre>
 */
public final class NativeIcebergSource
        implements Source<RowData, IcebergSourceSplit, IcebergEnumeratorState>, ResultTypeQueryable<RowData> {
    private static final long serialVersionUID = 1L;

    private final IcebergSource<RowData> source;
    /** The same object as the one inside {@code source}: serialized together, they stay one. */
    private final NativeReaderFunction function;
    /** The emitted rows' type: the projection's (or the whole table's), or a nested projection's. */
    private final RowType producedType;
    /** With {@code watermark-column}: the reader's emitter, Iceberg's without its cost per record. */
    private final SplitWatermarkEmitter<RowData> watermarkEmitter;

    private final SerializableComparator<IcebergSourceSplit> splitComparator;
    private final String tableName;

    private NativeIcebergSource(
            IcebergSource<RowData> source,
            NativeReaderFunction function,
            RowType producedType,
            SplitWatermarkEmitter<RowData> watermarkEmitter,
            SerializableComparator<IcebergSourceSplit> splitComparator,
            String tableName) {
        this.source = source;
        this.function = function;
        this.producedType = producedType;
        this.watermarkEmitter = watermarkEmitter;
        this.splitComparator = splitComparator;
        this.tableName = tableName;
    }

    public static Builder forRowData() {
        return new Builder();
    }

    @Override
    public Boundedness getBoundedness() {
        return source.getBoundedness();
    }

    @Override
    public SourceReader<RowData, IcebergSourceSplit> createReader(SourceReaderContext context) throws Exception {
        function.registerReader(context.metricGroup(), context.getIndexOfSubtask());
        SourceReader<RowData, IcebergSourceSplit> reader;
        try {
            // Iceberg's createReader, with the emitter swapped: the same reader, metrics, function
            // and split order.
            reader = watermarkEmitter == null
                    ? source.createReader(context)
                    : new IcebergSourceReader<>(
                            watermarkEmitter,
                            new IcebergSourceReaderMetrics(context.metricGroup(), tableName),
                            function,
                            splitComparator,
                            context);
        } catch (Exception | Error e) {
            function.readerClosed(); // no reader will close the tracker registerReader opened
            throw e;
        }
        return new ClosingSourceReader<>(reader, function::readerClosed);
    }

    @Override
    public SplitEnumerator<IcebergSourceSplit, IcebergEnumeratorState> createEnumerator(
            SplitEnumeratorContext<IcebergSourceSplit> context) throws Exception {
        return source.createEnumerator(context);
    }

    @Override
    public SplitEnumerator<IcebergSourceSplit, IcebergEnumeratorState> restoreEnumerator(
            SplitEnumeratorContext<IcebergSourceSplit> context, IcebergEnumeratorState checkpoint) throws Exception {
        return source.restoreEnumerator(context, checkpoint);
    }

    @Override
    public SimpleVersionedSerializer<IcebergSourceSplit> getSplitSerializer() {
        return source.getSplitSerializer();
    }

    @Override
    public SimpleVersionedSerializer<IcebergEnumeratorState> getEnumeratorCheckpointSerializer() {
        return source.getEnumeratorCheckpointSerializer();
    }

    /** Rows of the projection (or the whole table), in Flink's internal representation. */
    @Override
    public TypeInformation<RowData> getProducedType() {
        return FlinkCompatibilityUtil.toTypeInfo(producedType);
    }

    /** Mirrors {@code IcebergSource.Builder<RowData>}; see its documentation for each option. */
    public static final class Builder {
        private TableLoader tableLoader;
        private Table table;
        private SplitAssignerFactory assignerFactory;
        private SerializableComparator<IcebergSourceSplit> splitComparator;
        private ReadableConfig flinkConfig = new Configuration();
        private Schema projectedSchema;
        private ResolvedSchema projectedFlinkSchema;
        private List<List<String>> nestedPaths;
        private List<Expression> filters;
        private Boolean exposeLocality;
        private final Map<String, String> readOptions = new HashMap<>();
        private NativeReadOptions nativeOptions = NativeReadOptions.defaults();

        private Builder() {}

        public Builder tableLoader(TableLoader loader) {
            this.tableLoader = loader;
            return this;
        }

        public Builder table(Table newTable) {
            this.table = newTable;
            return this;
        }

        public Builder assignerFactory(SplitAssignerFactory factory) {
            this.assignerFactory = factory;
            return this;
        }

        public Builder splitComparator(SerializableComparator<IcebergSourceSplit> comparator) {
            this.splitComparator = comparator;
            return this;
        }

        public Builder flinkConfig(ReadableConfig config) {
            this.flinkConfig = config;
            return this;
        }

        public Builder caseSensitive(boolean caseSensitive) {
            return set(FlinkReadOptions.CASE_SENSITIVE, Boolean.toString(caseSensitive));
        }

        public Builder useSnapshotId(Long snapshotId) {
            return setIfPresent(FlinkReadOptions.SNAPSHOT_ID.key(), snapshotId);
        }

        public Builder streamingStartingStrategy(StreamingStartingStrategy strategy) {
            return set(FlinkReadOptions.STARTING_STRATEGY, strategy.name());
        }

        public Builder startSnapshotTimestamp(Long timestamp) {
            return setIfPresent(FlinkReadOptions.START_SNAPSHOT_TIMESTAMP.key(), timestamp);
        }

        public Builder startSnapshotId(Long snapshotId) {
            return setIfPresent(FlinkReadOptions.START_SNAPSHOT_ID.key(), snapshotId);
        }

        public Builder tag(String tag) {
            return set(FlinkReadOptions.TAG.key(), tag);
        }

        public Builder branch(String branch) {
            return set(FlinkReadOptions.BRANCH.key(), branch);
        }

        public Builder startTag(String tag) {
            return set(FlinkReadOptions.START_TAG.key(), tag);
        }

        public Builder endTag(String tag) {
            return set(FlinkReadOptions.END_TAG.key(), tag);
        }

        public Builder endSnapshotId(Long snapshotId) {
            return setIfPresent(FlinkReadOptions.END_SNAPSHOT_ID.key(), snapshotId);
        }

        public Builder asOfTimestamp(Long timestamp) {
            return setIfPresent(FlinkReadOptions.AS_OF_TIMESTAMP.key(), timestamp);
        }

        public Builder splitSize(Long bytes) {
            return setIfPresent(FlinkReadOptions.SPLIT_SIZE, bytes);
        }

        public Builder splitLookback(Integer lookback) {
            return setIfPresent(FlinkReadOptions.SPLIT_LOOKBACK, lookback);
        }

        public Builder splitOpenFileCost(Long bytes) {
            return setIfPresent(FlinkReadOptions.SPLIT_FILE_OPEN_COST, bytes);
        }

        public Builder streaming(boolean streaming) {
            return set(FlinkReadOptions.STREAMING, Boolean.toString(streaming));
        }

        public Builder monitorInterval(Duration interval) {
            return interval == null ? this : set(FlinkReadOptions.MONITOR_INTERVAL, interval.toNanos() + " ns");
        }

        public Builder nameMapping(String nameMapping) {
            return set(TableProperties.DEFAULT_NAME_MAPPING, nameMapping);
        }

        public Builder project(Schema schema) {
            this.projectedSchema = schema;
            return this;
        }

        public Builder project(ResolvedSchema schema) {
            this.projectedFlinkSchema = schema;
            return this;
        }

        /**
         * Reads fields nested in structs as columns of their own, as Flink's planner pushes a
         * nested projection down ({@code SupportsProjectionPushDown}): field {@code i} of the
         * emitted rows is the value at {@code paths.get(i)} (a column's name, then the names of the
         * struct fields below it), null where a struct on the way is null. Only the leaves under
         * the paths are decoded. It replaces {@link #project(Schema)} and {@link #project(ResolvedSchema)}.
         */
        public Builder projectNested(List<List<String>> paths) {
            this.nestedPaths = paths.stream().map(List::copyOf).toList();
            return this;
        }

        public Builder filters(List<Expression> newFilters) {
            this.filters = newFilters;
            return this;
        }

        public Builder limit(Long limit) {
            return setIfPresent(FlinkReadOptions.LIMIT, limit);
        }

        public Builder includeColumnStats(boolean include) {
            return set(FlinkReadOptions.INCLUDE_COLUMN_STATS, Boolean.toString(include));
        }

        public Builder planParallelism(int parallelism) {
            return set(FlinkConfigOptions.TABLE_EXEC_ICEBERG_WORKER_POOL_SIZE.key(), Integer.toString(parallelism));
        }

        public Builder exposeLocality(boolean expose) {
            this.exposeLocality = expose;
            return this;
        }

        public Builder maxAllowedPlanningFailures(int failures) {
            return set(FlinkReadOptions.MAX_ALLOWED_PLANNING_FAILURES_OPTION.key(), Integer.toString(failures));
        }

        public Builder watermarkColumn(String column) {
            return set(FlinkReadOptions.WATERMARK_COLUMN, column);
        }

        public Builder watermarkColumnTimeUnit(TimeUnit unit) {
            return set(FlinkReadOptions.WATERMARK_COLUMN_TIME_UNIT, unit.name());
        }

        /** A read option, as {@code IcebergSource.Builder.set} takes it (see {@code FlinkReadOptions}). */
        public Builder set(String property, String value) {
            readOptions.put(property, value);
            return this;
        }

        public Builder setAll(Map<String, String> properties) {
            readOptions.putAll(properties);
            return this;
        }

        /** Fail on a task the native reader cannot read instead of reading it with Iceberg's stock reader. */
        public Builder strict(boolean strict) {
            this.nativeOptions = nativeOptions.withStrict(strict);
            return this;
        }

        /** Rows per decoded batch at most ({@value NativeReadOptions#DEFAULT_BATCH_SIZE} by default). */
        public Builder batchSize(int rows) {
            this.nativeOptions = nativeOptions.withBatchSize(rows);
            return this;
        }

        /** Whether the library reads {@code file:} locations itself (the default) or through the table's FileIO. */
        public Builder localReads(boolean local) {
            this.nativeOptions = nativeOptions.withLocalReads(local);
            return this;
        }

        /**
         * The rows natively read tasks emit: {@link NativeReadOptions.RowFormat#BINARY} (the
         * default) with object reuse off, as Flink's default is, or where the job reads every value;
         * {@link NativeReadOptions.RowFormat#COLUMNAR} with object reuse on and few values read.
         */
        public Builder rowFormat(NativeReadOptions.RowFormat format) {
            this.nativeOptions = nativeOptions.withRowFormat(format);
            return this;
        }

        /**
         * The native memory each reader may hold in decoded batches not yet released; a batch that
         * would take it past this fails the read, naming the cap. No cap by default.
         */
        public Builder maxNativeBytes(long bytes) {
            this.nativeOptions = nativeOptions.withMaxNativeBytes(bytes);
            return this;
        }

        /**
         * The positions a task's position delete files may delete from its data file
         * ({@link NativeReadOptions#DEFAULT_MAX_DELETE_POSITIONS} by default); a task past it is read
         * by Iceberg's reader, or fails in strict mode.
         */
        public Builder maxDeletePositions(long positions) {
            this.nativeOptions = nativeOptions.withMaxDeletePositions(positions);
            return this;
        }

        /**
         * The heap one set of a task's equality delete keys (its equality delete files on the same
         * columns) may take ({@link NativeReadOptions#DEFAULT_MAX_EQUALITY_DELETE_BYTES} by default);
         * a task past it is read by Iceberg's reader, or fails in strict mode.
         */
        public Builder maxEqualityDeleteBytes(long bytes) {
            this.nativeOptions = nativeOptions.withMaxEqualityDeleteBytes(bytes);
            return this;
        }

        public Builder nativeOptions(NativeReadOptions options) {
            this.nativeOptions = options;
            return this;
        }

        private Builder setIfPresent(String key, Object value) {
            return value == null ? this : set(key, value.toString());
        }

        /** The source, with the native reader's Flink metrics. */
        public NativeIcebergSource build() {
            Table t = loadTable();
            NestedProjection nested = nestedPaths == null ? null : NestedProjection.of(t.schema(), nestedPaths);
            Schema projection = nested == null ? projection(t) : nested.readSchema();
            NativeReaderFunction function = readerFunction(t, projection);
            RowType produced;
            if (nested == null) {
                produced = FlinkSchemaUtil.convert(projection == null ? t.schema() : projection);
            } else {
                function.flattening(nested);
                produced = nested.rowType();
            }
            return new NativeIcebergSource(
                    icebergSource(t, projection, function),
                    function,
                    produced,
                    watermarkEmitter(t),
                    splitComparator,
                    t.name());
        }

        /**
         * The plain {@code IcebergSource} with the native reader function, for code that needs
         * that type; its readers report no native metrics to Flink (only {@link NativeSourceCounters}).
         */
        public IcebergSource<RowData> buildIcebergSource() {
            if (nestedPaths != null) {
                throw new IllegalStateException("a nested projection emits rows of its own type, which only a "
                        + "NativeIcebergSource declares: use build()");
            }
            Table t = loadTable();
            Schema projection = projection(t);
            return icebergSource(t, projection, readerFunction(t, projection));
        }

        /**
         * The source as a stream without watermarks, at the parallelism Iceberg's
         * {@code buildStream} gives it ({@link #inferParallelism}), else the environment's.
         */
        public DataStream<RowData> buildStream(StreamExecutionEnvironment env) {
            NativeIcebergSource source = build();
            DataStreamSource<RowData> stream = env.fromSource(
                    source,
                    WatermarkStrategy.noWatermarks(),
                    "NativeIcebergSource-" + table.name(),
                    source.getProducedType());
            inferParallelism(env).ifPresent(stream::setParallelism);
            return stream;
        }

        /**
         * The parallelism Iceberg's FLIP-27 source ({@code buildStream}, and SQL scans with
         * {@code table.exec.iceberg.use-flip27-source}, the default) infers for a bounded read,
         * by the same rule: the number of splits, at most {@code
         * table.exec.iceberg.infer-source-parallelism.max} (with {@code
         * table.exec.iceberg.infer-source-parallelism} on, as by default; off, {@code
         * table.exec.resource.default-parallelism}, which unset is 1); then at most the limit, at
         * least 1, at most the environment's maximum parallelism. Empty for a streaming read,
         * which takes the environment's.
         *
         * <p>Counts the splits of the read this builder describes, of the table as loaded now; call
         * it after {@link #build()}, which checks the options. Counting plans the scan, once more
         * than the enumerator will: Iceberg's inference is private and keeps its plan for its
         * enumerator. It relies on {@code FlinkSplitPlanner}, which Iceberg marks internal.
         *
         * @throws IllegalStateException if the inference's maximum is below 1, as Iceberg's
         */
        public OptionalInt inferParallelism(StreamExecutionEnvironment env) {
            Table t = loadTable();
            ScanContext context = scanContext(t, projection(t));
            if (context.isStreaming()) {
                return OptionalInt.empty();
            }
            int parallelism = flinkConfig.get(ExecutionConfigOptions.TABLE_EXEC_RESOURCE_DEFAULT_PARALLELISM);
            if (flinkConfig.get(FlinkConfigOptions.TABLE_EXEC_ICEBERG_INFER_SOURCE_PARALLELISM)) {
                int max = flinkConfig.get(FlinkConfigOptions.TABLE_EXEC_ICEBERG_INFER_SOURCE_PARALLELISM_MAX);
                if (max < 1) {
                    throw new IllegalStateException(
                            FlinkConfigOptions.TABLE_EXEC_ICEBERG_INFER_SOURCE_PARALLELISM_MAX.key()
                                    + " cannot be less than 1");
                }
                parallelism = Math.min(splitCount(t, context), max);
            }
            if (context.limit() > 0) {
                parallelism = (int) Math.min(parallelism, context.limit());
            }
            parallelism = Math.max(1, parallelism);
            if (env.getMaxParallelism() > 0) {
                parallelism = Math.min(parallelism, env.getMaxParallelism());
            }
            return OptionalInt.of(parallelism);
        }

        private int splitCount(Table t, ScanContext context) {
            // Not named after the table: the name is a format string, and a table's may hold a '%'.
            ExecutorService pool = ThreadPools.newFixedThreadPool(
                    "isthmus-infer-parallelism",
                    flinkConfig.get(FlinkConfigOptions.TABLE_EXEC_ICEBERG_WORKER_POOL_SIZE));
            try {
                return FlinkSplitPlanner.planIcebergSourceSplits(t, context, pool)
                        .size();
            } finally {
                pool.shutdown();
            }
        }

        /** As Iceberg's builder chooses its watermark extractor: from the resolved read options. */
        private SplitWatermarkEmitter<RowData> watermarkEmitter(Table t) {
            FlinkReadConf conf = new FlinkReadConf(t, readOptions, flinkConfig);
            return conf.watermarkColumn() == null
                    ? null
                    : new SplitWatermarkEmitter<>(new ColumnStatsWatermarkExtractor(
                            t.schema(), conf.watermarkColumn(), conf.watermarkColumnTimeUnit()));
        }

        /** Given what Iceberg's builder would give its own reader function, resolved from the same inputs. */
        private NativeReaderFunction readerFunction(Table t, Schema projection) {
            ScanContext context = scanContext(t, projection);
            return new NativeReaderFunction(
                            t.schema(),
                            context.project(),
                            context.nameMapping(),
                            context.caseSensitive(),
                            t.io(),
                            t.encryption(),
                            context.filters(),
                            context.limit(),
                            nativeOptions)
                    .named(t.name());
        }

        /** The scan as Iceberg's builder resolves it from the same options. */
        private ScanContext scanContext(Table t, Schema projection) {
            return ScanContext.builder()
                    .resolveConfig(t, readOptions, flinkConfig)
                    .project(projection)
                    .filters(filters)
                    .build();
        }

        @SuppressWarnings("deprecation") // readerFunction is how Iceberg takes a reader; it has no other way
        private IcebergSource<RowData> icebergSource(Table t, Schema projection, NativeReaderFunction function) {
            IcebergSource.Builder<RowData> builder = IcebergSource.forRowData()
                    .tableLoader(tableLoader)
                    .table(t)
                    .flinkConfig(flinkConfig)
                    .setAll(readOptions)
                    .readerFunction(function);
            if (projection != null) {
                builder.project(projection);
            }
            if (filters != null) {
                builder.filters(filters);
            }
            if (assignerFactory != null) {
                builder.assignerFactory(assignerFactory);
            }
            if (splitComparator != null) {
                builder.splitComparator(splitComparator);
            }
            if (exposeLocality != null) {
                builder.exposeLocality(exposeLocality);
            }
            return builder.build();
        }

        private Schema projection(Table t) {
            return projectedFlinkSchema != null
                    ? FlinkSchemaUtil.convert(t.schema(), projectedFlinkSchema)
                    : projectedSchema;
        }

        /** As Iceberg's builder: the table once, from the loader unless given. */
        private Table loadTable() {
            if (table == null) {
                try (TableLoader loader = tableLoader) {
                    loader.open();
                    table = loader.loadTable();
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }
            if (table instanceof BaseMetadataTable) {
                throw new IllegalArgumentException(table.name()
                        + " is a metadata table: its rows are not in data files; read it with IcebergSource");
            }
            return table;
        }
    }
}
