package dev.isthmus.iceberg.source.sql;

import java.util.Map;
import org.apache.flink.table.catalog.Column;
import org.apache.flink.table.catalog.ObjectPath;
import org.apache.flink.table.catalog.ResolvedSchema;
import org.apache.flink.table.connector.source.DynamicTableSource;
import org.apache.iceberg.flink.FlinkDynamicTableFactory;

/**
 * Iceberg's table factory whose sources read natively: tables of a {@link NativeFlinkCatalog}
 * get a {@link NativeTableSource} unless {@code isthmus.native} is false for them (or the query);
 * metadata tables ({@code t$snapshots}) and sinks stay Iceberg's.
 */
final class NativeTableFactory extends FlinkDynamicTableFactory {
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
        Map<String, String> options = NativeSqlOptions.merged(nativeDefaults, tableOptions);
        ObjectPath path = context.getObjectIdentifier().toObjectPath();
        if (!NativeSqlOptions.nativeReads(options) || path.getObjectName().contains("$")) {
            return super.createDynamicTableSource(context);
        }
        ResolvedSchema physical = ResolvedSchema.of(context.getCatalogTable().getResolvedSchema().getColumns().stream()
                .filter(Column::isPhysical)
                .toList());
        return new NativeTableSource(catalog.tableLoader(path), physical, tableOptions,
                context.getConfiguration(), NativeSqlOptions.readOptions(options));
    }
}
