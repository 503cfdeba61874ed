import java.io.IOException;
import java.io.OutputStream;
import java.io.Writer;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.UUID;
import java.util.zip.GZIPOutputStream;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetWriter;
import org.apache.iceberg.io.FileAppender;
import org.apache.iceberg.parquet.Parquet;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * Writes the Parquet fixtures of rust-core/core/src/tests/parquet_fixtures.rs with Iceberg's own
 * writer (Iceberg 1.11, parquet-java 1.17, from the shaded benchmarks jar), and next to them the
 * values written, as the canonical text of rust-core/core/src/test_support/parquet/render.rs
 * (gzipped):
 * one line per row, one tab-separated token per top-level field:
 *
 * <ul>
 *   <li>{@code null}; booleans {@code true}/{@code false};
 *   <li>integers, dates (epoch days), times (micros of the day), timestamps (micros or nanos
 *       since the epoch) and decimals (the unscaled integer) in decimal;
 *   <li>floats and doubles as the hex digits of their IEEE bits (8 or 16, lower case);
 *   <li>strings (UTF-8), binaries, fixed and UUIDs (big-endian) as the hex digits of their bytes;
 *   <li>structs {@code {a,b}}, lists {@code [x,y]}, maps as lists of {@code {key,value}}.
 * </ul>
 *
 * <p>The files of one schema hold the same rows (same seed) written with different table
 * properties, so they share one expected file. Run from the repository root, after
 * {@code mvn -Pbench -pl jmh -am package -DskipTests}:
 *
 * <pre>java -cp jmh/target/benchmarks.jar rust-core/tests/data/GenerateFixtures.java</pre>
 */
public class GenerateFixtures {
    static final Path DIR = Path.of("rust-core/tests/data/iceberg");
    static final int ROWS = 1000;
    static final int NESTED_ROWS = 400;

    static final Schema TYPES = new Schema(
            Types.NestedField.optional(1, "bool", Types.BooleanType.get()),
            Types.NestedField.optional(2, "i32", Types.IntegerType.get()),
            Types.NestedField.required(3, "i64", Types.LongType.get()),
            Types.NestedField.optional(4, "f32", Types.FloatType.get()),
            Types.NestedField.optional(5, "f64", Types.DoubleType.get()),
            Types.NestedField.optional(6, "dec9", Types.DecimalType.of(9, 2)),
            Types.NestedField.optional(7, "dec18", Types.DecimalType.of(18, 6)),
            Types.NestedField.optional(8, "dec38", Types.DecimalType.of(38, 10)),
            Types.NestedField.optional(9, "date", Types.DateType.get()),
            Types.NestedField.optional(10, "time", Types.TimeType.get()),
            Types.NestedField.optional(11, "ts", Types.TimestampType.withoutZone()),
            Types.NestedField.optional(12, "tstz", Types.TimestampType.withZone()),
            Types.NestedField.optional(13, "ts_ns", Types.TimestampNanoType.withoutZone()),
            Types.NestedField.optional(14, "tstz_ns", Types.TimestampNanoType.withZone()),
            Types.NestedField.optional(15, "str", Types.StringType.get()),
            Types.NestedField.required(16, "str_req", Types.StringType.get()),
            Types.NestedField.optional(17, "uuid", Types.UUIDType.get()),
            Types.NestedField.optional(18, "fixed", Types.FixedType.ofLength(7)),
            Types.NestedField.optional(19, "bin", Types.BinaryType.get()),
            Types.NestedField.optional(20, "channel", Types.StringType.get()));

    static final Schema NESTED = new Schema(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.optional(2, "point", Types.StructType.of(
                    Types.NestedField.optional(3, "x", Types.DoubleType.get()),
                    Types.NestedField.required(4, "y", Types.DoubleType.get()),
                    Types.NestedField.optional(5, "label", Types.StringType.get()))),
            Types.NestedField.optional(6, "tags", Types.ListType.ofOptional(7, Types.StringType.get())),
            Types.NestedField.required(8, "scores", Types.ListType.ofRequired(9, Types.IntegerType.get())),
            Types.NestedField.optional(10, "attrs",
                    Types.MapType.ofOptional(11, 12, Types.StringType.get(), Types.LongType.get())),
            Types.NestedField.optional(13, "events", Types.ListType.ofOptional(14, Types.StructType.of(
                    Types.NestedField.required(15, "kind", Types.StringType.get()),
                    Types.NestedField.optional(16, "at", Types.TimestampType.withZone()),
                    Types.NestedField.optional(17, "values",
                            Types.ListType.ofOptional(18, Types.DoubleType.get()))))),
            Types.NestedField.optional(19, "matrix",
                    Types.ListType.ofOptional(20, Types.ListType.ofOptional(21, Types.LongType.get()))),
            Types.NestedField.optional(22, "lookup", Types.MapType.ofRequired(23, 24, Types.IntegerType.get(),
                    Types.StructType.of(
                            Types.NestedField.optional(25, "a", Types.IntegerType.get()),
                            Types.NestedField.optional(26, "b", Types.BinaryType.get())))));

