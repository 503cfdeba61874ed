package dev.isthmus.iceberg.source.parquet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.isthmus.arrow.LeakCheckExtension;
import dev.isthmus.arrow.memory.MemoryTracker;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.parquet.ParquetSchemaUtil;
import org.apache.iceberg.types.Types;
import org.apache.parquet.column.ParquetProperties.WriterVersion;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.SimpleGroupFactory;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.example.ExampleParquetWriter;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.io.LocalOutputFile;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Files parquet-java 1.17 writes with what Iceberg's writer does not choose: BYTE_STREAM_SPLIT
 * on every type it applies to (FLOAT and DOUBLE since format 2.8; INT32, INT64 and
 * FIXED_LEN_BYTE_ARRAY since 2.11) and the UNKNOWN logical type. Each decodes natively to the
 * rows Iceberg's Flink reader reads.
 */
@ExtendWith(LeakCheckExtension.class)
class ParquetJavaEncodingsTest {
    private static final int ROWS = 5000;
    /** Parquet's Encoding.BYTE_STREAM_SPLIT, a bit of ColumnChunk#encodings. */
    private static final int BYTE_STREAM_SPLIT = 9;

    private static final MessageType SPLIT = org.apache.parquet.schema.Types.buildMessage()
            .optional(PrimitiveTypeName.INT32)
            .id(1)
            .named("i")
            .optional(PrimitiveTypeName.INT64)
            .id(2)
            .named("l")
            .optional(PrimitiveTypeName.FLOAT)
            .id(3)
            .named("f")
            .optional(PrimitiveTypeName.DOUBLE)
            .id(4)
            .named("d")
            .optional(PrimitiveTypeName.FIXED_LEN_BYTE_ARRAY)
            .length(8)
            .as(LogicalTypeAnnotation.decimalType(2, 18))
            .id(5)
            .named("dec")
            .optional(PrimitiveTypeName.FIXED_LEN_BYTE_ARRAY)
            .length(12)
            .id(6)
            .named("fixed")
            .required(PrimitiveTypeName.INT64)
            .id(7)
            .named("dense")
            .named("table");

    @TempDir
    Path dir;

    private final MemoryTracker tracker = MemoryTracker.root().child("ParquetJavaEncodingsTest");

    @AfterEach
    void closeTracker() {
        tracker.close();
    }

    static Stream<Arguments> writerSettings() {
        return Stream.of(
                Arguments.of(WriterVersion.PARQUET_1_0, CompressionCodecName.UNCOMPRESSED),
                Arguments.of(WriterVersion.PARQUET_1_0, CompressionCodecName.ZSTD),
                Arguments.of(WriterVersion.PARQUET_2_0, CompressionCodecName.SNAPPY),
                Arguments.of(WriterVersion.PARQUET_2_0, CompressionCodecName.GZIP));
    }

    private static ExampleParquetWriter.Builder writer(Path file, MessageType schema) {
        return ExampleParquetWriter.builder(new LocalOutputFile(file)).withType(schema);
    }

    private static byte[] bytes(Random random, int length) {
        byte[] bytes = new byte[length];
        random.nextBytes(bytes);
        return bytes;
    }

    /** The unscaled value as FIXED_LEN_BYTE_ARRAY(8): big-endian two's complement. */
    private static Binary decimal(long unscaled) {
        byte[] raw = BigInteger.valueOf(unscaled).toByteArray();
        byte[] fixed = new byte[8];
        Arrays.fill(fixed, (byte) (unscaled < 0 ? 0xff : 0));
        System.arraycopy(raw, 0, fixed, 8 - raw.length, raw.length);
        return Binary.fromConstantByteArray(fixed);
    }

