package dev.isthmus.iceberg.source;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.isthmus.arrow.FlinkValues;
import dev.isthmus.arrow.LeakCheckExtension;
import dev.isthmus.arrow.cdata.CheckedBatches;
import dev.isthmus.arrow.memory.MemoryTracker;
import dev.isthmus.iceberg.source.NativeReadOptions.RowFormat;
import dev.isthmus.iceberg.source.ReadResults.Emitted;
import dev.isthmus.iceberg.source.parquet.RandomRecords;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.connector.base.source.reader.RecordsWithSplitIds;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.MetadataColumns;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.expressions.Literal;
import org.apache.iceberg.flink.FlinkSchemaUtil;
import org.apache.iceberg.flink.source.FlinkSplitPlanner;
import org.apache.iceberg.flink.source.ScanContext;
import org.apache.iceberg.flink.source.reader.ReaderFunction;
import org.apache.iceberg.flink.source.reader.RecordAndPosition;
import org.apache.iceberg.flink.source.reader.RowDataReaderFunction;
import org.apache.iceberg.flink.source.split.IcebergSourceSplit;
import org.apache.iceberg.io.CloseableIterator;
import org.apache.iceberg.types.TypeUtil;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The native reader function against Iceberg's {@code RowDataReaderFunction} on the same
 * planned splits, without a cluster: the same records in the same order with the same
 * positions, and the same records after resuming at any position either of them emitted, in
 * both row formats.
 */
@ExtendWith(LeakCheckExtension.class)
class NativeReaderFunctionTest {
    /** Small row groups and pages, so files have many row groups and splits cut through files. */
    private static final Map<String, String> SMALL_ROW_GROUPS = Map.of(
            "write.parquet.row-group-size-bytes",
            "8192",
            "write.parquet.page-size-bytes",
            "2048",
            "write.parquet.page-row-limit",
            "300");

    @TempDir
    Path dir;

