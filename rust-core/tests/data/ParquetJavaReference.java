// Writes the reference files of rust-core/core/src/tests/parquet_write_reference.rs with Iceberg's
// own Parquet writer (Iceberg 1.11, parquet-java 1.17), and prints the Iceberg Metrics of each.
// Regenerate from the repository root after `mvn -Pbench -pl jmh -am package -DskipTests`:
//   /usr/lib/jvm/temurin-25-jdk-amd64/bin/java -cp jmh/target/benchmarks.jar \
//       rust-core/tests/data/ParquetJavaReference.java rust-core/tests/data/parquet-java
// The values are functions of the row number that the Rust test computes the same way
// (rust-core/core/src/test_support/write/reference.rs); keep the two in step.

import java.io.File;
import java.io.PrintStream;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.HexFormat;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import org.apache.iceberg.Metrics;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetWriter;
import org.apache.iceberg.io.FileAppender;
import org.apache.iceberg.parquet.Parquet;
import org.apache.iceberg.types.Types;

public class ParquetJavaReference {
    static final Schema ALL = new Schema(
            Types.NestedField.required(1, "b", Types.BooleanType.get()),
            Types.NestedField.optional(2, "ob", Types.BooleanType.get()),
            Types.NestedField.required(3, "i", Types.IntegerType.get()),
            Types.NestedField.optional(4, "l", Types.LongType.get()),
            Types.NestedField.optional(5, "f", Types.FloatType.get()),
            Types.NestedField.optional(6, "d", Types.DoubleType.get()),
            Types.NestedField.optional(7, "dec9", Types.DecimalType.of(9, 2)),
            Types.NestedField.optional(8, "dec18", Types.DecimalType.of(18, 4)),
            Types.NestedField.optional(9, "dec38", Types.DecimalType.of(38, 10)),
            Types.NestedField.optional(10, "date", Types.DateType.get()),
            Types.NestedField.optional(11, "time", Types.TimeType.get()),
            Types.NestedField.optional(12, "ts", Types.TimestampType.withoutZone()),
            Types.NestedField.optional(13, "tstz", Types.TimestampType.withZone()),
            Types.NestedField.optional(14, "tsns", Types.TimestampNanoType.withoutZone()),
            Types.NestedField.optional(15, "tstzns", Types.TimestampNanoType.withZone()),
            Types.NestedField.optional(16, "s", Types.StringType.get()),
            Types.NestedField.optional(17, "u", Types.UUIDType.get()),
            Types.NestedField.optional(18, "fx", Types.FixedType.ofLength(5)),
            Types.NestedField.optional(19, "bin", Types.BinaryType.get()),
            Types.NestedField.optional(20, "nul", Types.StringType.get()),
            Types.NestedField.required(21, "cs", Types.StringType.get()),
            Types.NestedField.optional(22, "dec4", Types.DecimalType.of(4, 0)),
            Types.NestedField.optional(23, "dec30", Types.DecimalType.of(30, 0)));

    static final Schema FALLBACK = new Schema(
            Types.NestedField.optional(1, "l", Types.LongType.get()),
            Types.NestedField.optional(2, "s", Types.StringType.get()),
            Types.NestedField.optional(3, "i", Types.IntegerType.get()),
            Types.NestedField.optional(4, "d", Types.DoubleType.get()));

    static final Schema LONG = new Schema(
            Types.NestedField.optional(1, "big", Types.StringType.get()),
            Types.NestedField.optional(2, "small", Types.StringType.get()));

