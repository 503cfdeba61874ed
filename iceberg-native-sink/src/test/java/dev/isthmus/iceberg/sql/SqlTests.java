package dev.isthmus.iceberg.sql;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;

/** What the SQL tests share: their MiniCluster, and statements and queries that name themselves when they fail. */
final class SqlTests {
    private SqlTests() {}

    /** One TaskManager with two slots; a failed job fails its test instead of restarting. */
    static MiniClusterExtension miniCluster() {
        return new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
                .setNumberTaskManagers(1)
                .setNumberSlotsPerTaskManager(2)
                .setConfiguration(Configuration.fromMap(Map.of("restart-strategy.type", "none")))
                .build());
    }

    static void execute(TableEnvironment sql, String statement) {
        try {
            sql.executeSql(statement).await();
        } catch (Exception e) {
            throw new IllegalStateException(statement, e);
        }
    }

    /** The rows of a query as text, in the order they came. */
    static List<String> rows(TableEnvironment sql, String select) {
        List<String> rows = new ArrayList<>();
        try (CloseableIterator<Row> it = sql.executeSql(select).collect()) {
            it.forEachRemaining(row -> rows.add(row.toString()));
        } catch (Exception e) {
            throw new IllegalStateException(select, e);
        }
        return rows;
    }
}