    private void writeSplit(Path file, WriterVersion version, CompressionCodecName codec) {
        SimpleGroupFactory groups = new SimpleGroupFactory(SPLIT);
        Random random = new Random(version.ordinal() * 31L + codec.ordinal());
        ExampleParquetWriter.Builder builder = writer(file, SPLIT)
                .withWriterVersion(version)
                .withCompressionCodec(codec)
                .withDictionaryEncoding(false)
                .withPageRowCountLimit(700);
        for (String column : List.of("i", "l", "f", "d", "dec", "fixed", "dense")) {
            builder = builder.withByteStreamSplitEncoding(column, true);
        }
        try (ParquetWriter<Group> out = builder.build()) {
            for (int row = 0; row < ROWS; row++) {
                Group group = groups.newGroup();
                // Every optional column is null now and then, in runs and alone.
                boolean present = row % 300 >= 20 && random.nextInt(6) != 0;
                if (present) {
                    group.add("i", row % 97 == 0 ? Integer.MIN_VALUE : random.nextInt());
                    group.add("l", row % 89 == 0 ? Long.MAX_VALUE : random.nextLong());
                    group.add("f", row % 50 == 0 ? Float.NaN : random.nextFloat() * 1e6f - 5e5f);
                    group.add("d", row % 50 == 1 ? -0.0 : random.nextGaussian() * 1e12);
                    group.add("dec", decimal(random.nextLong() % 1_000_000_000_000_000L));
                    group.add("fixed", Binary.fromConstantByteArray(bytes(random, 12)));
                }
                group.add("dense", (long) row * 1_000_003L);
                out.write(group);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("writerSettings")
    void byteStreamSplitDecodesAsIcebergsReaderReadsIt(WriterVersion version, CompressionCodecName codec) {
        Path file = dir.resolve("split-" + version + "-" + codec + ".parquet");
        writeSplit(file, version, codec);
        try (NativeParquetFile opened = NativeParquetFile.open(file)) {
            for (int leaf = 0; leaf < opened.columns().size(); leaf++) {
                int encodings = opened.columnChunk(0, leaf).encodings();
                assertTrue(
                        (encodings & (1 << BYTE_STREAM_SPLIT)) != 0,
                        opened.columns().get(leaf).path() + " is BYTE_STREAM_SPLIT: "
                                + Integer.toBinaryString(encodings));
            }
        }
        Schema schema = ParquetSchemaUtil.convert(SPLIT);
        List<List<Object>> expected = IcebergParquetFiles.readStock(file, schema);
        assertEquals(ROWS, expected.size());
        ScanOptions options = ScanOptions.of(schema).withBatchSize(1000);
        assertEquals(expected, NativeRows.read(file, options, false, tracker), "local file");
        assertEquals(expected, NativeRows.read(file, options.withBatchSize(333), true, tracker), "through FileIO");
    }

    /**
     * An INT32 column of logical type UNKNOWN (what Arrow C++ writes for Arrow's null type), which
     * Iceberg's conversion of the footer calls an int column: nulls. (Iceberg's Flink reader
     * refuses the column: "Unsupported logical type: UNKNOWN".)
     */
    @Test
    void unknownLogicalTypeColumnsReadAsNulls() throws IOException {
        MessageType schema = org.apache.parquet.schema.Types.buildMessage()
                .required(PrimitiveTypeName.INT64)
                .id(1)
                .named("id")
                .optional(PrimitiveTypeName.INT32)
                .as(LogicalTypeAnnotation.unknownType())
                .id(2)
                .named("nothing")
                .named("table");
        Path file = dir.resolve("unknown.parquet");
        SimpleGroupFactory groups = new SimpleGroupFactory(schema);
        try (ParquetWriter<Group> out = writer(file, schema).build()) {
            for (long row = 0; row < 100; row++) {
                out.write(groups.newGroup().append("id", row));
            }
        }
        Schema converted = ParquetSchemaUtil.convert(schema);
        assertEquals(Types.IntegerType.get(), converted.findType("nothing"));
        List<List<Object>> expected = new ArrayList<>();
        for (long row = 0; row < 100; row++) {
            expected.add(Arrays.asList(row, null));
        }
        ScanOptions options = ScanOptions.of(converted);
        assertEquals(expected, NativeRows.read(file, options, false, tracker), "local file");
        assertEquals(expected, NativeRows.read(file, options, true, tracker), "through FileIO");
    }

    /**
     * Iceberg v3's {@code unknown} type: Iceberg writes no column for it, and the projection reads
     * it as nulls (an Arrow null column, Flink's NULL).
     */
    @Test
    void icebergUnknownFieldsReadAsNulls() {
        Schema schema = new Schema(
                Types.NestedField.required(1, "id", Types.LongType.get()),
                Types.NestedField.optional(2, "nothing", Types.UnknownType.get()));
        List<Record> records = new ArrayList<>();
        for (long row = 0; row < 100; row++) {
            Record record = GenericRecord.create(schema);
            record.setField("id", row);
            records.add(record);
        }
        Path file = dir.resolve("iceberg-unknown.parquet");
        IcebergParquetFiles.write(file, schema, records, Map.of());
        List<List<Object>> rows = NativeRows.read(file, ScanOptions.of(schema), true, tracker);
        assertEquals(100, rows.size());
        for (int row = 0; row < rows.size(); row++) {
            assertEquals(Arrays.asList((long) row, null), rows.get(row));
        }
    }
}