    /** Small pages and row groups, so a 1000-row file has many of both. */
    static Map<String, String> small(String... more) {
        Map<String, String> p = new LinkedHashMap<>();
        p.put("write.parquet.page-size-bytes", "2048");
        p.put("write.parquet.page-row-limit", "150");
        p.put("write.parquet.row-group-size-bytes", "32768");
        p.put("write.parquet.row-group-check-min-record-count", "10");
        p.put("write.parquet.row-group-check-max-record-count", "50");
        for (int i = 0; i < more.length; i += 2) {
            p.put(more[i], more[i + 1]);
        }
        return p;
    }

    public static void main(String[] args) throws IOException {
        Files.createDirectories(DIR);
        List<Record> types = records(TYPES, 20260401L, ROWS);
        expected("types", TYPES, types);
        write("types-v1-zstd", TYPES, types, small("write.parquet.compression-codec", "zstd"));
        write("types-v2-snappy", TYPES, types, small(
                "write.parquet.page-version", "v2", "write.parquet.compression-codec", "snappy"));
        write("types-v1-gzip-nodict", TYPES, types, small(
                "write.parquet.compression-codec", "gzip", "parquet.enable.dictionary", "false"));
        write("types-v2-uncompressed-dictfallback", TYPES, types, small(
                "write.parquet.page-version", "v2", "write.parquet.compression-codec", "uncompressed",
                "write.parquet.dict-size-bytes", "1500"));
        write("types-v1-lz4", TYPES, types, small("write.parquet.compression-codec", "lz4"));
        write("types-v1-defaults", TYPES, types, Map.of("write.parquet.compression-codec", "zstd"));
        List<Record> nested = records(NESTED, 20260402L, NESTED_ROWS);
        expected("nested", NESTED, nested);
        write("nested-v1-zstd", NESTED, nested, small("write.parquet.compression-codec", "zstd"));
        write("nested-v2-snappy", NESTED, nested, small(
                "write.parquet.page-version", "v2", "write.parquet.compression-codec", "snappy"));
    }

    static void write(String name, Schema schema, List<Record> records, Map<String, String> properties) {
        Path file = DIR.resolve(name + ".parquet");
        Parquet.WriteBuilder builder = Parquet.write(org.apache.iceberg.Files.localOutput(file.toFile()))
                .schema(schema)
                .createWriterFunc(GenericParquetWriter::create)
                .overwrite();
        properties.forEach(builder::set);
        try (FileAppender<Record> appender = builder.build()) {
            appender.addAll(records);
        } catch (IOException | RuntimeException e) {
            // LZ4 needs Hadoop's native codec, which a plain JVM may lack.
            System.err.println("skipped " + name + ": " + e);
            try {
                Files.deleteIfExists(file);
            } catch (IOException ignored) {
                // Nothing was written.
            }
            return;
        }
        System.out.println("wrote " + file + " (" + file.toFile().length() + " bytes)");
    }

    static void expected(String name, Schema schema, List<Record> records) throws IOException {
        Path file = DIR.resolve(name + ".expected.gz");
        try (OutputStream out = new GZIPOutputStream(Files.newOutputStream(file));
                Writer text = new java.io.OutputStreamWriter(out, StandardCharsets.UTF_8)) {
            for (Record record : records) {
                List<String> tokens = new ArrayList<>();
                for (int i = 0; i < schema.columns().size(); i++) {
                    tokens.add(render(record.get(i), schema.columns().get(i).type()));
                }
                text.write(String.join("\t", tokens));
                text.write('\n');
            }
        }
        System.out.println("wrote " + file);
    }

    // ------------------------------------------------------------------ values

    static List<Record> records(Schema schema, long seed, int rows) {
        SplittableRandom random = new SplittableRandom(seed);
        List<Record> out = new ArrayList<>();
        for (int row = 0; row < rows; row++) {
            out.add((Record) value(schema.asStruct(), false, random, row, 0));
        }
        return out;
    }

