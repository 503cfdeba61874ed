package dev.isthmus.iceberg.sink.parquet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.isthmus.arrow.LeakCheckExtension;
import dev.isthmus.iceberg.source.parquet.RandomRecords;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.iceberg.Files;
import org.apache.iceberg.Metrics;
import org.apache.iceberg.MetricsConfig;
import org.apache.iceberg.Schema;
import org.apache.iceberg.io.FileAppender;
import org.apache.iceberg.types.Conversions;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The native writer's {@link Metrics} equal those of Iceberg's own Parquet writer (with
 * {@code FlinkParquetWriters}, as Iceberg's Flink sink writes) on the same rows, under every
 * metrics mode; only column sizes may differ, as the files differ slightly.
 */
@ExtendWith(LeakCheckExtension.class)
class NativeParquetWriterMetricsTest {
    @TempDir
    Path dir;

    static Stream<Arguments> modes() {
        return Stream.of(
                Arguments.of("default truncate(16)", Map.of()),
                Arguments.of("none", Map.of("write.metadata.metrics.default", "none")),
                Arguments.of("counts", Map.of("write.metadata.metrics.default", "counts")),
                Arguments.of("full", Map.of("write.metadata.metrics.default", "full")),
                Arguments.of("truncate(3)", Map.of("write.metadata.metrics.default", "truncate(3)")),
                Arguments.of(
                        "per column",
                        Map.of(
                                "write.metadata.metrics.default", "none",
                                "write.metadata.metrics.column.str", "truncate(2)",
                                "write.metadata.metrics.column.bin", "full",
                                "write.metadata.metrics.column.f64", "counts",
                                "write.metadata.metrics.column.f32", "full",
                                "write.metadata.metrics.column.dec38", "truncate(1)",
                                "write.metadata.metrics.column.uuid", "truncate(4)",
                                "write.metadata.metrics.column.i64", "counts")));
    }

    private Metrics writeNative(
            Path file, Schema schema, List<RowData> rows, Map<String, String> properties, MetricsConfig config)
            throws IOException {
        NativeParquetWriter writer = NativeParquet.write(Files.localOutput(file.toFile()))
                .schema(schema)
                .setAll(properties)
                .metricsConfig(config)
                .build();
        try (writer) {
            rows.forEach(writer::add);
        }
        return writer.metrics();
    }

    private Metrics writeStock(
            Path file, Schema schema, List<RowData> rows, Map<String, String> properties, MetricsConfig config)
            throws IOException {
        FileAppender<RowData> writer = ParquetJava.stockWriter(file, schema, properties, config);
        try (writer) {
            rows.forEach(writer::add);
        }
        return writer.metrics();
    }

    /** Bounds as readable values, so a failure shows which column and what differs. */
    private static Map<Integer, Object> readable(Schema schema, Map<Integer, ByteBuffer> bounds) {
        Map<Integer, Object> values = new TreeMap<>();
        bounds.forEach((id, bytes) -> {
            Object value = Conversions.fromByteBuffer(schema.findType(id), bytes.duplicate());
            values.put(id, value instanceof ByteBuffer b ? b.duplicate() : String.valueOf(value));
        });
        return values;
    }

    static void assertSameMetrics(Schema schema, Metrics expected, Metrics actual) {
        assertEquals(expected.recordCount(), actual.recordCount(), "record count");
        assertEquals(expected.columnSizes().keySet(), actual.columnSizes().keySet(), "columns with a size");
        actual.columnSizes().forEach((id, size) -> assertTrue(size > 0, "column " + id + " size " + size));
        assertEquals(new TreeMap<>(expected.valueCounts()), new TreeMap<>(actual.valueCounts()), "value counts");
        assertEquals(new TreeMap<>(expected.nullValueCounts()), new TreeMap<>(actual.nullValueCounts()), "null counts");
        assertEquals(new TreeMap<>(expected.nanValueCounts()), new TreeMap<>(actual.nanValueCounts()), "NaN counts");
        assertEquals(readable(schema, expected.lowerBounds()), readable(schema, actual.lowerBounds()), "lower bounds");
        assertEquals(readable(schema, expected.upperBounds()), readable(schema, actual.upperBounds()), "upper bounds");
        assertEquals(new TreeMap<>(expected.lowerBounds()), new TreeMap<>(actual.lowerBounds()), "lower bound bytes");
        assertEquals(new TreeMap<>(expected.upperBounds()), new TreeMap<>(actual.upperBounds()), "upper bound bytes");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("modes")
    void metricsEqualIcebergsWriter(String name, Map<String, String> metricsProperties) throws IOException {
        Schema schema = RandomRecords.EVERY_TYPE;
        List<RowData> rows = FlinkRows.of(schema, new RandomRecords(name.hashCode(), 0.2).records(schema, 3_000));
        MetricsConfig config = MetricsConfig.fromProperties(metricsProperties);
        Map<String, String> properties = Map.of("write.parquet.row-group-size-bytes", "32768");
        Metrics stock = writeStock(dir.resolve("stock.parquet"), schema, rows, properties, config);
        Metrics actual = writeNative(dir.resolve("native.parquet"), schema, rows, properties, config);
        assertSameMetrics(schema, stock, actual);
        if (!name.equals("none")) {
            assertFalse(actual.valueCounts().isEmpty(), "the mode keeps some metrics");
        }
        if (!name.equals("none") && !name.equals("counts")) {
            assertFalse(actual.lowerBounds().isEmpty(), "the mode keeps some bounds");
        }
    }

    @Test
    void columnsWithStatisticsDisabledHaveTheMetricsIcebergsWriterGives() throws IOException {
        Schema schema = RandomRecords.EVERY_TYPE;
        List<RowData> rows = FlinkRows.of(schema, new RandomRecords(31, 0.2).records(schema, 2_000));
        // Iceberg takes float and double bounds from its value writers even then; the library too.
        Map<String, String> properties = Map.of(
                "write.parquet.stats-enabled.column.str",
                "false",
                "write.parquet.stats-enabled.column.i32",
                "false",
                "write.parquet.stats-enabled.column.dec38",
                "false",
                "write.parquet.stats-enabled.column.f32",
                "false",
                "write.parquet.stats-enabled.column.f64",
                "false");
        MetricsConfig config = MetricsConfig.fromProperties(Map.of("write.metadata.metrics.default", "full"));
        Metrics stock = writeStock(dir.resolve("stock.parquet"), schema, rows, properties, config);
        Metrics actual = writeNative(dir.resolve("native.parquet"), schema, rows, properties, config);
        assertSameMetrics(schema, stock, actual);
        assertFalse(actual.valueCounts().containsKey(15), "no counts for a column without statistics");
        assertTrue(actual.columnSizes().containsKey(15), "but its size");
    }

    @Test
    void longStringsAndBinariesAreTruncatedAsIcebergTruncatesThem() throws IOException {
        Schema schema = new Schema(
                Types.NestedField.optional(1, "str", Types.StringType.get()),
                Types.NestedField.optional(2, "bin", Types.BinaryType.get()),
                Types.NestedField.optional(3, "fixed", Types.FixedType.ofLength(20)),
                Types.NestedField.optional(4, "only_null", Types.StringType.get()),
                Types.NestedField.optional(5, "f64", Types.DoubleType.get()));
        byte[] ff = new byte[20];
        java.util.Arrays.fill(ff, (byte) 0xFF);
        List<RowData> rows = new ArrayList<>();
        // Upper bounds that cannot be incremented (all 0xFF, U+10FFFF) are dropped by Iceberg.
        rows.add(GenericRowData.of(
                StringData.fromString("a".repeat(40)), new byte[] {1, 2}, new byte[20], null, Double.NaN));
        rows.add(GenericRowData.of(StringData.fromString("\uDBFF\uDFFF".repeat(20)), ff, ff, null, Double.NaN));
        rows.add(GenericRowData.of(StringData.fromString("日本語テキスト".repeat(5)), new byte[] {}, ff, null, null));
        for (String mode : List.of("truncate(16)", "truncate(1)", "full", "counts")) {
            MetricsConfig config = MetricsConfig.fromProperties(Map.of("write.metadata.metrics.default", mode));
            Metrics stock =
                    writeStock(dir.resolve("stock-" + mode + ".parquet"), schema, rows, new HashMap<>(), config);
            Metrics actual =
                    writeNative(dir.resolve("native-" + mode + ".parquet"), schema, rows, new HashMap<>(), config);
            assertSameMetrics(schema, stock, actual);
        }
    }

    @Test
    void aWriterWithoutRowsLeavesNoFileAndIcebergsEmptyMetrics() throws IOException {
        Schema schema = RandomRecords.EVERY_TYPE;
        MetricsConfig config = MetricsConfig.getDefault();
        Path stockFile = dir.resolve("stock.parquet");
        Path nativeFile = dir.resolve("native.parquet");
        Metrics stock = writeStock(stockFile, schema, List.of(), new HashMap<>(), config);
        NativeParquetWriter writer = NativeParquet.write(Files.localOutput(nativeFile.toFile()))
                .schema(schema)
                .build();
        writer.close();
        assertFalse(java.nio.file.Files.exists(stockFile), "Iceberg's writer creates no file for no rows");
        assertFalse(java.nio.file.Files.exists(nativeFile), "nor does the native one");
        assertEquals(0L, writer.length());
        assertEquals(stock.recordCount(), writer.metrics().recordCount());
        assertEquals(stock.columnSizes(), writer.metrics().columnSizes());
        assertEquals(stock.valueCounts(), writer.metrics().valueCounts());
        assertEquals(stock.lowerBounds(), writer.metrics().lowerBounds());
    }
}
