package dev.isthmus.iceberg.sql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.isthmus.iceberg.source.NativeSourceCounters;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.hadoop.HadoopCatalog;
import org.apache.iceberg.types.Types;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Flink SQL through the {@code isthmus-iceberg} catalog: the same warehouse seen through Iceberg's
 * own catalog gives the same answers, {@code INSERT INTO} writes the data files natively, filters
 * reach the native reader, and {@code isthmus.native} switches native I/O off per catalog, per
 * table and per query.
 */
class NativeCatalogSqlTest {
    @RegisterExtension
    static final MiniClusterExtension CLUSTER = SqlTests.miniCluster();

    private static final int ROWS = 3_000;

    @TempDir
    Path warehouse;

    private StreamExecutionEnvironment env;
    private StreamTableEnvironment sql;

    @BeforeEach
    void setUp() {
        env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2);
        sql = StreamTableEnvironment.create(env, EnvironmentSettings.inBatchMode());
        createCatalog("lake", "isthmus-iceberg", Map.of("isthmus.strict", "true", "isthmus.batch-size", "1000"));
        createCatalog("stock", "iceberg", Map.of());
        execute("CREATE DATABASE lake.db");
        execute("CREATE TABLE lake.db.bids (auction BIGINT, bidder BIGINT, price BIGINT, channel STRING, "
                + "url STRING, ts TIMESTAMP(6), extra STRING) PARTITIONED BY (channel) "
                + "WITH ('write.parquet.row-group-size-bytes'='8192')");
        execute("INSERT INTO lake.db.bids SELECT " + BIDS_COLUMNS + " FROM " + bids(ROWS));
    }

    /** Columns of {@link #bids}: deterministic Nexmark-like bids from a row number. */
    private static final String BIDS_COLUMNS =
            "1000 + MOD(n * 7919, 97) AS auction, 1000 + MOD(n * 104729, 100000) AS bidder, "
                    + "100 + MOD(n * 1299709, 10000000) AS price, "
                    + "CASE MOD(n, 4) WHEN 0 THEN 'Google' WHEN 1 THEN 'Facebook' WHEN 2 THEN 'Baidu' ELSE 'Apple' END AS channel, "
                    + "CONCAT('https://www.nexmark.com/item.htm?query=1&id=', CAST(n AS STRING)) AS url, "
                    + "TIMESTAMPADD(SECOND, CAST(n AS INT), TIMESTAMP '2026-11-30 00:00:00') AS ts, "
                    + "IF(MOD(n, 5) = 0, CAST(NULL AS STRING), REPEAT('x', CAST(MOD(n, 24) AS INT))) AS extra";

    /**
     * A relation of {@code n} = 0 .. count - 1, from a DataStream: as a VALUES list of thousands of
     * rows it would send the planner's predicate simplification into quadratic time.
     */
    private String bids(int count) {
        String view = "numbers_" + count;
        if (!java.util.Arrays.asList(sql.listTemporaryViews()).contains(view)) {
            sql.createTemporaryView(
                    view, sql.fromDataStream(env.fromSequence(0, count - 1)).as("n"));
        }
        return view;
    }

    private void createCatalog(String name, String type, Map<String, String> extra) {
        createCatalog(sql, name, type, extra);
    }

    private void createCatalog(StreamTableEnvironment tables, String name, String type, Map<String, String> extra) {
        Map<String, String> options = new HashMap<>(Map.of(
                "type",
                type,
                "catalog-type",
                "hadoop",
                "warehouse",
                warehouse.toUri().toString()));
        options.putAll(extra);
        StringBuilder with = new StringBuilder();
        options.forEach((k, v) -> with.append(with.isEmpty() ? "" : ", ")
                .append('\'')
                .append(k)
                .append("'='")
                .append(v)
                .append('\''));
        try {
            tables.executeSql("CREATE CATALOG " + name + " WITH (" + with + ")").await();
        } catch (Exception e) {
            throw new IllegalStateException(name, e);
        }
    }

    private void execute(String statement) {
        SqlTests.execute(sql, statement);
    }

    /** The rows of a query, as sorted text (a multiset compare that shows the difference). */
    private List<String> query(String select) {
        return query(sql, select);
    }

    private static List<String> query(StreamTableEnvironment tables, String select) {
        List<String> rows = new ArrayList<>(SqlTests.rows(tables, select));
        rows.sort(null);
        return rows;
    }

    private Table table(String name) {
        HadoopCatalog catalog = new HadoopCatalog(
                new org.apache.hadoop.conf.Configuration(), warehouse.toUri().toString());
        return catalog.loadTable(TableIdentifier.of(Namespace.of("db"), name));
    }

    /** The {@code created_by} of every data file of the table's current snapshot. */
    private Set<String> writers(String name) {
        Table table = table(name);
        Set<String> createdBy = new TreeSet<>();
        for (var task : table.newScan().planFiles()) {
            DataFile file = task.file();
            try (ParquetFileReader reader =
                    ParquetFileReader.open(org.apache.parquet.hadoop.util.HadoopInputFile.fromPath(
                            new org.apache.hadoop.fs.Path(file.location()),
                            new org.apache.hadoop.conf.Configuration()))) {
                createdBy.add(
                        reader.getFooter().getFileMetaData().getCreatedBy().split(" ")[0]);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return createdBy;
    }

    @Test
    void nativeCatalogAnswersAsIcebergsOwnCatalogOverTheSameTable() {
        assertEquals(Set.of("isthmus"), writers("bids"), "INSERT INTO wrote the data files natively");
        long pruned = NativeSourceCounters.rowGroupsPruned();
        for (String select : List.of(
                "SELECT * FROM %s.db.bids",
                "SELECT auction, price, ts FROM %s.db.bids WHERE channel = 'Google' AND ts < TIMESTAMP '2026-11-30 00:10:00'",
                "SELECT channel, COUNT(*), SUM(price), MAX(ts) FROM %s.db.bids WHERE extra IS NULL GROUP BY channel",
                "SELECT COUNT(*) FROM (SELECT * FROM %s.db.bids LIMIT 7)")) {
            long nativeTasks = NativeSourceCounters.nativeTasks();
            List<String> expected = query(String.format(select, "stock"));
            assertEquals(nativeTasks, NativeSourceCounters.nativeTasks(), "Iceberg's catalog reads without Isthmus");
            List<String> actual = query(String.format(select, "lake"));
            assertTrue(NativeSourceCounters.nativeTasks() > nativeTasks, "read natively: " + select);
            assertTrue(!expected.isEmpty(), "the query must return rows: " + select);
            assertEquals(expected, actual, select);
        }
        assertTrue(NativeSourceCounters.rowGroupsPruned() > pruned, "filters reached the native reader");
        assertEquals(List.of("+I[" + ROWS + "]"), query("SELECT COUNT(*) FROM lake.db.bids"));
        long nativeTasks = NativeSourceCounters.nativeTasks();
        assertEquals(
                List.of("+I[" + ROWS + "]"),
                query("SELECT COUNT(*) FROM lake.db.bids /*+ OPTIONS('scan.parallelism'='1') */"));
        assertTrue(NativeSourceCounters.nativeTasks() > nativeTasks, "a scan.parallelism hint reads natively");
    }

    /**
     * An upsert table (its second INSERT updates a tenth of the keys, which leaves equality
     * deletes) reads natively in strict mode with the rows Iceberg's own catalog reads.
     */
    @Test
    void upsertTablesReadNativelyAsIcebergsOwnCatalogReadsThem() {
        execute("CREATE TABLE lake.db.latest (auction BIGINT, price BIGINT, channel STRING,"
                + " PRIMARY KEY (auction, channel) NOT ENFORCED) PARTITIONED BY (channel)"
                + " WITH ('format-version'='2', 'write.upsert.enabled'='true')");
        execute("INSERT INTO lake.db.latest SELECT n AS auction, n AS price, CASE MOD(n, 3) WHEN 0 THEN 'Google'"
                + " WHEN 1 THEN 'Apple' ELSE 'Baidu' END AS channel FROM " + bids(ROWS));
        execute("INSERT INTO lake.db.latest SELECT n * 10 AS auction, -n AS price, CASE MOD(n * 10, 3) WHEN 0"
                + " THEN 'Google' WHEN 1 THEN 'Apple' ELSE 'Baidu' END AS channel FROM " + bids(ROWS / 10));
        long keys = NativeSourceCounters.equalityDeleteKeys();
        long deleted = NativeSourceCounters.rowsDeleted();
        for (String select : List.of(
                "SELECT * FROM %s.db.latest",
                "SELECT channel, COUNT(*), SUM(price) FROM %s.db.latest GROUP BY channel")) {
            assertEquals(query(String.format(select, "stock")), query(String.format(select, "lake")), select);
        }
        assertTrue(NativeSourceCounters.equalityDeleteKeys() > keys, "the equality deletes were applied natively");
        assertEquals(
                deleted + 2 * (ROWS / 10), NativeSourceCounters.rowsDeleted(), "each updated key's old row, twice");
        assertEquals(List.of("+I[" + ROWS + "]"), query("SELECT COUNT(*) FROM lake.db.latest"));
    }

    /**
     * A v3 table of nanosecond timestamps (TIMESTAMP(9) and TIMESTAMP_LTZ(9), Iceberg's
     * {@code timestamp_ns} and {@code timestamptz_ns}), written by either sink and read by either
     * catalog with the same rows, natively in strict mode.
     */
    @Test
    void nanosecondTimestampsOnV3RoundTripBothWays() {
        String rows = "SELECT n AS id, TIMESTAMPADD(SECOND, CAST(n AS INT), TIMESTAMP '1969-12-31 23:59:58.123456789')"
                + " AS seen, CAST(TIMESTAMPADD(MINUTE, CAST(n AS INT), TIMESTAMP '2026-12-03 10:00:00.000000001') AS"
                + " TIMESTAMP_LTZ(9)) AS seen_utc FROM " + bids(ROWS);
        for (String writer : List.of("lake", "stock")) {
            execute("CREATE TABLE " + writer + ".db.nanos_" + writer + " (id BIGINT, seen TIMESTAMP(9), seen_utc"
                    + " TIMESTAMP_LTZ(9)) WITH ('format-version'='3')");
            execute("INSERT INTO " + writer + ".db.nanos_" + writer + " " + rows);
            assertEquals(
                    Types.TimestampNanoType.withoutZone(),
                    table("nanos_" + writer).schema().findField("seen").type());
            assertEquals(Set.of(writer.equals("lake") ? "isthmus" : "parquet-mr"), writers("nanos_" + writer));
            for (String select : List.of(
                    "SELECT * FROM %s.db.nanos_" + writer,
                    "SELECT id, seen FROM %s.db.nanos_" + writer
                            + " WHERE seen_utc > CAST(TIMESTAMP '2026-12-03 12:00:00' AS TIMESTAMP_LTZ(9))")) {
                long nativeTasks = NativeSourceCounters.nativeTasks();
                List<String> expected = query(String.format(select, "stock"));
                assertTrue(!expected.isEmpty(), select);
                assertEquals(expected, query(String.format(select, "lake")), select);
                assertTrue(NativeSourceCounters.nativeTasks() > nativeTasks, "read natively: " + select);
            }
        }
        assertEquals(
                query("SELECT * FROM stock.db.nanos_stock"),
                query("SELECT * FROM lake.db.nanos_lake"),
                "both sinks committed the same rows");
    }

    /**
     * A table of structs, lists and maps nested in each other, with nulls at every level,
     * written by either sink (natively by Isthmus's, in strict mode) and read by
     * either catalog with the same rows; both tables hold the same rows.
     */
    @Test
    void nestedColumnsRoundTripBothWays() {
        String rows = "SELECT n AS id,"
                + " CASE WHEN MOD(n, 7) = 0 THEN CAST(NULL AS ROW<city STRING, zip INT>)"
                + "   ELSE ROW(CASE WHEN MOD(n, 5) = 0 THEN CAST(NULL AS STRING) ELSE CONCAT('city-', CAST(MOD(n, 13) AS STRING)) END,"
                + "   CAST(n AS INT)) END AS info,"
                + " CASE MOD(n, 4) WHEN 0 THEN CAST(NULL AS ARRAY<STRING>) WHEN 1 THEN ARRAY['x']"
                + "   WHEN 2 THEN ARRAY[CAST(NULL AS STRING), 'y', CAST(n AS STRING)] ELSE ARRAY['z', 'z'] END AS tags,"
                + " CASE MOD(n, 3) WHEN 0 THEN CAST(NULL AS MAP<STRING, ARRAY<BIGINT>>)"
                + "   WHEN 1 THEN MAP['a', ARRAY[n, n + 1], 'b', CAST(NULL AS ARRAY<BIGINT>)]"
                + "   ELSE MAP['c', ARRAY[CAST(NULL AS BIGINT)]] END AS attrs,"
                + " ARRAY[ROW(CAST(n AS STRING), CAST(MOD(n, 9) AS INT)), ROW(CAST(NULL AS STRING), 0)] AS items"
                + " FROM " + bids(ROWS);
        for (String writer : List.of("lake", "stock")) {
            String name = "nested_" + writer;
            execute("CREATE TABLE " + writer + ".db." + name + " (id BIGINT, info ROW<city STRING, zip INT>,"
                    + " tags ARRAY<STRING>, attrs MAP<STRING, ARRAY<BIGINT>>, items ARRAY<ROW<name STRING, qty INT>>)");
            execute("INSERT INTO " + writer + ".db." + name + " " + rows);
            assertEquals(Set.of(writer.equals("lake") ? "isthmus" : "parquet-mr"), writers(name));
            for (String select : List.of(
                    "SELECT * FROM %s.db." + name, "SELECT id, info, attrs FROM %s.db." + name + " WHERE id > 2200")) {
                List<String> expected = query(String.format(select, "stock"));
                assertTrue(!expected.isEmpty(), select);
                assertEquals(expected, query(String.format(select, "lake")), select);
            }
        }
        assertEquals(
                query("SELECT * FROM stock.db.nested_stock"),
                query("SELECT * FROM lake.db.nested_lake"),
                "both sinks committed the same rows");
    }

    /**
     * A projection of fields nested in structs ({@code SELECT info.city}) decodes only their
     * leaves, natively in strict mode, with the rows Iceberg's own catalog reads (it reads whole
     * structs); binary rows where the fields it emits are flat.
     */
    @Test
    void nestedFieldsInSqlDecodeOnlyTheirLeaves() {
        execute(
                "CREATE TABLE lake.db.places (id BIGINT, info ROW<city STRING, zip INT, geo ROW<lat DOUBLE, lon DOUBLE>>,"
                        + " tags ARRAY<STRING>) WITH ('write.parquet.row-group-size-bytes'='8192')");
        execute("INSERT INTO lake.db.places SELECT n AS id,"
                + " CASE WHEN MOD(n, 7) = 0 THEN CAST(NULL AS ROW<city STRING, zip INT, geo ROW<lat DOUBLE, lon DOUBLE>>)"
                + "   ELSE ROW(CASE WHEN MOD(n, 5) = 0 THEN CAST(NULL AS STRING) ELSE CONCAT('city-', CAST(MOD(n, 13) AS STRING)) END,"
                + "   CAST(n AS INT), CASE WHEN MOD(n, 3) = 0 THEN CAST(NULL AS ROW<lat DOUBLE, lon DOUBLE>)"
                + "     ELSE ROW(CAST(n AS DOUBLE) / 7, CAST(MOD(n, 11) AS DOUBLE)) END) END AS info,"
                + " CASE MOD(n, 4) WHEN 0 THEN CAST(NULL AS ARRAY<STRING>) ELSE ARRAY['x', CAST(n AS STRING)] END AS tags"
                + " FROM " + bids(ROWS));
        List<String> selects = List.of(
                "SELECT info.city FROM %s.db.places",
                "SELECT id, info.geo.lat, info.city FROM %s.db.places WHERE id > 2200",
                "SELECT info.zip / 100, COUNT(*), MAX(info.geo.lon) FROM %s.db.places GROUP BY info.zip / 100",
                "SELECT info.geo, tags, info.city FROM %s.db.places WHERE info.zip > 100",
                "SELECT info, info.city FROM %s.db.places");
        for (String select : selects) {
            List<String> expected = query(String.format(select, "stock"));
            assertTrue(!expected.isEmpty(), select);
            long nativeTasks = NativeSourceCounters.nativeTasks();
            assertEquals(expected, query(String.format(select, "lake")), select);
            assertTrue(NativeSourceCounters.nativeTasks() > nativeTasks, "read natively: " + select);
        }

        long before = NativeSourceCounters.bytesRead();
        query("SELECT info.city FROM lake.db.places");
        assertEquals(
                chunkBytes("places", "info.city"),
                NativeSourceCounters.bytesRead() - before,
                "the city's chunks, and only they, were read");
        before = NativeSourceCounters.bytesRead();
        query("SELECT info.geo.lat, id FROM lake.db.places");
        assertEquals(
                chunkBytes("places", "info.geo.lat") + chunkBytes("places", "id"),
                NativeSourceCounters.bytesRead() - before);

        StreamTableEnvironment streaming = StreamTableEnvironment.create(
                StreamExecutionEnvironment.getExecutionEnvironment(), EnvironmentSettings.inStreamingMode());
        createCatalog(streaming, "lake", "isthmus-iceberg", Map.of("isthmus.strict", "true"));
        String flat = "SELECT id, info.geo.lon, info.city FROM lake.db.places";
        assertEquals(
                query(flat.replace("lake", "stock")),
                queryCountingBinaryBatches(streaming, flat, true),
                "the fields emitted are flat: binary rows");
    }

    /**
     * A NOT NULL field below a nullable struct, projected on its own, is null wherever the struct
     * is, as Iceberg's catalog reads it.
     */
    @Test
    void requiredFieldsBelowNullableStructsReadAsStock() {
        execute("CREATE TABLE lake.db.zips (id BIGINT, info ROW<city STRING, zip INT NOT NULL>)");
        execute("INSERT INTO lake.db.zips SELECT n AS id, CASE WHEN MOD(n, 7) = 0"
                + " THEN CAST(NULL AS ROW<city STRING, zip INT NOT NULL>)"
                + " ELSE ROW(CONCAT('city-', CAST(MOD(n, 13) AS STRING)), CAST(n AS INT)) END AS info FROM "
                + bids(ROWS));
        for (String select : List.of(
                "SELECT info.zip FROM %s.db.zips",
                "SELECT id, info.zip FROM %s.db.zips" + " WHERE info.zip > 100 OR id < 50",
                "SELECT COUNT(info.zip), SUM(info.zip) FROM %s.db.zips")) {
            List<String> expected = query(String.format(select, "stock"));
            assertTrue(expected.stream().anyMatch(row -> row.contains("null")) || select.contains("COUNT"), select);
            assertEquals(expected, query(String.format(select, "lake")), select);
        }
    }

    /** The stored bytes of the column chunks of leaf {@code path} in every data file of the table. */
    private long chunkBytes(String name, String path) {
        long bytes = 0;
        for (var task : table(name).newScan().planFiles()) {
            try (ParquetFileReader reader =
                    ParquetFileReader.open(org.apache.parquet.hadoop.util.HadoopInputFile.fromPath(
                            new org.apache.hadoop.fs.Path(task.file().location()),
                            new org.apache.hadoop.conf.Configuration()))) {
                for (var block : reader.getFooter().getBlocks()) {
                    for (var column : block.getColumns()) {
                        if (column.getPath().toDotString().equals(path)) {
                            bytes += column.getTotalSize();
                        }
                    }
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        assertTrue(bytes > 0, "the table holds " + path);
        return bytes;
    }

    /**
     * A table migrated from Hive (parquet-java files without field ids, a name mapping) reads
     * natively in strict mode with the rows Iceberg's own catalog reads, nested fields included;
     * and so after a rename.
     */
    @Test
    void migratedTablesReadNativelyByTheirNameMapping() {
        HadoopCatalog catalog = new HadoopCatalog(
                new org.apache.hadoop.conf.Configuration(), warehouse.toUri().toString());
        Table table = catalog.createTable(
                TableIdentifier.of(Namespace.of("db"), "migrated"), dev.isthmus.iceberg.source.HiveStyleTable.SCHEMA);
        dev.isthmus.iceberg.source.HiveStyleTable.mapByName(table);
        dev.isthmus.iceberg.source.HiveStyleTable.addFile(table, 0, 1_500);
        dev.isthmus.iceberg.source.HiveStyleTable.addFile(table, 1_500, 1_500);
        List<String> selects = List.of(
                "SELECT * FROM %s.db.migrated",
                "SELECT id, info.city, tags FROM %s.db.migrated WHERE id > 2200",
                "SELECT name, COUNT(*), SUM(score), MAX(info.zip) FROM %s.db.migrated GROUP BY name");
        for (String select : selects) {
            long nativeTasks = NativeSourceCounters.nativeTasks();
            List<String> expected = query(String.format(select, "stock"));
            assertTrue(!expected.isEmpty(), select);
            assertEquals(expected, query(String.format(select, "lake")), select);
            assertTrue(NativeSourceCounters.nativeTasks() > nativeTasks, "read natively: " + select);
        }
        table.updateSchema().renameColumn("name", "label").commit();
        String renamed = "SELECT label, COUNT(*) FROM %s.db.migrated WHERE label <> 'n3' GROUP BY label";
        assertEquals(query(String.format(renamed, "stock")), query(String.format(renamed, "lake")));
    }

    /**
     * {@code isthmus.row-format} {@code auto} (the default) emits binary rows unless the job
     * reuses objects, as Flink's planner makes every batch query do; {@code columnar} and
     * {@code binary} ask for one; every way reads the rows Iceberg's own catalog reads.
     */
    @Test
    void rowFormatAutoEmitsBinaryRowsUnlessObjectsAreReused() {
        String select = "SELECT * FROM %s.db.bids %s WHERE price > 5000000";
        List<String> expected = query(String.format(select, "stock", ""));
        assertTrue(!expected.isEmpty());
        assertEquals(
                expected,
                queryCountingBinaryBatches(sql, String.format(select, "lake", ""), false),
                "auto, batch mode");
        assertEquals(
                expected,
                queryCountingBinaryBatches(
                        sql, String.format(select, "lake", "/*+ OPTIONS('isthmus.row-format'='binary') */"), true),
                "binary, batch mode");

        StreamTableEnvironment streaming = StreamTableEnvironment.create(
                StreamExecutionEnvironment.getExecutionEnvironment(), EnvironmentSettings.inStreamingMode());
        createCatalog(streaming, "lake", "isthmus-iceberg", Map.of("isthmus.strict", "true"));
        assertEquals(
                expected,
                queryCountingBinaryBatches(streaming, String.format(select, "lake", ""), true),
                "auto, streaming without object reuse");
        assertEquals(
                expected,
                queryCountingBinaryBatches(
                        streaming,
                        String.format(select, "lake", "/*+ OPTIONS('isthmus.row-format'='columnar') */"),
                        false),
                "columnar, streaming");
        streaming.getConfig().set(PipelineOptions.OBJECT_REUSE, true);
        assertEquals(
                expected,
                queryCountingBinaryBatches(streaming, String.format(select, "lake", ""), false),
                "auto, streaming with object reuse");

        IllegalStateException e = assertThrows(
                IllegalStateException.class,
                () -> query(String.format(select, "lake", "/*+ OPTIONS('isthmus.row-format'='rows') */")));
        assertTrue(
                Stream.iterate((Throwable) e, java.util.Objects::nonNull, Throwable::getCause)
                        .anyMatch(t -> String.valueOf(t.getMessage())
                                .contains("invalid value 'rows' for option 'isthmus.row-format'")),
                "an unknown row format is refused");
    }

    private static List<String> queryCountingBinaryBatches(
            StreamTableEnvironment tables, String select, boolean binary) {
        long nativeTasks = NativeSourceCounters.nativeTasks();
        long binaryBatches = NativeSourceCounters.binaryBatches();
        List<String> rows = query(tables, select);
        assertTrue(NativeSourceCounters.nativeTasks() > nativeTasks, "read natively: " + select);
        assertEquals(binary, NativeSourceCounters.binaryBatches() > binaryBatches, "binary rows: " + select);
        return rows;
    }

    @Test
    void isthmusNativeSwitchesNativeIoOffPerQueryPerTableAndPerCatalog() {
        long nativeTasks = NativeSourceCounters.nativeTasks();
        List<String> hinted = query("SELECT * FROM lake.db.bids /*+ OPTIONS('isthmus.native'='false') */");
        assertEquals(nativeTasks, NativeSourceCounters.nativeTasks(), "the hint turned native reads off");
        assertEquals(query("SELECT * FROM stock.db.bids"), hinted);

        execute("ALTER TABLE lake.db.bids SET ('isthmus.native'='false')");
        execute("INSERT INTO lake.db.bids SELECT " + BIDS_COLUMNS + " FROM " + bids(10));
        assertEquals(Set.of("isthmus", "parquet-mr"), writers("bids"), "the table property turned native writes off");

        nativeTasks = NativeSourceCounters.nativeTasks();
        assertEquals(List.of("+I[" + (ROWS + 10) + "]"), query("SELECT COUNT(*) FROM lake.db.bids"));
        assertEquals(nativeTasks, NativeSourceCounters.nativeTasks(), "the table property turned native reads off");
        execute("ALTER TABLE lake.db.bids RESET ('isthmus.native')");

        createCatalog("lake_off", "isthmus-iceberg", Map.of("isthmus.native", "false"));
        nativeTasks = NativeSourceCounters.nativeTasks();
        assertEquals(List.of("+I[" + (ROWS + 10) + "]"), query("SELECT COUNT(*) FROM lake_off.db.bids"));
        assertEquals(nativeTasks, NativeSourceCounters.nativeTasks(), "the catalog option turned native reads off");
        execute("INSERT INTO lake_off.db.bids SELECT " + BIDS_COLUMNS + " FROM " + bids(5));
        assertEquals(List.of("+I[" + (ROWS + 15) + "]"), query("SELECT COUNT(*) FROM lake.db.bids"));
    }
}