    static Object value(Type type, boolean optional, SplittableRandom r, int row, int depth) {
        // Nulls in runs as well as scattered; none where the schema forbids them.
        if (optional && ((row / 50) % 7 == 3 || r.nextInt(6) == 0)) {
            return null;
        }
        boolean edge = r.nextInt(8) == 0;
        switch (type.typeId()) {
            case STRUCT: {
                Types.StructType struct = type.asStructType();
                GenericRecord record = GenericRecord.create(struct);
                for (int i = 0; i < struct.fields().size(); i++) {
                    Types.NestedField f = struct.fields().get(i);
                    record.set(i, value(f.type(), f.isOptional(), r, row, depth + 1));
                }
                return record;
            }
            case LIST: {
                Types.ListType list = type.asListType();
                // Now and then a long list, at the top only (nested ones multiply).
                int n = r.nextInt(5) == 0 ? 0 : r.nextInt(row % 97 == 0 && depth <= 1 ? 300 : 5);
                List<Object> items = new ArrayList<>();
                for (int i = 0; i < n; i++) {
                    items.add(value(list.elementType(), list.isElementOptional(), r, row, depth + 1));
                }
                return items;
            }
            case MAP: {
                Types.MapType map = type.asMapType();
                int n = r.nextInt(5) == 0 ? 0 : r.nextInt(5);
                Map<Object, Object> entries = new LinkedHashMap<>();
                for (int i = 0; i < n; i++) {
                    Object key = map.keyType().typeId() == Type.TypeID.STRING ? "k" + i + "-" + r.nextInt(9) : i * 7 - 3;
                    entries.put(key, value(map.valueType(), map.isValueOptional(), r, row, depth + 1));
                }
                return entries;
            }
            case BOOLEAN:
                return r.nextBoolean();
            case INTEGER:
                return edge ? pick(r, Integer.MIN_VALUE, Integer.MAX_VALUE, 0, -1) : r.nextInt();
            case LONG:
                return edge ? pick(r, Long.MIN_VALUE, Long.MAX_VALUE, 0L, -1L) : r.nextLong();
            case FLOAT:
                return edge
                        ? pick(r, Float.NaN, -0.0f, Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY, Float.MIN_VALUE, Float.MAX_VALUE)
                        : (float) (r.nextGaussian() * 1e6);
            case DOUBLE:
                return edge
                        ? pick(r, Double.NaN, -0.0, Double.POSITIVE_INFINITY, Double.MIN_VALUE, -Double.MAX_VALUE)
                        : r.nextGaussian() * 1e12;
            case DECIMAL: {
                Types.DecimalType d = (Types.DecimalType) type;
                BigInteger max = BigInteger.TEN.pow(d.precision()).subtract(BigInteger.ONE);
                BigInteger unscaled = edge
                        ? (r.nextBoolean() ? max : max.negate())
                        : new BigInteger(d.precision() * 3, new java.util.Random(r.nextLong())).mod(max)
                                .multiply(BigInteger.valueOf(r.nextBoolean() ? 1 : -1));
                return new BigDecimal(unscaled, d.scale());
            }
            case DATE:
                return edge
                        ? pick(r, LocalDate.of(1, 1, 1), LocalDate.of(9999, 12, 31), LocalDate.EPOCH, LocalDate.of(1969, 12, 31))
                        : LocalDate.ofEpochDay(r.nextInt(-40000, 40000));
            case TIME:
                return edge
                        ? pick(r, LocalTime.MIDNIGHT, LocalTime.of(23, 59, 59, 999_999_000))
                        : LocalTime.ofNanoOfDay(r.nextLong(86_400_000_000L) * 1000);
            case TIMESTAMP: {
                boolean zoned = ((Types.TimestampType) type).shouldAdjustToUTC();
                LocalDateTime t = edge
                        ? pick(r, LocalDateTime.of(1, 1, 1, 0, 0), LocalDateTime.of(9999, 12, 31, 23, 59, 59, 999_999_000),
                                LocalDateTime.of(1969, 12, 31, 23, 59, 59, 999_999_000))
                        : LocalDateTime.of(2026, 1, 1, 0, 0).plusNanos(r.nextLong(-2_000_000_000_000_000L, 2_000_000_000_000_000L) / 1000 * 1000);
                return zoned ? t.atOffset(ZoneOffset.UTC) : t;
            }
            case TIMESTAMP_NANO: {
                boolean zoned = ((Types.TimestampNanoType) type).shouldAdjustToUTC();
                LocalDateTime t = edge
                        ? pick(r, LocalDateTime.of(1677, 9, 21, 0, 12, 44), LocalDateTime.of(2262, 4, 11, 23, 47, 16, 854_775_807),
                                LocalDateTime.of(1969, 12, 31, 23, 59, 59, 999_999_999))
                        : LocalDateTime.of(2026, 1, 1, 0, 0).plusNanos(r.nextLong(-2_000_000_000_000_000L, 2_000_000_000_000_000L));
                return zoned ? t.atOffset(ZoneOffset.UTC) : t;
            }
            case STRING: {
                String[] words = {"", "a", "héllo", "日本語テキスト", "😀", "Google", "Facebook", "Baidu", "Apple",
                    "https://www.nexmark.com/baidu/item.htm?query=1&channel_id=" + r.nextInt(1 << 20)};
                String word = words[r.nextInt(words.length)];
                return edge ? word.repeat(1 + r.nextInt(20)) : word;
            }
            case UUID:
                return new UUID(r.nextLong(), r.nextLong());
            case FIXED: {
                byte[] bytes = new byte[((Types.FixedType) type).length()];
                for (int i = 0; i < bytes.length; i++) {
                    bytes[i] = (byte) r.nextInt(256);
                }
                return bytes;
            }
            case BINARY: {
                byte[] bytes = new byte[edge ? r.nextInt(300) : r.nextInt(12)];
                for (int i = 0; i < bytes.length; i++) {
                    bytes[i] = (byte) r.nextInt(256);
                }
                return ByteBuffer.wrap(bytes);
            }
            default:
                throw new IllegalArgumentException("no values for " + type);
        }
    }

