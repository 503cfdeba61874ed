package dev.isthmus.iceberg.sql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.isthmus.iceberg.source.NativeSourceCounters;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.hadoop.HadoopCatalog;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code 'connector'='isthmus-iceberg'}: a table in Flink's own catalog over an Iceberg table,
 * with Iceberg's connector options, reads and writes natively and answers as
 * {@code 'connector'='iceberg'} does, computed columns and source watermarks included; a
 * {@code LIKE} copy of an {@code isthmus-iceberg} catalog's table stays native.
 */
class ConnectorTableTest {
    @RegisterExtension
    static final MiniClusterExtension CLUSTER = SqlTests.miniCluster();

    /** Stripes of events, committed out of time order: planning order is not time order. */
    private static final int[] STRIPE_COMMIT_ORDER = {3, 0, 4, 1, 5, 2};

    private static final int STRIPE_ROWS = 400;
    /** Seconds of event time between two events of a stripe, and between two stripes' starts. */
    private static final int EVENT_SECONDS = 3;

    private static final int STRIPE_SECONDS = STRIPE_ROWS * EVENT_SECONDS;
    private static final String COLUMNS = "id BIGINT, ts TIMESTAMP(6), v STRING";

    @TempDir
    Path warehouse;

    @BeforeEach
    void writeStripes() {
        StreamTableEnvironment batch = tables(false);
        execute(batch, "CREATE CATALOG stock WITH (" + catalogOptions("iceberg") + ")");
        execute(batch, "CREATE DATABASE stock.db");
        execute(batch, "CREATE TABLE stock.db.events (" + COLUMNS + ")");
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(1);
        StreamTableEnvironment writer = StreamTableEnvironment.create(env, EnvironmentSettings.inBatchMode());
        execute(writer, "CREATE CATALOG stock WITH (" + catalogOptions("iceberg") + ")");
        writer.createTemporaryView(
                "numbers",
                writer.fromDataStream(env.fromSequence(0, STRIPE_ROWS - 1)).as("n"));
        for (int stripe : STRIPE_COMMIT_ORDER) {
            long first = (long) stripe * STRIPE_ROWS;
            execute(
                    writer,
                    "INSERT INTO stock.db.events SELECT " + first + " + n, TIMESTAMPADD(SECOND, CAST("
                            + (stripe * STRIPE_SECONDS) + " + n * " + EVENT_SECONDS
                            + " AS INT), TIMESTAMP '2026-11-30 00:00:00'),"
                            + " IF(MOD(n, 7) = 0, CAST(NULL AS STRING), CONCAT('v', CAST(n AS STRING))) FROM numbers");
        }
        assertEquals(STRIPE_COMMIT_ORDER.length, dataFiles("events").size(), "one data file per stripe");
    }

    @Test
    void connectorTableInFlinksCatalogReadsAndWritesNatively() {
        StreamTableEnvironment sql = tables(false);
        declare(sql, "TEMPORARY TABLE stock_events", "iceberg", "events", COLUMNS, "");
        declare(
                sql,
                "TEMPORARY TABLE native_events",
                "isthmus-iceberg",
                "events",
                COLUMNS,
                ", 'isthmus.strict'='true'");
        declare(sql, "TABLE kept_events", "isthmus-iceberg", "events", COLUMNS, ", 'isthmus.strict'='true'");
        for (String select : List.of(
                "SELECT * FROM %s",
                "SELECT v, COUNT(*), MAX(ts) FROM %s WHERE id > 100 GROUP BY v", "SELECT id FROM %s WHERE v IS NULL")) {
            List<String> expected = readsStock(() -> sorted(query(sql, String.format(select, "stock_events"))));
            assertFalse(expected.isEmpty(), select);
            assertEquals(
                    expected, readsNatively(() -> sorted(query(sql, String.format(select, "native_events")))), select);
            assertEquals(
                    expected,
                    readsNatively(() -> sorted(query(sql, String.format(select, "kept_events")))),
                    "a table of Flink's in-memory catalog, not temporary: " + select);
        }

        // A table that does not exist yet is created, as Iceberg's connector creates it.
        declare(
                sql,
                "TEMPORARY TABLE native_out",
                "isthmus-iceberg",
                "events_copy",
                COLUMNS + ", PRIMARY KEY (id) NOT" + " ENFORCED",
                ", 'isthmus.strict'='true', 'format-version'='2'");
        execute(sql, "INSERT INTO native_out SELECT * FROM native_events");
        assertEquals(Set.of("isthmus"), writers("events_copy"), "the connector table wrote its data files natively");
        assertEquals(
                List.of(1),
                table("events_copy").schema().identifierFieldIds().stream().toList(),
                "the primary key became the identifier field");
        declare(sql, "TEMPORARY TABLE stock_copy", "iceberg", "events_copy", COLUMNS, "");
        assertEquals(
                sorted(query(sql, "SELECT * FROM stock_events")),
                readsStock(() -> sorted(query(sql, "SELECT * FROM stock_copy"))));
    }