    public static void main(String[] args) throws Exception {
        Path dir = Path.of(args[0]);
        Files.createDirectories(dir);
        write(dir, "all-v1", ALL, 200, Map.of(), ParquetJavaReference::all);
        write(dir, "all-v2", ALL, 200, Map.of("write.parquet.page-version", "v2"), ParquetJavaReference::all);
        write(dir, "all-nodict", ALL, 200, Map.of("parquet.enable.dictionary", "false"), ParquetJavaReference::all);
        write(dir, "all-snappy", ALL, 200, Map.of("write.parquet.compression-codec", "snappy"), ParquetJavaReference::all);
        Map<String, String> small = Map.of("write.parquet.dict-size-bytes", "2000",
                "write.parquet.page-row-limit", "300", "write.parquet.compression-codec", "uncompressed");
        write(dir, "fallback-v1", FALLBACK, 3000, small, ParquetJavaReference::fallback);
        Map<String, String> smallV2 = new TreeMap<>(small);
        smallV2.put("write.parquet.page-version", "v2");
        write(dir, "fallback-v2", FALLBACK, 3000, smallV2, ParquetJavaReference::fallback);
        write(dir, "long-strings", LONG, 10, Map.of(), ParquetJavaReference::longStrings);
    }

    interface Filler {
        void fill(Record r, int i);
    }

    static void write(Path dir, String name, Schema schema, int rows, Map<String, String> props, Filler filler)
            throws Exception {
        File file = dir.resolve(name + ".parquet").toFile();
        GenericRecord template = GenericRecord.create(schema);
        FileAppender<Record> appender = Parquet.write(org.apache.iceberg.Files.localOutput(file))
                .schema(schema)
                .createWriterFunc(GenericParquetWriter::create)
                .setAll(props)
                .overwrite()
                .build();
        for (int i = 0; i < rows; i++) {
            Record r = template.copy();
            filler.fill(r, i);
            appender.add(r);
        }
        appender.close();
        try (PrintStream out = new PrintStream(dir.resolve(name + ".metrics").toFile(), "UTF-8")) {
            Metrics m = appender.metrics();
            out.println("rows " + m.recordCount());
            out.println("length " + appender.length());
            out.println("splits " + appender.splitOffsets());
            for (Types.NestedField field : schema.columns()) {
                int id = field.fieldId();
                out.println("column " + id
                        + " values " + m.valueCounts().get(id)
                        + " nulls " + m.nullValueCounts().get(id)
                        + " nans " + (m.nanValueCounts() == null ? null : m.nanValueCounts().get(id))
                        + " lower " + hex(m.lowerBounds().get(id))
                        + " upper " + hex(m.upperBounds().get(id)));
            }
        }
    }

    static String hex(ByteBuffer buffer) {
        if (buffer == null) {
            return "-";
        }
        byte[] bytes = new byte[buffer.remaining()];
        buffer.duplicate().get(bytes);
        return bytes.length == 0 ? "\"\"" : HexFormat.of().formatHex(bytes);
    }

    static boolean isNull(int i, int column) {
        return (i + column) % 7 == 3;
    }

