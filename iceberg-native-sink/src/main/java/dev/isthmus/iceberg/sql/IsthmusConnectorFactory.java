package dev.isthmus.iceberg.sql;

import java.util.Collections;
import java.util.Set;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.table.connector.sink.DynamicTableSink;
import org.apache.flink.table.connector.source.DynamicTableSource;
import org.apache.flink.table.factories.DynamicTableSinkFactory;
import org.apache.flink.table.factories.DynamicTableSourceFactory;

/**
 * The factory Flink discovers for {@code 'connector'='isthmus-iceberg'}: a table in any catalog
 * (Flink's in-memory one included) over an Iceberg table, with the options of Iceberg's
 * {@code 'connector'='iceberg'}, read and written natively ({@link NativeTableFactory}).
 * Compiled for Java 11 as {@link IsthmusCatalogFactory} is, for the same reason: on an older JDK
 * only using such a table fails, saying that Isthmus needs JDK 25.
 */
public final class IsthmusConnectorFactory implements DynamicTableSourceFactory, DynamicTableSinkFactory {
    private static final String IDENTIFIER = "isthmus-iceberg";
    private static final String IMPLEMENTATION = "dev.isthmus.iceberg.sql.NativeTableFactory";
    private static final String WHAT = "The connector '" + IDENTIFIER + "'";

    @Override
    public String factoryIdentifier() {
        return IDENTIFIER;
    }

    /** None that Flink checks: the options are Iceberg's, checked as its connector checks them. */
    @Override
    public Set<ConfigOption<?>> requiredOptions() {
        return Collections.emptySet();
    }

    @Override
    public Set<ConfigOption<?>> optionalOptions() {
        return Collections.emptySet();
    }

    @Override
    public DynamicTableSource createDynamicTableSource(Context context) {
        return IsthmusJdk.implementation(WHAT, IMPLEMENTATION, DynamicTableSourceFactory.class)
                .createDynamicTableSource(context);
    }

    @Override
    public DynamicTableSink createDynamicTableSink(Context context) {
        return IsthmusJdk.implementation(WHAT, IMPLEMENTATION, DynamicTableSinkFactory.class)
                .createDynamicTableSink(context);
    }
}