    /**
     * A primary key declared on the Flink table is the sink's equality key, even where the Iceberg
     * table has no identifier fields. Iceberg 1.11's table sink drops that key (it keeps only the
     * physical columns), so its upsert mode refuses such a table: a documented difference.
     */
    @Test
    void aPrimaryKeyDeclaredInFlinkIsTheUpsertKey() {
        StreamTableEnvironment sql = tables(true);
        execute(sql, "CREATE CATALOG stock WITH (" + catalogOptions("iceberg") + ")");
        String keyed = "id BIGINT, v STRING, PRIMARY KEY (id) NOT ENFORCED";
        execute(sql, "CREATE TABLE stock.db.keyed (id BIGINT, v STRING) WITH ('format-version'='2')");
        declare(sql, "TEMPORARY TABLE native_keyed", "isthmus-iceberg", "keyed", keyed, ", 'upsert-enabled'='true'");
        execute(sql, "INSERT INTO native_keyed VALUES (1, 'a'), (2, 'b')");
        execute(sql, "INSERT INTO native_keyed VALUES (2, 'c'), (3, 'd')");
        assertEquals(
                List.of(),
                table("keyed").schema().identifierFieldIds().stream().toList(),
                "the Iceberg table has no identifier fields");
        assertEquals(List.of("+I[1, a]", "+I[2, c]", "+I[3, d]"), sorted(query(sql, "SELECT * FROM stock.db.keyed")));

        declare(sql, "TEMPORARY TABLE stock_keyed", "iceberg", "keyed", keyed, ", 'upsert-enabled'='true'");
        assertRefused(
                () -> execute(sql, "INSERT INTO stock_keyed VALUES (4, 'e')"),
                "Equality field columns shouldn't be empty when configuring to use UPSERT data stream");
    }

    /**
     * With {@code watermark-column} both connectors order splits by the column's lower bounds and
     * send each split's minimum as a watermark before its first row: read by one subtask, the rows
     * come in the same order with the same watermarks, and a tumbling window loses no row.
     */
    @Test
    void sourceWatermarksAndSplitOrderAreTheStockConnectors() {
        StreamTableEnvironment sql = tables(true);
        String columns = COLUMNS + ", rowtime AS CAST(ts AS TIMESTAMP(3)), WATERMARK FOR rowtime AS SOURCE_WATERMARK()";
        String read = ", 'watermark-column'='ts', 'split-size'='134217728', 'split-file-open-cost'='134217728'";
        declare(sql, "TEMPORARY TABLE stock_events", "iceberg", "events", columns, read);
        declare(
                sql,
                "TEMPORARY TABLE native_events",
                "isthmus-iceberg",
                "events",
                columns,
                read + ", 'isthmus.strict'='true'");

        String watermarks = "SELECT id, CAST(CURRENT_WATERMARK(rowtime) AS STRING) FROM %s";
        List<String> expected = readsStock(() -> query(sql, String.format(watermarks, "stock_events")));
        List<String> actual = readsNatively(() -> query(sql, String.format(watermarks, "native_events")));
        assertEquals(STRIPE_COMMIT_ORDER.length * STRIPE_ROWS, expected.size());
        assertEquals(
                "+I[0, 2026-11-29 23:59:59.999]",
                expected.get(0),
                "the stock reader starts at the earliest stripe, announced by a watermark just before it");
        assertSameSequence(expected, actual);
        assertEquals(
                STRIPE_COMMIT_ORDER.length,
                actual.stream().map(row -> row.split(", ", 2)[1]).distinct().count(),
                "one watermark per split");

        String windows =
                "SELECT window_start, COUNT(*), MIN(id), MAX(id) FROM TABLE(TUMBLE(TABLE %s, DESCRIPTOR(rowtime),"
                        + " INTERVAL '10' MINUTES)) GROUP BY window_start, window_end";
        List<String> expectedWindows = readsStock(() -> sorted(query(sql, String.format(windows, "stock_events"))));
        assertEquals(expectedWindows, readsNatively(() -> sorted(query(sql, String.format(windows, "native_events")))));
        assertEquals(
                STRIPE_COMMIT_ORDER.length * STRIPE_ROWS,
                expectedWindows.stream()
                        .mapToLong(row -> Long.parseLong(row.split(", ")[1]))
                        .sum(),
                "no row was late");
    }

