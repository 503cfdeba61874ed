package dev.isthmus.iceberg.source.parquet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.isthmus.arrow.FlinkValues;
import dev.isthmus.arrow.LeakCheckExtension;
import dev.isthmus.arrow.memory.MemoryTracker;
import dev.isthmus.ffm.NativeException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.iceberg.Schema;
import org.apache.iceberg.parquet.ParquetSchemaUtil;
import org.apache.iceberg.types.Types;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.io.LocalInputFile;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.Type;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Parquet files written by other writers than Iceberg's parquet-java (DuckDB, arrow-rs, Spark,
 * Arrow C++; the files are under {@code src/test/resources/other-writers/<writer>}, the scripts
 * that wrote them and how under {@code ci/fixtures/other-writers}) must decode natively to
 * exactly the rows Iceberg's Flink reader reads from them. The projection is the file's own
 * schema as Iceberg sees it (by field id), derived from parquet-java's footer. Where Iceberg's
 * reader cannot read a file or column, the expected values come from the same rows in a form it
 * can read, or from the writer's own export; see {@link #expected}.
 */
@ExtendWith(LeakCheckExtension.class)
class OtherWritersDecodeTest {
    private final MemoryTracker tracker = MemoryTracker.root().child("OtherWritersDecodeTest");

    @AfterEach
    void closeTracker() {
        tracker.close();
    }

