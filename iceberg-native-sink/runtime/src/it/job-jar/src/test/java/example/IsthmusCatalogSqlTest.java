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
 * A user's first SQL through the {@code isthmus-iceberg} catalog on this project's class path: a
 * Hadoop catalog in a temporary warehouse, a table, an {@code INSERT}, and a {@code SELECT} of
 * the rows back. {@code isthmus.strict} makes both statements fail rather than fall back to
 * Iceberg's reader or writer, so the rows went through the native library.
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
}