    private List<IcebergSourceSplit> plan(Table table, Schema projection, List<Expression> filters) {
        ScanContext context = ScanContext.builder()
                .project(projection)
                .filters(filters)
                .splitSize(20_000L)
                .splitOpenFileCost(1L)
                .build();
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
            return FlinkSplitPlanner.planIcebergSourceSplits(table, context, pool);
        } finally {
            pool.shutdown();
        }
    }

    /**
     * Asserts the native function reads what the stock one reads, with columnar and with binary
     * rows; returns the tasks that fell back (counted once per format).
     */
    private long assertSameAsStock(Table table, Schema projection, List<Expression> filters, int minSplits) {
        List<IcebergSourceSplit> splits = plan(table, projection, filters);
        assertTrue(splits.size() >= minSplits, "the test needs several splits, got " + splits.size());
        Schema read = projection == null ? table.schema() : projection;
        RowType type = FlinkSchemaUtil.convert(read);
        String mapping = table.properties().get(org.apache.iceberg.TableProperties.DEFAULT_NAME_MAPPING);
        ReaderFunction<RowData> stock = new RowDataReaderFunction(
                new Configuration(),
                table.schema(),
                projection,
                mapping,
                true,
                table.io(),
                table.encryption(),
                filters,
                -1);
        long fallbacks = NativeSourceCounters.fallbackTasks();
        for (RowFormat format : RowFormat.values()) {
            // Binary batches are transposed in chunks (BinaryRowRecords.CHUNK): several per batch here.
            int batchSize = format == RowFormat.BINARY ? 2 * BinaryRowRecords.CHUNK + 300 : 700;
            ReaderFunction<RowData> nativeReader = new NativeReaderFunction(
                    table.schema(),
                    projection,
                    mapping,
                    true,
                    table.io(),
                    table.encryption(),
                    filters,
                    -1,
                    NativeReadOptions.defaults().withBatchSize(batchSize).withRowFormat(format));
            long nativeRows = NativeSourceCounters.rows();
            long binaryBatches = NativeSourceCounters.binaryBatches();
            long fetcherTransposed = NativeSourceCounters.fetcherTransposedBatches();
            int records = 0;
            for (IcebergSourceSplit split : splits) {
                List<Emitted> expected = ReadResults.read(stock, split, type);
                List<Emitted> actual = ReadResults.read(nativeReader, split, type);
                assertSamePositions(expected, actual, format + ", split " + split);
                records += expected.size();
                // Resume at positions either reader emitted (including the ends of files), as after a
                // failover: the native reader after either, the stock reader after the native one.
                for (int i = 0; i < expected.size(); i += Math.max(1, expected.size() / 7)) {
                    String where = format + ", resumed at " + i + " of " + split;
                    // Stock positions hold where they agree, and in the first file with records, whose
                    // skip the native reader carries over the files without records before it.
                    int stockFile = expected.get(i).fileOffset();
                    if (stockFile == actual.get(i).fileOffset() || stockFile == split.fileOffset()) {
                        assertEquals(
                                actual.subList(i + 1, actual.size()),
                                ReadResults.read(nativeReader, resumedAt(split, expected.get(i)), type),
                                where);
                    }
                    IcebergSourceSplit nativePosition = resumedAt(split, actual.get(i));
                    assertEquals(
                            actual.subList(i + 1, actual.size()),
                            ReadResults.read(nativeReader, nativePosition, type),
                            where);
                    assertEquals(
                            values(expected.subList(i + 1, expected.size())),
                            values(ReadResults.read(stock, nativePosition, type)),
                            where + ", by stock");
                }
            }
            assertTrue(records > 0, "the test must read something");
            boolean anyNative = NativeSourceCounters.rows() > nativeRows;
            // Binary rows hold flat rows only; nested projections emit columnar rows either way.
            assertEquals(
                    format == RowFormat.BINARY
                            && anyNative
                            && dev.isthmus.arrow.flink.vector.BinaryRowTransposer.supports(type),
                    NativeSourceCounters.binaryBatches() > binaryBatches,
                    format + " rows were emitted");
            assertEquals(
                    fetcherTransposed,
                    NativeSourceCounters.fetcherTransposedBatches(),
                    "each batch was emitted and recycled before the next was read: the task thread was never"
                            + " behind, so it transposed every batch itself");
        }
        return NativeSourceCounters.fallbackTasks() - fallbacks;
    }

    @Test
    void unpartitionedWithFiltersAndProjection() {
        Table table = new TestTables(dir)
                .create("plain", SampleTable.SCHEMA, PartitionSpec.unpartitioned(), SMALL_ROW_GROUPS);
        TestTables.append(table, SampleTable.records(0, 3_000));
        TestTables.append(table, SampleTable.records(3_000, 2_000));
        assertEquals(0, assertSameAsStock(table, null, List.of(), 4));

        long pruned = NativeSourceCounters.rowGroupsPruned();
        Schema projection = table.schema().select("score", "category", "id");
        List<Expression> filters = List.of(
                Expressions.greaterThanOrEqual("id", 1_000),
                Expressions.lessThan("id", 4_200),
                Expressions.notEqual("category", "b"));
        assertEquals(0, assertSameAsStock(table, projection, filters, 2));
        assertTrue(NativeSourceCounters.rowGroupsPruned() > pruned, "statistics pruned row groups outside the ids");
    }

    /**
     * Row groups that statistics keep but dictionaries rule out are skipped, with records,
     * positions and resumes as stock's; chunks that fell back to PLAIN keep their row groups.
     */
    @Test
    void dictionariesPruneRowGroupsStatisticsKeep() {
        Table table = new TestTables(dir)
                .create(
                        "dictionaries",
                        DictionaryTable.SCHEMA,
                        PartitionSpec.unpartitioned(),
                        DictionaryTable.PROPERTIES);
        TestTables.append(table, DictionaryTable.records(0, 8));
        TestTables.append(table, DictionaryTable.records(8 * DictionaryTable.ROWS_PER_GROUP, 6));
        long byStatistics = NativeSourceCounters.rowGroupsPruned();
        long byDictionary = NativeSourceCounters.rowGroupsPrunedByDictionary();
        assertEquals(0, assertSameAsStock(table, null, List.of(Expressions.equal("tag", "m")), 1));
        assertEquals(
                0,
                assertSameAsStock(
                        table,
                        table.schema().select("id", "amount"),
                        List.of(Expressions.in(
                                "amount", new java.math.BigDecimal("5.00"), new java.math.BigDecimal("6.00"))),
                        1));
        assertEquals(byStatistics, NativeSourceCounters.rowGroupsPruned(), "min/max cannot prune these");
        assertTrue(NativeSourceCounters.rowGroupsPrunedByDictionary() > byDictionary, "dictionaries pruned");

        // A file whose only row group holds this word in PLAIN pages after its dictionary overflowed.
        var update = table.updateProperties();
        DictionaryTable.FALLBACK_PROPERTIES.forEach(update::set);
        update.commit();
        TestTables.append(table, DictionaryTable.fallbackRecords(10_000, 400));
        byDictionary = NativeSourceCounters.rowGroupsPrunedByDictionary();
        String word = DictionaryTable.uniqueWord(10_390);
        assertEquals(0, assertSameAsStock(table, null, List.of(Expressions.equal("word", word)), 1));
        // (The other files' word bounds rule them out already, at planning.)
        assertEquals(
                byDictionary,
                NativeSourceCounters.rowGroupsPrunedByDictionary(),
                "a dictionary that lacks the word but not all of its chunk's values prunes nothing");
    }

    /** Batches of several transpose chunks, whole and filtered: records, positions and resumes as stock. */
    @Test
    void batchesLargerThanATransposeChunk() {
        Table table = new TestTables(dir)
                .create("large_batches", SampleTable.SCHEMA, PartitionSpec.unpartitioned(), Map.of());
        TestTables.append(table, SampleTable.records(0, 6_000));
        assertEquals(0, assertSameAsStock(table, null, List.of(), 1));
        assertEquals(0, assertSameAsStock(table, null, List.of(Expressions.notEqual("category", "b")), 1));
    }

    @Test
    void identityPartitionsComeFromTheTask() {
        Table table = new TestTables(dir)
                .create(
                        "by_category",
                        SampleTable.SCHEMA,
                        PartitionSpec.builderFor(SampleTable.SCHEMA)
                                .identity("category")
                                .identity("day")
                                .build(),
                        SMALL_ROW_GROUPS);
        TestTables.append(table, SampleTable.records(0, 4_000));
        assertEquals(0, assertSameAsStock(table, null, List.of(), 4));
        assertEquals(
                0,
                assertSameAsStock(table, table.schema().select("category", "day"), List.of(), 4),
                "only constants: the decoder reads no column, only row counts");
        assertEquals(
                0,
                assertSameAsStock(
                        table,
                        table.schema().select("id", "day", "category"),
                        List.of(Expressions.equal("category", "a"), Expressions.lessThan("id", 3_000)),
                        1));
    }

    private static IcebergSourceSplit resumedAt(IcebergSourceSplit split, Emitted at) {
        return IcebergSourceSplit.fromCombinedScanTask(split.task(), at.fileOffset(), at.recordOffset());
    }

    private static List<List<Object>> values(List<Emitted> emitted) {
        return emitted.stream().map(Emitted::values).toList();
    }

    /**
     * The same records with the same record offsets, and the same file offsets but where the split
     * starts at files without records: Iceberg's {@code DataIterator.seek} does not count those,
     * so it reports the later files that many lower, while the native reader reports every file
     * at its index (a stock position past such files resumes neither reader at its record).
     */
    private static void assertSamePositions(List<Emitted> expected, List<Emitted> actual, String where) {
        assertEquals(values(expected), values(actual), where);
        assertEquals(
                expected.stream().map(Emitted::recordOffset).toList(),
                actual.stream().map(Emitted::recordOffset).toList(),
                where);
        int shift = expected.isEmpty()
                ? 0
                : actual.getFirst().fileOffset() - expected.getFirst().fileOffset();
        assertTrue(shift >= 0, where);
        for (int i = 0; i < expected.size(); i++) {
            assertEquals(expected.get(i).fileOffset() + shift, actual.get(i).fileOffset(), where + ", record " + i);
        }
    }

    @Test
    void metadataColumnsAreNativeWhileAvroFilesFallBack() {
        Table table = new TestTables(dir)
                .create("mixed", SampleTable.SCHEMA, PartitionSpec.unpartitioned(), SMALL_ROW_GROUPS);
        TestTables.append(table, SampleTable.records(0, 2_500));
        Schema withFile = new Schema(
                table.schema().findField("id"),
                MetadataColumns.FILE_PATH,
                MetadataColumns.SPEC_ID,
                table.schema().findField("amount"));
        assertEquals(0, assertSameAsStock(table, withFile, List.of(), 2));

        Schema withPosition =
                new Schema(table.schema().findField("id"), MetadataColumns.ROW_POSITION, MetadataColumns.IS_DELETED);
        assertEquals(0, assertSameAsStock(table, withPosition, List.of(), 2));
        Schema filtered = new Schema(
                MetadataColumns.ROW_POSITION,
                table.schema().findField("category"),
                table.schema().findField("id"));
        assertEquals(
                0,
                assertSameAsStock(
                        table,
                        filtered,
                        List.of(Expressions.notEqual("category", "b"), Expressions.greaterThan("id", 700)),
                        2));

        // Small enough to stay one task: a task of an Avro file that holds no block start reads no
        // records, and Iceberg's DataIterator.seek then reports the next file's records under the
        // empty file's offset (see docs/source.md).
        TestTables.appendAvro(table, SampleTable.records(2_500, 300));
        // Counted once per read of its split, resumed reads included.
        assertTrue(assertSameAsStock(table, null, List.of(), 2) > 0, "the Avro file");
        assertTrue(
                assertSameAsStock(
                                table,
                                table.schema().select("id", "category"),
                                List.of(Expressions.notEqual("category", "c")),
                                2)
                        > 0,
                "the Avro file, filtered");
    }

    /**
     * A limit is counted per reader function across splits, as Iceberg's is: reading the splits
     * in order, both cut at the same record, which may be inside a batch and a file.
     */
    @Test
    void limitCutsAtTheSameRecordAsStock() {
        Table table = new TestTables(dir)
                .create("limited", SampleTable.SCHEMA, PartitionSpec.unpartitioned(), SMALL_ROW_GROUPS);
        TestTables.append(table, SampleTable.records(0, 3_000));
        TestTables.append(table, SampleTable.records(3_000, 2_000));
        Schema projection = table.schema().select("id", "category", "ts");
        List<Expression> filters = List.of(Expressions.notEqual("category", "c"));
        RowType type = FlinkSchemaUtil.convert(projection);
        List<IcebergSourceSplit> splits = plan(table, projection, filters);
        for (RowFormat format : RowFormat.values()) {
            ReaderFunction<RowData> stock = new RowDataReaderFunction(
                    new Configuration(),
                    table.schema(),
                    projection,
                    null,
                    true,
                    table.io(),
                    table.encryption(),
                    filters,
                    2_345);
            ReaderFunction<RowData> nativeReader = new NativeReaderFunction(
                    table.schema(),
                    projection,
                    null,
                    true,
                    table.io(),
                    table.encryption(),
                    filters,
                    2_345,
                    NativeReadOptions.defaults().withBatchSize(700).withRowFormat(format));
            List<Emitted> expected = new ArrayList<>();
            List<Emitted> actual = new ArrayList<>();
            for (IcebergSourceSplit split : splits) {
                expected.addAll(ReadResults.read(stock, split, type));
                actual.addAll(ReadResults.read(nativeReader, split, type));
            }
            assertEquals(2_345, expected.size());
            assertEquals(expected, actual, format.toString());
        }
    }

    /**
     * Flink's reader holds several batches at once before recycling them: binary rows must keep
     * their own arrays until then (and reuse them only after), while no Arrow memory stays held.
     */
    @Test
    void batchesHeldTogetherKeepTheirRows() throws IOException {
        Table table =
                new TestTables(dir).create("held", SampleTable.SCHEMA, PartitionSpec.unpartitioned(), SMALL_ROW_GROUPS);
        TestTables.append(table, SampleTable.records(0, 3_000));
        RowType type = FlinkSchemaUtil.convert(table.schema());
        List<IcebergSourceSplit> splits = plan(table, null, List.of());
        ReaderFunction<RowData> stock = new RowDataReaderFunction(
                new Configuration(), table.schema(), null, null, true, table.io(), table.encryption(), List.of(), -1);
        for (RowFormat format : RowFormat.values()) {
            ReaderFunction<RowData> nativeReader = new NativeReaderFunction(
                    table.schema(),
                    null,
                    null,
                    true,
                    table.io(),
                    table.encryption(),
                    List.of(),
                    -1,
                    NativeReadOptions.defaults().withBatchSize(100).withRowFormat(format));
            long binaryBatches = NativeSourceCounters.binaryBatches();
            long fetcherTransposed = NativeSourceCounters.fetcherTransposedBatches();
            int mostHeld = 0;
            // The second round's batches reuse the arrays the first round's gave back.
            for (int round = 0; round < 2; round++) {
                for (IcebergSourceSplit split : splits) {
                    List<RecordsWithSplitIds<RecordAndPosition<RowData>>> held = new ArrayList<>();
                    try (CloseableIterator<RecordsWithSplitIds<RecordAndPosition<RowData>>> batches =
                            nativeReader.apply(split)) {
                        batches.forEachRemaining(held::add);
                    }
                    mostHeld = Math.max(mostHeld, held.size());
                    assertTrue(
                            MemoryTracker.root().liveArrays() > 0, format + ": records not yet emitted hold batches");
                    List<Emitted> actual = new ArrayList<>();
                    for (RecordsWithSplitIds<RecordAndPosition<RowData>> batch : held) {
                        while (batch.nextSplit() != null) {
                            RecordAndPosition<RowData> r;
                            while ((r = batch.nextRecordFromSplit()) != null) {
                                actual.add(new Emitted(
                                        FlinkValues.row(r.record(), type), r.fileOffset(), r.recordOffset()));
                            }
                        }
                    }
                    // Binary records release their batch once transposed, when emitting starts.
                    assertEquals(
                            format == RowFormat.COLUMNAR,
                            MemoryTracker.root().liveArrays() > 0,
                            format + ": Arrow batches held by emitted records");
                    held.forEach(RecordsWithSplitIds::recycle);
                    assertEquals(ReadResults.read(stock, split, type), actual, format + ", round " + round);
                }
            }
            assertTrue(mostHeld > 4, "more batches held than arrays kept for reuse");
            // Each split's batches were all read before any was emitted: the first two were left
            // to the task thread, the later ones (the task thread behind) transposed on reading.
            long transposedOnReading = NativeSourceCounters.fetcherTransposedBatches() - fetcherTransposed;
            long binary = NativeSourceCounters.binaryBatches() - binaryBatches;
            if (format == RowFormat.BINARY) {
                assertEquals(
                        binary - 2L * 2 * splits.size(),
                        transposedOnReading,
                        "all but the first two batches of each split, in both rounds");
                assertTrue(transposedOnReading > 0, "the test must hold more than two batches of a split");
            } else {
                assertEquals(0, binary + transposedOnReading);
            }
        }
    }

    /**
     * With object reuse a downstream operator gets the source's row itself; one that keeps it past
     * the batch's recycle must fail (checked batches, on in the project's tests), not read the
     * values the scan decoded into the batch's memory next.
     */
    @Test
    void aColumnarRowKeptPastItsBatchsRecycleThrows() throws IOException {
        assertTrue(CheckedBatches.ENABLED, "the build runs tests with -D" + CheckedBatches.PROPERTY + "=true");
        Table table = new TestTables(dir).create("kept", SampleTable.SCHEMA, PartitionSpec.unpartitioned(), Map.of());
        TestTables.append(table, SampleTable.records(0, 1_000));
        ReaderFunction<RowData> reader = new NativeReaderFunction(
                table.schema(),
                null,
                null,
                true,
                table.io(),
                table.encryption(),
                List.of(),
                -1,
                NativeReadOptions.defaults().withBatchSize(100).withRowFormat(RowFormat.COLUMNAR));
        IcebergSourceSplit split = plan(table, null, List.of()).getFirst();
        try (CloseableIterator<RecordsWithSplitIds<RecordAndPosition<RowData>>> batches = reader.apply(split)) {
            RecordsWithSplitIds<RecordAndPosition<RowData>> first = batches.next();
            first.nextSplit();
            RowData kept = first.nextRecordFromSplit().record();
            long id = kept.getLong(0);
            first.recycle();
            RecordsWithSplitIds<RecordAndPosition<RowData>> second = batches.next();
            second.nextSplit();
            assertTrue(second.nextRecordFromSplit().record().getLong(0) != id, "the next batch holds other rows");
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> kept.getLong(0));
            assertTrue(e.getMessage().startsWith("read of a recycled batch"), e.getMessage());
            second.recycle();
        }
    }

    /** Binary rows hold flat columns only: with a struct or list projected, asking for binary rows gives columnar ones. */
    @Test
    void nestedProjectionsEmitColumnarRowsWhenBinaryIsAskedFor() {
        Schema nested = new Schema(
                Types.NestedField.required(1, "id", Types.LongType.get()),
                Types.NestedField.optional(
                        2,
                        "point",
                        Types.StructType.of(
                                Types.NestedField.optional(3, "x", Types.DoubleType.get()),
                                Types.NestedField.optional(4, "tag", Types.StringType.get()))),
                Types.NestedField.optional(5, "tags", Types.ListType.ofOptional(6, Types.StringType.get())));
        Table table = new TestTables(dir).create("nested", nested, PartitionSpec.unpartitioned(), SMALL_ROW_GROUPS);
        Schema schema = table.schema();
        TestTables.append(table, new RandomRecords(3, 0.1).records(schema, 2_000));
        RowType type = FlinkSchemaUtil.convert(schema);
        ReaderFunction<RowData> stock = new RowDataReaderFunction(
                new Configuration(), schema, null, null, true, table.io(), table.encryption(), List.of(), -1);
        ReaderFunction<RowData> binary = new NativeReaderFunction(
                schema,
                null,
                null,
                true,
                table.io(),
                table.encryption(),
                List.of(),
                -1,
                NativeReadOptions.defaults().withRowFormat(RowFormat.BINARY));
        long nativeTasks = NativeSourceCounters.nativeTasks();
        long binaryBatches = NativeSourceCounters.binaryBatches();
        for (IcebergSourceSplit split : plan(table, null, List.of())) {
            assertEquals(ReadResults.read(stock, split, type), ReadResults.read(binary, split, type));
        }
        assertTrue(NativeSourceCounters.nativeTasks() > nativeTasks, "read natively");
        assertEquals(binaryBatches, NativeSourceCounters.binaryBatches(), "as columnar rows");
    }

    /**
     * Position deletes are applied natively with the stock reader's results and positions: rows
     * scattered through a file, a whole row group (skipped undecoded), one delete file for two data
     * files, and a file appended after the deletes, which they do not touch.
     */
    @Test
    void positionDeletesAreAppliedNativelyAsStockAppliesThem() {
        Table table = new TestTables(dir)
                .create("deleted", SampleTable.SCHEMA, PartitionSpec.unpartitioned(), withFormatV2(SMALL_ROW_GROUPS));
        DataFile first = TestTables.append(table, SampleTable.records(0, 2_500)).getFirst();
        DataFile second =
                TestTables.append(table, SampleTable.records(2_500, 2_000)).getFirst();
        TestTables.deletePositions(table, first, 0, 7, 299, 300, 301, 1_234, 2_499);
        // Far more than a row group of these files holds: at least one is deleted whole.
        TestTables.deletePositions(
                table, second, java.util.stream.LongStream.range(100, 1_300).toArray());
        // 7 of the first file again: delete files may overlap.
        TestTables.deletePositions(table, List.of(first, second), 5, 7, 1_999);
        TestTables.append(table, SampleTable.records(4_500, 1_000));

        long deleteFiles = NativeSourceCounters.deleteFiles();
        long rowsDeleted = NativeSourceCounters.rowsDeleted();
        long groupsDeleted = NativeSourceCounters.rowGroupsDeleted();
        assertEquals(0, assertSameAsStock(table, null, List.of(), 3));
        assertTrue(NativeSourceCounters.deleteFiles() > deleteFiles, "delete files were applied natively");
        assertTrue(NativeSourceCounters.rowsDeleted() > rowsDeleted, "decoded rows were left out");
        assertTrue(NativeSourceCounters.rowGroupsDeleted() > groupsDeleted, "a row group deleted whole was skipped");

        Schema withPosition = new Schema(
                MetadataColumns.ROW_POSITION,
                table.schema().findField("category"),
                table.schema().findField("id"));
        assertEquals(
                0,
                assertSameAsStock(
                        table,
                        withPosition,
                        List.of(Expressions.notEqual("category", "b"), Expressions.greaterThan("id", 200)),
                        3));
    }

    /**
     * Position delete files as Iceberg's writers leave them, each naming one data file with exact
     * {@code file_path} bounds: planning gives each task only its own, which is decoded on
     * {@code pos} alone, so no task has another file's deletes to prune.
     */
    @Test
    void deleteFilesScopedToTheirDataFileAreReadOnTheirPositions() {
        Table table = new TestTables(dir)
                .create(
                        "pos_scoped",
                        SampleTable.SCHEMA,
                        PartitionSpec.unpartitioned(),
                        withFormatV2(SMALL_ROW_GROUPS));
        DataFile first = TestTables.append(table, SampleTable.records(0, 1_500)).getFirst();
        DataFile second =
                TestTables.append(table, SampleTable.records(1_500, 1_500)).getFirst();
        TestTables.deletePositions(
                table,
                first,
                java.util.stream.LongStream.range(0, 1_500)
                        .filter(p -> p % 4 == 1)
                        .toArray());
        TestTables.deletePositions(table, second, 0, 1, 2, 1_499);
        long pruned = NativeSourceCounters.deleteRowGroupsPruned();
        long rowsDeleted = NativeSourceCounters.rowsDeleted();
        assertEquals(0, assertSameAsStock(table, null, List.of(), 2));
        assertTrue(NativeSourceCounters.rowsDeleted() > rowsDeleted, "rows were deleted natively");
        assertEquals(pruned, NativeSourceCounters.deleteRowGroupsPruned(), "no task got the other file's deletes");
    }

    /**
     * One position delete file naming four data files, as Spark's partition-scoped deletes do,
     * written without exact {@code file_path} bounds, so planning gives it to every task: each
     * task reads only the delete file's row groups whose {@code file_path} statistics may name its
     * data file, and deletes what stock deletes.
     */
    @Test
    void deleteFilesNamingSeveralDataFilesAreReadWhereTheyNameTheTasksFile() {
        Table table = new TestTables(dir)
                .create(
                        "pos_shared",
                        SampleTable.SCHEMA,
                        PartitionSpec.unpartitioned(),
                        withFormatV2(Map.of(
                                "write.parquet.row-group-size-bytes", "1024",
                                "write.parquet.page-size-bytes", "512",
                                "write.parquet.page-row-limit", "100")));
        List<DataFile> files = new ArrayList<>();
        for (int f = 0; f < 4; f++) {
            files.addAll(TestTables.append(table, SampleTable.records(f * 1_000L, 1_000)));
        }
        TestTables.deletePositions(
                table,
                files,
                java.util.stream.LongStream.range(0, 1_000)
                        .filter(p -> p % 3 == 1)
                        .toArray());
        long pruned = NativeSourceCounters.deleteRowGroupsPruned();
        long rowsDeleted = NativeSourceCounters.rowsDeleted();
        assertEquals(0, assertSameAsStock(table, null, List.of(), 2));
        assertTrue(NativeSourceCounters.rowsDeleted() > rowsDeleted, "rows were deleted natively");
        assertTrue(
                NativeSourceCounters.deleteRowGroupsPruned() > pruned,
                "row groups naming other data files were not read");
    }

    /** Partitioned, with a limit: the deletes of each partition's file, and the same cut as stock's. */
    @Test
    void positionDeletesInPartitionsAndUnderALimit() {
        Table table = new TestTables(dir)
                .create(
                        "parts",
                        SampleTable.SCHEMA,
                        PartitionSpec.builderFor(SampleTable.SCHEMA)
                                .identity("category")
                                .build(),
                        withFormatV2(SMALL_ROW_GROUPS));
        for (DataFile file : TestTables.append(table, SampleTable.records(0, 3_000))) {
            TestTables.deletePositions(table, file, 0, 1, 2, 50, 51, 400, file.recordCount() - 1);
        }
        assertEquals(0, assertSameAsStock(table, null, List.of(), 3));

        Schema projection = table.schema().select("id", "category");
        RowType type = FlinkSchemaUtil.convert(projection);
        List<IcebergSourceSplit> splits = plan(table, projection, List.of());
        ReaderFunction<RowData> stock = new RowDataReaderFunction(
                new Configuration(),
                table.schema(),
                projection,
                null,
                true,
                table.io(),
                table.encryption(),
                List.of(),
                1_234);
        ReaderFunction<RowData> nativeReader = new NativeReaderFunction(
                table.schema(),
                projection,
                null,
                true,
                table.io(),
                table.encryption(),
                List.of(),
                1_234,
                NativeReadOptions.defaults().withBatchSize(500));
        List<List<Object>> expected = new ArrayList<>();
        List<List<Object>> actual = new ArrayList<>();
        for (IcebergSourceSplit split : splits) {
            expected.addAll(values(ReadResults.read(stock, split, type)));
            actual.addAll(values(ReadResults.read(nativeReader, split, type)));
        }
        assertEquals(1_234, expected.size());
        assertEquals(expected, actual);
    }

    /**
     * A split that starts at a file whose rows are all deleted: Iceberg's reader reports the later
     * files one lower, the native reader at their index, and a native position resumes both.
     */
    @Test
    void aSplitStartingAtADeletedFileReportsEachFileAtItsIndex() throws IOException {
        Table table = new TestTables(dir)
                .create("leading", SampleTable.SCHEMA, PartitionSpec.unpartitioned(), withFormatV2(Map.of()));
        DataFile gone = TestTables.append(table, SampleTable.records(0, 400)).getFirst();
        TestTables.append(table, SampleTable.records(400, 500));
        TestTables.append(table, SampleTable.records(900, 600));
        TestTables.deletePositions(
                table, gone, java.util.stream.LongStream.range(0, 400).toArray());
        List<org.apache.iceberg.FileScanTask> tasks = new ArrayList<>();
        try (var planned = table.newScan().planFiles()) {
            planned.forEach(tasks::add);
        }
        tasks.sort(java.util.Comparator.comparing((org.apache.iceberg.FileScanTask t) ->
                        !t.file().location().equals(gone.location()))
                .thenComparing(t -> t.file().recordCount()));
        IcebergSourceSplit split =
                IcebergSourceSplit.fromCombinedScanTask(new org.apache.iceberg.BaseCombinedScanTask(tasks));
        RowType type = FlinkSchemaUtil.convert(table.schema());
        ReaderFunction<RowData> stock = new RowDataReaderFunction(
                new Configuration(), table.schema(), null, null, true, table.io(), table.encryption(), List.of(), -1);
        ReaderFunction<RowData> nativeReader = new NativeReaderFunction(
                table.schema(),
                null,
                null,
                true,
                table.io(),
                table.encryption(),
                List.of(),
                -1,
                NativeReadOptions.defaults().withBatchSize(128).withStrict(true));

        List<Emitted> expected = ReadResults.read(stock, split, type);
        List<Emitted> actual = ReadResults.read(nativeReader, split, type);
        assertSamePositions(expected, actual, "the whole split");
        assertEquals(1_100, actual.size());
        assertEquals(
                List.of(0, 1),
                expected.stream().map(Emitted::fileOffset).distinct().toList(),
                "stock's");
        assertEquals(
                List.of(1, 2),
                actual.stream().map(Emitted::fileOffset).distinct().toList(),
                "native's");
        for (int i = 0; i < actual.size(); i += 97) {
            IcebergSourceSplit at = resumedAt(split, actual.get(i));
            assertEquals(actual.subList(i + 1, actual.size()), ReadResults.read(nativeReader, at, type), "at " + i);
            assertEquals(
                    values(actual.subList(i + 1, actual.size())),
                    values(ReadResults.read(stock, at, type)),
                    "stock at " + i);
        }
        // Stock's positions in the first file with records carry over the deleted file.
        Emitted inFirst = expected.get(123);
        assertEquals(
                actual.subList(124, actual.size()), ReadResults.read(nativeReader, resumedAt(split, inFirst), type));
    }

    /** A position past the last record of a split whose files hold none fails in both readers. */
    @Test
    void aPositionPastEveryRecordFailsInBothReaders() {
        Table table = oneFileWithItsFirstRowsDeleted("gone", 300, 300);
        IcebergSourceSplit split = plan(table, null, List.of()).getFirst();
        IcebergSourceSplit past = IcebergSourceSplit.fromCombinedScanTask(split.task(), 0, 5);
        RowType type = FlinkSchemaUtil.convert(table.schema());
        ReaderFunction<RowData> stock = new RowDataReaderFunction(
                new Configuration(), table.schema(), null, null, true, table.io(), table.encryption(), List.of(), -1);
        ReaderFunction<RowData> nativeReader = new NativeReaderFunction(
                table.schema(),
                null,
                null,
                true,
                table.io(),
                table.encryption(),
                List.of(),
                -1,
                NativeReadOptions.defaults().withStrict(true));
        assertEquals(List.of(), ReadResults.read(nativeReader, split, type));
        assertThrows(IllegalStateException.class, () -> ReadResults.read(stock, past, type));
        IllegalStateException e =
                assertThrows(IllegalStateException.class, () -> ReadResults.read(nativeReader, past, type));
        assertTrue(e.getMessage().contains("Invalid starting record offset 5"), e.getMessage());
    }

    /**
     * Equality deletes on the key, as an upsert sink writes them, apply to the rows committed
     * before them only: the rows appended after a delete of the same keys stay.
     */
    @Test
    void equalityDeletesApplyToEarlierRowsNatively() {
        Table table = new TestTables(dir)
                .create("eq", SampleTable.SCHEMA, PartitionSpec.unpartitioned(), withFormatV2(SMALL_ROW_GROUPS));
        List<Record> first = SampleTable.records(0, 2_000);
        TestTables.append(table, first);
        TestTables.append(table, SampleTable.records(2_000, 1_000));
        List<Record> deleted = new ArrayList<>(first.subList(10, 20));
        deleted.addAll(first.subList(600, 900));
        deleted.addAll(SampleTable.records(2_990, 10));
        TestTables.deleteEquals(table, "id", deleted);
        // Upserted again: the same keys, committed after their deletes.
        TestTables.append(table, first.subList(600, 650));
        EqualityDeleteCache.clear();
        long keys = NativeSourceCounters.equalityDeleteKeys();
        long rowsDeleted = NativeSourceCounters.rowsDeleted();
        long hits = NativeSourceCounters.equalityDeleteCacheHits();
        assertEquals(0, assertSameAsStock(table, null, List.of(), 2));
        assertEquals(
                0,
                assertSameAsStock(table, SampleTable.SCHEMA.select("score", "day"), List.of(), 2),
                "the key column not projected");
        assertTrue(NativeSourceCounters.equalityDeleteKeys() > keys, "the keys were applied natively");
        assertTrue(NativeSourceCounters.rowsDeleted() > rowsDeleted, "rows were deleted natively");
        assertTrue(NativeSourceCounters.equalityDeleteCacheHits() > hits, "the tasks shared one loaded set");
    }

    /** Keys of several columns, strings and dates, with nulls equal to nulls as Iceberg compares them. */
    @Test
    void equalityDeletesOnSeveralColumnsMatchNullsToNulls() {
        Table table = new TestTables(dir)
                .create("eq_multi", SampleTable.SCHEMA, PartitionSpec.unpartitioned(), withFormatV2(SMALL_ROW_GROUPS));
        List<Record> records = SampleTable.records(0, 3_000);
        TestTables.append(table, records);
        // Every fifth row has a null category: these delete every (null, day) and ("b", day) pair.
        TestTables.deleteEquals(table, List.of("category", "day"), List.of(records.get(4), records.get(1)));
        TestTables.deleteEquals(table, List.of("amount", "payload"), records.subList(100, 400));
        assertEquals(0, assertSameAsStock(table, null, List.of(), 2));
        assertEquals(
                0,
                assertSameAsStock(
                        table,
                        SampleTable.SCHEMA.select("id", "category"),
                        List.of(Expressions.lessThan("id", 2_000L)),
                        2));
    }

    /**
     * Partitioned tables: each partition's deletes apply within it, and after a spec change
     * Iceberg's scoping (which deletes reach which data files) is the task's, kept as it is.
     */
    @Test
    void partitionedEqualityDeletesAcrossASpecChange() {
        Table table = new TestTables(dir)
                .create(
                        "eq_parts",
                        SampleTable.SCHEMA,
                        PartitionSpec.builderFor(SampleTable.SCHEMA)
                                .identity("category")
                                .build(),
                        withFormatV2(SMALL_ROW_GROUPS));
        List<Record> records = SampleTable.records(0, 3_000);
        TestTables.append(table, records);
        TestTables.deleteEquals(table, List.of("id", "category"), records.subList(200, 700));
        table.updateSpec()
                .removeField("category")
                .addField(Expressions.bucket("id", 4))
                .commit();
        List<Record> later = SampleTable.records(3_000, 2_000);
        TestTables.append(table, later);
        List<Record> deleted = new ArrayList<>(later.subList(0, 300));
        deleted.addAll(records.subList(1_000, 1_100));
        TestTables.deleteEquals(table, List.of("id", "category"), deleted);
        assertEquals(0, assertSameAsStock(table, null, List.of(), 3));
        assertEquals(
                0,
                assertSameAsStock(
                        table,
                        SampleTable.SCHEMA.select("ts", "category"),
                        List.of(Expressions.equal("category", "b")),
                        1));
    }

    /** Format v3: deletion vectors beside equality deletes, partitioned and not. */
    @ParameterizedTest(name = "partitioned {0}")
    @ValueSource(booleans = {false, true})
    void deletionVectorsAndEqualityDeletesOnV3(boolean partitioned) {
        Map<String, String> properties = withFormatV3(SMALL_ROW_GROUPS);
        Table table = new TestTables(dir)
                .create(
                        "v3_" + partitioned,
                        SampleTable.SCHEMA,
                        partitioned
                                ? PartitionSpec.builderFor(SampleTable.SCHEMA)
                                        .identity("day")
                                        .build()
                                : PartitionSpec.unpartitioned(),
                        properties);
        List<Record> records = SampleTable.records(0, 3_000);
        List<DataFile> files = TestTables.append(table, records);
        // The last rows of a file's first row group, and one whole row group, among scattered ones.
        TestTables.deleteWithVector(
                table,
                files.getFirst(),
                java.util.stream.LongStream.range(0, 1_000)
                        .filter(p -> p % 11 == 3 || (p >= 250 && p < 600))
                        .toArray());
        TestTables.deleteEquals(table, List.of("id", "day"), records.subList(1_500, 1_800));
        long groupsDeleted = NativeSourceCounters.rowGroupsDeleted();
        assertEquals(0, assertSameAsStock(table, null, List.of(), 2));
        assertEquals(
                0,
                assertSameAsStock(
                        table, SampleTable.SCHEMA.select("score", "ts"), List.of(Expressions.notNull("ts")), 2));
        assertTrue(NativeSourceCounters.rowGroupsDeleted() > groupsDeleted, "a row group deleted whole was skipped");
    }

    /** Position and equality deletes on the same data file, a row deleted by both among them. */
    @Test
    void positionAndEqualityDeletesOnOneFile() {
        Table table = new TestTables(dir)
                .create("eq_mixed", SampleTable.SCHEMA, PartitionSpec.unpartitioned(), withFormatV2(SMALL_ROW_GROUPS));
        List<Record> records = SampleTable.records(0, 2_000);
        DataFile file = TestTables.append(table, records).getFirst();
        TestTables.deletePositions(
                table,
                file,
                java.util.stream.LongStream.range(0, 2_000)
                        .filter(p -> p % 7 == 0)
                        .toArray());
        TestTables.deleteEquals(table, "id", records.subList(0, 500));
        // The whole last row group (ids from 1_700 on are in it or later ones) by keys.
        TestTables.deleteEquals(table, "id", records.subList(1_700, 2_000));
        assertEquals(0, assertSameAsStock(table, null, List.of(), 1));
    }

    /** A key column added after a data file was written is null in it, as Iceberg reads it. */
    @Test
    void equalityDeletesOnAColumnAddedLaterMatchItsNulls() {
        Table table = new TestTables(dir)
                .create("eq_added", SampleTable.SCHEMA, PartitionSpec.unpartitioned(), withFormatV2(Map.of()));
        List<Record> records = SampleTable.records(0, 500);
        TestTables.append(table, records);
        table.updateSchema().addColumn("region", Types.StringType.get()).commit();
        List<Record> keys = new ArrayList<>();
        for (long id : new long[] {7, 8, 9}) {
            Record key = GenericRecord.create(table.schema());
            key.setField("id", id);
            key.setField("region", id == 9 ? "eu" : null);
            keys.add(key);
        }
        TestTables.deleteEquals(table, List.of("id", "region"), keys);
        long rowsDeleted = NativeSourceCounters.rowsDeleted();
        assertEquals(0, assertSameAsStock(table, null, List.of(), 1));
        assertEquals(0, assertSameAsStock(table, table.schema().select("id", "score"), List.of(), 1));
        assertTrue(NativeSourceCounters.rowsDeleted() > rowsDeleted, "ids 7 and 8, deleted natively");
    }

    private static final Schema KEY_TYPES = new Schema(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.optional(2, "d", Types.DoubleType.get()),
            Types.NestedField.optional(3, "f", Types.FloatType.get()),
            Types.NestedField.optional(4, "u", Types.UUIDType.get()),
            Types.NestedField.optional(5, "tz", Types.TimestampType.withZone()),
            Types.NestedField.optional(6, "fx", Types.FixedType.ofLength(3)),
            Types.NestedField.optional(7, "b", Types.BooleanType.get()),
            Types.NestedField.optional(8, "n", Types.IntegerType.get()),
            Types.NestedField.optional(9, "g", Types.FloatType.get()),
            Types.NestedField.optional(10, "dec", Types.DecimalType.of(9, 2)));

    private static final double[] DOUBLES = {
        0.0, -0.0, Double.NaN, 1.5, Double.longBitsToDouble(0x7ff8_0000_0000_0001L), -2.25, Double.NEGATIVE_INFINITY
    };
    private static final float[] FLOATS = {0.0f, -0.0f, Float.NaN, 1.5f, Float.intBitsToFloat(0x7fc0_0001)};

    /** Rows of {@link #KEY_TYPES} as {@code schema} has them: after promotion, {@code n}, {@code g} and {@code dec} widened. */
    private static List<Record> keyTypeRows(Schema schema, long first, int count) {
        boolean promoted = schema.findType("n").typeId() == org.apache.iceberg.types.Type.TypeID.LONG;
        java.time.OffsetDateTime base = java.time.OffsetDateTime.of(2026, 12, 1, 0, 0, 0, 0, java.time.ZoneOffset.UTC);
        List<Record> rows = new ArrayList<>();
        for (long id = first; id < first + count; id++) {
            Record r = GenericRecord.create(schema);
            r.setField("id", id);
            r.setField("d", id % 11 == 10 ? null : DOUBLES[(int) (id % DOUBLES.length)]);
            r.setField("f", id % 13 == 12 ? null : FLOATS[(int) (id % FLOATS.length)]);
            r.setField("u", id % 9 == 8 ? null : new java.util.UUID(id % 5, id % 3));
            r.setField("tz", id % 10 == 9 ? null : base.plusNanos((id % 4) * 1_000));
            r.setField("fx", id % 8 == 7 ? null : new byte[] {(byte) (id % 3), 0, (byte) (id % 2)});
            r.setField("b", id % 3 == 0 ? null : id % 2 == 0);
            int small = (int) (id % 7) - 3;
            r.setField("n", id % 6 == 5 ? null : promoted ? (Object) (long) small : (Object) small);
            float tenth = (id % 5) * 0.1f;
            r.setField("g", promoted ? (Object) (double) tenth : (Object) tenth);
            r.setField("dec", BigDecimal.valueOf(id % 4 - 2, 2));
            rows.add(r);
        }
        return rows;
    }

    /**
     * Keys of every type the native reader hashes, compared as Iceberg compares them: {@code -0.0}
     * apart from {@code 0.0}, every NaN equal, UUIDs, fixed bytes, booleans, microsecond instants;
     * and keys on columns promoted after a file was written ({@code int} to {@code long},
     * {@code float} to {@code double}, a wider decimal), whose older files hold the narrower type.
     */
    @Test
    void equalityKeysOfEveryHashedTypeAndPromotedColumns() {
        Table table = new TestTables(dir)
                .create("eq_types", KEY_TYPES, PartitionSpec.unpartitioned(), withFormatV2(SMALL_ROW_GROUPS));
        List<Record> before = keyTypeRows(table.schema(), 0, 2_000);
        TestTables.append(table, before);
        TestTables.deleteEquals(table, "d", List.of(before.get(1), before.get(4)));
        TestTables.deleteEquals(table, "f", List.of(before.get(4)));
        TestTables.deleteEquals(table, List.of("u", "b"), List.of(before.get(7), before.get(17)));
        TestTables.deleteEquals(table, List.of("tz", "fx"), List.of(before.get(2), before.get(15)));
        table.updateSchema()
                .updateColumn("n", Types.LongType.get())
                .updateColumn("g", Types.DoubleType.get())
                .updateColumn("dec", Types.DecimalType.of(18, 2))
                .commit();
        List<Record> after = keyTypeRows(table.schema(), 2_000, 1_000);
        TestTables.append(table, after);
        // Keys written after the promotion, matching rows of files from before it and after.
        List<Record> promotedKeys = keyTypeRows(table.schema(), 0, 20);
        TestTables.deleteEquals(table, List.of("n", "g"), List.of(promotedKeys.get(3), promotedKeys.get(8)));
        TestTables.deleteEquals(table, "dec", List.of(promotedKeys.get(1)));
        long rowsDeleted = NativeSourceCounters.rowsDeleted();
        assertEquals(0, assertSameAsStock(table, null, List.of(), 2));
        assertEquals(
                0,
                assertSameAsStock(table, table.schema().select("id", "g"), List.of(), 2),
                "key columns not projected");
        assertTrue(NativeSourceCounters.rowsDeleted() > rowsDeleted, "rows were deleted natively");
    }

    /**
     * Equality keys on a partition column that migrated files do not hold (Hive's layout: the
     * value is in the path): Iceberg compares the partition value, so such tasks fall back, while
     * keys on columns the files hold apply natively.
     */
    @Test
    void equalityKeysOnAPartitionColumnTheFileLacksFallBack() {
        Schema schema = TypeUtil.join(
                HiveStyleTable.SCHEMA, new Schema(Types.NestedField.optional(9, "region", Types.StringType.get())));
        Table table = new TestTables(dir)
                .create(
                        "hive_parts",
                        schema,
                        PartitionSpec.builderFor(schema).identity("region").build(),
                        withFormatV2(Map.of()));
        HiveStyleTable.mapByName(table);
        HiveStyleTable.addFile(table, 0, 1_000, "region=eu");
        HiveStyleTable.addFile(table, 1_000, 1_000, "region=us");
        List<Record> keys = new ArrayList<>();
        for (long id : new long[] {3, 4, 1_003}) {
            Record key = GenericRecord.create(table.schema());
            key.setField("id", id);
            key.setField("region", "eu");
            keys.add(key);
        }
        TestTables.deleteEquals(table, "id", keys.subList(0, 1));
        long rowsDeleted = NativeSourceCounters.rowsDeleted();
        assertEquals(0, assertSameAsStock(table, null, List.of(), 1), "keys on a column the files hold");
        assertTrue(NativeSourceCounters.rowsDeleted() > rowsDeleted, "id 3 deleted natively");
        TestTables.deleteEquals(table, List.of("id", "region"), keys);
        assertTrue(assertSameAsStock(table, null, List.of(), 1) > 0, "the eu file's task falls back");
    }

    /**
     * An equality key column added with a default (v3): a file written before it holds no such
     * column, and Iceberg compares its default with the keys, so that file's task falls back; a
     * file that holds the column reads natively.
     */
    @Test
    void equalityDeletesOnAColumnWithADefaultFallBackForFilesWithoutIt() {
        Table table = new TestTables(dir)
                .create("eq_default", SampleTable.SCHEMA, PartitionSpec.unpartitioned(), withFormatV3(Map.of()));
        TestTables.append(table, SampleTable.records(0, 300));
        table.updateSchema()
                .addColumn("region", Types.StringType.get(), Literal.of("eu"))
                .commit();
        List<Record> later = new ArrayList<>();
        for (Record old : SampleTable.records(300, 300)) {
            Record r = GenericRecord.create(table.schema());
            SampleTable.SCHEMA.columns().forEach(f -> r.setField(f.name(), old.getField(f.name())));
            r.setField("region", (Long) old.getField("id") % 2 == 0 ? "eu" : "us");
            later.add(r);
        }
        TestTables.append(table, later);
        List<Record> keys = new ArrayList<>();
        for (long id : new long[] {5, 6, 305, 306}) {
            Record key = GenericRecord.create(table.schema());
            key.setField("id", id);
            key.setField("region", "eu");
            keys.add(key);
        }
        TestTables.deleteEquals(table, List.of("id", "region"), keys);
        long rowsDeleted = NativeSourceCounters.rowsDeleted();
        assertTrue(assertSameAsStock(table, null, List.of(), 1) > 0, "the older file's task falls back");
        assertTrue(NativeSourceCounters.rowsDeleted() > rowsDeleted, "the later file's key 306 deleted natively");
    }

    /**
     * A model of a table under change: random inserts, key updates (an equality delete of the
     * key, then its new row), deletes by key on two columns and deletes by position, committed one
     * by one; after every commit both readers read the table, and Iceberg's generic reader gives
     * the model's rows.
     */
    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 2, 3})
    void randomChangesReadAsTheStockReaderReadsThem(long seed) throws IOException {
        SplittableRandom random = new SplittableRandom(seed);
        PartitionSpec spec = seed == 2
                ? PartitionSpec.builderFor(SampleTable.SCHEMA).bucket("id", 3).build()
                : PartitionSpec.unpartitioned();
        Table table =
                new TestTables(dir).create("model_" + seed, SampleTable.SCHEMA, spec, withFormatV2(SMALL_ROW_GROUPS));
        Map<Long, Record> live = new java.util.TreeMap<>();
        long nextRow = 0;
        for (int commit = 0; commit < 7; commit++) {
            List<Long> ids = new ArrayList<>(live.keySet());
            int op = commit == 0 ? 0 : random.nextInt(4);
            switch (op) {
                case 0 -> {
                    List<Record> added = SampleTable.records(nextRow, random.nextInt(300, 1_500));
                    nextRow += added.size();
                    added.forEach(r -> live.put((Long) r.getField("id"), r));
                    TestTables.append(table, added);
                }
                case 1 -> {
                    List<Record> old = pick(random, ids, live, 0.1);
                    TestTables.deleteEquals(table, "id", old);
                    List<Record> updated = new ArrayList<>();
                    for (Record r : old) {
                        Record next = SampleTable.records(nextRow++, 1).getFirst();
                        next.setField("id", r.getField("id"));
                        updated.add(next);
                        live.put((Long) r.getField("id"), next);
                    }
                    TestTables.append(table, updated);
                }
                case 2 -> {
                    List<Record> gone = pick(random, ids, live, 0.05);
                    TestTables.deleteEquals(table, List.of("id", "category"), gone);
                    gone.forEach(r -> live.remove((Long) r.getField("id")));
                }
                default -> deleteLivePositions(table, random, live);
            }
            assertEquals(0, assertSameAsStock(table, null, List.of(), 1), "after commit " + commit);
            List<Long> read = new ArrayList<>();
            try (var rows = org.apache.iceberg.data.IcebergGenerics.read(table)
                    .select("id")
                    .build()) {
                rows.forEach(r -> read.add((Long) r.getField("id")));
            }
            read.sort(null);
            assertEquals(List.copyOf(live.keySet()), read, "the model's rows after commit " + commit);
        }
    }

    private static List<Record> pick(SplittableRandom random, List<Long> ids, Map<Long, Record> live, double share) {
        List<Record> picked = new ArrayList<>();
        for (long id : ids) {
            if (random.nextDouble() < share) {
                picked.add(live.get(id));
            }
        }
        return picked;
    }

    /**
     * Deletes a random fifth of one data file's live rows by position. A key's live row is in the
     * newest data file holding the key (updates append after deleting), at the key's place in it.
     */
    private static void deleteLivePositions(Table table, SplittableRandom random, Map<Long, Record> live)
            throws IOException {
        List<DataFile> files = new ArrayList<>();
        try (var tasks = table.newScan().planFiles()) {
            tasks.forEach(task -> files.add(task.file()));
        }
        files.sort(java.util.Comparator.comparing(DataFile::location));
        Map<DataFile, List<Long>> idsOf = new java.util.HashMap<>();
        Map<Long, Long> newest = new java.util.HashMap<>();
        for (DataFile file : files) {
            List<Long> ids = new ArrayList<>();
            try (var rows = org.apache.iceberg.parquet.Parquet.read(table.io().newInputFile(file.location()))
                    .project(table.schema().select("id"))
                    .createReaderFunc(s -> org.apache.iceberg.data.parquet.GenericParquetReaders.buildReader(
                            table.schema().select("id"), s))
                    .<Record>build()) {
                rows.forEach(r -> ids.add((Long) r.getField("id")));
            }
            idsOf.put(file, ids);
            ids.forEach(id -> newest.merge(id, file.dataSequenceNumber(), Math::max));
        }
        DataFile chosen = files.get(random.nextInt(files.size()));
        List<Long> ids = idsOf.get(chosen);
        List<Long> positions = new ArrayList<>();
        for (int pos = 0; pos < ids.size(); pos++) {
            long id = ids.get(pos);
            if (live.containsKey(id)
                    && newest.get(id) == (long) chosen.dataSequenceNumber()
                    && random.nextInt(5) == 0) {
                positions.add((long) pos);
                live.remove(id);
            }
        }
        if (!positions.isEmpty()) {
            TestTables.deletePositions(
                    table, chosen, positions.stream().mapToLong(Long::longValue).toArray());
        }
    }

    /** Equality deletes past their limit fall back, or fail naming the limit in strict mode. */
    @Test
    void equalityDeletesPastTheLimitFallBackOrFailStrictReads() {
        Table table = new TestTables(dir)
                .create("eq_many", SampleTable.SCHEMA, PartitionSpec.unpartitioned(), withFormatV2(Map.of()));
        List<Record> records = SampleTable.records(0, 3_000);
        TestTables.append(table, records);
        TestTables.deleteEquals(table, "id", records.subList(0, 2_000));
        NativeReadOptions limited = NativeReadOptions.defaults().withMaxEqualityDeleteBytes(16_000);
        assertLimitFallsBackOrFailsStrictReads(
                table,
                limited,
                limited.withMaxEqualityDeleteBytes(1 << 20),
                "take more than 16000 bytes",
                "isthmus.max-equality-delete-bytes");
    }

    /** A task whose deletes exceed the limit falls back, or fails naming the limit in strict mode. */
    @Test
    void deletesPastTheLimitFallBackOrFailStrictReads() {
        Table table = oneFileWithItsFirstRowsDeleted("many", 500, 40);
        String file = plan(table, null, List.of())
                .getFirst()
                .task()
                .files()
                .iterator()
                .next()
                .file()
                .location();
        NativeReadOptions limited = NativeReadOptions.defaults().withMaxDeletePositions(39);
        assertLimitFallsBackOrFailsStrictReads(
                table,
                limited,
                limited.withMaxDeletePositions(40),
                "more than 39 rows of " + file,
                "maxDeletePositions");
    }

    /**
     * The table's one split: with {@code limited} its task falls back with the stock rows, in
     * strict mode fails with a message holding {@code named}, and with {@code enough} reads
     * natively, strict, the stock rows.
     */
    private void assertLimitFallsBackOrFailsStrictReads(
            Table table, NativeReadOptions limited, NativeReadOptions enough, String... named) {
        IcebergSourceSplit split = plan(table, null, List.of()).getFirst();
        RowType type = FlinkSchemaUtil.convert(table.schema());
        ReaderFunction<RowData> stock = new RowDataReaderFunction(
                new Configuration(), table.schema(), null, null, true, table.io(), table.encryption(), List.of(), -1);
        List<Emitted> expected = ReadResults.read(stock, split, type);

        long fallbacks = NativeSourceCounters.fallbackTasks();
        assertEquals(expected, ReadResults.read(nativeFunction(table, limited), split, type));
        assertEquals(fallbacks + 1, NativeSourceCounters.fallbackTasks());

        NativeReadRefusedException e = assertThrows(
                NativeReadRefusedException.class,
                () -> ReadResults.read(nativeFunction(table, limited.withStrict(true)), split, type));
        for (String part : named) {
            assertTrue(e.getMessage().contains(part), e.getMessage());
        }
        assertEquals(expected, ReadResults.read(nativeFunction(table, enough.withStrict(true)), split, type));
    }

    private static ReaderFunction<RowData> nativeFunction(Table table, NativeReadOptions options) {
        return new NativeReaderFunction(
                table.schema(), null, null, true, table.io(), table.encryption(), List.of(), -1, options);
    }

    /** A v2 table of one data file of {@code rows} rows whose first {@code deleted} a position delete file deletes. */
    private Table oneFileWithItsFirstRowsDeleted(String name, int rows, long deleted) {
        Table table = new TestTables(dir)
                .create(name, SampleTable.SCHEMA, PartitionSpec.unpartitioned(), withFormatV2(Map.of()));
        DataFile file = TestTables.append(table, SampleTable.records(0, rows)).getFirst();
        TestTables.deletePositions(
                table, file, java.util.stream.LongStream.range(0, deleted).toArray());
        return table;
    }

    private static Map<String, String> withFormatV2(Map<String, String> properties) {
        return withFormat(properties, 2);
    }

    private static Map<String, String> withFormatV3(Map<String, String> properties) {
        return withFormat(properties, 3);
    }

    private static Map<String, String> withFormat(Map<String, String> properties, int version) {
        Map<String, String> all = new java.util.HashMap<>(properties);
        all.put(org.apache.iceberg.TableProperties.FORMAT_VERSION, Integer.toString(version));
        return all;
    }

    /**
     * Format v3 columns added with initial defaults, of every kind of value a default takes: the
     * files written before hold none of them and read the defaults, natively in strict mode, the
     * later files read their own values; a struct the older files lack altogether reads as null.
     */
    @Test
    void columnsAddedWithDefaultsReadTheDefaultsFromOlderFiles() {
        Map<String, String> properties = withFormatV3(SMALL_ROW_GROUPS);
        Table table =
                new TestTables(dir).create("defaults", SampleTable.SCHEMA, PartitionSpec.unpartitioned(), properties);
        TestTables.append(table, SampleTable.records(0, 1_500));
        table.updateSchema()
                .addColumn("region", Types.StringType.get(), Literal.of("eu-west"))
                .addRequiredColumn("rank", Types.IntegerType.get(), Literal.of(42))
                .addColumn("big", Types.LongType.get(), Literal.of(-7_000_000_000L))
                .addColumn("ratio", Types.DoubleType.get(), Literal.of(0.25))
                .addColumn("flag", Types.BooleanType.get(), Literal.of(true))
                .addColumn("price", Types.DecimalType.of(9, 2), Literal.of(new java.math.BigDecimal("12.34")))
                .addColumn(
                        "since", Types.DateType.get(), Literal.of("2024-02-29").to(Types.DateType.get()))
                .addColumn(
                        "at",
                        Types.TimestampType.withoutZone(),
                        Literal.of("2024-02-29T10:11:12.123456").to(Types.TimestampType.withoutZone()))
                .addColumn(
                        "token",
                        Types.UUIDType.get(),
                        Literal.of(java.util.UUID.fromString("f79c3e09-677c-4bbd-a479-3f349cb785e7")))
                .addColumn("tag", Types.BinaryType.get(), Literal.of(java.nio.ByteBuffer.wrap(new byte[] {1, 2, 3})))
                .commit();
        List<Record> later = new ArrayList<>();
        for (Record old : SampleTable.records(1_500, 1_000)) {
            Record r = GenericRecord.create(table.schema());
            long id = (Long) old.getField("id");
            for (Types.NestedField field : SampleTable.SCHEMA.columns()) {
                r.setField(field.name(), old.getField(field.name()));
            }
            r.setField("region", id % 3 == 0 ? null : "r" + id % 5);
            r.setField("rank", (int) id);
            r.setField("big", id * 11);
            r.setField("ratio", id / 7.0);
            r.setField("flag", id % 2 == 0);
            r.setField("price", java.math.BigDecimal.valueOf(id, 2));
            r.setField("since", java.time.LocalDate.of(2025, 1, 1).plusDays(id % 30));
            r.setField("at", java.time.LocalDateTime.of(2025, 1, 1, 0, 0).plusSeconds(id));
            r.setField("token", new java.util.UUID(id, -id));
            r.setField("tag", java.nio.ByteBuffer.wrap(new byte[] {(byte) id}));
            later.add(r);
        }
        TestTables.append(table, later);
        assertEquals(0, assertSameAsStock(table, null, List.of(), 2));
        assertEquals(
                0,
                assertSameAsStock(
                        table,
                        table.schema().select("id", "rank", "since", "region"),
                        List.of(Expressions.greaterThan("id", 1_200)),
                        1));
        // Iceberg's row-group filter takes a column a file lacks as all null, default or not.
        assertEquals(
                0,
                assertSameAsStock(
                        table, table.schema().select("id", "region"), List.of(Expressions.notNull("region")), 1));
        // Row 0 is in the older file, wherever the planner puts its split.
        List<Object> first = null;
        for (IcebergSourceSplit split : plan(table, null, List.of())) {
            for (Emitted row : ReadResults.read(strictReader(table), split, FlinkSchemaUtil.convert(table.schema()))) {
                if (row.values().getFirst().equals(0L)) {
                    first = row.values();
                }
            }
        }
        assertEquals(
                Arrays.asList(
                        "eu-west",
                        42,
                        -7_000_000_000L,
                        true,
                        new java.math.BigDecimal("12.34"),
                        (int) java.time.LocalDate.of(2024, 2, 29).toEpochDay(),
                        "010203"),
                Arrays.asList(
                        first.get(7),
                        first.get(8),
                        first.get(9),
                        first.get(11),
                        first.get(12),
                        first.get(13),
                        first.get(16)));

        table.updateSchema()
                .addColumn(
                        "detail",
                        Types.StructType.of(Types.NestedField.optional("note")
                                .withId(1_000)
                                .ofType(Types.StringType.get())
                                .withInitialDefault(Literal.of("none"))
                                .build()))
                .commit();
        // A struct the older file lacks altogether is null there, whatever defaults its fields have.
        assertEquals(0, assertSameAsStock(table, table.schema().select("id", "detail"), List.of(), 2));
        assertEquals(
                List.of(Arrays.asList(0L, null)),
                rowsWithId(table, table.schema().select("id", "detail"), 0L));
    }

    /**
     * Format v3 fields added with initial defaults to a struct, to the structs of a list's
     * elements and to those of a map's values: older files hold the structs but not the fields,
     * and read the defaults natively where the struct is not null, as the stock reader does.
     */
    @Test
    void fieldsAddedToStructsWithDefaultsReadTheDefaults() {
        Schema schema = TypeUtil.join(
                STRUCTS,
                new Schema(Types.NestedField.optional(
                        10,
                        "attrs",
                        Types.MapType.ofOptional(
                                11,
                                12,
                                Types.StringType.get(),
                                Types.StructType.of(Types.NestedField.optional(13, "v", Types.IntegerType.get()))))));
        Table table = new TestTables(dir)
                .create("struct_defaults", schema, PartitionSpec.unpartitioned(), withFormatV3(SMALL_ROW_GROUPS));
        TestTables.append(table, withAttrs(structRecords(table.schema(), 0, 1_500), table.schema()));
        table.updateSchema()
                .addColumn("info", "country", Types.StringType.get(), Literal.of("NO"))
                .addColumn("items.element", "price", Types.LongType.get(), Literal.of(250L))
                .addColumn("attrs.value", "w", Types.LongType.get(), Literal.of(7L))
                .commit();
        List<Record> later = withAttrs(structRecords(table.schema(), 1_500, 1_000), table.schema());
        for (Record r : later) {
            long id = (Long) r.getField("id");
            if (r.getField("info") instanceof Record info) {
                info.setField("country", id % 3 == 0 ? null : "c" + id);
            }
            if (r.getField("items") instanceof List<?> items) {
                items.forEach(item -> ((Record) item).setField("price", id));
            }
            if (r.getField("attrs") instanceof Map<?, ?> attrs) {
                attrs.values().forEach(value -> {
                    if (value != null) {
                        ((Record) value).setField("w", -id);
                    }
                });
            }
        }
        TestTables.append(table, later);
        assertEquals(0, assertSameAsStock(table, null, List.of(), 2));
        assertEquals(
                0,
                assertSameAsStock(
                        table,
                        table.schema()
                                .select("id", "info.country", "info.zip", "items.element.price", "items.element.name"),
                        List.of(Expressions.lessThan("id", 1_700L)),
                        1));
        // Without another field of the struct, nothing in the file tells where it is null: Iceberg's
        // reader gives every row the struct with the default, null structs included, and so does
        // the native one (row 7's info is null in the older file).
        Schema countryOnly = table.schema().select("id", "info.country");
        assertEquals(0, assertSameAsStock(table, countryOnly, List.of(), 1));
        assertEquals(List.of(Arrays.asList(7L, Arrays.asList("NO"))), rowsWithId(table, countryOnly, 7L));
        // Where no projected field has a default, such a struct is null in every row of that file.
        table.updateSchema().addColumn("info", "region", Types.StringType.get()).commit();
        Schema regionOnly = table.schema().select("id", "info.region");
        assertEquals(0, assertSameAsStock(table, regionOnly, List.of(), 1));
        assertEquals(List.of(Arrays.asList(1L, null)), rowsWithId(table, regionOnly, 1L));
        // Fields keep the table's order within their struct (country, then region).
        Schema countryAndRegion = table.schema().select("id", "info.region", "info.country");
        assertEquals(0, assertSameAsStock(table, countryAndRegion, List.of(), 1));
        assertEquals(List.of(Arrays.asList(7L, Arrays.asList("NO", null))), rowsWithId(table, countryAndRegion, 7L));

        // The stock reader, which the native one matched, gives older rows the defaults.
        List<Object> first = null;
        for (IcebergSourceSplit split : plan(table, null, List.of())) {
            for (Emitted row : ReadResults.read(strictReader(table), split, FlinkSchemaUtil.convert(table.schema()))) {
                if (row.values().getFirst().equals(1L)) {
                    first = row.values();
                }
            }
        }
        assertEquals("NO", ((List<?>) first.get(1)).get(3), "row 1's info.country");
        assertEquals(250L, ((List<?>) ((List<?>) first.get(2)).getFirst()).get(2), "row 1's first item's price");
        assertEquals(7L, ((List<?>) ((Map<?, ?>) first.get(3)).get("k1")).get(1), "row 1's attrs.k1.w");
    }

    /** The values of the rows whose first column is {@code id}, read natively (strict) with {@code projection}. */
    private List<List<Object>> rowsWithId(Table table, Schema projection, long id) {
        List<List<Object>> rows = new ArrayList<>();
        for (IcebergSourceSplit split : plan(table, projection, List.of())) {
            for (Emitted row :
                    ReadResults.read(strictReader(table, projection), split, FlinkSchemaUtil.convert(projection))) {
                if (row.values().getFirst().equals(id)) {
                    rows.add(row.values());
                }
            }
        }
        return rows;
    }

    /** {@code records} with a map of structs: null in every fifth row, else one or two entries, one value null. */
    private static List<Record> withAttrs(List<Record> records, Schema schema) {
        Types.StructType value = schema.findType("attrs.value").asStructType();
        for (Record r : records) {
            long id = (Long) r.getField("id");
            if (id % 5 != 0) {
                Map<String, Record> attrs = new java.util.LinkedHashMap<>();
                Record v = GenericRecord.create(value);
                v.setField("v", (int) id);
                attrs.put("k" + id % 3, v);
                if (id % 4 == 0) {
                    attrs.put("none", null);
                }
                r.setField("attrs", attrs);
            }
        }
        return records;
    }

    private static ReaderFunction<RowData> strictReader(Table table) {
        return strictReader(table, null);
    }

    private static ReaderFunction<RowData> strictReader(Table table, Schema projection) {
        return new NativeReaderFunction(
                table.schema(),
                projection,
                table.properties().get(org.apache.iceberg.TableProperties.DEFAULT_NAME_MAPPING),
                true,
                table.io(),
                table.encryption(),
                List.of(),
                -1,
                NativeReadOptions.defaults().withStrict(true));
    }

    /**
     * Iceberg v3's types: nanosecond timestamps with and without zone (Flink's TIMESTAMP(9) and
     * TIMESTAMP_LTZ(9), as the stock reader maps them) read natively as the stock reader reads
     * them; {@code unknown}, which the stock reader cannot read, refused by name.
     */
    @Test
    void v3TypesReadAsTheStockReaderReadsThem() {
        Schema schema = new Schema(
                Types.NestedField.required(1, "id", Types.LongType.get()),
                Types.NestedField.optional(2, "at", Types.TimestampNanoType.withoutZone()),
                Types.NestedField.optional(3, "at_utc", Types.TimestampNanoType.withZone()),
                Types.NestedField.optional(4, "nothing", Types.UnknownType.get()));
        Map<String, String> properties = withFormatV3(SMALL_ROW_GROUPS);
        Table table = new TestTables(dir).create("v3_types", schema, PartitionSpec.unpartitioned(), properties);
        List<Record> records = new ArrayList<>();
        java.time.LocalDateTime base = java.time.LocalDateTime.of(2026, 12, 3, 10, 0);
        for (long id = 0; id < 2_000; id++) {
            Record r = GenericRecord.create(schema);
            r.setField("id", id);
            // Nanoseconds that milliseconds and microseconds would lose, and times before 1970.
            java.time.LocalDateTime at = (id % 2 == 0 ? base : base.minusYears(80)).plusNanos(id * 1_000_003_007L);
            r.setField("at", id % 7 == 0 ? null : at);
            r.setField("at_utc", id % 5 == 0 ? null : at.atOffset(java.time.ZoneOffset.UTC));
            records.add(r);
        }
        TestTables.append(table, records);
        Schema timestamps = schema.select("id", "at", "at_utc");
        assertEquals(0, assertSameAsStock(table, timestamps, List.of(), 2));
        assertEquals(
                0,
                assertSameAsStock(
                        table, schema.select("id", "at_utc"), List.of(Expressions.greaterThan("id", 1_000L)), 1));
        // Flink has no serializer for unknown's NULL type, so Iceberg's reader cannot be built for it.
        assertThrows(
                UnsupportedOperationException.class,
                () -> new RowDataReaderFunction(
                        new Configuration(),
                        schema,
                        schema.select("id", "nothing"),
                        null,
                        true,
                        table.io(),
                        table.encryption(),
                        List.of(),
                        -1));
        IllegalArgumentException e = assertThrows(
                IllegalArgumentException.class,
                () -> new NativeReaderFunction(
                        schema,
                        schema.select("id", "nothing"),
                        null,
                        true,
                        table.io(),
                        table.encryption(),
                        List.of(),
                        -1,
                        NativeReadOptions.defaults()));
        assertEquals(
                "column nothing has Iceberg's type unknown, which Iceberg's Flink reader cannot read either"
                        + " (Flink has no serializer for its NULL type): leave it out of the projection",
                e.getMessage());
    }

    /**
     * Row lineage (format v3): {@code _row_id} and {@code _last_updated_sequence_number} of files
     * from several commits, as Iceberg's reader computes them from each data file's first row id
     * and sequence number, natively in strict mode; with deletes and a filter, whose dropped rows
     * keep their ids; and all null on a v2 table, whose files have no first row id.
     */
    @Test
    void rowLineageColumnsReadAsTheStockReaderComputesThem() {
        Map<String, String> properties = withFormatV3(SMALL_ROW_GROUPS);
        Table table =
                new TestTables(dir).create("lineage", SampleTable.SCHEMA, PartitionSpec.unpartitioned(), properties);
        TestTables.append(table, SampleTable.records(0, 1_500));
        List<DataFile> second = TestTables.append(table, SampleTable.records(1_500, 1_000));
        TestTables.deleteWithVector(
                table,
                second.getFirst(),
                java.util.stream.LongStream.range(0, 1_000)
                        .filter(p -> p % 3 == 0)
                        .toArray());
        Schema lineage = new Schema(List.of(
                SampleTable.SCHEMA.findField("id"),
                SampleTable.SCHEMA.findField("score"),
                MetadataColumns.ROW_ID,
                MetadataColumns.LAST_UPDATED_SEQUENCE_NUMBER));
        long nativeRows = NativeSourceCounters.rows();
        assertEquals(0, assertSameAsStock(table, lineage, List.of(), 2));
        assertEquals(0, assertSameAsStock(table, lineage, List.of(Expressions.greaterThan("id", 1_200L)), 1));
        assertTrue(NativeSourceCounters.rows() > nativeRows, "read natively");
        // The ids are the row's position after its file's first row id: distinct across the files.
        java.util.Set<Object> ids = new java.util.HashSet<>();
        for (IcebergSourceSplit split : plan(table, lineage, List.of())) {
            for (Emitted row :
                    ReadResults.read(strictReader(table, lineage), split, FlinkSchemaUtil.convert(lineage))) {
                assertTrue(row.values().get(2) != null && row.values().get(3) != null, row.toString());
                ids.add(row.values().get(2));
            }
        }
        assertEquals(1_500 + 1_000 - 334, ids.size());

        Table v2 = new TestTables(dir)
                .create("lineage_v2", SampleTable.SCHEMA, PartitionSpec.unpartitioned(), withFormatV2(Map.of()));
        TestTables.append(v2, SampleTable.records(0, 500));
        assertEquals(0, assertSameAsStock(v2, lineage, List.of(), 1));
    }

    /**
     * A table migrated from Hive: parquet-java files without field ids, read by the table's name
     * mapping natively in strict mode, with pruning by their statistics; the same after a column
     * is renamed and one added, with a file Iceberg wrote after them.
     */
    @Test
    void filesWithoutFieldIdsReadByTheTablesNameMapping() {
        Table table = new TestTables(dir)
                .create("hive", HiveStyleTable.SCHEMA, PartitionSpec.unpartitioned(), withFormatV2(Map.of()));
        HiveStyleTable.mapByName(table);
        HiveStyleTable.addFile(table, 0, 2_000);
        HiveStyleTable.addFile(table, 2_000, 1_500);
        assertEquals(0, assertSameAsStock(table, null, List.of(), 2));
        long pruned = NativeSourceCounters.rowGroupsPruned();
        assertEquals(
                0,
                assertSameAsStock(
                        table,
                        table.schema().select("id", "score", "info"),
                        List.of(Expressions.greaterThan("id", 3_000L), Expressions.notNull("score")),
                        1));
        assertTrue(NativeSourceCounters.rowGroupsPruned() > pruned, "row groups pruned by their mapped statistics");
        // Some of a struct's fields: the column is decoded whole, its fields matched by position, then pruned.
        assertEquals(0, assertSameAsStock(table, table.schema().select("id", "info.zip"), List.of(), 2));

        table.updateSchema()
                .renameColumn("name", "label")
                .addColumn("extra", Types.LongType.get())
                .commit();
        List<Record> later = new ArrayList<>();
        for (long id = 3_500; id < 4_000; id++) {
            Record r = GenericRecord.create(table.schema());
            r.setField("id", id);
            r.setField("label", "l" + id % 3);
            r.setField("score", id * 0.25);
            r.setField("extra", id * 2);
            later.add(r);
        }
        TestTables.append(table, later);
        assertEquals(0, assertSameAsStock(table, null, List.of(), 3));
        assertEquals(
                0,
                assertSameAsStock(
                        table,
                        table.schema().select("extra", "label", "tags"),
                        List.of(Expressions.equal("label", "n3")),
                        1));
    }

    /**
     * A field added with a default (format v3) to a struct of a table migrated from Hive: its files
     * hold the struct through the name mapping but not the field, so projected alone it reads the
     * default in every row, natively, as through field ids.
     */
    @Test
    void nameMappedFilesReadAStructAddedFieldsDefault() {
        Table table = new TestTables(dir)
                .create("hive_v3", HiveStyleTable.SCHEMA, PartitionSpec.unpartitioned(), withFormatV3(Map.of()));
        HiveStyleTable.mapByName(table);
        HiveStyleTable.addFile(table, 0, 1_000);
        table.updateSchema()
                .addColumn("info", "country", Types.StringType.get(), Literal.of("NO"))
                .commit();
        Schema countryOnly = table.schema().select("id", "info.country");
        assertEquals(0, assertSameAsStock(table, countryOnly, List.of(), 1));
        assertEquals(List.of(Arrays.asList(3L, Arrays.asList("NO"))), rowsWithId(table, countryOnly, 3L));
    }

    /**
     * A name-mapped file whose struct holds its fields in another order than the table's: Iceberg
     * matches them by name, the decoder by position, so such tasks take the stock reader.
     */
    @Test
    void nameMappedStructsInAnotherOrderTakeTheStockReader() {
        Schema swapped = new Schema(HiveStyleTable.SCHEMA.columns().stream()
                .map(f -> !f.name().equals("info")
                        ? f
                        : Types.NestedField.optional(
                                4,
                                "info",
                                Types.StructType.of(
                                        Types.NestedField.optional(7, "zip", Types.IntegerType.get()),
                                        Types.NestedField.optional(6, "city", Types.StringType.get()))))
                .toList());
        Table table = new TestTables(dir)
                .create("hive_swapped", swapped, PartitionSpec.unpartitioned(), withFormatV2(Map.of()));
        HiveStyleTable.mapByName(table);
        HiveStyleTable.addFile(table, 0, 500);
        assertTrue(assertSameAsStock(table, null, List.of(), 1) > 0);
        assertEquals(
                0,
                assertSameAsStock(table, table.schema().select("id", "score"), List.of(), 1),
                "flat columns still read natively");
        NativeReadRefusedException e = assertThrows(
                NativeReadRefusedException.class,
                () -> ReadResults.read(
                        strictReader(table),
                        plan(table, null, List.of()).getFirst(),
                        FlinkSchemaUtil.convert(table.schema())));
        assertTrue(e.getMessage().contains("nested fields are matched by position"), e.getMessage());
    }

    /** Without a name mapping Iceberg reads such files by position, which the native reader leaves to it. */
    @Test
    void filesWithoutFieldIdsOrMappingTakeTheStockReader() {
        Table table = new TestTables(dir)
                .create("hive_unmapped", HiveStyleTable.SCHEMA, PartitionSpec.unpartitioned(), withFormatV2(Map.of()));
        HiveStyleTable.addFile(table, 0, 500);
        assertTrue(assertSameAsStock(table, null, List.of(), 1) > 0);
        NativeReadRefusedException e = assertThrows(
                NativeReadRefusedException.class,
                () -> ReadResults.read(
                        strictReader(table),
                        plan(table, null, List.of()).getFirst(),
                        FlinkSchemaUtil.convert(table.schema())));
        assertTrue(e.getMessage().contains("name mapping (schema.name-mapping.default)"), e.getMessage());
    }

    @Test
    void strictRefusesATaskItCannotRead() {
        Table table = new TestTables(dir).create("avro", SampleTable.SCHEMA, PartitionSpec.unpartitioned(), Map.of());
        TestTables.appendAvro(table, SampleTable.records(0, 100));
        ReaderFunction<RowData> strict = new NativeReaderFunction(
                table.schema(),
                null,
                null,
                true,
                table.io(),
                table.encryption(),
                List.of(),
                -1,
                NativeReadOptions.defaults().withStrict(true));
        IcebergSourceSplit split = plan(table, null, List.of()).getFirst();
        NativeReadRefusedException e = org.junit.jupiter.api.Assertions.assertThrows(
                NativeReadRefusedException.class,
                () -> ReadResults.read(strict, split, FlinkSchemaUtil.convert(table.schema())));
        assertTrue(e.getMessage().contains("it is AVRO"), e.getMessage());
    }

    @Test
    void evolvedSchemasReadByFieldId() {
        Table table = new TestTables(dir)
                .create("evolved", SampleTable.SCHEMA, PartitionSpec.unpartitioned(), SMALL_ROW_GROUPS);
        TestTables.append(table, SampleTable.records(0, 2_000));
        table.updateSchema()
                .addColumn("extra", Types.LongType.get())
                .renameColumn("category", "kind")
                .deleteColumn("payload")
                .commit();
        List<Record> later = new ArrayList<>();
        for (Record old : SampleTable.records(2_000, 1_000)) {
            Record r = GenericRecord.create(table.schema());
            for (Types.NestedField field : table.schema().columns()) {
                r.setField(
                        field.name(),
                        field.name().equals("extra")
                                ? (Long) old.getField("id") * 3
                                : old.getField(field.name().equals("kind") ? "category" : field.name()));
            }
            later.add(r);
        }
        TestTables.append(table, later);
        assertEquals(0, assertSameAsStock(table, null, List.of(), 2));
        assertEquals(
                0,
                assertSameAsStock(
                        table,
                        table.schema().select("extra", "kind"),
                        List.of(Expressions.greaterThan("extra", 6_300)),
                        1));
    }

    /**
     * A struct's fields matched by id, as Iceberg matches them: renamed, reordered and dropped
     * fields read natively, and so does a projection of some of them (only their leaves are
     * read), and a field added to the struct after a file was written (nulls in that file).
     */
    @Test
    void evolvedStructsReadByFieldId() {
        Table table =
                new TestTables(dir).create("evolved_structs", STRUCTS, PartitionSpec.unpartitioned(), SMALL_ROW_GROUPS);
        TestTables.append(table, structRecords(table.schema(), 0, 1_500));
        TestTables.append(table, structRecords(table.schema(), 1_500, 1_000));
        table.updateSchema()
                .renameColumn("info.city", "town")
                .moveFirst("info.zip")
                .deleteColumn("info.note")
                .moveFirst("items.element.qty")
                .commit();
        assertEquals(0, assertSameAsStock(table, null, List.of(), 2));
        assertEquals(
                0,
                assertSameAsStock(
                        table,
                        table.schema().select("id", "info.zip", "items.element.name"),
                        List.of(Expressions.greaterThan("id", 900L)),
                        1));

        table.updateSchema()
                .addColumn("info", "country", Types.StringType.get())
                .addColumn("items.element", "price", Types.DecimalType.of(9, 2))
                .commit();
        assertEquals(0, assertSameAsStock(table, null, List.of(), 2), "files without the new fields read them as null");
        assertEquals(
                0, assertSameAsStock(table, table.schema().select("id", "info.country", "info.town"), List.of(), 2));
    }

    /** A struct and a list of structs, for the tests of nested evolution. */
    private static final Schema STRUCTS = new Schema(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.optional(
                    2,
                    "info",
                    Types.StructType.of(
                            Types.NestedField.optional(3, "city", Types.StringType.get()),
                            Types.NestedField.optional(4, "zip", Types.IntegerType.get()),
                            Types.NestedField.optional(5, "note", Types.StringType.get()))),
            Types.NestedField.optional(
                    6,
                    "items",
                    Types.ListType.ofOptional(
                            7,
                            Types.StructType.of(
                                    Types.NestedField.optional(8, "name", Types.StringType.get()),
                                    Types.NestedField.optional(9, "qty", Types.IntegerType.get())))));

    private static List<Record> structRecords(Schema schema, long from, int count) {
        Types.StructType info = schema.findType("info").asStructType();
        Types.StructType item = schema.findType("items.element").asStructType();
        List<Record> records = new ArrayList<>();
        for (long id = from; id < from + count; id++) {
            Record r = GenericRecord.create(schema);
            r.setField("id", id);
            if (id % 7 != 0) {
                Record i = GenericRecord.create(info);
                i.setField("city", id % 5 == 0 ? null : "city-" + id % 13);
                i.setField("zip", (int) id);
                i.setField("note", "n" + id % 3);
                r.setField("info", i);
            }
            if (id % 4 != 0) {
                List<Record> items = new ArrayList<>();
                for (int k = 0; k < id % 3; k++) {
                    Record it = GenericRecord.create(item);
                    it.setField("name", k == 1 ? null : "item-" + (id + k));
                    it.setField("qty", k);
                    items.add(it);
                }
                r.setField("items", items);
            }
            records.add(r);
        }
        return records;
    }
}
