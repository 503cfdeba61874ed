package dev.isthmus.iceberg.sql;

import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.Locale;
import java.util.Map;
import org.apache.flink.table.catalog.Catalog;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.flink.CatalogLoader;
import org.apache.iceberg.flink.FlinkCatalogFactory;
import org.apache.iceberg.util.PropertyUtil;

/**
 * The catalog type {@value #IDENTIFIER}: Iceberg's Flink catalog (the same options as type
 * {@code iceberg}) whose tables are read through the native source and written through the
 * native sink. Its options
 * {@code isthmus.*} ({@link NativeSqlOptions}) are the defaults for every table, which table
 * properties and {@code OPTIONS} hints override per table and per query; an unknown
 * {@code isthmus.*} key or a value not of its option's type fails the statement that declares it.
 *
 * <pre>{@code
 * CREATE CATALOG lake WITH ('type' = 'isthmus-iceberg', 'catalog-type' = 'hadoop',
 *     'warehouse' = 's3://bucket/warehouse', 'isthmus.strict' = 'true');
 * }</pre>
 *
 * <p>Flink reaches it through {@link IsthmusCatalogFactory}, the entry registered in
 * {@code META-INF/services/org.apache.flink.table.factories.Factory}, which loads on any JDK; a
 * shaded job jar must merge service files, or Iceberg's and this entry overwrite each other.
 */
public class NativeCatalogFactory extends FlinkCatalogFactory {
    public static final String IDENTIFIER = "isthmus-iceberg";

    @Override
    public String factoryIdentifier() {
        return IDENTIFIER;
    }

    /** As Iceberg's factory builds its catalog (whose loader it keeps to itself), with the native table factory. */
    @Override
    protected Catalog createCatalog(String name, Map<String, String> properties, Configuration hadoopConf) {
        Map<String, String> nativeDefaults = NativeSqlOptions.catalogDefaults(properties, "catalog '" + name + "'");
        CatalogLoader loader = catalogLoader(name, properties, hadoopConf);
        String defaultDatabase = properties.getOrDefault(DEFAULT_DATABASE, DEFAULT_DATABASE_NAME);
        Namespace baseNamespace = properties.containsKey(BASE_NAMESPACE)
                ? Namespace.of(properties.get(BASE_NAMESPACE).split("\\."))
                : Namespace.empty();
        boolean cacheEnabled = PropertyUtil.propertyAsBoolean(
                properties, CatalogProperties.CACHE_ENABLED, CatalogProperties.CACHE_ENABLED_DEFAULT);
        long cacheExpiration = PropertyUtil.propertyAsLong(
                properties,
                CatalogProperties.CACHE_EXPIRATION_INTERVAL_MS,
                CatalogProperties.CACHE_EXPIRATION_INTERVAL_MS_OFF);
        if (cacheExpiration == 0) {
            throw new IllegalArgumentException(
                    CatalogProperties.CACHE_EXPIRATION_INTERVAL_MS + " is not allowed to be 0.");
        }
        return new NativeFlinkCatalog(
                name,
                defaultDatabase,
                baseNamespace,
                loader,
                properties,
                cacheEnabled,
                cacheExpiration,
                nativeDefaults);
    }

    /** Iceberg's {@code FlinkCatalogFactory.createCatalogLoader}, which is package-private. */
    static CatalogLoader catalogLoader(String name, Map<String, String> properties, Configuration hadoopConf) {
        String catalogImpl = properties.get(CatalogProperties.CATALOG_IMPL);
        if (catalogImpl != null) {
            if (properties.get(ICEBERG_CATALOG_TYPE) != null) {
                throw new IllegalArgumentException(
                        "Cannot create catalog " + name + ", both catalog-type and catalog-impl are set");
            }
            return CatalogLoader.custom(name, properties, hadoopConf, catalogImpl);
        }
        String type = properties.getOrDefault(ICEBERG_CATALOG_TYPE, ICEBERG_CATALOG_TYPE_HIVE);
        return switch (type.toLowerCase(Locale.ENGLISH)) {
            case ICEBERG_CATALOG_TYPE_HIVE ->
                CatalogLoader.hive(
                        name,
                        hiveConf(hadoopConf, properties.get(HIVE_CONF_DIR), properties.get(HADOOP_CONF_DIR)),
                        properties);
            case ICEBERG_CATALOG_TYPE_HADOOP -> CatalogLoader.hadoop(name, hadoopConf, properties);
            case ICEBERG_CATALOG_TYPE_REST -> CatalogLoader.rest(name, hadoopConf, properties);
            default ->
                throw new UnsupportedOperationException(
                        "Unknown catalog-type: " + type + " (Must be 'hive', 'hadoop' or 'rest')");
        };
    }

    /** Iceberg's {@code mergeHiveConf}: hive-site.xml from the directory or the classpath, Hadoop's site files. */
    private static Configuration hiveConf(Configuration hadoopConf, String hiveConfDir, String hadoopConfDir) {
        Configuration conf = new Configuration(hadoopConf);
        if (hiveConfDir != null && !hiveConfDir.isEmpty()) {
            requireFile(hiveConfDir, "hive-site.xml");
            conf.addResource(new Path(hiveConfDir, "hive-site.xml"));
        } else {
            URL onClasspath = CatalogLoader.class.getClassLoader().getResource("hive-site.xml");
            if (onClasspath != null) {
                conf.addResource(onClasspath);
            }
        }
        if (hadoopConfDir != null && !hadoopConfDir.isEmpty()) {
            requireFile(hadoopConfDir, "hdfs-site.xml");
            conf.addResource(new Path(hadoopConfDir, "hdfs-site.xml"));
            requireFile(hadoopConfDir, "core-site.xml");
            conf.addResource(new Path(hadoopConfDir, "core-site.xml"));
        }
        return conf;
    }

    private static void requireFile(String dir, String file) {
        if (!Files.exists(Paths.get(dir, file))) {
            throw new IllegalStateException("Failed to load configuration: missing " + Paths.get(dir, file));
        }
    }
}
