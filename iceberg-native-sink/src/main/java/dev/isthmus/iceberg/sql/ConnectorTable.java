package dev.isthmus.iceberg.sql;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.core.JsonProcessingException;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.flink.table.api.Schema;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.catalog.CatalogDatabaseImpl;
import org.apache.flink.table.catalog.CatalogTable;
import org.apache.flink.table.catalog.ObjectIdentifier;
import org.apache.flink.table.catalog.ObjectPath;
import org.apache.flink.table.catalog.ResolvedCatalogTable;
import org.apache.flink.table.catalog.ResolvedSchema;
import org.apache.flink.table.catalog.exceptions.DatabaseAlreadyExistException;
import org.apache.flink.table.catalog.exceptions.TableAlreadyExistException;
import org.apache.flink.table.factories.FactoryUtil;
import org.apache.iceberg.flink.FlinkCatalogFactory;
import org.apache.iceberg.flink.TableLoader;

/**
 * The Iceberg table behind a {@code 'connector'='isthmus-iceberg'} table, found as Iceberg's
 * {@code 'connector'='iceberg'} finds its own: {@code catalog-name} with the catalog's options
 * ({@code catalog-type} or {@code catalog-impl}, {@code warehouse}, {@code uri}, ...), then
 * {@code catalog-database} (by default the Flink table's database) and {@code catalog-table} (by
 * default its name). A table copied with {@code CREATE TABLE ... LIKE} from an
 * {@code isthmus-iceberg} (or {@code iceberg}) catalog carries those in the JSON option
 * {@value #SOURCE_CATALOG}, which Iceberg's catalog writes and whose entries the table's own
 * options override. As with Iceberg's connector, a database or table that does not exist yet is
 * created, the table from the physical columns, partition keys and primary key.
 */
final class ConnectorTable {
    /** Iceberg's {@code FlinkCreateTableOptions} keys; that class is internal to Iceberg. */
    static final String SOURCE_CATALOG = "src-catalog";

    static final String CATALOG_NAME = "catalog-name";
    static final String CATALOG_DATABASE = "catalog-database";
    static final String CATALOG_TABLE = "catalog-table";
    private static final String CATALOG_PROPERTIES = "catalog-props";

    private static final ObjectMapper JSON = new ObjectMapper();

    private ConnectorTable() {}

    /**
     * The table's options with those of the catalog it was copied from: the options of the
     * catalog that holds the Iceberg table, {@code isthmus.*} defaults included.
     */
    static Map<String, String> catalogOptions(Map<String, String> tableOptions) {
        String json = tableOptions.get(SOURCE_CATALOG);
        Map<String, String> merged = new HashMap<>();
        if (json != null) {
            JsonNode source = parse(json);
            put(merged, CATALOG_NAME, source);
            put(merged, CATALOG_DATABASE, source);
            put(merged, CATALOG_TABLE, source);
            source.path(CATALOG_PROPERTIES)
                    .properties()
                    .forEach(e -> merged.put(e.getKey(), e.getValue().asText()));
        }
        tableOptions.forEach((key, value) -> {
            if (!SOURCE_CATALOG.equals(key)) {
                merged.put(key, value);
            }
        });
        return merged;
    }

    /**
     * A loader of the Iceberg table, which is created first if it does not exist.
     *
     * @param where how messages name the table
     * @throws ValidationException if the options name no catalog
     */
    static TableLoader tableLoader(ObjectIdentifier id, ResolvedCatalogTable table, String where) {
        Map<String, String> options = catalogOptions(table.getOptions());
        String catalogName = options.get(CATALOG_NAME);
        if (catalogName == null) {
            throw new ValidationException(where + ": option '" + CATALOG_NAME + "' is required: the name of the"
                    + " Iceberg catalog that holds the table, with that catalog's options ('catalog-type' or"
                    + " 'catalog-impl', 'warehouse', 'uri', ...), as for 'connector'='iceberg'");
        }
        ObjectPath path = new ObjectPath(
                options.getOrDefault(CATALOG_DATABASE, id.getDatabaseName()),
                options.getOrDefault(CATALOG_TABLE, id.getObjectName()));
        NativeFlinkCatalog catalog = (NativeFlinkCatalog)
                new NativeCatalogFactory().createCatalog(catalogName, options, FlinkCatalogFactory.clusterHadoopConf());
        TableLoader loader;
        try {
            if (!catalog.databaseExists(path.getDatabaseName())) {
                catalog.createDatabase(path.getDatabaseName(), new CatalogDatabaseImpl(Map.of(), null), true);
            }
            if (!catalog.tableExists(path)) {
                catalog.createTable(path, physicalTable(table), true);
            }
            // The loader keeps the catalog's loader, not this catalog object, which can go.
            loader = catalog.tableLoader(path);
        } catch (DatabaseAlreadyExistException | TableAlreadyExistException | RuntimeException e) {
            RuntimeException failure = e instanceof RuntimeException r
                    ? r
                    : new IllegalStateException("unreachable: creation ignores an existing " + path, e);
            try {
                catalog.close();
            } catch (RuntimeException closing) {
                failure.addSuppressed(closing);
            }
            throw failure;
        }
        catalog.close();
        return loader;
    }

    /**
     * The table as Iceberg's catalog can create it: its physical columns, primary key and
     * partition keys, and its options but the connector's own.
     */
    private static ResolvedCatalogTable physicalTable(ResolvedCatalogTable table) {
        ResolvedSchema resolved = table.getResolvedSchema();
        ResolvedSchema physical = new ResolvedSchema(
                NativeTableFactory.physical(resolved),
                List.of(),
                resolved.getPrimaryKey().orElse(null));
        Map<String, String> options = new HashMap<>(table.getOptions());
        options.remove(FactoryUtil.CONNECTOR.key());
        options.remove(SOURCE_CATALOG);
        CatalogTable unresolved = CatalogTable.newBuilder()
                .schema(Schema.newBuilder().fromResolvedSchema(physical).build())
                .comment(table.getComment())
                .partitionKeys(table.getPartitionKeys())
                .options(options)
                .build();
        return new ResolvedCatalogTable(unresolved, physical);
    }

    private static void put(Map<String, String> options, String key, JsonNode source) {
        JsonNode value = source.get(key);
        if (value != null && !value.isNull()) {
            options.put(key, value.asText());
        }
    }

    private static JsonNode parse(String json) {
        try {
            return JSON.readTree(json);
        } catch (JsonProcessingException e) {
            throw new ValidationException(
                    "option '" + SOURCE_CATALOG + "' is not the JSON Iceberg's catalog writes: " + json, e);
        }
    }
}
