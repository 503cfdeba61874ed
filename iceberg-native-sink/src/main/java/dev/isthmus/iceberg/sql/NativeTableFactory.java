package dev.isthmus.iceberg.sql;

import java.util.List;
import java.util.Map;
import org.apache.flink.table.catalog.Column;
import org.apache.flink.table.catalog.ObjectIdentifier;
import org.apache.flink.table.catalog.ObjectPath;
import org.apache.flink.table.catalog.ResolvedSchema;
import org.apache.flink.table.connector.sink.DynamicTableSink;
import org.apache.flink.table.connector.source.DynamicTableSource;
import org.apache.flink.table.factories.FactoryUtil;
import org.apache.iceberg.flink.FlinkDynamicTableFactory;
import org.apache.iceberg.flink.TableLoader;

/**
 * Iceberg's table factory whose tables are read and written natively, unless
 * {@code isthmus.native} is false for them (or the query): the tables of a
 * {@link NativeFlinkCatalog}, and tables in any catalog declared with
 * {@code 'connector'='isthmus-iceberg'} ({@link ConnectorTable}). What is not native goes to
 * Iceberg's own factory, with the same options: metadata tables ({@code t$snapshots}), Iceberg's
 * dynamic sink ({@code use-dynamic-iceberg-sink}), and tables with native I/O switched off.
 */
final class NativeTableFactory extends FlinkDynamicTableFactory {
    static final String IDENTIFIER = "isthmus-iceberg";
    /** Iceberg's {@code FlinkCreateTableOptions.USE_DYNAMIC_ICEBERG_SINK}, whose class is internal. */
    private static final String DYNAMIC_SINK = "use-dynamic-iceberg-sink";

    /** The catalog whose tables this serves, or {@code null} for connector tables. */
    private final NativeFlinkCatalog catalog;

    private final Map<String, String> nativeDefaults;

    /** For {@code 'connector'='isthmus-iceberg'} tables, through {@link IsthmusConnectorFactory}. */
    NativeTableFactory() {
        this.catalog = null;
        this.nativeDefaults = Map.of();
    }

    NativeTableFactory(NativeFlinkCatalog catalog, Map<String, String> nativeDefaults) {
        super(catalog);
        this.catalog = catalog;
        this.nativeDefaults = nativeDefaults;
    }

    @Override
    public String factoryIdentifier() {
        return IDENTIFIER;
    }

    @Override
    public DynamicTableSource createDynamicTableSource(Context context) {
        Map<String, String> tableOptions = context.getCatalogTable().getOptions();
        NativeSqlOptions options = options(context);
        if (!options.nativeIo() || isMetadataTable(context)) {
            return super.createDynamicTableSource(context);
        }
        return new NativeTableSource(
                tableLoader(context),
                physicalColumns(context),
                tableOptions,
                context.getConfiguration(),
                options.readOptions(),
                options.rowFormat(),
                describe(context),
                context.getObjectIdentifier().asSummaryString());
    }

    @Override
    public DynamicTableSink createDynamicTableSink(Context context) {
        Map<String, String> tableOptions = context.getCatalogTable().getOptions();
        NativeSqlOptions options = options(context);
        if (!options.nativeIo() || isMetadataTable(context) || Boolean.parseBoolean(tableOptions.get(DYNAMIC_SINK))) {
            return super.createDynamicTableSink(context);
        }
        return new NativeTableSink(
                tableLoader(context),
                physicalColumnsAndKey(context),
                context.getConfiguration(),
                tableOptions,
                options.strict(),
                options.readOptions().maxNativeBytes());
    }

    /**
     * The table's options (hints included: the planner merges them in) over the catalog's, checked.
     * A connector table's catalog is the one its options (or, for a {@code LIKE} copy, the
     * source catalog's) describe.
     */
    private NativeSqlOptions options(Context context) {
        Map<String, String> tableOptions = context.getCatalogTable().getOptions();
        Map<String, String> defaults = catalog != null ? nativeDefaults : ConnectorTable.catalogOptions(tableOptions);
        return NativeSqlOptions.parse(NativeSqlOptions.merged(defaults, tableOptions), describe(context));
    }

    private TableLoader tableLoader(Context context) {
        ObjectPath path = context.getObjectIdentifier().toObjectPath();
        return catalog != null
                ? catalog.tableLoader(path)
                : ConnectorTable.tableLoader(
                        context.getObjectIdentifier(), context.getCatalogTable(), describe(context));
    }

    /** How messages name the table. */
    private String describe(Context context) {
        if (catalog != null) {
            return catalog.describe(context.getObjectIdentifier().toObjectPath());
        }
        ObjectIdentifier id = context.getObjectIdentifier();
        return "table '" + id.asSummaryString() + "' ('" + FactoryUtil.CONNECTOR.key() + "'='" + IDENTIFIER + "')";
    }

    /** Iceberg's metadata tables ({@code t$snapshots}) exist only in an Iceberg catalog. */
    private boolean isMetadataTable(Context context) {
        return catalog != null && context.getObjectIdentifier().getObjectName().contains("$");
    }

    /** The table's physical columns, as Iceberg's factory hands them to its source. */
    private static ResolvedSchema physicalColumns(Context context) {
        return ResolvedSchema.of(physical(context.getCatalogTable().getResolvedSchema()));
    }

    /** The physical columns and the primary key, whose columns the sink writes equality deletes on. */
    private static ResolvedSchema physicalColumnsAndKey(Context context) {
        ResolvedSchema schema = context.getCatalogTable().getResolvedSchema();
        return new ResolvedSchema(
                physical(schema), List.of(), schema.getPrimaryKey().orElse(null));
    }

    static List<Column> physical(ResolvedSchema schema) {
        return schema.getColumns().stream().filter(Column::isPhysical).toList();
    }
}