    static void all(Record r, int i) {
        r.setField("b", i % 3 == 0);
        r.setField("ob", isNull(i, 2) ? null : i % 2 == 0);
        r.setField("i", i == 0 ? Integer.MIN_VALUE : i == 1 ? Integer.MAX_VALUE : (i * 7919) % 1000 - 500);
        r.setField("l", isNull(i, 4) ? null
                : i == 0 ? Long.MIN_VALUE : i == 1 ? Long.MAX_VALUE : i * 1_000_000_007L - 50_000_000_000L);
        r.setField("f", isNull(i, 5) ? null : floatValue(i));
        r.setField("d", isNull(i, 6) ? null : doubleValue(i));
        r.setField("dec9", isNull(i, 7) ? null : BigDecimal.valueOf((i * 1_234_567L) % 999_999_999L - 499_999_999L, 2));
        r.setField("dec18", isNull(i, 8) ? null : BigDecimal.valueOf(i * 98_765_432_109L - 9_000_000_000_000L, 4));
        r.setField("dec38", isNull(i, 9) ? null : new BigDecimal(dec38(i), 10));
        r.setField("date", isNull(i, 10) ? null : LocalDate.ofEpochDay(i * 37L - 3000));
        r.setField("time", isNull(i, 11) ? null : LocalTime.ofNanoOfDay(((i * 123_456_789L) % 86_400_000_000L) * 1000));
        long micros = i * 3_600_000_123L - 1_000_000_000_000L;
        r.setField("ts", isNull(i, 12) ? null : LocalDateTime.ofEpochSecond(Math.floorDiv(micros, 1_000_000L),
                (int) Math.floorMod(micros, 1_000_000L) * 1000, ZoneOffset.UTC));
        r.setField("tstz", isNull(i, 13) ? null : OffsetDateTime.ofInstant(java.time.Instant.ofEpochSecond(
                Math.floorDiv(micros, 1_000_000L), Math.floorMod(micros, 1_000_000L) * 1000), ZoneOffset.UTC));
        long nanos = i * 3_600_000_123_457L - 1_000_000_000_000_000L;
        r.setField("tsns", isNull(i, 14) ? null : LocalDateTime.ofEpochSecond(Math.floorDiv(nanos, 1_000_000_000L),
                (int) Math.floorMod(nanos, 1_000_000_000L), ZoneOffset.UTC));
        r.setField("tstzns", isNull(i, 15) ? null : OffsetDateTime.ofInstant(java.time.Instant.ofEpochSecond(
                Math.floorDiv(nanos, 1_000_000_000L), Math.floorMod(nanos, 1_000_000_000L)), ZoneOffset.UTC));
        r.setField("s", isNull(i, 16) ? null : string(i));
        r.setField("u", isNull(i, 17) ? null : new UUID(i * 0x9E3779B97F4A7C15L, ~(long) i));
        r.setField("fx", isNull(i, 18) ? null : new byte[] {(byte) i, (byte) (i * 3), (byte) (255 - i), 0, (byte) (i % 2)});
        r.setField("bin", isNull(i, 19) ? null : ByteBuffer.wrap(binary(i)));
        r.setField("nul", null);
        r.setField("cs", "constant");
        r.setField("dec4", isNull(i, 22) ? null : BigDecimal.valueOf(i * 97L % 19999 - 9999));
        r.setField("dec30", isNull(i, 23) ? null : new BigDecimal(BigInteger.valueOf(i - 100).multiply(BigInteger.TEN.pow(27))));
    }

    static float floatValue(int i) {
        if (i == 2) return -0.0f;
        if (i == 4) return 0.0f;
        if (i % 11 == 5) return Float.NaN;
        if (i == 6) return Float.NEGATIVE_INFINITY;
        return (i - 100) * 0.5f;
    }

    static double doubleValue(int i) {
        if (i == 2) return -0.0;
        if (i == 4) return 0.0;
        if (i % 13 == 5) return Double.NaN;
        if (i == 7) return Double.MAX_VALUE;
        return (i - 100) * 1.25e300 / 100;
    }

    static BigInteger dec38(int i) {
        return BigInteger.valueOf(i - 100).multiply(BigInteger.TEN.pow(30)).add(BigInteger.valueOf(i));
    }

    static String string(int i) {
        if (i % 13 == 0) return "";
        if (i % 17 == 1) return "\u00e9t\u00e9 " + i;
        if (i % 19 == 2) return "\uD83D\uDE00" + i;
        return "s" + (i * 31 % 97);
    }

    static byte[] binary(int i) {
        byte[] out = new byte[i % 10];
        for (int k = 0; k < out.length; k++) {
            out[k] = (byte) (i * 41 + k * 7);
        }
        return out;
    }

    static void fallback(Record r, int i) {
        // Every value repeats three times in a row: the first page passes the dictionary's
        // compression check, and the 2000-byte dictionary overflows a few pages later.
        int k = i / 3;
        r.setField("l", i % 10 == 9 ? null : k * 1_000_003L);
        r.setField("s", i % 10 == 8 ? null : "value-" + k);
        r.setField("i", i % 10 == 7 ? null : k);
        r.setField("d", i % 10 == 6 ? null : k / 4.0);
    }

    static void longStrings(Record r, int i) {
        r.setField("big", "x".repeat(2500) + i);
        r.setField("small", "y".repeat(10) + i);
    }
}
