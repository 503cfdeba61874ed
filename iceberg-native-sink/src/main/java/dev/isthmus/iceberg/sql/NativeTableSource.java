package dev.isthmus.iceberg.sql;

import dev.isthmus.iceberg.source.NativeIcebergSource;
import dev.isthmus.iceberg.source.NativeReadOptions;
import dev.isthmus.iceberg.source.NativeReadOptions.RowFormat;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.connector.source.Boundedness;
import org.apache.flink.configuration.ExecutionOptions;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.DataStreamSource;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.lineage.DefaultLineageDataset;
import org.apache.flink.streaming.api.lineage.DefaultSourceLineageVertex;
import org.apache.flink.streaming.api.lineage.LineageVertex;
import org.apache.flink.streaming.api.transformations.SourceTransformationWrapper;
import org.apache.flink.streaming.api.transformations.TransformationWithLineage;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.catalog.ResolvedSchema;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.table.connector.ProviderContext;
import org.apache.flink.table.connector.source.DataStreamScanProvider;
import org.apache.flink.table.connector.source.DynamicTableSource;
import org.apache.flink.table.connector.source.ScanTableSource;
import org.apache.flink.table.connector.source.abilities.SupportsFilterPushDown;
import org.apache.flink.table.connector.source.abilities.SupportsLimitPushDown;
import org.apache.flink.table.connector.source.abilities.SupportsProjectionPushDown;
import org.apache.flink.table.connector.source.abilities.SupportsSourceWatermark;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.expressions.ResolvedExpression;
import org.apache.flink.table.factories.FactoryUtil;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.DataType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.flink.FlinkConfigOptions;
import org.apache.iceberg.flink.FlinkFilters;
import org.apache.iceberg.flink.FlinkReadOptions;
import org.apache.iceberg.flink.TableLoader;
import org.apache.iceberg.flink.source.FlinkSource;
import org.apache.iceberg.util.PropertyUtil;

/**
 * Iceberg's {@code IcebergTableSource} with the native source: the same pushdowns (projection,
 * filters Iceberg can express, limit; every filter also stays with Flink, as Iceberg's does),
 * the same read options from the table's properties and hints, source watermarks from
 * {@code watermark-column}. Fields nested in structs are projected too, so that
 * {@code SELECT info.city} decodes the city's leaf alone where Iceberg's source reads all of
 * {@code info}. It always builds the FLIP-27 source; the parallelism is {@code scan.parallelism},
 * else inferred from the splits as Iceberg's scan infers it
 * ({@link NativeIcebergSource.Builder#inferParallelism}). With {@code isthmus.row-format}
 * {@code auto} (the default) native reads emit binary rows when the job will not reuse objects,
 * and columnar rows when it will.
 */
