package dev.isthmus.iceberg.sink.parquet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.isthmus.arrow.FlinkValues;
import dev.isthmus.arrow.LeakCheckExtension;
import dev.isthmus.arrow.memory.MemoryTracker;
import dev.isthmus.iceberg.source.parquet.IcebergParquetFiles;
import dev.isthmus.iceberg.source.parquet.RandomRecords;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.table.data.GenericArrayData;
import org.apache.flink.table.data.GenericMapData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.types.logical.RowType;
import org.apache.iceberg.Files;
import org.apache.iceberg.Metrics;
import org.apache.iceberg.MetricsConfig;
import org.apache.iceberg.Schema;
import org.apache.iceberg.io.FileAppender;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Nested columns (structs, lists, maps, nested in each other) written natively from Flink rows:
 * the same Parquet schema and the same levels and values, column by column, as Iceberg's own
 * writer gives the same rows; the same {@link Metrics}; read back as written by Iceberg's Flink
 * reader and the native decoder; and a null where the schema says required fails naming the
 * field's path (the library's own check of nested levels is tested in rust-core).
 */
@ExtendWith(LeakCheckExtension.class)
class NativeParquetWriterNestedTest {
    /** A column nested three deep, added to every random schema so that each has one. */
    private static final Types.NestedField DEEP = Types.NestedField.optional(
            1000,
            "deep",
            Types.ListType.ofOptional(
                    1001,
                    Types.StructType.of(
                            Types.NestedField.required(1002, "a", Types.IntegerType.get()),
                            Types.NestedField.optional(
                                    1003,
                                    "b",
                                    Types.MapType.ofOptional(
                                            1004,
                                            1005,
                                            Types.StringType.get(),
                                            Types.ListType.ofRequired(1006, Types.LongType.get()))))));

    @TempDir
    Path dir;

    private final MemoryTracker tracker = MemoryTracker.root().child("NativeParquetWriterNestedTest");

    @AfterEach
    void closeTracker() {
        tracker.close();
    }

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {21, 22, 23, 24, 25, 26, 27, 28})
    void randomNestedSchemasWriteWhatIcebergsWriterWrites(long seed) throws IOException {
        List<Types.NestedField> columns =
                new ArrayList<>(RandomRecords.randomSchema(seed).columns());
        columns.add(DEEP);
        Schema schema = new Schema(columns);
        List<RowData> rows = FlinkRows.of(schema, new RandomRecords(seed, 0.2).records(schema, 2_000));
        Map<String, String> properties = new LinkedHashMap<>();
        properties.put("write.parquet.page-version", seed % 2 == 0 ? "v2" : "v1");
        properties.put("write.parquet.page-size-bytes", "2048");
        properties.put("write.parquet.row-group-size-bytes", "32768");
        if (seed % 3 == 0) {
            properties.put("write.parquet.dict-size-bytes", "256");
        }
        MetricsConfig metrics = MetricsConfig.fromProperties(
                seed % 4 == 1 ? Map.of("write.metadata.metrics.default", "full") : Map.of());

        Path stockFile = dir.resolve("stock-" + seed + ".parquet");
        FileAppender<RowData> stock = ParquetJava.stockWriter(stockFile, schema, properties, metrics);
        try (stock) {
            rows.forEach(stock::add);
        }
        Path nativeFile = dir.resolve("native-" + seed + ".parquet");
        NativeParquetWriter writer = NativeParquet.write(Files.localOutput(nativeFile.toFile()))
                .schema(schema)
                .setAll(properties)
                .metricsConfig(metrics)
                .batchSize(777)
                .memoryTracker(tracker)
                .build();
        try (writer) {
            rows.forEach(writer::add);
        }

        assertEquals(
                ParquetJava.footer(stockFile).getFileMetaData().getSchema(),
                ParquetJava.footer(nativeFile).getFileMetaData().getSchema(),
                "the Parquet schema");
        assertTrue(ParquetJava.footer(nativeFile).getBlocks().size() > 1, "several row groups");
        Map<String, List<String>> expectedLevels = ParquetJava.levels(stockFile);
        Map<String, List<String>> levels = ParquetJava.levels(nativeFile);
        assertEquals(expectedLevels.keySet(), levels.keySet(), "the leaf columns");
        expectedLevels.forEach((column, expected) -> assertEquals(expected, levels.get(column), column));
        List<String> deepest = levels.get("deep.list.element.b.key_value.value.list.element");
        assertTrue(deepest.stream().anyMatch(l -> l.startsWith("3/")), "values repeated three levels deep");
        assertTrue(deepest.stream().anyMatch(l -> l.endsWith("/-")), "and slots without one");

        RowType rowType = NativeParquetWriter.flinkType(schema);
        List<List<Object>> expected =
                rows.stream().map(r -> FlinkValues.row(r, rowType)).toList();
        assertEquals(expected, IcebergParquetFiles.readStock(nativeFile, schema), "Iceberg's Flink reader");
        assertEquals(
                expected,
                NativeParquetWriterReadBackTest.readNative(nativeFile, schema, tracker),
                "the native decoder");

        NativeParquetWriterMetricsTest.assertSameMetrics(schema, stock.metrics(), writer.metrics());
        assertFalse(writer.metrics().columnSizes().containsKey(1000), "a size only for leaves");
        assertTrue(writer.metrics().columnSizes().containsKey(1006), "a leaf inside lists and maps has its size");
        assertFalse(writer.metrics().valueCounts().containsKey(1006), "and nothing else, as in Iceberg's");
    }

    @Test
    void aNullElementOfARequiredListFailsNamingItsPath() {
        Schema schema = new Schema(
                Types.NestedField.required(1, "id", Types.LongType.get()),
                Types.NestedField.optional(2, "tags", Types.ListType.ofRequired(3, Types.StringType.get())));
        Path file = dir.resolve("bad-element.parquet");
        var e = assertThrows(IllegalArgumentException.class, () -> {
            try (NativeParquetWriter writer = NativeParquet.write(Files.localOutput(file.toFile()))
                    .schema(schema)
                    .memoryTracker(tracker)
                    .build()) {
                writer.add(GenericRowData.of(1L, new GenericArrayData(new Object[] {StringData.fromString("a")})));
                writer.add(
                        GenericRowData.of(2L, new GenericArrayData(new Object[] {StringData.fromString("b"), null})));
            }
        });
        assertTrue(
                e.getMessage().contains("row 1 of the batch: field 'tags.element' is NOT NULL but got a null"),
                e.getMessage());
        assertFalse(java.nio.file.Files.exists(file), "no file is left");
    }

    @Test
    void aNullMapKeyFailsNamingTheKey() {
        Schema schema = new Schema(Types.NestedField.optional(
                1, "attributes", Types.MapType.ofOptional(2, 3, Types.StringType.get(), Types.IntegerType.get())));
        Path file = dir.resolve("bad-key.parquet");
        Map<Object, Object> entries = new LinkedHashMap<>();
        entries.put(null, 7);
        var e = assertThrows(IllegalArgumentException.class, () -> {
            try (NativeParquetWriter writer = NativeParquet.write(Files.localOutput(file.toFile()))
                    .schema(schema)
                    .memoryTracker(tracker)
                    .build()) {
                writer.add(GenericRowData.of(new GenericMapData(entries)));
            }
        });
        assertTrue(
                e.getMessage().contains("field 'attributes.entries.key' is NOT NULL but got a null"), e.getMessage());
        assertFalse(java.nio.file.Files.exists(file), "no file is left");
    }
}