    @SafeVarargs
    static <T> T pick(SplittableRandom r, T... choices) {
        return choices[r.nextInt(choices.length)];
    }

    // ------------------------------------------------------------------ canonical text

    static final LocalDateTime EPOCH = LocalDateTime.of(1970, 1, 1, 0, 0);

    static String render(Object value, Type type) {
        if (value == null) {
            return "null";
        }
        HexFormat hex = HexFormat.of();
        switch (type.typeId()) {
            case STRUCT: {
                Record record = (Record) value;
                List<String> fields = new ArrayList<>();
                for (int i = 0; i < type.asStructType().fields().size(); i++) {
                    fields.add(render(record.get(i), type.asStructType().fields().get(i).type()));
                }
                return "{" + String.join(",", fields) + "}";
            }
            case LIST: {
                List<String> items = new ArrayList<>();
                for (Object item : (List<?>) value) {
                    items.add(render(item, type.asListType().elementType()));
                }
                return "[" + String.join(",", items) + "]";
            }
            case MAP: {
                Types.MapType map = type.asMapType();
                List<String> entries = new ArrayList<>();
                for (Map.Entry<?, ?> e : ((Map<?, ?>) value).entrySet()) {
                    entries.add("{" + render(e.getKey(), map.keyType()) + "," + render(e.getValue(), map.valueType()) + "}");
                }
                return "[" + String.join(",", entries) + "]";
            }
            case FLOAT:
                return String.format("%08x", Float.floatToIntBits((Float) value));
            case DOUBLE:
                return String.format("%016x", Double.doubleToLongBits((Double) value));
            case DECIMAL:
                return ((BigDecimal) value).unscaledValue().toString();
            case DATE:
                return Long.toString(((LocalDate) value).toEpochDay());
            case TIME:
                return Long.toString(((LocalTime) value).toNanoOfDay() / 1000);
            case TIMESTAMP:
                return Long.toString(ChronoUnit.MICROS.between(EPOCH, local(value)));
            case TIMESTAMP_NANO:
                return Long.toString(ChronoUnit.NANOS.between(EPOCH, local(value)));
            case STRING:
                return hex.formatHex(value.toString().getBytes(StandardCharsets.UTF_8));
            case UUID: {
                UUID u = (UUID) value;
                return String.format("%016x%016x", u.getMostSignificantBits(), u.getLeastSignificantBits());
            }
            case FIXED:
                return hex.formatHex((byte[]) value);
            case BINARY: {
                ByteBuffer b = ((ByteBuffer) value).duplicate();
                byte[] bytes = new byte[b.remaining()];
                b.get(bytes);
                return hex.formatHex(bytes);
            }
            default:
                return value.toString();
        }
    }

    static LocalDateTime local(Object value) {
        return value instanceof OffsetDateTime odt ? odt.withOffsetSameInstant(ZoneOffset.UTC).toLocalDateTime() : (LocalDateTime) value;
    }
}
