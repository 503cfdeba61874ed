package example;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A user's first jobs on this project's class path, over a Hadoop catalog in a temporary
 * warehouse: SQL through the {@code isthmus-iceberg} catalog (an {@code INSERT} and a
 * {@code SELECT} back, and upserts), and a DataStream job ({@link DataStreamCopy}).
 * {@code isthmus.strict} makes a read or write fail rather than fall back to Iceberg's reader or
 * writer, so the rows went through the native library.
 */
class IsthmusCatalogSqlTest {
    @TempDir
    Path warehouse;

    @Test
    void insertsAndSelectsRowsThroughTheIsthmusCatalog() throws Exception {
        TableEnvironment sql = TableEnvironment.create(EnvironmentSettings.inBatchMode());
        sql.executeSql("CREATE CATALOG lake WITH ('type'='isthmus-iceberg', 'catalog-type'='hadoop', "
                + "'warehouse'='" + warehouse.toUri() + "', 'isthmus.strict'='true')").await();
        sql.executeSql("CREATE DATABASE lake.db").await();
        sql.executeSql("CREATE TABLE lake.db.bids (auction BIGINT, price DECIMAL(10, 2), channel STRING)").await();
        sql.executeSql("INSERT INTO lake.db.bids VALUES (1, 10.50, 'Google'), (2, 99.99, 'Apple'), "
                + "(3, 0.01, CAST(NULL AS STRING))").await();

        List<String> rows = new ArrayList<>();
        try (CloseableIterator<Row> it = sql.executeSql("SELECT auction, price, channel FROM lake.db.bids").collect()) {
            it.forEachRemaining(row -> rows.add(row.toString()));
        }
        rows.sort(null);
        assertEquals(List.of("+I[1, 10.50, Google]", "+I[2, 99.99, Apple]", "+I[3, 0.01, null]"), rows);
    }

    /**
     * Upserts write native data files beside Iceberg's equality deletes, which the native reader
     * applies: the catalog's strict reads hold.
     */
    @Test
    void upsertsKeepTheLatestRowOfEachKey() throws Exception {
        TableEnvironment sql = catalog();
        sql.executeSql("CREATE TABLE lake.db.latest (id BIGINT, qty INT, PRIMARY KEY (id) NOT ENFORCED)"
                + " WITH ('format-version'='2', 'write.upsert.enabled'='true')").await();
        sql.executeSql("INSERT INTO lake.db.latest VALUES (1, 10), (2, 20), (3, 30)").await();
        sql.executeSql("INSERT INTO lake.db.latest VALUES (2, 21), (3, 31)").await();
        assertEquals(List.of("+I[1, 10]", "+I[2, 21]", "+I[3, 31]"),
                rows(sql, "SELECT * FROM lake.db.latest"));
    }

    @Test
    void copiesATableWithTheDataStreamApi() throws Exception {
        TableEnvironment sql = catalog();
        sql.executeSql("CREATE TABLE lake.db.events (id BIGINT, label STRING)").await();
        sql.executeSql("INSERT INTO lake.db.events VALUES (1, 'a'), (2, CAST(NULL AS STRING)), (40, 'c')").await();
        long[] copied = DataStreamCopy.copy(warehouse.toUri().toString(), "events", "copied");
        assertEquals(3, copied[0]);
        assertEquals(43, copied[1]);
        assertEquals(List.of("+I[1, a]", "+I[2, null]", "+I[40, c]"), rows(sql, "SELECT * FROM lake.db.copied"));
    }

    private TableEnvironment catalog() throws Exception {
        TableEnvironment sql = TableEnvironment.create(EnvironmentSettings.inBatchMode());
        sql.executeSql("CREATE CATALOG lake WITH ('type'='isthmus-iceberg', 'catalog-type'='hadoop', "
                + "'warehouse'='" + warehouse.toUri() + "', 'isthmus.strict'='true')").await();
        sql.executeSql("CREATE DATABASE lake.db").await();
        return sql;
    }

    private static List<String> rows(TableEnvironment sql, String select) throws Exception {
        List<String> rows = new ArrayList<>();
        try (CloseableIterator<Row> it = sql.executeSql(select).collect()) {
            it.forEachRemaining(row -> rows.add(row.toString()));
        }
        rows.sort(null);
        return rows;
    }
}
