package dev.isthmus.iceberg.source;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.isthmus.arrow.FlinkValues;
import dev.isthmus.iceberg.source.NativeReadOptions.RowFormat;
import dev.isthmus.iceberg.source.parquet.RandomRecords;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;
import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.common.state.CheckpointListener;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Metric;
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.FunctionSnapshotContext;
import org.apache.flink.runtime.testutils.InMemoryReporter;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.checkpoint.CheckpointedFunction;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.CloseableIterator;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.expressions.Literal;
import org.apache.iceberg.flink.FlinkConfigOptions;
import org.apache.iceberg.flink.FlinkReadOptions;
import org.apache.iceberg.flink.FlinkSchemaUtil;
import org.apache.iceberg.flink.source.IcebergSource;
import org.apache.iceberg.flink.util.FlinkCompatibilityUtil;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/** Jobs on a MiniCluster: the native source reads the same rows as Iceberg's stock {@code IcebergSource}. */
class NativeIcebergSourceTest {
    private static final InMemoryReporter METRICS = InMemoryReporter.createWithRetainedMetrics();

    @RegisterExtension
    static final MiniClusterExtension CLUSTER = new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
            .setNumberTaskManagers(1)
            .setNumberSlotsPerTaskManager(2)
            .setConfiguration(
                    METRICS.addToConfiguration(Configuration.fromMap(Map.of("restart-strategy.type", "none"))))
            .build());

    @TempDir
    Path dir;

    @SuppressWarnings("try") // closing a collect iterator may be interrupted; a test has nothing to do about it
    static List<List<Object>> run(Source<RowData, ?, ?> source, Schema schema, int parallelism) {
        return run(source, FlinkSchemaUtil.convert(schema), parallelism);
    }

    @SuppressWarnings("try")
    static List<List<Object>> run(Source<RowData, ?, ?> source, RowType type, int parallelism) {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        List<List<Object>> rows = new ArrayList<>();
        try (CloseableIterator<RowData> it = env.fromSource(
                        source, WatermarkStrategy.noWatermarks(), "source", FlinkCompatibilityUtil.toTypeInfo(type))
                .setParallelism(parallelism)
                .executeAndCollect()) {
            it.forEachRemaining(row -> rows.add(FlinkValues.row(row, type)));
        } catch (Exception e) {
            throw new RuntimeException(e);
        }
        return rows;
    }

    private void assertSameRows(
            TestTables tables,
            String name,
            NativeIcebergSource.Builder nativeBuilder,
            IcebergSource.Builder<RowData> stockBuilder,
            Schema schema,
            int parallelism) {
        List<List<Object>> expected =
                run(stockBuilder.tableLoader(tables.loader(name)).build(), schema, parallelism);
        List<List<Object>> actual =
                run(nativeBuilder.tableLoader(tables.loader(name)).build(), schema, parallelism);
        assertTrue(!expected.isEmpty(), "the test must read something");
        ReadResults.assertSameRows(expected, actual);
    }

    /**
     * {@code buildStream} gives the stream the parallelism Iceberg's {@code buildStream} infers for
     * the same read: a subtask per split, capped by the inference's maximum, the limit and the
     * environment's maximum parallelism; without the inference the default parallelism (1 unset);
     * a streaming read keeps the environment's; a maximum below 1 is refused as Iceberg refuses it.
     */
    @Test
    void buildStreamInfersTheParallelismAsIcebergsBuildStream() {
        TestTables tables = new TestTables(dir);
        Table table = tables.create("three_files", SampleTable.SCHEMA, PartitionSpec.unpartitioned(), Map.of());
        for (int i = 0; i < 3; i++) {
            TestTables.append(table, SampleTable.records(i * 100L, 100));
        }
        Map<String, String> fileSplits = Map.of(FlinkReadOptions.SPLIT_SIZE, "1");
        Configuration capped = new Configuration();
        capped.set(FlinkConfigOptions.TABLE_EXEC_ICEBERG_INFER_SOURCE_PARALLELISM_MAX, 2);
        Configuration off = new Configuration();
        off.set(FlinkConfigOptions.TABLE_EXEC_ICEBERG_INFER_SOURCE_PARALLELISM, false);
        Configuration offWithDefault = off.clone();
        offWithDefault.setString("table.exec.resource.default-parallelism", "5");
        record Case(Map<String, String> options, Configuration config, Long limit, int maxParallelism, int expected) {}
        for (Case c : List.of(
                new Case(fileSplits, new Configuration(), null, -1, 3),
                new Case(Map.of(), new Configuration(), null, -1, 1),
                new Case(fileSplits, capped, null, -1, 2),
                new Case(fileSplits, new Configuration(), 2L, -1, 2),
                new Case(fileSplits, new Configuration(), null, 2, 2),
                new Case(fileSplits, off, null, -1, 1),
                new Case(fileSplits, offWithDefault, null, -1, 5))) {
            StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
            env.setParallelism(8);
            if (c.maxParallelism() > 0) {
                env.setMaxParallelism(c.maxParallelism());
            }
            int stock = IcebergSource.forRowData()
                    .tableLoader(tables.loader("three_files"))
                    .setAll(c.options())
                    .flinkConfig(c.config())
                    .limit(c.limit())
                    .buildStream(env)
                    .getParallelism();
            int nativeStream = NativeIcebergSource.forRowData()
                    .tableLoader(tables.loader("three_files"))
                    .setAll(c.options())
                    .flinkConfig(c.config())
                    .limit(c.limit())
                    .buildStream(env)
                    .getParallelism();
            assertEquals(c.expected(), stock, "Iceberg's stream for " + c);
            assertEquals(c.expected(), nativeStream, "the native stream for " + c);
        }
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(8);
        assertEquals(
                8,
                NativeIcebergSource.forRowData()
                        .tableLoader(tables.loader("three_files"))
                        .streaming(true)
                        .buildStream(env)
                        .getParallelism(),
                "a streaming read");
        Configuration none = new Configuration();
        none.set(FlinkConfigOptions.TABLE_EXEC_ICEBERG_INFER_SOURCE_PARALLELISM_MAX, 0);
        IllegalStateException refused = assertThrows(
                IllegalStateException.class,
                () -> NativeIcebergSource.forRowData()
                        .tableLoader(tables.loader("three_files"))
                        .flinkConfig(none)
                        .buildStream(env));
        assertEquals("table.exec.iceberg.infer-source-parallelism.max cannot be less than 1", refused.getMessage());
    }

    /** Counting the splits names its planning threads without the table's name, which may hold a {@code %}. */
    @Test
    void aTableNamedWithAPercentSignInfersItsParallelism() {
        TestTables tables = new TestTables(dir);
        Table table = tables.create("fifty%dpercent", SampleTable.SCHEMA, PartitionSpec.unpartitioned(), Map.of());
        TestTables.append(table, SampleTable.records(0, 10));
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(8);
        assertEquals(
                OptionalInt.of(1),
                NativeIcebergSource.forRowData()
                        .tableLoader(tables.loader("fifty%dpercent"))
                        .inferParallelism(env));
    }

    @Test
    void everyFlatTypeOfAnUnpartitionedTable() {
        TestTables tables = new TestTables(dir);
        // Format 3 for nanosecond timestamps.
        Table table = tables.create(
                "every_type",
                RandomRecords.EVERY_TYPE,
                PartitionSpec.unpartitioned(),
                Map.of(TableProperties.FORMAT_VERSION, "3"));
        RandomRecords random = new RandomRecords(11, 0.15);
        TestTables.append(table, random.records(RandomRecords.EVERY_TYPE, 6_000));
        TestTables.append(table, random.records(RandomRecords.EVERY_TYPE, 4_000));
        long fallbacks = NativeSourceCounters.fallbackTasks();
        long nativeTasks = NativeSourceCounters.nativeTasks();

        assertSameRows(
                tables,
                "every_type",
                NativeIcebergSource.forRowData().batchSize(1_000).strict(true),
                IcebergSource.forRowData(),
                RandomRecords.EVERY_TYPE,
                2);
        assertEquals(fallbacks, NativeSourceCounters.fallbackTasks());
        assertTrue(NativeSourceCounters.nativeTasks() >= nativeTasks + 2, "both files were read natively");
    }

    /** The classes of the rows a chained operator was handed. */
    private static final Set<String> HANDED = ConcurrentHashMap.newKeySet();

    private static final class RecordClasses implements MapFunction<RowData, RowData> {
        @Override
        public RowData map(RowData row) {
            HANDED.add(row.getClass().getSimpleName());
            return row;
        }
    }

    /** Keeps the first row it is handed, as object reuse lets it (wrongly), and reads it again with every later one. */
    private static final class KeepsTheFirstRow implements MapFunction<RowData, RowData> {
        private RowData kept;
        private long keptId;

        @Override
        public RowData map(RowData row) {
            if (kept == null || kept == row) {
                // Still its batch's current row: what it reads now is what it should keep reading.
                kept = row;
                keptId = row.getLong(0);
            } else if (kept.getLong(0) != keptId) {
                throw new AssertionError("the kept row reads " + kept.getLong(0) + " instead of " + keptId);
            }
            return row;
        }
    }

    /**
     * With object reuse a chained operator is handed the source's columnar row itself; one that
     * keeps it past its batch's recycle fails the job (checked batches, on in the project's tests)
     * instead of reading the rows decoded after it.
     */
    @Test
    void aColumnarRowKeptPastItsBatchFailsTheJobWithObjectReuse() {
        TestTables tables = new TestTables(dir);
        Table table = tables.create("kept_rows", SampleTable.SCHEMA, PartitionSpec.unpartitioned(), Map.of());
        TestTables.append(table, SampleTable.records(0, 3_000));
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.getConfig().enableObjectReuse();
        NativeIcebergSource source = NativeIcebergSource.forRowData()
                .tableLoader(tables.loader("kept_rows"))
                .rowFormat(RowFormat.COLUMNAR)
                .batchSize(100)
                .strict(true)
                .build();
        env.fromSource(source, WatermarkStrategy.noWatermarks(), "kept_rows")
                .setParallelism(1)
                .map(new KeepsTheFirstRow(), source.getProducedType())
                .setParallelism(1)
                .sinkTo(new DiscardingSink<>());
        Exception failure = assertThrows(Exception.class, () -> env.execute("kept rows"));
        Throwable cause = failure;
        while (cause.getCause() != null) {
            cause = cause.getCause();
        }
        assertTrue(
                cause instanceof IllegalStateException && cause.getMessage().startsWith("read of a recycled batch"),
                "the job failed on the kept row's read: " + cause);
    }

    /**
     * Without object reuse (Flink's default) Flink copies every record it hands on: binary rows
     * arrive as binary rows (one array copy each), and read the same rows as the stock source.
     */
    @Test
    void binaryRowsWithoutObjectReuseReadAsStock() throws Exception {
        TestTables tables = new TestTables(dir);
        Table table = tables.create(
                "binary_rows",
                RandomRecords.EVERY_TYPE,
                PartitionSpec.unpartitioned(),
                Map.of(TableProperties.FORMAT_VERSION, "3", "write.parquet.row-group-size-bytes", "65536"));
        RandomRecords random = new RandomRecords(12, 0.15);
        TestTables.append(table, random.records(RandomRecords.EVERY_TYPE, 5_000));
        TestTables.append(table, random.records(RandomRecords.EVERY_TYPE, 3_000));
        long binaryBatches = NativeSourceCounters.binaryBatches();

        assertSameRows(
                tables,
                "binary_rows",
                NativeIcebergSource.forRowData()
                        .rowFormat(RowFormat.BINARY)
                        .batchSize(1_000)
                        .strict(true),
                IcebergSource.forRowData(),
                RandomRecords.EVERY_TYPE,
                2);
        Schema projection = RandomRecords.EVERY_TYPE.select("str", "i64", "dec38", "ts_ns", "uuid");
        List<Expression> filters = List.of(Expressions.greaterThan("i64", 0L));
        assertSameRows(
                tables,
                "binary_rows",
                NativeIcebergSource.forRowData()
                        .rowFormat(RowFormat.BINARY)
                        .project(projection)
                        .filters(filters)
                        .strict(true),
                IcebergSource.forRowData().project(projection).filters(filters),
                projection,
                2);
        assertTrue(NativeSourceCounters.binaryBatches() >= binaryBatches + 8, "the reads emitted binary rows");

        // null: the builder's default, binary rows, which Flink's default copying copies as one array.
        for (RowFormat format : Arrays.asList(null, RowFormat.BINARY, RowFormat.COLUMNAR)) {
            HANDED.clear();
            StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
            NativeIcebergSource.Builder builder = NativeIcebergSource.forRowData()
                    .tableLoader(tables.loader("binary_rows"))
                    .strict(true);
            NativeIcebergSource source = (format == null ? builder : builder.rowFormat(format)).build();
            env.fromSource(source, WatermarkStrategy.noWatermarks(), "binary_rows")
                    .map(new RecordClasses(), source.getProducedType())
                    .sinkTo(new DiscardingSink<>());
            env.execute("record classes");
            // Flink's copy of a row that is not binary is a GenericRowData.
            assertEquals(
                    Set.of(format == RowFormat.COLUMNAR ? "GenericRowData" : "BinaryRowData"),
                    Set.copyOf(HANDED),
                    (format == null ? "default" : format) + " rows, copied");
        }
    }

    static Stream<Arguments> partitionSpecs() {
        Schema s = SampleTable.SCHEMA;
        return Stream.of(
                Arguments.of(
                        "identity",
                        PartitionSpec.builderFor(s).identity("category").build()),
                Arguments.of(
                        "bucket", PartitionSpec.builderFor(s).bucket("id", 4).build()),
                Arguments.of("day", PartitionSpec.builderFor(s).day("ts").build()));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("partitionSpecs")
    void partitionedTablesWithProjectionAndFilters(String name, PartitionSpec spec) {
        TestTables tables = new TestTables(dir);
        Table table =
                tables.create(name, SampleTable.SCHEMA, spec, Map.of("write.parquet.row-group-size-bytes", "8192"));
        TestTables.append(table, SampleTable.records(0, 8_000));
        TestTables.append(table, SampleTable.records(8_000, 4_000));

        // Through the FileIO for one of them, the library's own reads for the others.
        assertSameRows(
                tables,
                name,
                NativeIcebergSource.forRowData().strict(true).localReads(!name.equals("bucket")),
                IcebergSource.forRowData(),
                SampleTable.SCHEMA,
                2);

        Schema projection = SampleTable.SCHEMA.select("ts", "category", "id", "amount");
        List<Expression> filters = List.of(
                Expressions.lessThan("id", 9_500),
                Expressions.notNull("ts"),
                Expressions.or(Expressions.equal("category", "a"), Expressions.equal("category", "c")),
                Expressions.greaterThan("ts", "2026-11-28T03:00:00"));
        long pruned = NativeSourceCounters.rowGroupsPruned();
        assertSameRows(
                tables,
                name,
                NativeIcebergSource.forRowData()
                        .project(projection)
                        .filters(filters)
                        .strict(true),
                IcebergSource.forRowData().project(projection).filters(filters),
                projection,
                2);
        assertTrue(NativeSourceCounters.rowGroupsPruned() > pruned, "row groups were pruned by id and ts statistics");
    }

    /**
     * Which files come first depends on the order planning reads manifests in (in parallel), so
     * the rows of a limited read are compared with stock's on one file, and counted on several.
     */
    @Test
    void limitReadsAsManyRowsAsStock() {
        TestTables tables = new TestTables(dir);
        Table table = tables.create(
                "limited",
                SampleTable.SCHEMA,
                PartitionSpec.unpartitioned(),
                Map.of("write.parquet.row-group-size-bytes", "8192"));
        TestTables.append(table, SampleTable.records(0, 6_000));
        assertSameRows(
                tables,
                "limited",
                NativeIcebergSource.forRowData().limit(4_321L).batchSize(1_000),
                IcebergSource.forRowData().limit(4_321L),
                SampleTable.SCHEMA,
                1);

        TestTables.append(table, SampleTable.records(6_000, 3_000));
        TestTables.append(table, SampleTable.records(9_000, 3_000));
        List<List<Object>> rows = run(
                NativeIcebergSource.forRowData()
                        .tableLoader(tables.loader("limited"))
                        .limit(7_777L)
                        .batchSize(1_000)
                        .buildIcebergSource(),
                SampleTable.SCHEMA,
                1);
        assertEquals(7_777, rows.size());
        assertEquals(7_777, ReadResults.multiset(rows).size(), "no row twice");
    }

    @Test
    @SuppressWarnings("try") // closing the collect iterator cancels the streaming job
    void streamingReadSeesSnapshotsAppendedWhileRunning() throws Exception {
        TestTables tables = new TestTables(dir);
        Table table = tables.create("stream", SampleTable.SCHEMA, PartitionSpec.unpartitioned(), Map.of());
        TestTables.append(table, SampleTable.records(0, 3_000));
        RowType type = FlinkSchemaUtil.convert(SampleTable.SCHEMA);
        NativeIcebergSource source = NativeIcebergSource.forRowData()
                .tableLoader(tables.loader("stream"))
                .streaming(true)
                .monitorInterval(Duration.ofMillis(200))
                .strict(true)
                .build();
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        List<List<Object>> rows = new ArrayList<>();
        try (CloseableIterator<RowData> it = env.fromSource(
                        source, WatermarkStrategy.noWatermarks(), "stream", FlinkCompatibilityUtil.toTypeInfo(type))
                .setParallelism(1)
                .executeAndCollect()) {
            while (rows.size() < 3_000) {
                rows.add(FlinkValues.row(it.next(), type));
            }
            TestTables.append(table, SampleTable.records(3_000, 2_000));
            TestTables.append(table, SampleTable.records(5_000, 1_000));
            while (rows.size() < 6_000) {
                rows.add(FlinkValues.row(it.next(), type));
            }
        }
        List<List<Object>> expected = run(
                IcebergSource.forRowData().tableLoader(tables.loader("stream")).build(), SampleTable.SCHEMA, 1);
        ReadResults.assertSameRows(expected, rows);
    }

    @Test
    void positionAndEqualityDeletesReadNatively() {
        TestTables tables = new TestTables(dir);
        Table table = tables.create(
                "deletes",
                SampleTable.SCHEMA,
                PartitionSpec.unpartitioned(),
                Map.of(TableProperties.FORMAT_VERSION, "2"));
        List<Record> records = SampleTable.records(0, 2_000);
        DataFile first = TestTables.append(table, records).getFirst();
        TestTables.deletePositions(table, first, 0, 7, 1_999);
        // Appended after the deletes, so they do not apply to it.
        TestTables.append(table, SampleTable.records(2_000, 2_000));

        long rowsDeleted = NativeSourceCounters.rowsDeleted();
        assertSameRows(
                tables,
                "deletes",
                NativeIcebergSource.forRowData().strict(true),
                IcebergSource.forRowData(),
                SampleTable.SCHEMA,
                2);
        assertEquals(rowsDeleted + 3, NativeSourceCounters.rowsDeleted(), "the three deleted rows, left out natively");

        TestTables.deleteEquals(table, "id", records.subList(100, 110));
        long fallbacks = NativeSourceCounters.fallbackTasks();
        long keys = NativeSourceCounters.equalityDeleteKeys();
        rowsDeleted = NativeSourceCounters.rowsDeleted();
        assertSameRows(
                tables,
                "deletes",
                NativeIcebergSource.forRowData().strict(true),
                IcebergSource.forRowData(),
                SampleTable.SCHEMA,
                2);
        assertEquals(fallbacks, NativeSourceCounters.fallbackTasks(), "no task fell back");
        assertTrue(NativeSourceCounters.equalityDeleteKeys() > keys, "the keys were applied natively");
        assertEquals(rowsDeleted + 13, NativeSourceCounters.rowsDeleted(), "three rows by position, ten by key");
    }

    /** Each reader registers its metrics; summed over the subtasks they count what was read. */
    @ParameterizedTest
    @EnumSource(RowFormat.class)
    void readersReportTheirMetricsToFlink(RowFormat format) throws Exception {
        TestTables tables = new TestTables(dir);
        Table table = tables.create(
                "metered",
                SampleTable.SCHEMA,
                PartitionSpec.unpartitioned(),
                Map.of("write.parquet.row-group-size-bytes", "8192"));
        TestTables.append(table, SampleTable.records(0, 5_000));
        TestTables.append(table, SampleTable.records(5_000, 3_000));
        int readerTrackers = NativeReaderFunction.sourceMemory().children().size();
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        NativeIcebergSource source = NativeIcebergSource.forRowData()
                .tableLoader(tables.loader("metered"))
                .filters(List.of(Expressions.lessThan("id", 6_000)))
                .batchSize(1_000)
                .rowFormat(format)
                .strict(true)
                .build();
        env.fromSource(source, WatermarkStrategy.noWatermarks(), "metered")
                .setParallelism(2)
                .sinkTo(new DiscardingSink<>());
        JobExecutionResult result = env.execute("metered");

        Map<String, Metric> metrics = METRICS.getMetricsByIdentifiers(result.getJobID());
        assertEquals(6_000, sum(metrics, "rows"));
        assertTrue(sum(metrics, "nativeTasks") >= 2, "both files read natively");
        assertEquals(0, sum(metrics, "fallbackTasks"));
        assertTrue(sum(metrics, "rowGroupsPruned") > 0, "the ids at or above 6,000 were pruned");
        assertTrue(sum(metrics, "batches") >= 6, "batches of at most 1,000 rows");
        assertEquals(format == RowFormat.BINARY ? sum(metrics, "batches") : 0, sum(metrics, "binaryBatches"));
        // Which thread transposed a batch depends on timing; only the binary ones can have been.
        assertTrue(metrics.keySet().stream().anyMatch(k -> k.endsWith(".isthmus.fetcherTransposedBatches")));
        assertTrue(sum(metrics, "fetcherTransposedBatches") <= sum(metrics, "binaryBatches"));
        assertTrue(sum(metrics, "bytesRead") > 0 && sum(metrics, "decodeNanos") > 0);
        for (String own : List.of("liveBatches", "liveNativeBytes")) {
            assertTrue(metrics.keySet().stream().anyMatch(k -> k.endsWith(".isthmus." + own)), own);
        }
        for (String jvmWide : List.of("liveBatches", "liveNativeBytes", "allocatedNativeBytes")) {
            assertTrue(metrics.keySet().stream().anyMatch(k -> k.endsWith(".isthmus.jvm." + jvmWide)), jvmWide);
        }
        assertFalse(
                metrics.keySet().stream().anyMatch(k -> k.endsWith(".isthmus.allocatedNativeBytes")),
                "the library's total is JVM-wide, so only under jvm");
        assertEquals(
                readerTrackers,
                NativeReaderFunction.sourceMemory().children().size(),
                "the closed readers' trackers left the source's");
    }

    private static long sum(Map<String, Metric> metrics, String name) {
        return metrics.entrySet().stream()
                .filter(e -> e.getKey().endsWith("." + NativeReaderMetrics.GROUP + "." + name))
                .mapToLong(e -> ((Counter) e.getValue()).getCount())
                .sum();
    }

    private static final AtomicBoolean CHECKPOINTED = new AtomicBoolean();
    private static final AtomicBoolean FAILED = new AtomicBoolean();

    /**
     * Passes rows on slowly, and fails once after a checkpoint taken at least 1,000 rows into
     * the read has completed, so the restored positions are well inside the files.
     */
    private static final class FailOnceAfterCheckpoint
            implements MapFunction<RowData, RowData>, CheckpointedFunction, CheckpointListener {
        private long rows;
        private long rowsAtSnapshot;

        @Override
        public RowData map(RowData row) throws InterruptedException {
            if (++rows % 20 == 0) {
                Thread.sleep(1);
            }
            if (CHECKPOINTED.get() && FAILED.compareAndSet(false, true)) {
                throw new IllegalStateException("injected failure after " + rows + " rows");
            }
            return row;
        }

        @Override
        public void snapshotState(FunctionSnapshotContext context) {
            rowsAtSnapshot = rows;
        }

        @Override
        public void initializeState(FunctionInitializationContext context) {}

        @Override
        public void notifyCheckpointComplete(long checkpointId) {
            if (rowsAtSnapshot >= 1_000) {
                CHECKPOINTED.set(true);
            }
        }
    }

    /**
     * A job that fails mid-read restores the source's split positions from the last checkpoint;
     * with the collect sink's exactly-once results, a position off by one row shows as a row
     * missing or read twice. Position and equality deletes make the positions count live rows.
     */
    @ParameterizedTest
    @EnumSource(RowFormat.class)
    @SuppressWarnings("try") // closing a collect iterator may be interrupted; a test has nothing to do about it
    void failoverResumesAtTheCheckpointedPositions(RowFormat format) throws Exception {
        TestTables tables = new TestTables(dir);
        Table table = tables.create(
                "failover",
                SampleTable.SCHEMA,
                PartitionSpec.unpartitioned(),
                Map.of("write.parquet.row-group-size-bytes", "8192", TableProperties.FORMAT_VERSION, "2"));
        DataFile first =
                TestTables.append(table, SampleTable.records(0, 12_000)).getFirst();
        List<Record> second = SampleTable.records(12_000, 8_000);
        TestTables.append(table, second);
        TestTables.deletePositions(
                table,
                first,
                java.util.stream.LongStream.range(0, 12_000)
                        .filter(p -> p % 9 == 4)
                        .toArray());
        TestTables.deleteEquals(
                table,
                "id",
                second.stream().filter(r -> (Long) r.getField("id") % 7 == 0).toList());
        CHECKPOINTED.set(false);
        FAILED.set(false);

        RowType type = FlinkSchemaUtil.convert(SampleTable.SCHEMA);
        StreamExecutionEnvironment env =
                StreamExecutionEnvironment.getExecutionEnvironment(Configuration.fromMap(Map.of(
                        "restart-strategy.type", "fixed-delay",
                        "restart-strategy.fixed-delay.attempts", "1",
                        "restart-strategy.fixed-delay.delay", "100 ms",
                        "execution.checkpointing.interval", "100 ms")));
        NativeIcebergSource source = NativeIcebergSource.forRowData()
                .tableLoader(tables.loader("failover"))
                .batchSize(500)
                .rowFormat(format)
                .strict(true)
                .build();
        List<List<Object>> rows = new ArrayList<>();
        try (CloseableIterator<RowData> it = env.fromSource(
                        source, WatermarkStrategy.noWatermarks(), "failover", FlinkCompatibilityUtil.toTypeInfo(type))
                .setParallelism(1)
                .map(new FailOnceAfterCheckpoint(), FlinkCompatibilityUtil.toTypeInfo(type))
                .executeAndCollect()) {
            it.forEachRemaining(row -> rows.add(FlinkValues.row(row, type)));
        }
        assertTrue(FAILED.get(), "the job failed once mid-read");
        List<List<Object>> expected = run(
                IcebergSource.forRowData()
                        .tableLoader(tables.loader("failover"))
                        .build(),
                SampleTable.SCHEMA,
                1);
        ReadResults.assertSameRows(expected, rows);
    }

    /**
     * Each job logs a fallback once for its table, whichever of its subtasks and however many
     * of its tasks fall back, under the job id Flink gives the reader; a later job on the same
     * TaskManager logs it again.
     */
    @Test
    void aFallbackIsLoggedOncePerJob() throws Exception {
        TestTables tables = new TestTables(dir);
        Table table = tables.create("avro_jobs", SampleTable.SCHEMA, PartitionSpec.unpartitioned(), Map.of());
        for (int file = 0; file < 4; file++) {
            TestTables.appendAvro(table, SampleTable.records(file * 100L, 100));
        }
        List<String> jobs = new ArrayList<>();
        long fallbacks = NativeSourceCounters.fallbackTasks();
        for (int run = 0; run < 2; run++) {
            StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
            NativeIcebergSource source = NativeIcebergSource.forRowData()
                    .tableLoader(tables.loader("avro_jobs"))
                    .build();
            env.fromSource(source, WatermarkStrategy.noWatermarks(), "avro")
                    .setParallelism(2)
                    .sinkTo(new DiscardingSink<>());
            jobs.add(env.execute("avro " + run).getJobID().toHexString());
        }
        assertEquals(2 * 4, NativeSourceCounters.fallbackTasks() - fallbacks, "every task is counted");
        List<List<String>> logged = NativeReaderFunction.FALLBACKS.keys().stream()
                .filter(key -> jobs.contains(key.get(0)))
                .toList();
        assertEquals(
                List.of(
                        List.of(jobs.get(0), "test.db.avro_jobs", "it is AVRO"),
                        List.of(jobs.get(1), "test.db.avro_jobs", "it is AVRO")),
                logged);
    }

    private static final Schema PLACES = NestedProjectionTest.PLACES;

    /**
     * A nested projection emits the fields at its paths as columns, null where a struct on the way
     * is null, in both row formats, from Parquet files read natively and from an Avro file read by
     * the stock reader; the values are those of Iceberg's source reading whole rows.
     */
    @ParameterizedTest
    @EnumSource(RowFormat.class)
    void nestedProjectionsEmitTheFieldsAtTheirPaths(RowFormat format) {
        TestTables tables = new TestTables(dir);
        Table table = tables.create(
                "places_" + format.name().toLowerCase(java.util.Locale.ROOT),
                PLACES,
                PartitionSpec.unpartitioned(),
                Map.of());
        TestTables.append(table, places(0, 1_500));
        TestTables.append(table, places(1_500, 1_000));
        TestTables.appendAvro(table, places(2_500, 300));
        String name = table.name().substring(table.name().lastIndexOf('.') + 1);
        List<List<Object>> whole =
                run(IcebergSource.forRowData().tableLoader(tables.loader(name)).build(), PLACES, 2);

        // Positions in the table's schema, the paths' names below.
        int[][] positions = {{1, 1, 0}, {0}, {1, 0}, {2}, {1, 1}, {1, 2}};
        List<List<String>> paths = List.of(
                List.of("info", "geo", "lat"),
                List.of("id"),
                List.of("info", "city"),
                List.of("tags"),
                List.of("info", "geo"),
                List.of("info", "zip"));
        List<List<Object>> expected = new ArrayList<>();
        for (List<Object> row : whole) {
            List<Object> flat = new ArrayList<>();
            for (int[] path : positions) {
                Object value = row;
                for (int p : path) {
                    value = value == null ? null : ((List<?>) value).get(p);
                }
                flat.add(value);
            }
            expected.add(flat);
        }
        NativeIcebergSource source = NativeIcebergSource.forRowData()
                .tableLoader(tables.loader(name))
                .projectNested(paths)
                .rowFormat(format)
                .build();
        RowType type = ((InternalTypeInfo<RowData>) source.getProducedType()).toRowType();
        assertEquals(List.of("info_geo_lat", "id", "info_city", "tags", "info_geo", "info_zip"), type.getFieldNames());
        assertTrue(type.getTypeAt(0).isNullable(), "lat is null where info or geo is");
        assertFalse(type.getTypeAt(1).isNullable());
        long fallbacks = NativeSourceCounters.fallbackTasks();
        long binaryBatches = NativeSourceCounters.binaryBatches();
        ReadResults.assertSameRows(expected, run(source, type, 2));
        assertEquals(1, NativeSourceCounters.fallbackTasks() - fallbacks, "the Avro file");
        assertFalse(NativeSourceCounters.binaryBatches() > binaryBatches, "the emitted rows hold a list and a struct");

        NativeIcebergSource flat = NativeIcebergSource.forRowData()
                .tableLoader(tables.loader(name))
                .projectNested(List.of(List.of("info", "geo", "lon"), List.of("info", "city")))
                .rowFormat(format)
                .build();
        RowType flatType = ((InternalTypeInfo<RowData>) flat.getProducedType()).toRowType();
        binaryBatches = NativeSourceCounters.binaryBatches();
        List<List<Object>> flatExpected = expected.stream()
                .map(row -> {
                    List<?> geo = (List<?>) row.get(4);
                    return Arrays.asList(geo == null ? null : geo.get(1), row.get(2));
                })
                .toList();
        ReadResults.assertSameRows(flatExpected, run(flat, flatType, 2));
        assertEquals(
                format == RowFormat.BINARY,
                NativeSourceCounters.binaryBatches() > binaryBatches,
                "flat fields emit binary rows when asked for");
    }

    /**
     * A nested projection of a field added with a default (format v3) to a struct the older file
     * holds: that file holds none of the projected fields, so the struct comes from the defaults
     * and every row of it, null structs included, emits the default (as Iceberg's reader gives
     * it; NativeReaderFunctionTest compares the two), natively in both row formats.
     */
    @ParameterizedTest
    @EnumSource(RowFormat.class)
    void aNestedProjectionOfAFieldAddedWithADefaultEmitsTheDefault(RowFormat format) {
        TestTables tables = new TestTables(dir);
        Table table = tables.create(
                "places_country_" + format.name().toLowerCase(java.util.Locale.ROOT),
                PLACES,
                PartitionSpec.unpartitioned(),
                Map.of(TableProperties.FORMAT_VERSION, "3"));
        TestTables.append(table, places(0, 700));
        table.updateSchema()
                .addColumn("info", "country", Types.StringType.get(), Literal.of("NO"))
                .commit();
        // The same rows with the table's new schema, each info given a country.
        Types.StructType info = table.schema().findType("info").asStructType();
        List<Record> later = new ArrayList<>();
        for (Record r : places(700, 700)) {
            Record row = org.apache.iceberg.data.GenericRecord.create(table.schema());
            PLACES.columns().forEach(c -> row.setField(c.name(), r.getField(c.name())));
            if (r.getField("info") instanceof Record old) {
                Record withCountry = org.apache.iceberg.data.GenericRecord.create(info);
                old.struct().fields().forEach(f -> withCountry.setField(f.name(), old.getField(f.name())));
                withCountry.setField("country", "c" + r.getField("id"));
                row.setField("info", withCountry);
            }
            later.add(row);
        }
        TestTables.append(table, later);
        String name = table.name().substring(table.name().lastIndexOf('.') + 1);
        NativeIcebergSource source = NativeIcebergSource.forRowData()
                .tableLoader(tables.loader(name))
                .projectNested(List.of(List.of("id"), List.of("info", "country")))
                .rowFormat(format)
                .strict(true)
                .build();
        RowType type = ((InternalTypeInfo<RowData>) source.getProducedType()).toRowType();
        List<List<Object>> expected = new ArrayList<>();
        for (long id = 0; id < 1_400; id++) {
            expected.add(Arrays.asList(id, id < 700 ? "NO" : id % 7 == 0 ? null : "c" + id));
        }
        long fallbacks = NativeSourceCounters.fallbackTasks();
        long binaryBatches = NativeSourceCounters.binaryBatches();
        ReadResults.assertSameRows(expected, run(source, type, 2));
        assertEquals(0, NativeSourceCounters.fallbackTasks() - fallbacks);
        assertEquals(
                format == RowFormat.BINARY,
                NativeSourceCounters.binaryBatches() > binaryBatches,
                "flat fields emit binary rows when asked for");
    }

    private static List<Record> places(long from, int count) {
        Types.StructType info = PLACES.findType("info").asStructType();
        Types.StructType geo = PLACES.findType("info.geo").asStructType();
        List<Record> records = new ArrayList<>();
        for (long id = from; id < from + count; id++) {
            Record r = org.apache.iceberg.data.GenericRecord.create(PLACES);
            r.setField("id", id);
            if (id % 7 != 0) {
                Record i = org.apache.iceberg.data.GenericRecord.create(info);
                i.setField("city", id % 5 == 0 ? null : "city-" + id % 13);
                if (id % 3 != 0) {
                    Record g = org.apache.iceberg.data.GenericRecord.create(geo);
                    g.setField("lat", id / 7.0);
                    g.setField("lon", id % 11 == 0 ? null : (double) (id % 17));
                    i.setField("geo", g);
                }
                i.setField("zip", (int) id);
                r.setField("info", i);
            }
            if (id % 4 != 0) {
                r.setField("tags", id % 8 == 1 ? List.of() : Arrays.asList("x", id % 6 == 0 ? null : "t" + id));
            }
            records.add(r);
        }
        return records;
    }
}
