package dev.isthmus.iceberg.sql;

import dev.isthmus.iceberg.sink.NativeIcebergSink;
import dev.isthmus.iceberg.sink.write.NativeDataFiles;
import java.util.List;
import java.util.Map;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.table.catalog.ResolvedSchema;
import org.apache.flink.table.catalog.UniqueConstraint;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.table.connector.sink.DataStreamSinkProvider;
import org.apache.flink.table.connector.sink.DynamicTableSink;
import org.apache.flink.table.connector.sink.abilities.SupportsOverwrite;
import org.apache.flink.table.connector.sink.abilities.SupportsPartitioning;
import org.apache.flink.types.RowKind;
import org.apache.iceberg.flink.TableLoader;

/**
 * {@code INSERT INTO} an Iceberg table through {@link NativeIcebergSink}, configured as Iceberg's
 * {@code IcebergTableSink} configures {@code FlinkSink}: the primary key as equality columns, the
 * table's write options, overwrite for {@code INSERT OVERWRITE}, any changelog the planner sends.
 */
final class NativeTableSink implements DynamicTableSink, SupportsPartitioning, SupportsOverwrite {
    private final TableLoader tableLoader;
    /** The table's physical columns. */
    private final ResolvedSchema schema;

    private final ReadableConfig config;
    private final Map<String, String> writeOptions;
    private final boolean strict;
    private final long maxNativeBytes;
    private boolean overwrite;

    NativeTableSink(
            TableLoader tableLoader,
            ResolvedSchema schema,
            ReadableConfig config,
            Map<String, String> writeOptions,
            boolean strict,
            long maxNativeBytes) {
        this.tableLoader = tableLoader;
        this.schema = schema;
        this.config = config;
        this.writeOptions = writeOptions;
        this.strict = strict;
        this.maxNativeBytes = maxNativeBytes;
    }

    @Override
    public SinkRuntimeProvider getSinkRuntimeProvider(Context context) {
        if (overwrite && !context.isBounded()) {
            throw new IllegalStateException("Unbounded data stream doesn't support overwrite operation.");
        }
        List<String> equalityColumns =
                schema.getPrimaryKey().map(UniqueConstraint::getColumns).orElse(List.of());
        return (DataStreamSinkProvider) (providerContext, rows) -> NativeIcebergSink.forRowData(rows)
                .tableLoader(tableLoader)
                .resolvedSchema(schema)
                .equalityFieldColumns(equalityColumns)
                .overwrite(overwrite)
                .setAll(writeOptions)
                .flinkConf(config)
                .dataFileAppenders(strict ? NativeDataFiles.strict() : NativeDataFiles.lenient())
                .maxNativeBytes(maxNativeBytes)
                .append();
    }

    /** Static partitions need nothing here: the planner puts their values into the rows. */
    @Override
    public void applyStaticPartition(Map<String, String> partition) {}

    /** Every kind of change the planner sends, as Iceberg's sink accepts (deletes carry whole rows). */
    @Override
    public ChangelogMode getChangelogMode(ChangelogMode requestedMode) {
        ChangelogMode.Builder mode = ChangelogMode.newBuilder();
        for (RowKind kind : requestedMode.getContainedKinds()) {
            mode.addContainedKind(kind);
        }
        return mode.build();
    }

    @Override
    public void applyOverwrite(boolean newOverwrite) {
        this.overwrite = newOverwrite;
    }

    @Override
    public DynamicTableSink copy() {
        NativeTableSink copy = new NativeTableSink(tableLoader, schema, config, writeOptions, strict, maxNativeBytes);
        copy.overwrite = overwrite;
        return copy;
    }

    @Override
    public String asSummaryString() {
        return "Iceberg table sink (Isthmus native Parquet)";
    }
}
