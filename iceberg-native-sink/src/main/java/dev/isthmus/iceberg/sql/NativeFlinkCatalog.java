package dev.isthmus.iceberg.sql;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.catalog.CatalogBaseTable;
import org.apache.flink.table.catalog.CatalogTable;
import org.apache.flink.table.catalog.ObjectPath;
import org.apache.flink.table.catalog.TableChange;
import org.apache.flink.table.catalog.exceptions.TableAlreadyExistException;
import org.apache.flink.table.catalog.exceptions.TableNotExistException;
import org.apache.flink.table.factories.Factory;
import org.apache.flink.table.factories.FactoryUtil;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.flink.CatalogLoader;
import org.apache.iceberg.flink.FlinkCatalog;
import org.apache.iceberg.flink.TableLoader;

/**
 * Iceberg's Flink catalog with the native table factory; everything else is Iceberg's, but for
 * the {@code isthmus.*} options of a created or altered table, which are checked first, and the
 * {@code connector} option its tables show, {@code isthmus-iceberg}: a table copied from one
 * with {@code CREATE TABLE ... LIKE} into another catalog stays native.
 */
final class NativeFlinkCatalog extends FlinkCatalog {
    private final CatalogLoader loader;
    private final Namespace baseNamespace;
    private final Map<String, String> nativeDefaults;

    NativeFlinkCatalog(
            String name,
            String defaultDatabase,
            Namespace baseNamespace,
            CatalogLoader loader,
            Map<String, String> properties,
            boolean cacheEnabled,
            long cacheExpirationMs,
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
     * Iceberg's table with the options Iceberg's catalog gives it ({@code src-catalog}, the
     * table's properties) and {@code 'connector'='isthmus-iceberg'} instead of {@code iceberg}.
     */
    @Override
    public CatalogTable getTable(ObjectPath path) throws TableNotExistException {
        CatalogTable table = super.getTable(path);
        Map<String, String> options = new HashMap<>(table.getOptions());
        options.put(FactoryUtil.CONNECTOR.key(), NativeTableFactory.IDENTIFIER);
        return table.copy(options);
    }

    @Override
    public void createTable(ObjectPath path, CatalogBaseTable table, boolean ignoreIfExists)
            throws TableAlreadyExistException {
        // A table's connector options name the catalog that holds it; in the catalog itself
        // they could only disagree with it. A LIKE copy carries src-catalog, which creation drops.
        if (NativeTableFactory.IDENTIFIER.equals(table.getOptions().get(FactoryUtil.CONNECTOR.key()))
                && !table.getOptions().containsKey(ConnectorTable.SOURCE_CATALOG)) {
            throw new ValidationException("Cannot create " + describe(path) + " with 'connector'='"
                    + NativeTableFactory.IDENTIFIER + "': a table of an " + NativeTableFactory.IDENTIFIER
                    + " catalog is native already. Create it without the connector's options, or declare the"
                    + " connector table in a catalog that is not an Iceberg catalog (Flink's default one).");
        }
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
    public void alterTable(
            ObjectPath path, CatalogBaseTable table, List<TableChange> changes, boolean ignoreIfNotExists)
            throws TableNotExistException {
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
