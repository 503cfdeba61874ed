package dev.isthmus.iceberg.sql;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.flink.table.catalog.CatalogBaseTable;
import org.apache.flink.table.catalog.ObjectPath;
import org.apache.flink.table.catalog.TableChange;
import org.apache.flink.table.catalog.exceptions.TableAlreadyExistException;
import org.apache.flink.table.catalog.exceptions.TableNotExistException;
import org.apache.flink.table.factories.Factory;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.flink.CatalogLoader;
import org.apache.iceberg.flink.FlinkCatalog;
import org.apache.iceberg.flink.TableLoader;

/**
 * Iceberg's Flink catalog with the native table factory; everything else is Iceberg's, but for
 * the {@code isthmus.*} options of a created or altered table, which are checked first.
 */
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

    @Override
    public void createTable(ObjectPath path, CatalogBaseTable table, boolean ignoreIfExists)
            throws TableAlreadyExistException {
        checkOptions(path, table);
        super.createTable(path, table, ignoreIfExists);
    }

    @Override
    public void alterTable(ObjectPath path, CatalogBaseTable table, boolean ignoreIfNotExists)
            throws TableNotExistException {
        checkOptions(path, table);
        super.alterTable(path, table, ignoreIfNotExists);
    }

    @Override
    public void alterTable(ObjectPath path, CatalogBaseTable table, List<TableChange> changes,
            boolean ignoreIfNotExists) throws TableNotExistException {
        checkOptions(path, table);
        super.alterTable(path, table, changes, ignoreIfNotExists);
    }

    private void checkOptions(ObjectPath path, CatalogBaseTable table) {
        NativeSqlOptions.parse(NativeSqlOptions.merged(nativeDefaults, table.getOptions()), describe(path));
    }

    /** How messages name a table of this catalog. */
    String describe(ObjectPath path) {
        return "table '" + getName() + "." + path.getFullName() + "'";
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