    static Path fixtures() {
        try {
            return Path.of(
                    OtherWritersDecodeTest.class.getResource("/other-writers").toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Every fixture, as {@code writer/file.parquet}, except the ones refused on purpose. */
    static Stream<String> files() throws IOException {
        Path root = fixtures();
        try (Stream<Path> walk = Files.walk(root)) {
            List<String> files = walk.filter(p -> p.toString().endsWith(".parquet"))
                    .map(p -> root.relativize(p).toString().replace('\\', '/'))
                    .filter(name -> !name.endsWith("unsigned.parquet"))
                    .sorted()
                    .toList();
            assertEquals(
                    java.util.Set.of("arrow-cpp", "arrow-rs", "duckdb", "spark"),
                    files.stream()
                            .map(name -> name.substring(0, name.indexOf('/')))
                            .collect(java.util.stream.Collectors.toSet()),
                    "a directory of fixtures per writer under " + root);
            return files.stream();
        }
    }

    /** Every fixture of unsigned integers, which Iceberg cannot hold faithfully. */
    static Stream<String> unsignedFiles() throws IOException {
        Path root = fixtures();
        try (Stream<Path> walk = Files.walk(root)) {
            return walk
                    .filter(p -> p.getFileName().toString().equals("unsigned.parquet"))
                    .map(p -> root.relativize(p).toString().replace('\\', '/'))
                    .sorted()
                    .toList()
                    .stream();
        }
    }

    static MessageType footerSchema(Path file) {
        try (ParquetFileReader reader = ParquetFileReader.open(new LocalInputFile(file))) {
            return reader.getFooter().getFileMetaData().getSchema();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * The file's schema as Iceberg reads it: parquet-java's footer, converted by field id.
     * Iceberg 1.11's {@code ParquetSchemaUtil} still maps TIMESTAMP(NANOS) to its microsecond
     * timestamp; such columns are projected as {@code timestamp_ns} (what a v3 table holds), which
     * both readers read exactly. (Projected as microseconds they are refused, see
     * {@link #nanosecondTimestampsAreNotTruncatedSilently}.)
     */
    static Schema icebergSchema(Path file) {
        MessageType type = footerSchema(file);
        Schema converted = ParquetSchemaUtil.convert(type);
        List<Types.NestedField> columns = new ArrayList<>();
        for (Types.NestedField column : converted.columns()) {
            columns.add(
                    isNanos(type.getType(column.name()))
                            ? Types.NestedField.of(
                                    column.fieldId(),
                                    column.isOptional(),
                                    column.name(),
                                    ((Types.TimestampType) column.type()).shouldAdjustToUTC()
                                            ? Types.TimestampNanoType.withZone()
                                            : Types.TimestampNanoType.withoutZone())
                            : column);
        }
        return new Schema(columns);
    }

    private static boolean isNanos(Type type) {
        return type.isPrimitive()
                && type.getLogicalTypeAnnotation() instanceof LogicalTypeAnnotation.TimestampLogicalTypeAnnotation ts
                && ts.getUnit() == LogicalTypeAnnotation.TimeUnit.NANOS;
    }

    /**
     * Columns Iceberg's Flink reader cannot read, each with a column of the same file holding
     * the same values as Flink sees them: arrow-rs's INT32 TIME(MILLIS) {@code time_ms} (the
     * Flink reader reads it as a long and fails) and {@code time_us}, the same times with
     * microseconds added (Flink's TIME is milliseconds of the day).
     */
    private static final Map<String, String> STAND_INS = Map.of("time_ms", "time_us");

    /**
     * Files Iceberg's reader cannot open, each with a file of the same writer written from the
     * same rows that it can: parquet-java has no Brotli codec ({@code BrotliCodec was not
     * found}), and Iceberg's Flink reader has no INT96 ({@code Unsupported type: optional int96});
     * Spark's INT96 files are compared with the same rows written as TIMESTAMP(MICROS).
     */
    private static final Map<String, String> SIBLINGS = Map.of(
            "duckdb/flat-brotli-v1.parquet", "duckdb/flat-zstd-v1.parquet",
            "arrow-rs/flat-brotli-v1.parquet", "arrow-rs/flat-zstd-v1.parquet",
            "spark/flat-snappy-int96-v1.parquet", "spark/flat-gzip-micros-v1.parquet",
            "spark/flat-uncompressed-int96-v1.parquet", "spark/flat-gzip-micros-v1.parquet");

    /**
     * Spark writes no field ids on list elements, map keys and values, so Iceberg's reader cannot
     * read its lists and maps ({@code element is not in the store}); their values come from the
     * JSON Spark exported from the same rows (a missing key is null).
     */
    private static final Map<String, String> WRITER_EXPORTS = Map.of(
            "spark/nested-snappy-v1.parquet", "spark/nested.json.gz",
            "spark/nested-zstd-legacy-v2.parquet", "spark/nested.json.gz");

    /** What Iceberg's Flink reader reads, with the stand-ins above where it cannot read a column. */
    static List<List<Object>> expected(String name, Schema schema) {
        Path file = fixtures().resolve(SIBLINGS.getOrDefault(name, name));
        MessageType footer = footerSchema(file);
        List<Types.NestedField> readable = new ArrayList<>();
        Map<Integer, Integer> standIn = new HashMap<>();
        List<Integer> exported = new ArrayList<>();
        for (Types.NestedField column : schema.columns()) {
            String other = STAND_INS.get(column.name());
            int at = schema.columns().indexOf(column);
            if (other != null && schema.findField(other) != null) {
                standIn.put(at, schema.columns().indexOf(schema.findField(other)));
            } else if (WRITER_EXPORTS.containsKey(name) && !everyFieldHasAnId(footer.getType(column.name()))) {
                exported.add(at);
            } else {
                readable.add(column);
            }
        }
        List<List<Object>> stock = IcebergParquetFiles.readStock(file, new Schema(readable));
        List<List<Object>> json = exported.isEmpty() ? null : writerExport(WRITER_EXPORTS.get(name), schema);
        List<List<Object>> rows = new ArrayList<>();
        for (int r = 0; r < stock.size(); r++) {
            List<Object> row = new ArrayList<>();
            for (int i = 0, next = 0; i < schema.columns().size(); i++) {
                row.add(
                        standIn.containsKey(i)
                                ? null
                                : exported.contains(i)
                                        ? json.get(r).get(i)
                                        : stock.get(r).get(next++));
            }
            standIn.forEach((at, from) -> row.set(at, row.get(from)));
            rows.add(row);
        }
        if (json != null) {
            assertEquals(json.size(), rows.size(), "rows in the writer's export");
        }
        return rows;
    }

    private static boolean everyFieldHasAnId(Type type) {
        if (type.isPrimitive()) {
            return type.getId() != null;
        }
        // The repeated groups of LIST and MAP never carry ids (Iceberg writes none either).
        boolean repeatedWrapper = type.isRepetition(Type.Repetition.REPEATED) && type.getId() == null;
        return (type.getId() != null || repeatedWrapper)
                && type.asGroupType().getFields().stream().allMatch(OtherWritersDecodeTest::everyFieldHasAnId);
    }

    /** The writer's JSON lines (gzipped) as rows of {@link FlinkValues}' plain values. */
    private static List<List<Object>> writerExport(String name, Schema schema) {
        List<List<Object>> rows = new ArrayList<>();
        try (var lines = new java.io.BufferedReader(new java.io.InputStreamReader(
                new java.util.zip.GZIPInputStream(
                        Files.newInputStream(fixtures().resolve(name))),
                java.nio.charset.StandardCharsets.UTF_8))) {
            for (String line = lines.readLine(); line != null; line = lines.readLine()) {
                com.fasterxml.jackson.databind.JsonNode json =
                        org.apache.iceberg.util.JsonUtil.mapper().readTree(line);
                List<Object> row = new ArrayList<>();
                for (Types.NestedField column : schema.columns()) {
                    row.add(plain(json.get(column.name()), column.type()));
                }
                rows.add(row);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return rows;
    }

    /** A JSON value as {@link FlinkValues#plain} gives the same value read from a file. */
    private static Object plain(com.fasterxml.jackson.databind.JsonNode json, org.apache.iceberg.types.Type type) {
        if (json == null || json.isNull()) {
            return null;
        }
        return switch (type.typeId()) {
            case INTEGER -> json.intValue();
            case LONG -> json.longValue();
            case STRING -> json.textValue();
            case DOUBLE -> "d" + Long.toHexString(Double.doubleToRawLongBits(json.doubleValue()));
            case LIST -> {
                List<Object> values = new ArrayList<>();
                json.forEach(e -> values.add(plain(e, type.asListType().elementType())));
                yield values;
            }
            case MAP -> {
                Map<Object, Object> values = new java.util.LinkedHashMap<>();
                json.properties()
                        .forEach(e -> values.put(
                                e.getKey(), plain(e.getValue(), type.asMapType().valueType())));
                yield values;
            }
            case STRUCT -> {
                List<Object> values = new ArrayList<>();
                type.asStructType().fields().forEach(f -> values.add(plain(json.get(f.name()), f.type())));
                yield values;
            }
            default -> throw new IllegalArgumentException("no JSON conversion for " + type);
        };
    }

    private List<List<Object>> readNative(Path path, ScanOptions options) {
        return readNative(path, options, false);
    }

    private List<List<Object>> readNative(Path path, ScanOptions options, boolean throughFileIo) {
        return NativeRows.read(path, options, throughFileIo, tracker);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("files")
    void decodesAsIcebergsReaderReadsIt(String name) {
        Path file = fixtures().resolve(name);
        Schema schema = icebergSchema(file);
        if (SIBLINGS.containsKey(name)) {
            assertEquals(
                    schema.asStruct(),
                    icebergSchema(fixtures().resolve(SIBLINGS.get(name))).asStruct(),
                    "the sibling has the same schema");
        }
        List<List<Object>> expected = expected(name, schema);
        assertFalse(expected.isEmpty(), name + " has rows");

        List<List<Object>> actual = readNative(file, ScanOptions.of(schema).withBatchSize(700));
        assertEquals(expected.size(), actual.size(), "rows");
        for (int i = 0; i < expected.size(); i++) {
            assertEquals(expected.get(i), actual.get(i), name + ": row " + i + " of " + schema);
        }
        assertEquals(
                expected,
                readNative(file, ScanOptions.of(schema).withDictionaries(true).withBatchSize(333), true),
                "through FileIO, dictionary arrays kept");
    }

    /** Unsigned integers: Iceberg would read them as int or long; the decoder refuses them up front. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("unsignedFiles")
    void unsignedIntegersAreRefusedUpFront(String name) {
        Path file = fixtures().resolve(name);
        int checked = 0;
        for (Type column : footerSchema(file).getFields()) {
            if (!(column.getLogicalTypeAnnotation() instanceof LogicalTypeAnnotation.IntLogicalTypeAnnotation integer)
                    || integer.isSigned()) {
                continue;
            }
            var type = integer.getBitWidth() < 32 ? Types.IntegerType.get() : Types.LongType.get();
            Schema projection =
                    new Schema(Types.NestedField.optional(column.getId().intValue(), column.getName(), type));
            var e = assertThrows(
                    NativeException.Unsupported.class,
                    () -> readNative(file, ScanOptions.of(projection)),
                    column.getName());
            assertTrue(
                    e.getMessage().contains("unsigned.parquet")
                            && e.getMessage().contains("cannot be read as"),
                    e.getMessage());
            checked++;
        }
        assertEquals(4, checked, "8, 16, 32 and 64 bits");
    }

    /** TIMESTAMP(NANOS) projected as Iceberg's microsecond timestamp is refused, not truncated. */
    @org.junit.jupiter.api.Test
    void nanosecondTimestampsAreNotTruncatedSilently() {
        Path file = fixtures().resolve("duckdb/flat-zstd-v1.parquet");
        Schema converted = ParquetSchemaUtil.convert(footerSchema(file));
        Types.NestedField nanos = converted.findField("ts_ns");
        assertEquals(Types.TimestampType.withoutZone(), nanos.type(), "Iceberg 1.11's mapping");
        var e = assertThrows(
                NativeException.Unsupported.class, () -> readNative(file, ScanOptions.of(new Schema(nanos))));
        assertTrue(e.getMessage().contains("'tsn:' cannot be read as 'tsu:'"), e.getMessage());
    }
}
