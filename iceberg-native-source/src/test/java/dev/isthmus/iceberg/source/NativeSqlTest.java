package dev.isthmus.iceberg.source;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Table;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** SQL over the {@code isthmus-iceberg} catalog reads natively and returns what Iceberg's catalog returns. */
class NativeSqlTest {
    @RegisterExtension
    static final MiniClusterExtension CLUSTER = new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
            .setNumberTaskManagers(1)
            .setNumberSlotsPerTaskManager(2)
            .setConfiguration(Configuration.fromMap(Map.of("restart-strategy.type", "none")))
            .build());

    @TempDir
    Path dir;

    @SuppressWarnings("try") // closing a collect iterator may be interrupted; a test has nothing to do about it
    private static List<List<Object>> query(StreamTableEnvironment tables, String sql) {
        List<List<Object>> rows = new ArrayList<>();
        try (CloseableIterator<Row> it = tables.executeSql(sql).collect()) {
            // Row's text form compares binary values by content.
            it.forEachRemaining(row -> rows.add(List.of(row.toString())));
        } catch (Exception e) {
            throw new RuntimeException(sql, e);
        }
        return rows;
    }

    @Test
    void queriesReadNativelyWithIcebergsResults() {
        TestTables tables = new TestTables(dir);
        Table table = tables.create("bids", SampleTable.SCHEMA,
                PartitionSpec.builderFor(SampleTable.SCHEMA).bucket("id", 3).build(),
                Map.of("write.parquet.row-group-size-bytes", "8192"));
        TestTables.append(table, SampleTable.records(0, 6_000));
        TestTables.append(table, SampleTable.records(6_000, 3_000));

        StreamTableEnvironment sql = StreamTableEnvironment.create(StreamExecutionEnvironment.getExecutionEnvironment(),
                EnvironmentSettings.inBatchMode());
        String warehouse = "file:" + dir.toAbsolutePath();
        sql.executeSql("CREATE CATALOG nat WITH ('type' = 'isthmus-iceberg', 'catalog-type' = 'hadoop', 'warehouse' = '"
                + warehouse + "', 'isthmus.strict' = 'true', 'isthmus.batch-size' = '1000')");
        sql.executeSql("CREATE CATALOG ice WITH ('type' = 'iceberg', 'catalog-type' = 'hadoop', 'warehouse' = '"
                + warehouse + "')");

        long nativeTasks = NativeSourceCounters.nativeTasks();
        long pruned = NativeSourceCounters.rowGroupsPruned();
        for (String q : List.of(
                "SELECT * FROM %s.db.bids",
                "SELECT id, category, amount FROM %s.db.bids WHERE id < 5000 AND category = 'a'",
                "SELECT category, COUNT(*), SUM(amount), MAX(ts) FROM %s.db.bids "
                        + "WHERE ts > TIMESTAMP '2026-11-28 03:00:00' GROUP BY category")) {
            List<List<Object>> expected = query(sql, q.formatted("ice"));
            assertTrue(!expected.isEmpty(), q);
            ReadResults.assertSameRows(expected, query(sql, q.formatted("nat")));
        }
        assertTrue(NativeSourceCounters.nativeTasks() > nativeTasks, "the native catalog read natively");
        assertTrue(NativeSourceCounters.rowGroupsPruned() > pruned, "filters reached the native reader");

        assertEquals(100, query(sql, "SELECT id FROM nat.db.bids LIMIT 100").size());

        long before = NativeSourceCounters.nativeTasks();
        ReadResults.assertSameRows(query(sql, "SELECT * FROM ice.db.bids"),
                query(sql, "SELECT * FROM nat.db.bids /*+ OPTIONS('isthmus.native' = 'false') */"));
        assertEquals(before, NativeSourceCounters.nativeTasks(), "the hint turned native reads off for the query");
    }
}
