package dev.isthmus.iceberg.sql;

import java.util.Collections;
import java.util.Set;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.table.catalog.Catalog;
import org.apache.flink.table.factories.CatalogFactory;

/**
 * The factory Flink discovers for the catalog type {@code isthmus-iceberg}. Flink loads every
 * registered factory whenever it looks one up, so a class it cannot load breaks all of Flink SQL
 * on that JVM, Iceberg's own catalog included. This class is therefore compiled for Java 11, the
 * oldest release Flink 2 runs on, and touches nothing of Isthmus until a catalog is created: on
 * JDK 25 it hands over to {@link NativeCatalogFactory}; on an older JDK creating the catalog fails
 * saying that Isthmus needs JDK 25 ({@link IsthmusJdk}).
 */
public final class IsthmusCatalogFactory implements CatalogFactory {
    private static final String IDENTIFIER = "isthmus-iceberg";
    private static final String IMPLEMENTATION = "dev.isthmus.iceberg.sql.NativeCatalogFactory";

    @Override
    public String factoryIdentifier() {
        return IDENTIFIER;
    }

    @Override
    public Set<ConfigOption<?>> requiredOptions() {
        return Collections.emptySet();
    }

    @Override
    public Set<ConfigOption<?>> optionalOptions() {
        return Collections.emptySet();
    }

    @Override
    public Catalog createCatalog(Context context) {
        return IsthmusJdk.implementation("The catalog type '" + IDENTIFIER + "'", IMPLEMENTATION, CatalogFactory.class)
                .createCatalog(context);
    }
}