    @Test
    void createTableLikeAnIsthmusCatalogTableStaysNative() {
        StreamTableEnvironment sql = tables(true);
        execute(sql, "CREATE CATALOG lake WITH (" + catalogOptions("isthmus-iceberg") + ", 'isthmus.strict'='true')");
        execute(sql, "CREATE CATALOG iceberg_lake WITH (" + catalogOptions("iceberg") + ")");
        String watermark = "(rowtime AS CAST(ts AS TIMESTAMP(3)), WATERMARK FOR rowtime AS SOURCE_WATERMARK())"
                + " WITH ('watermark-column'='ts', 'split-size'='134217728', 'split-file-open-cost'='134217728')";
        execute(sql, "CREATE TEMPORARY TABLE native_copy " + watermark + " LIKE lake.db.events");
        execute(sql, "CREATE TEMPORARY TABLE stock_copy " + watermark + " LIKE iceberg_lake.db.events");

        String select = "SELECT id, CAST(CURRENT_WATERMARK(rowtime) AS STRING) FROM %s";
        List<String> expected = readsStock(() -> query(sql, String.format(select, "stock_copy")));
        assertSameSequence(expected, readsNatively(() -> query(sql, String.format(select, "native_copy"))));
    }

    @Test
    void isthmusNativeFalseReadsWithIcebergsConnector() {
        StreamTableEnvironment sql = tables(false);
        declare(sql, "TEMPORARY TABLE native_events", "isthmus-iceberg", "events", COLUMNS, "");
        List<String> stock = readsStock(
                () -> sorted(query(sql, "SELECT * FROM native_events /*+ OPTIONS('isthmus.native'='false') */")));
        assertEquals(readsNatively(() -> sorted(query(sql, "SELECT * FROM native_events"))), stock);
    }

    @Test
    void mistakesAreRefusedNamingTheIsthmusConnector() {
        StreamTableEnvironment sql = tables(false);
        execute(
                sql,
                "CREATE TEMPORARY TABLE nameless (" + COLUMNS + ") WITH ('connector'='isthmus-iceberg',"
                        + " 'catalog-type'='hadoop', 'warehouse'='" + warehouse.toUri() + "')");
        assertRefused(
                () -> query(sql, "SELECT * FROM nameless"),
                "table 'default_catalog.default_database.nameless'"
                        + " ('connector'='isthmus-iceberg'): option 'catalog-name' is required");

        declare(sql, "TEMPORARY TABLE typo", "isthmus-iceberg", "events", COLUMNS, ", 'isthmus.strict'='yes'");
        assertRefused(
                () -> query(sql, "SELECT * FROM typo"),
                "invalid value 'yes' for option 'isthmus.strict' (table"
                        + " 'default_catalog.default_database.typo' ('connector'='isthmus-iceberg'))");

        StreamTableEnvironment streaming = tables(true);
        declare(
                streaming,
                "TEMPORARY TABLE unmarked",
                "isthmus-iceberg",
                "events",
                COLUMNS + ", rowtime AS CAST(ts AS TIMESTAMP(3)), WATERMARK FOR rowtime AS SOURCE_WATERMARK()",
                "");
        assertRefused(
                () -> query(streaming, "SELECT * FROM unmarked"),
                "table 'default_catalog.default_database.unmarked'"
                        + " ('connector'='isthmus-iceberg'): SOURCE_WATERMARK() needs the option 'watermark-column'");

        declare(
                sql,
                "TEMPORARY TABLE capped",
                "isthmus-iceberg",
                "events",
                COLUMNS,
                ", 'isthmus.max-native-bytes'='1kb'");
        String cap = "would exceed its native memory cap of 1024 bytes (maxNativeBytes, or 'isthmus.max-native-bytes'"
                + " in SQL)";
        assertRefused(() -> query(sql, "SELECT * FROM capped"), cap);
        assertRefused(
                () -> execute(
                        sql,
                        "INSERT INTO capped SELECT * FROM capped /*+ OPTIONS("
                                + "'isthmus.max-native-bytes'='64mb') */"),
                cap);
        assertEquals(STRIPE_COMMIT_ORDER.length, dataFiles("events").size(), "the failed write committed nothing");

        execute(sql, "CREATE CATALOG lake WITH (" + catalogOptions("isthmus-iceberg") + ")");
        assertRefused(
                () -> execute(
                        sql,
                        "CREATE TABLE lake.db.twice (" + COLUMNS + ") WITH ("
                                + connectorOptions("isthmus-iceberg", "twice") + ")"),
                "Cannot create table 'lake.db.twice' with 'connector'='isthmus-iceberg'");
    }

