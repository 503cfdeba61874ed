package dev.isthmus.iceberg.sink.parquet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.isthmus.arrow.FlinkValues;
import dev.isthmus.arrow.LeakCheckExtension;
import dev.isthmus.arrow.flink.vector.ArrowColumnarBatch;
import dev.isthmus.arrow.flink.vector.ArrowRowData;
import dev.isthmus.arrow.memory.MemoryTracker;
import dev.isthmus.iceberg.source.parquet.IcebergParquetFiles;
import dev.isthmus.iceberg.source.parquet.NativeParquetFile;
import dev.isthmus.iceberg.source.parquet.NativeParquetScan;
import dev.isthmus.iceberg.source.parquet.RandomRecords;
import dev.isthmus.iceberg.source.parquet.ScanOptions;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.types.logical.RowType;
import org.apache.iceberg.Files;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Files the native writer makes from Flink rows read back to exactly those rows with Iceberg's
 * Flink reader, parquet-java's own record reader (page checksums verified) and the native decoder,
 * for every flat type, codec and page version.
 */
@ExtendWith(LeakCheckExtension.class)
class NativeParquetWriterReadBackTest {
    @TempDir
    Path dir;

    private final MemoryTracker tracker = MemoryTracker.root().child("NativeParquetWriterReadBackTest");

    @AfterEach
    void closeTracker() {
        tracker.close();
    }

    static Stream<Arguments> settings() {
        List<Arguments> all = new ArrayList<>();
        for (String codec : List.of("zstd", "snappy", "gzip", "lz4", "uncompressed")) {
            for (String pages : List.of("v1", "v2")) {
                all.add(Arguments.of(codec, pages));
            }
        }
        return all.stream();
    }

    private Path writeNative(
            String name, Schema schema, List<RowData> rows, Map<String, String> properties, int batchSize)
            throws IOException {
        Path file = dir.resolve(name + ".parquet");
        try (NativeParquetWriter writer = NativeParquet.write(Files.localOutput(file.toFile()))
                .schema(schema)
                .setAll(properties)
                .batchSize(batchSize)
                .memoryTracker(tracker)
                .build()) {
            for (RowData row : rows) {
                writer.add(row);
            }
        }
        return file;
    }

    private void assertReadsBack(Path file, Schema schema, List<RowData> rows) {
        RowType rowType = NativeParquetWriter.flinkType(schema);
        List<List<Object>> expected =
                rows.stream().map(r -> FlinkValues.row(r, rowType)).toList();
        assertEquals(expected, IcebergParquetFiles.readStock(file, schema), "Iceberg's Flink reader");
        assertEquals(ParquetJava.expected(rows, schema), ParquetJava.read(file, schema), "parquet-java's reader");
        assertEquals(expected, readNative(file, schema, tracker), "the native decoder");
    }

    /** Every row as the native decoder reads it, through the columnar rows the source emits. */
    static List<List<Object>> readNative(Path file, Schema schema, MemoryTracker tracker) {
        RowType rowType = NativeParquetWriter.flinkType(schema);
        List<List<Object>> rows = new ArrayList<>();
        try (NativeParquetFile parquet = NativeParquetFile.open(Files.localInput(file.toFile()));
                NativeParquetScan scan = parquet.scan(ScanOptions.of(schema).withBatchSize(999), tracker)) {
            while (scan.hasNext()) {
                try (ArrowColumnarBatch batch = scan.next()) {
                    ArrowRowData row = batch.row(0);
                    for (int i = 0; i < batch.numRows(); i++) {
                        row.setRowId(i);
                        rows.add(FlinkValues.row(row, rowType));
                    }
                }
            }
        }
        return rows;
    }

