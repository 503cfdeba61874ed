package dev.isthmus.iceberg.sink.parquet;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.isthmus.arrow.LeakCheckExtension;
import dev.isthmus.arrow.builder.BufferAllocator;
import dev.isthmus.arrow.builder.FinishedArray;
import dev.isthmus.arrow.flink.builder.RowDataAppender;
import dev.isthmus.arrow.memory.MemoryTracker;
import dev.isthmus.ffm.NativeException;
import dev.isthmus.iceberg.source.parquet.IcebergParquetFiles;
import dev.isthmus.iceberg.source.parquet.RandomRecords;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.iceberg.Files;
import org.apache.iceberg.MetricsConfig;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SchemaParser;
import org.apache.iceberg.inmemory.InMemoryFileIO;
import org.apache.iceberg.io.FileAppender;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.types.Types;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.Type.Repetition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * What the writer puts in the file besides values (table properties, footer, size next to
 * parquet-java's), and how it fails: bad rows and unknown columns are refused by name, a failed
 * or aborted writer leaves no file, and nothing leaks.
 */
@ExtendWith(LeakCheckExtension.class)
class NativeParquetWriterBehaviourTest {
    /** Bid-like rows: ids, prices, a low-cardinality channel, long high-cardinality URLs, a time. */
    static final Schema BIDS = new Schema(
            Types.NestedField.required(1, "auction", Types.LongType.get()),
            Types.NestedField.required(2, "bidder", Types.LongType.get()),
            Types.NestedField.required(3, "price", Types.LongType.get()),
            Types.NestedField.optional(4, "channel", Types.StringType.get()),
            Types.NestedField.optional(5, "url", Types.StringType.get()),
            Types.NestedField.required(6, "date_time", Types.TimestampType.withoutZone()),
            Types.NestedField.optional(7, "extra", Types.StringType.get()));

    @TempDir
    Path dir;

    static List<RowData> bids(int count, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        String[] channels = {"Google", "Facebook", "Baidu", "Apple"};
        List<RowData> rows = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            byte[] token = new byte[12];
            for (int b = 0; b < token.length; b++) {
                token[b] = (byte) random.nextInt(256);
            }
            rows.add(GenericRowData.of(
                    1000L + random.nextInt(5000),
                    2000L + random.nextInt(100_000),
                    (long) random.nextInt(1, 10_000_000),
                    StringData.fromString(channels[random.nextInt(channels.length)]),
                    StringData.fromString("https://www.nexmark.com/item.htm?query=1&channel_id="
                            + HexFormat.of().formatHex(token)),
                    TimestampData.fromEpochMillis(1_700_000_000_000L + i * 7L),
                    random.nextInt(4) == 0 ? null : StringData.fromString("x".repeat(random.nextInt(20)))));
        }
        return rows;
    }

    private NativeParquetWriter writer(OutputFile file, Schema schema, Map<String, String> properties) {
        return NativeParquet.write(file).schema(schema).setAll(properties).build();
    }

    private Path writeNative(String name, Schema schema, List<RowData> rows, Map<String, String> properties)
            throws IOException {
        Path file = dir.resolve(name + ".parquet");
        try (NativeParquetWriter writer = writer(Files.localOutput(file.toFile()), schema, properties)) {
            rows.forEach(writer::add);
        }
        return file;
    }

    private Path writeStock(String name, Schema schema, List<RowData> rows, Map<String, String> properties)
            throws IOException {
        Path file = dir.resolve(name + ".parquet");
        try (FileAppender<RowData> writer =
                ParquetJava.stockWriter(file, schema, properties, MetricsConfig.getDefault())) {
            rows.forEach(writer::add);
        }
        return file;
    }

    static Stream<Arguments> sizeSettings() {
        return Stream.of(
                Arguments.of("zstd v1", Map.of("write.parquet.compression-codec", "zstd")),
                Arguments.of(
                        "zstd level 9 v2",
                        Map.of(
                                "write.parquet.compression-codec",
                                "zstd",
                                "write.parquet.compression-level",
                                "9",
                                "write.parquet.page-version",
                                "v2")),
                Arguments.of("snappy", Map.of("write.parquet.compression-codec", "snappy")),
                Arguments.of("gzip", Map.of("write.parquet.compression-codec", "gzip")),
                Arguments.of("uncompressed", Map.of("write.parquet.compression-codec", "uncompressed")));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("sizeSettings")
    void fileSizeIsWithinTenPercentOfParquetJavas(String name, Map<String, String> properties) throws IOException {
        List<RowData> rows = bids(100_000, 42);
        long stock = java.nio.file.Files.size(writeStock("stock", BIDS, rows, properties));
        long actual = java.nio.file.Files.size(writeNative("native", BIDS, rows, properties));
        double ratio = (double) actual / stock;
        System.out.printf(
                "file size %s: native %,d bytes, parquet-java %,d bytes, ratio %.4f%n", name, actual, stock, ratio);
        assertTrue(Math.abs(ratio - 1) <= 0.10, name + ": native " + actual + " vs parquet-java " + stock);
    }

    @Test
    void tablePropertiesShowInTheFooter() throws IOException {
        List<RowData> rows = bids(20_000, 7);
        Path file = dir.resolve("props.parquet");
        NativeParquetWriter writer = NativeParquet.write(Files.localOutput(file.toFile()))
                .schema(BIDS)
                .set("write.parquet.compression-codec", "snappy")
                .set("write.parquet.row-group-size-bytes", "65536")
                .batchSize(1000)
                .build();
        long previous = 0;
        try (writer) {
            for (int i = 0; i < rows.size(); i++) {
                writer.add(rows.get(i));
                if (i % 5_000 == 4_999) {
                    long length = writer.length();
                    assertTrue(length > previous, "the estimated length grows: " + length + " after " + previous);
                    previous = length;
                }
            }
            assertNull(writer.splitOffsets(), "no split offsets before close");
        }
        assertEquals(java.nio.file.Files.size(file), writer.length(), "length() is the file size once closed");

        ParquetMetadata footer = ParquetJava.footer(file);
        assertTrue(
                footer.getFileMetaData().getCreatedBy().startsWith("isthmus version "),
                footer.getFileMetaData().getCreatedBy());
        assertEquals(
                SchemaParser.toJson(BIDS),
                footer.getFileMetaData().getKeyValueMetaData().get("iceberg.schema"));
        List<BlockMetaData> blocks = footer.getBlocks();
        assertTrue(blocks.size() > 3, "a 64 KiB row group size makes several row groups, got " + blocks.size());
        assertEquals(blocks.stream().map(BlockMetaData::getStartingPos).toList(), writer.splitOffsets());
        assertEquals(4L, writer.splitOffsets().getFirst());
        for (BlockMetaData block : blocks) {
            block.getColumns().forEach(c -> assertEquals(CompressionCodecName.SNAPPY, c.getCodec()));
        }
        MessageType type = footer.getFileMetaData().getSchema();
        for (Types.NestedField field : BIDS.columns()) {
            org.apache.parquet.schema.Type column = type.getType(field.name());
            assertEquals(field.fieldId(), column.getId().intValue());
            assertEquals(field.isRequired() ? Repetition.REQUIRED : Repetition.OPTIONAL, column.getRepetition());
        }
        assertEquals(rows.size(), writer.metrics().recordCount());
    }

    /** Word soup: too many distinct values for a dictionary, so the codec's match finding decides the size. */
    private static List<RowData> sentences(int count) {
        String[] words = ("the quick brown fox jumps over a lazy dog while seven wizards quietly judge "
                        + "boxing matches in foggy harbour towns near ancient bridges")
                .split(" ");
        SplittableRandom random = new SplittableRandom(17);
        List<RowData> rows = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            StringBuilder text = new StringBuilder();
            for (int w = 0; w < 12; w++) {
                text.append(words[random.nextInt(words.length)]).append(' ');
            }
            rows.add(GenericRowData.of((long) i, StringData.fromString(text.toString())));
        }
        return rows;
    }

    @Test
    void theCompressionLevelTakesEffect() throws IOException {
        Schema schema = new Schema(
                Types.NestedField.required(1, "id", Types.LongType.get()),
                Types.NestedField.optional(2, "text", Types.StringType.get()));
        List<RowData> rows = sentences(50_000);
        Map<String, String> fast =
                Map.of("write.parquet.compression-codec", "zstd", "write.parquet.compression-level", "1");
        Map<String, String> small =
                Map.of("write.parquet.compression-codec", "zstd", "write.parquet.compression-level", "19");
        long fastSize = java.nio.file.Files.size(writeNative("zstd-1", schema, rows, fast));
        long smallSize = java.nio.file.Files.size(writeNative("zstd-19", schema, rows, small));
        long stockSmall = java.nio.file.Files.size(writeStock("stock-zstd-19", schema, rows, small));
        System.out.printf(
                "zstd level 1: %,d bytes, level 19: %,d bytes (parquet-java at 19: %,d)%n",
                fastSize, smallSize, stockSmall);
        assertTrue(
                smallSize < fastSize * 0.95,
                "level 19 (" + smallSize + " bytes) is well below level 1 (" + fastSize + ")");
        assertTrue(Math.abs((double) smallSize / stockSmall - 1) <= 0.10, smallSize + " vs parquet-java " + stockSmall);

        var e = assertThrows(
                NativeException.class,
                () -> writer(
                        Files.localOutput(dir.resolve("bad.parquet").toFile()),
                        BIDS,
                        Map.of("write.parquet.compression-codec", "zstd", "write.parquet.compression-level", "99")));
        assertTrue(e.getMessage().contains("write.parquet.compression-level"), e.getMessage());
    }

    @Test
    void theFileIsWrittenThroughAnyFileIo() throws IOException {
        InMemoryFileIO io = new InMemoryFileIO();
        String location = "mem://warehouse/db/t/data/file.parquet";
        List<RowData> rows = bids(30_000, 9);
        NativeParquetWriter writer = NativeParquet.write(io.newOutputFile(location))
                .schema(BIDS)
                .set("write.parquet.row-group-size-bytes", "100000")
                .deleteWith(io)
                .build();
        try (writer) {
            rows.forEach(writer::add);
        }
        Path local = dir.resolve("copy.parquet");
        try (InputStream in = io.newInputFile(location).newStream()) {
            java.nio.file.Files.copy(in, local);
        }
        assertEquals(writer.length(), java.nio.file.Files.size(local));
        assertEquals(ParquetJava.expected(rows, BIDS), ParquetJava.read(local, BIDS));
        assertArrayEquals(
                java.nio.file.Files.readAllBytes(
                        writeNative("local", BIDS, rows, Map.of("write.parquet.row-group-size-bytes", "100000"))),
                java.nio.file.Files.readAllBytes(local),
                "the same bytes as to a local file");
    }

    /** Rows that fill a few row groups first, so the bad one comes after bytes reached the file. */
    private static List<RowData> goodRowsThen(RowData bad) {
        List<RowData> rows = new ArrayList<>(bids(30_000, 5));
        rows.add(bad);
        return rows;
    }

    private void assertFailsLeavingNoFile(RowData bad, String... messageParts) {
        Path file = dir.resolve("failed.parquet");
        NativeParquetWriter writer = NativeParquet.write(Files.localOutput(file.toFile()))
                .schema(BIDS)
                .set("write.parquet.row-group-size-bytes", "65536")
                .batchSize(1000)
                .build();
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> {
            for (RowData row : goodRowsThen(bad)) {
                writer.add(row);
            }
            writer.close(); // a bad value only the library checks is found when the last batch goes in
        });
        for (String part : messageParts) {
            assertTrue(e.getMessage().contains(part), "'" + part + "' in: " + e.getMessage());
        }
        assertTrue(e.getMessage().contains(file.toString()), e.getMessage());
        assertFalse(java.nio.file.Files.exists(file), "the partial file is deleted");
        assertThrows(IllegalStateException.class, () -> writer.add(bids(1, 1).getFirst()));
        assertThrows(IllegalStateException.class, writer::metrics);
        assertThrows(IllegalStateException.class, writer::length);
        assertDoesNotThrow(writer::close);
        writer.abort();
    }

    @Test
    void aNullInARequiredColumnFailsTheWriterNamingTheColumn() {
        assertFailsLeavingNoFile(
                GenericRowData.of(1L, null, 3L, null, null, TimestampData.fromEpochMillis(0), null), "bidder");
    }

    @Test
    void aValueOfTheWrongClassFailsTheWriterNamingTheColumnItsTypeAndTheClass() {
        assertFailsLeavingNoFile(
                GenericRowData.of(1L, 2, 3L, null, null, TimestampData.fromEpochMillis(0), null),
                "'bidder' of type BIGINT",
                "java.lang.Integer");
    }

    @Test
    void aRowOfTheWrongArityFailsTheWriter() {
        assertFailsLeavingNoFile(GenericRowData.of(1L, 2L, 3L), "3 fields", "7");
    }

    @Test
    void invalidUtf8RefusedByTheLibraryFailsTheWriterNamingTheColumn() {
        assertFailsLeavingNoFile(
                GenericRowData.of(
                        1L,
                        2L,
                        3L,
                        StringData.fromBytes(new byte[] {(byte) 0xC3, 0x28}),
                        null,
                        TimestampData.fromEpochMillis(0),
                        null),
                "channel");
    }

    @Test
    void aFailedWriterDeletesThroughItsFileIo() {
        InMemoryFileIO io = new InMemoryFileIO();
        String location = "mem://warehouse/failed.parquet";
        NativeParquetWriter writer = NativeParquet.write(io.newOutputFile(location))
                .schema(BIDS)
                .set("write.parquet.row-group-size-bytes", "65536")
                .deleteWith(io)
                .build();
        assertThrows(IllegalArgumentException.class, () -> {
            for (RowData row : goodRowsThen(GenericRowData.of(1L, 2L))) {
                writer.add(row);
            }
        });
        assertFalse(io.fileExists(location));
    }

    @Test
    void abortLeavesNoFile() {
        Path file = dir.resolve("aborted.parquet");
        NativeParquetWriter writer = NativeParquet.write(Files.localOutput(file.toFile()))
                .schema(BIDS)
                .set("write.parquet.row-group-size-bytes", "65536")
                .build();
        bids(30_000, 2).forEach(writer::add);
        assertTrue(java.nio.file.Files.exists(file), "row groups were written");
        writer.abort();
        assertFalse(java.nio.file.Files.exists(file));
        assertThrows(IllegalStateException.class, writer::metrics);
    }

    @Test
    void anExistingFileIsKeptUnlessOverwriting() throws IOException {
        Path file = dir.resolve("exists.parquet");
        java.nio.file.Files.writeString(file, "someone else's");
        NativeParquetWriter writer = writer(Files.localOutput(file.toFile()), BIDS, Map.of());
        assertThrows(RuntimeException.class, () -> {
            bids(10_000, 1).forEach(writer::add);
            writer.close();
        });
        assertEquals("someone else's", java.nio.file.Files.readString(file), "not deleted, not replaced");

        List<RowData> rows = bids(100, 1);
        try (NativeParquetWriter overwriting = NativeParquet.write(Files.localOutput(file.toFile()))
                .schema(BIDS)
                .overwrite()
                .build()) {
            rows.forEach(overwriting::add);
        }
        assertEquals(ParquetJava.expected(rows, BIDS), ParquetJava.read(file, BIDS));
    }

    @Test
    void arrowBatchesAndRowsMakeTheSameFile() throws IOException {
        List<RowData> rows = bids(25_000, 8);
        Map<String, String> properties = Map.of("write.parquet.row-group-size-bytes", "200000");
        Path fromRows = writeNative("rows", BIDS, rows, properties);
        Path fromBatches = dir.resolve("batches.parquet");
        try (NativeParquetWriter writer = writer(Files.localOutput(fromBatches.toFile()), BIDS, properties);
                RowDataAppender appender = new RowDataAppender(
                        NativeParquetWriter.flinkType(BIDS), new BufferAllocator(MemoryTracker.root()))) {
            writer.add(rows.getFirst()); // rows added before a batch go first
            for (int i = 1; i < rows.size(); i++) {
                appender.append(rows.get(i));
                if (appender.rowCount() == 3_000) {
                    writer.write(appender.finish());
                }
            }
            writer.write(appender.finish());
        }
        assertArrayEquals(java.nio.file.Files.readAllBytes(fromRows), java.nio.file.Files.readAllBytes(fromBatches));

        Path wrong = dir.resolve("wrong.parquet");
        Schema other = new Schema(Types.NestedField.required(1, "id", Types.LongType.get()));
        try (RowDataAppender appender =
                new RowDataAppender(NativeParquetWriter.flinkType(other), new BufferAllocator(MemoryTracker.root()))) {
            appender.append(GenericRowData.of(1L));
            NativeParquetWriter writer = writer(Files.localOutput(wrong.toFile()), BIDS, Map.of());
            FinishedArray batch = appender.finish();
            assertThrows(IllegalArgumentException.class, () -> writer.write(batch));
            assertFalse(java.nio.file.Files.exists(wrong));
        }
    }

    @Test
    void forTableTakesTheTablesPropertiesMetricsConfigAndFileIo() throws IOException {
        org.apache.iceberg.Table table = new org.apache.iceberg.hadoop.HadoopTables(
                        new org.apache.hadoop.conf.Configuration())
                .create(
                        BIDS,
                        org.apache.iceberg.PartitionSpec.unpartitioned(),
                        Map.of("write.parquet.compression-codec", "snappy", "write.metadata.metrics.default", "counts"),
                        dir.resolve("table").toUri().toString());
        String location = table.locationProvider().newDataLocation("native.parquet");
        NativeParquetWriter writer = NativeParquet.write(table.io().newOutputFile(location))
                .forTable(table)
                .build();
        List<RowData> rows = bids(1_000, 4);
        try (writer) {
            rows.forEach(writer::add);
        }
        Path file = Path.of(java.net.URI.create(location));
        assertEquals(
                CompressionCodecName.SNAPPY,
                ParquetJava.footer(file)
                        .getBlocks()
                        .getFirst()
                        .getColumns()
                        .getFirst()
                        .getCodec());
        assertEquals(1_000L, writer.metrics().valueCounts().get(1));
        assertTrue(writer.metrics().lowerBounds().isEmpty(), "counts mode keeps no bounds");

        String failed = table.locationProvider().newDataLocation("failed.parquet");
        NativeParquetWriter failing = NativeParquet.write(table.io().newOutputFile(failed))
                .forTable(table)
                .set("write.parquet.row-group-size-bytes", "65536")
                .build();
        assertThrows(IllegalArgumentException.class, () -> {
            for (RowData row : goodRowsThen(GenericRowData.of(1L))) {
                failing.add(row);
            }
        });
        assertFalse(table.io().newInputFile(failed).exists(), "deleted through the table's FileIO");
    }

    /** Files in {@code dir}, hidden temporary ones included. */
    private static List<String> listing(Path dir) throws IOException {
        try (Stream<Path> files = java.nio.file.Files.list(dir)) {
            return files.map(f -> f.getFileName().toString()).sorted().toList();
        }
    }

    @Test
    void aLocalPathIsWrittenByTheLibraryWithTheSameBytes() throws IOException {
        List<RowData> rows = bids(30_000, 12);
        Map<String, String> properties = Map.of("write.parquet.row-group-size-bytes", "100000");
        Path throughJava = writeNative("stream", BIDS, rows, properties);
        Path local = java.nio.file.Files.createDirectory(dir.resolve("local"));
        Path file = local.resolve("path.parquet");
        NativeParquetWriter writer =
                NativeParquet.write(file).schema(BIDS).setAll(properties).build();
        try (writer) {
            rows.forEach(writer::add);
            assertEquals(
                    List.of(),
                    listing(local).stream().filter(n -> !n.startsWith(".")).toList(),
                    "only a hidden temporary file until close");
        }
        assertEquals(List.of("path.parquet"), listing(local));
        assertArrayEquals(java.nio.file.Files.readAllBytes(throughJava), java.nio.file.Files.readAllBytes(file));
        assertEquals(java.nio.file.Files.size(file), writer.length());
        assertEquals(
                ParquetJava.footer(file).getBlocks().stream()
                        .map(BlockMetaData::getStartingPos)
                        .toList(),
                writer.splitOffsets());
    }

    @Test
    void aLocalPathWriterLeavesNothingWhenItFailsIsAbortedOrHasNoRows() throws IOException {
        Path local = java.nio.file.Files.createDirectory(dir.resolve("local"));
        NativeParquetWriter failing = NativeParquet.write(local.resolve("failed.parquet"))
                .schema(BIDS)
                .set("write.parquet.row-group-size-bytes", "65536")
                .build();
        var e = assertThrows(IllegalArgumentException.class, () -> {
            for (RowData row :
                    goodRowsThen(GenericRowData.of(1L, null, 3L, null, null, TimestampData.fromEpochMillis(0), null))) {
                failing.add(row);
            }
        });
        assertTrue(e.getMessage().contains("bidder"), e.getMessage());

        NativeParquetWriter aborted = NativeParquet.write(local.resolve("aborted.parquet"))
                .schema(BIDS)
                .set("write.parquet.row-group-size-bytes", "65536")
                .build();
        bids(30_000, 3).forEach(aborted::add);
        aborted.abort();

        NativeParquetWriter empty =
                NativeParquet.write(local.resolve("empty.parquet")).schema(BIDS).build();
        empty.close();
        assertEquals(0L, empty.metrics().recordCount());

        assertEquals(List.of(), listing(local), "no file, no temporary file");
    }

    @Test
    void aLocalPathIsReplacedOnlyWhenOverwriting() throws IOException {
        Path file = dir.resolve("exists.parquet");
        java.nio.file.Files.writeString(file, "someone else's");
        assertThrows(
                NativeException.Io.class,
                () -> NativeParquet.write(file).schema(BIDS).build());
        assertEquals("someone else's", java.nio.file.Files.readString(file));

        List<RowData> rows = bids(100, 6);
        try (NativeParquetWriter writer =
                NativeParquet.write(file).schema(BIDS).overwrite().build()) {
            rows.forEach(writer::add);
        }
        assertEquals(ParquetJava.expected(rows, BIDS), ParquetJava.read(file, BIDS));
    }

    @Test
    void unknownColumnsAreRefusedUpFrontByName() {
        for (Types.NestedField unknown : List.of(
                Types.NestedField.optional(2, "nothing", Types.UnknownType.get()),
                Types.NestedField.optional(
                        2,
                        "location",
                        Types.StructType.of(Types.NestedField.optional(3, "nothing", Types.UnknownType.get()))))) {
            Schema schema = new Schema(Types.NestedField.required(1, "id", Types.LongType.get()), unknown);
            Path file = dir.resolve("unknown.parquet");
            var e = assertThrows(
                    UnsupportedOperationException.class,
                    () -> NativeParquet.write(Files.localOutput(file.toFile()))
                            .schema(schema)
                            .build());
            String name = unknown.type().isStructType() ? "location.nothing" : "nothing";
            assertTrue(e.getMessage().contains("'" + name + "'"), e.getMessage());
            assertFalse(java.nio.file.Files.exists(file));
        }
    }

    @Test
    void theStockReaderReadsEveryTypeFromABareBuilder() throws IOException {
        // Defaults only: the library's (zstd, v1 pages, 128 MiB row groups, dictionaries).
        Schema schema = RandomRecords.EVERY_TYPE;
        List<RowData> rows = FlinkRows.of(schema, new RandomRecords(99, 0.1).records(schema, 20_000));
        Path file = writeNative("defaults", schema, rows, Map.of());
        ParquetMetadata footer = ParquetJava.footer(file);
        assertEquals(1, footer.getBlocks().size());
        assertEquals(
                CompressionCodecName.ZSTD,
                footer.getBlocks().getFirst().getColumns().getFirst().getCodec());
        assertEquals(rows.size(), IcebergParquetFiles.readStock(file, schema).size());
    }

    @Test
    void lengthCountsRowsStillWaitingInTheJavaBatch() throws IOException {
        List<RowData> rows = bids(6_000, 3);
        Path file = dir.resolve("estimate.parquet");
        try (NativeParquetWriter writer = NativeParquet.write(Files.localOutput(file.toFile()))
                .schema(BIDS)
                .build()) {
            for (int i = 0; i < 1_000; i++) {
                writer.add(rows.get(i));
            }
            // Nothing was encoded yet: the first look hands the rows over, so there is something to go by.
            long afterFirstThousand = writer.length();
            assertTrue(afterFirstThousand > 0, "an estimate before the first full batch: " + afterFirstThousand);
            for (int i = 1_000; i < 6_000; i++) {
                writer.add(rows.get(i));
            }
            long afterSixThousand = writer.length();
            // 5,000 rows waiting in the default 8,192-row batch are counted at the bytes per row seen so far.
            assertTrue(
                    afterSixThousand > 4 * afterFirstThousand,
                    "waiting rows are estimated: " + afterSixThousand + " after " + afterFirstThousand);
        }
    }

    @Test
    void theOpenRowGroupCountsInTheWritersTrackerUntilTheWriterClosesOrAborts() throws IOException {
        List<RowData> rows = bids(30_000, 5);
        try (MemoryTracker owner = MemoryTracker.root().child("buffered")) {
            NativeParquetWriter writer = NativeParquet.write(
                            Files.localOutput(dir.resolve("buffered.parquet").toFile()))
                    .schema(BIDS)
                    .memoryTracker(owner)
                    .build();
            try (writer) {
                for (RowData row : rows) {
                    writer.add(row);
                }
                // Three full batches went in; the default 128 MB row group is still open.
                assertTrue(owner.liveBytes() > 0, "pages held for the open row group");
            }
            assertEquals(0, owner.liveBytes(), "given back when the writer closed");

            NativeParquetWriter failing = NativeParquet.write(
                            Files.localOutput(dir.resolve("failing.parquet").toFile()))
                    .schema(BIDS)
                    .batchSize(1_000)
                    .memoryTracker(owner)
                    .build();
            for (int i = 0; i < 2_000; i++) {
                failing.add(rows.get(i));
            }
            assertTrue(owner.liveBytes() > 0);
            failing.abort();
            assertEquals(0, owner.liveBytes(), "given back when the writer was aborted");
        }
    }
}