    private StreamTableEnvironment tables(boolean streaming) {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(1);
        StreamTableEnvironment sql = StreamTableEnvironment.create(
                env, streaming ? EnvironmentSettings.inStreamingMode() : EnvironmentSettings.inBatchMode());
        // The stock source would otherwise size itself by its split count; the native one cannot.
        sql.getConfig().set("table.exec.iceberg.infer-source-parallelism", "false");
        return sql;
    }

    private String catalogOptions(String type) {
        return "'type'='" + type + "', 'catalog-type'='hadoop', 'warehouse'='" + warehouse.toUri() + "'";
    }

    private String connectorOptions(String connector, String table) {
        return "'connector'='" + connector + "', 'catalog-name'='hadoop_lake', 'catalog-type'='hadoop', 'warehouse'='"
                + warehouse.toUri() + "', 'catalog-database'='db', 'catalog-table'='" + table + "'";
    }

    private void declare(
            StreamTableEnvironment sql,
            String what,
            String connector,
            String table,
            String columns,
            String extraOptions) {
        execute(
                sql,
                "CREATE " + what + " (" + columns + ") WITH (" + connectorOptions(connector, table) + extraOptions
                        + ")");
    }

    private static void execute(StreamTableEnvironment sql, String statement) {
        SqlTests.execute(sql, statement);
    }

    private static List<String> query(StreamTableEnvironment sql, String select) {
        return SqlTests.rows(sql, select);
    }

    private static List<String> sorted(List<String> rows) {
        return rows.stream().sorted().toList();
    }

    private static <T> T readsNatively(java.util.function.Supplier<T> read) {
        long nativeTasks = NativeSourceCounters.nativeTasks();
        long fallbacks = NativeSourceCounters.fallbackTasks();
        T result = read.get();
        assertTrue(NativeSourceCounters.nativeTasks() > nativeTasks, "read natively");
        assertEquals(fallbacks, NativeSourceCounters.fallbackTasks(), "no task fell back");
        return result;
    }

    private static <T> T readsStock(java.util.function.Supplier<T> read) {
        long nativeTasks = NativeSourceCounters.nativeTasks();
        T result = read.get();
        assertEquals(nativeTasks, NativeSourceCounters.nativeTasks(), "read with Iceberg's reader");
        return result;
    }

    /** Equal lists; on a difference, the first rows that differ rather than thousands of rows. */
    private static void assertSameSequence(List<String> expected, List<String> actual) {
        int i = 0;
        while (i < Math.min(expected.size(), actual.size()) && expected.get(i).equals(actual.get(i))) {
            i++;
        }
        if (i < expected.size() || i < actual.size()) {
            throw new AssertionError("rows differ from row " + i + " (of " + expected.size() + " expected, "
                    + actual.size() + " actual): expected " + window(expected, i) + ", actual " + window(actual, i));
        }
    }

    private static List<String> window(List<String> rows, int from) {
        return rows.subList(Math.min(from, rows.size()), Math.min(from + 5, rows.size()));
    }

    private static void assertRefused(Runnable statement, String message) {
        Throwable e = assertThrows(Throwable.class, statement::run);
        List<String> messages = Stream.iterate(e, Objects::nonNull, Throwable::getCause)
                .map(t -> String.valueOf(t.getMessage()))
                .toList();
        assertTrue(
                messages.stream().anyMatch(m -> m.contains(message)),
                "expected a message containing <" + message + ">, got " + messages);
    }

    private Table table(String name) {
        return new HadoopCatalog(
                        new org.apache.hadoop.conf.Configuration(),
                        warehouse.toUri().toString())
                .loadTable(TableIdentifier.of(Namespace.of("db"), name));
    }

    private List<String> dataFiles(String name) {
        try (CloseableIterable<FileScanTask> tasks = table(name).newScan().planFiles()) {
            List<String> files = new ArrayList<>();
            tasks.forEach(task -> files.add(task.file().location()));
            return files;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The writer named in each data file's footer ({@code created_by}, its first word). */
    private Set<String> writers(String name) {
        Set<String> createdBy = new TreeSet<>();
        for (String file : dataFiles(name)) {
            try (ParquetFileReader reader = ParquetFileReader.open(HadoopInputFile.fromPath(
                    new org.apache.hadoop.fs.Path(file), new org.apache.hadoop.conf.Configuration()))) {
                String writer = reader.getFooter().getFileMetaData().getCreatedBy();
                assertNotNull(writer, file);
                createdBy.add(writer.split(" ")[0]);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return createdBy;
    }
}
