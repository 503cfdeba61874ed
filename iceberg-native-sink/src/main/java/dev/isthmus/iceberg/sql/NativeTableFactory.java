package dev.isthmus.iceberg.sql;

import java.util.Map;
import org.apache.flink.table.catalog.Column;
import org.apache.flink.table.catalog.ObjectPath;
import org.apache.flink.table.catalog.ResolvedSchema;
import org.apache.flink.table.connector.sink.DynamicTableSink;
import org.apache.flink.table.connector.source.DynamicTableSource;
import org.apache.iceberg.flink.FlinkDynamicTableFactory;

/**
 * Iceberg's table factory whose tables are read and written natively: tables of a
 * {@link NativeFlinkCatalog} get a {@link NativeTableSource} and a {@link NativeTableSink} unless
 * {@code isthmus.native} is false for them (or the query); metadata tables ({@code t$snapshots})
 * and Iceberg's dynamic sink ({@code use-dynamic-iceberg-sink}) stay Iceberg's.
 */
final class NativeTableFactory extends FlinkDynamicTableFactory {
    /** Iceberg's {@code FlinkCreateTableOptions.USE_DYNAMIC_ICEBERG_SINK}, whose class is package-private. */
    private static final String DYNAMIC_SINK = "use-dynamic-iceberg-sink";

    private final NativeFlinkCatalog catalog;
    private final Map<String, String> nativeDefaults;

    NativeTableFactory(NativeFlinkCatalog catalog, Map<String, String> nativeDefaults) {
        super(catalog);
        this.catalog = catalog;
        this.nativeDefaults = nativeDefaults;
    }

    @Override
    public DynamicTableSource createDynamicTableSource(Context context) {
        Map<String, String> tableOptions = context.getCatalogTable().getOptions();
        ObjectPath path = context.getObjectIdentifier().toObjectPath();
        NativeSqlOptions options = options(path, tableOptions);
        if (!options.nativeIo() || path.getObjectName().contains("$")) {
            return super.createDynamicTableSource(context);
        }
        return new NativeTableSource(catalog.tableLoader(path), physicalColumns(context), tableOptions,
                context.getConfiguration(), options.readOptions(), options.rowFormat());
    }

    @Override
    public DynamicTableSink createDynamicTableSink(Context context) {
        Map<String, String> tableOptions = context.getCatalogTable().getOptions();
        ObjectPath path = context.getObjectIdentifier().toObjectPath();
        NativeSqlOptions options = options(path, tableOptions);
        if (!options.nativeIo() || path.getObjectName().contains("$")
                || Boolean.parseBoolean(tableOptions.get(DYNAMIC_SINK))) {
            return super.createDynamicTableSink(context);
        }
        return new NativeTableSink(catalog.tableLoader(path), physicalColumns(context), context.getConfiguration(),
                tableOptions, options.strict());
    }

    /** The table's options (hints included: the planner merges them in) over the catalog's, checked. */
    private NativeSqlOptions options(ObjectPath path, Map<String, String> tableOptions) {
        return NativeSqlOptions.parse(NativeSqlOptions.merged(nativeDefaults, tableOptions), catalog.describe(path));
    }

    /** The table's physical columns, as Iceberg's factory hands them to its source and sink. */
    private static ResolvedSchema physicalColumns(Context context) {
        return ResolvedSchema.of(context.getCatalogTable().getResolvedSchema().getColumns().stream()
                .filter(Column::isPhysical)
                .toList());
    }
}