final class NativeTableSource
        implements ScanTableSource,
                SupportsProjectionPushDown,
                SupportsFilterPushDown,
                SupportsLimitPushDown,
                SupportsSourceWatermark {
    /** What the job graph, the web UI and {@code EXPLAIN JSON_EXECUTION_PLAN} call the scan. */
    static final String OPERATOR_NAME = "IsthmusIcebergSource";

    private final TableLoader loader;
    private final ResolvedSchema schema;
    private final Map<String, String> properties;
    private final ReadableConfig config;
    private final NativeReadOptions nativeOptions;
    /** {@code null} for auto. */
    private final RowFormat rowFormat;
    /** How messages name the table. */
    private final String where;
    /** The table's full name, for the scan's operator. */
    private final String table;

    private int[] projectedFields;
    /** A projection that reaches into structs: each field's path of names, and the rows' type; else {@code null}. */
    private List<List<String>> nestedPaths;

    private RowType nestedType;
    private Long limit;
    private List<Expression> filters = List.of();

    NativeTableSource(
            TableLoader loader,
            ResolvedSchema schema,
            Map<String, String> properties,
            ReadableConfig config,
            NativeReadOptions nativeOptions,
            RowFormat rowFormat,
            String where,
            String table) {
        this.loader = loader;
        this.schema = schema;
        this.properties = properties;
        this.config = config;
        this.nativeOptions = nativeOptions;
        this.rowFormat = rowFormat;
        this.where = where;
        this.table = table;
    }

    private NativeTableSource(NativeTableSource other) {
        this(
                other.loader,
                other.schema,
                other.properties,
                other.config,
                other.nativeOptions,
                other.rowFormat,
                other.where,
                other.table);
        this.projectedFields = other.projectedFields;
        this.nestedPaths = other.nestedPaths;
        this.nestedType = other.nestedType;
        this.limit = other.limit;
        this.filters = other.filters;
    }

    @Override
    public void applyProjection(int[][] fields, DataType producedDataType) {
        if (Arrays.stream(fields).allMatch(path -> path.length == 1)) {
            this.projectedFields =
                    Arrays.stream(fields).mapToInt(path -> path[0]).toArray();
            this.nestedPaths = null;
            this.nestedType = null;
            return;
        }
        List<List<String>> paths = new ArrayList<>();
        for (int[] path : fields) {
            List<String> names = new ArrayList<>();
            org.apache.flink.table.catalog.Column column = schema.getColumns().get(path[0]);
            names.add(column.getName());
            LogicalType type = column.getDataType().getLogicalType();
            for (int depth = 1; depth < path.length; depth++) {
                RowType row = (RowType) type;
                names.add(row.getFieldNames().get(path[depth]));
                type = row.getTypeAt(path[depth]);
            }
            paths.add(names);
        }
        this.projectedFields = null;
        this.nestedPaths = paths;
        this.nestedType = (RowType) producedDataType.getLogicalType();
    }

    /**
     * Paths into structs are pushed down: Flink asks for them only through rows, never into
     * arrays or maps, and declares a flattened field nullable where a struct above it is, which
     * is what the source emits (null wherever that struct is).
     */
    @Override
    public boolean supportsNestedProjection() {
        return true;
    }

    @Override
    public Result applyFilters(List<ResolvedExpression> flinkFilters) {
        if (nestedPaths != null) {
            // The filters would name the flattened fields (info_zip), which the table does not
            // have; Flink applies them all anyway.
            return Result.of(List.of(), flinkFilters);
        }
        List<ResolvedExpression> accepted = new ArrayList<>();
        List<Expression> expressions = new ArrayList<>();
        for (ResolvedExpression filter : flinkFilters) {
            Optional<Expression> converted = FlinkFilters.convert(filter);
            if (converted.isPresent()) {
                expressions.add(converted.get());
                accepted.add(filter);
            }
        }
        this.filters = expressions;
        return Result.of(accepted, flinkFilters);
    }

    @Override
    public void applyLimit(long newLimit) {
        this.limit = newLimit;
    }

    @Override
    public void applySourceWatermark() {
        if (properties.get(FlinkReadOptions.WATERMARK_COLUMN) == null) {
            throw new ValidationException(where + ": SOURCE_WATERMARK() needs the option '"
                    + FlinkReadOptions.WATERMARK_COLUMN + "', the column whose file statistics give the watermarks");
        }
    }

    @Override
    public ChangelogMode getChangelogMode() {
        return ChangelogMode.insertOnly();
    }

    @Override
    public ScanRuntimeProvider getScanRuntimeProvider(ScanContext context) {
        return new DataStreamScanProvider() {
            @Override
            public DataStream<RowData> produceDataStream(ProviderContext provider, StreamExecutionEnvironment env) {
                NativeIcebergSource.Builder builder = NativeIcebergSource.forRowData()
                        .tableLoader(loader.clone())
                        .assignerFactory(config.get(FlinkConfigOptions.TABLE_EXEC_SPLIT_ASSIGNER_TYPE)
                                .factory())
                        .setAll(properties);
                if (nestedPaths == null) {
                    builder.project(projectedSchema());
                } else {
                    builder.projectNested(nestedPaths);
                }
                NativeIcebergSource source = builder.limit(limit)
                        .filters(filters)
                        .flinkConfig(config)
                        .nativeOptions(nativeOptions.withRowFormat(rowFormat(env)))
                        .build();
                // The planner renames the transformation returned here after the table, and sets
                // its type, uid and lineage. The source goes back inside the wrapper the planner
                // itself puts around sources: a virtual node (no operator, no edge of its own) that
                // takes the planner's name while the source keeps the one saying it is native, at
                // no cost per record. What the planner would have set on the source is set here
                // instead, as the planner computes it, since on the wrapper it reaches no operator.
                DataStreamSource<RowData> scan = env.fromSource(
                        source,
                        WatermarkStrategy.noWatermarks(),
                        OPERATOR_NAME + " " + table,
                        InternalTypeInfo.of(
                                nestedType != null
                                        ? nestedType
                                        : (RowType) projectedSchema()
                                                .toPhysicalRowDataType()
                                                .getLogicalType()));
                provider.generateUid("source").ifPresent(scan::uid);
                ((TransformationWithLineage<RowData>) scan.getTransformation()).setLineageVertex(lineage(isBounded()));
                SourceTransformationWrapper<RowData> wrapper =
                        new SourceTransformationWrapper<>(scan.getTransformation());
                Optional<Integer> configured = getParallelism();
                if (configured.isPresent()) {
                    // As the planner wraps a stock scan with scan.parallelism: the operators after it
                    // keep the job's parallelism.
                    scan.setParallelism(configured.get());
                } else {
                    // As Iceberg's scan infers it, which the planner never sees: the operators after it
                    // take its parallelism (the planner gives them their input's, here the wrapper's).
                    builder.inferParallelism(env).ifPresent(parallelism -> {
                        scan.setParallelism(parallelism);
                        wrapper.setParallelism(parallelism);
                    });
                }
                return new DataStream<>(env, wrapper);
            }

            @Override
            public boolean isBounded() {
                return FlinkSource.isBounded(properties);
            }

            @Override
            public Optional<Integer> getParallelism() {
                return Optional.ofNullable(
                        PropertyUtil.propertyAsNullableInt(properties, FactoryUtil.SOURCE_PARALLELISM.key()));
            }
        };
    }

    /** What the planner records for a scan: the table by its full name, with no namespace or facets. */
    private LineageVertex lineage(boolean bounded) {
        DefaultSourceLineageVertex vertex =
                new DefaultSourceLineageVertex(bounded ? Boundedness.BOUNDED : Boundedness.CONTINUOUS_UNBOUNDED);
        vertex.addDataset(new DefaultLineageDataset(table, "", Map.of()));
        return vertex;
    }

    /**
     * Without object reuse Flink copies every record it hands on, field by field for a columnar
     * row and with one array copy for a binary row; with it, columnar rows are read in place.
     * Flink's planner turns object reuse on for every batch query when it builds the job, after
     * this runs, so batch mode counts as reusing objects.
     */
    private RowFormat rowFormat(StreamExecutionEnvironment env) {
        if (rowFormat != null) {
            return rowFormat;
        }
        boolean reused = env.getConfig().isObjectReuseEnabled()
                || config.get(ExecutionOptions.RUNTIME_MODE) == RuntimeExecutionMode.BATCH;
        return reused ? RowFormat.COLUMNAR : RowFormat.BINARY;
    }

    private ResolvedSchema projectedSchema() {
        return projectedFields == null
                ? schema
                : ResolvedSchema.of(Arrays.stream(projectedFields)
                        .mapToObj(schema.getColumns()::get)
                        .toList());
    }

    @Override
    public DynamicTableSource copy() {
        return new NativeTableSource(this);
    }

    @Override
    public String asSummaryString() {
        return "Iceberg table source (native Parquet)";
    }
}
