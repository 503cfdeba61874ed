package dev.isthmus.iceberg.sql;

import java.util.Map;
import java.util.Optional;
import org.apache.flink.table.catalog.ObjectPath;
import org.apache.flink.table.factories.Factory;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.flink.CatalogLoader;
import org.apache.iceberg.flink.FlinkCatalog;
import org.apache.iceberg.flink.TableLoader;

/** Iceberg's Flink catalog with the native table factory; everything else is Iceberg's. */
final class NativeFlinkCatalog extends FlinkCatalog {
    private final CatalogLoader loader;
    private final Namespace baseNamespace;
    private final Map<String, String> nativeDefaults;

    NativeFlinkCatalog(String name, String defaultDatabase, Namespace baseNamespace, CatalogLoader loader,
            Map<String, String> properties, boolean cacheEnabled, long cacheExpirationMs,
            Map<String, String> nativeDefaults) {
        super(name, defaultDatabase, baseNamespace, loader, properties, cacheEnabled, cacheExpirationMs);
        this.loader = loader;
        this.baseNamespace = baseNamespace;
        this.nativeDefaults = nativeDefaults;
    }

    @Override
    public Optional<Factory> getFactory() {
        return Optional.of(new NativeTableFactory(this, nativeDefaults));
    }

    /**
     * The loader of a data table (no {@code $} metadata-table suffix), as Iceberg's catalog
     * identifies it (its {@code toIdentifier} is package-private).
     */
    TableLoader tableLoader(ObjectPath path) {
        String[] levels = new String[baseNamespace.levels().length + 1];
        System.arraycopy(baseNamespace.levels(), 0, levels, 0, baseNamespace.levels().length);
        levels[levels.length - 1] = path.getDatabaseName();
        return TableLoader.fromCatalog(loader, TableIdentifier.of(Namespace.of(levels), path.getObjectName()));
    }
}