    @ParameterizedTest(name = "{0}, {1} pages")
    @MethodSource("settings")
    void everyTypeReadsBackAsWritten(String codec, String pageVersion) throws IOException {
        Schema schema = RandomRecords.EVERY_TYPE;
        List<Record> records = new RandomRecords((codec + pageVersion).hashCode(), 0.15).records(schema, 5_000);
        List<RowData> rows = FlinkRows.of(schema, records);
        // Small pages and row groups, so that a file has several of each.
        Path file = writeNative(
                codec + "-" + pageVersion,
                schema,
                rows,
                Map.of(
                        "write.parquet.compression-codec",
                        codec,
                        "write.parquet.page-version",
                        pageVersion,
                        "write.parquet.page-size-bytes",
                        "4096",
                        "write.parquet.row-group-size-bytes",
                        "65536"),
                1000);
        assertTrue(ParquetJava.footer(file).getBlocks().size() > 1, "several row groups");
        assertReadsBack(file, schema, rows);
    }

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {11, 12, 13, 14, 15, 16})
    void randomSchemasReadBackAsWritten(long seed) throws IOException {
        Schema schema = FlinkRows.flat(RandomRecords.randomSchema(seed));
        if (schema.columns().isEmpty()) {
            schema = new Schema(Types.NestedField.optional(1, "only", Types.StringType.get()));
        }
        List<RowData> rows = FlinkRows.of(schema, new RandomRecords(seed, 0.3).records(schema, 2_000));
        Map<String, String> properties = seed % 2 == 0
                ? Map.of("write.parquet.page-version", "v2")
                : Map.of("write.parquet.dict-size-bytes", "512", "write.parquet.row-group-size-bytes", "16384");
        // A batch size that does not divide the row count: the last batch is partial.
        Path file = writeNative("random-" + seed, schema, rows, properties, 333);
        assertReadsBack(file, schema, rows);
    }

    @Test
    void columnarRowsFromTheDecoderWriteTheSameFile() throws IOException {
        Schema schema = RandomRecords.EVERY_TYPE;
        List<RowData> rows = FlinkRows.of(schema, new RandomRecords(77, 0.2).records(schema, 4_000));
        Map<String, String> properties = Map.of("write.parquet.row-group-size-bytes", "65536");
        Path original = writeNative("original", schema, rows, properties, 1000);
        Path copy = dir.resolve("copy.parquet");
        // Rows as the native source hands them to Flink: ArrowRowData over Arrow vectors.
        try (NativeParquetWriter writer = NativeParquet.write(Files.localOutput(copy.toFile()))
                        .schema(schema)
                        .setAll(properties)
                        .memoryTracker(tracker)
                        .build();
                NativeParquetFile parquet = NativeParquetFile.open(original);
                NativeParquetScan scan = parquet.scan(ScanOptions.of(schema).withBatchSize(700), tracker)) {
            while (scan.hasNext()) {
                try (ArrowColumnarBatch batch = scan.next()) {
                    ArrowRowData row = batch.row(0);
                    for (int i = 0; i < batch.numRows(); i++) {
                        row.setRowId(i);
                        writer.add(row);
                    }
                }
            }
        }
        org.junit.jupiter.api.Assertions.assertArrayEquals(
                java.nio.file.Files.readAllBytes(original), java.nio.file.Files.readAllBytes(copy));
    }

    @Test
    void extremeValuesAndAllNullColumnsReadBack() throws IOException {
        Schema schema = new Schema(
                Types.NestedField.required(1, "i32", Types.IntegerType.get()),
                Types.NestedField.required(2, "i64", Types.LongType.get()),
                Types.NestedField.optional(3, "f64", Types.DoubleType.get()),
                Types.NestedField.optional(4, "f32", Types.FloatType.get()),
                Types.NestedField.optional(5, "dec38", Types.DecimalType.of(38, 0)),
                Types.NestedField.optional(6, "ts", Types.TimestampType.withoutZone()),
                Types.NestedField.optional(7, "str", Types.StringType.get()),
                Types.NestedField.optional(8, "always_null", Types.LongType.get()));
        List<RowData> rows = new ArrayList<>();
        Object[][] extremes = {
            {
                Integer.MIN_VALUE,
                Long.MIN_VALUE,
                Double.NEGATIVE_INFINITY,
                Float.NaN,
                FlinkRows.value(Types.DecimalType.of(38, 0), new java.math.BigDecimal("-" + "9".repeat(38))),
                TimestampData.fromEpochMillis(Long.MIN_VALUE / 1_000 + 1),
                StringData.fromString(""),
                null
            },
            {
                Integer.MAX_VALUE,
                Long.MAX_VALUE,
                Double.MAX_VALUE,
                -0.0f,
                FlinkRows.value(Types.DecimalType.of(38, 0), new java.math.BigDecimal("9".repeat(38))),
                TimestampData.fromEpochMillis(Long.MAX_VALUE / 1_000 - 1),
                StringData.fromString("\u0000😀\uFFFF"),
                null
            },
            {0, 0L, Double.NaN, Float.MIN_VALUE, null, null, null, null},
        };
        for (int i = 0; i < 300; i++) {
            rows.add(GenericRowData.of(extremes[i % extremes.length]));
        }
        Path file = writeNative("extremes", schema, rows, new HashMap<>(), 128);
        assertReadsBack(file, schema, rows);
    }
}
