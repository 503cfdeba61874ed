package dev.isthmus.iceberg.source.parquet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.isthmus.arrow.LeakCheckExtension;
import dev.isthmus.arrow.memory.MemoryTracker;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.iceberg.Schema;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Files written by Iceberg's own writer, under the table properties that change what
 * parquet-java writes, must decode natively to exactly the rows Iceberg's Flink reader reads.
 */
@ExtendWith(LeakCheckExtension.class)
class NativeDecodeCorrectnessTest {
    @TempDir
    Path dir;

    private final MemoryTracker tracker = MemoryTracker.root().child("NativeDecodeCorrectnessTest");

    @AfterEach
    void closeTracker() {
        tracker.close();
    }

    static Stream<Arguments> writerSettings() {
        return Stream.of(
                Arguments.of("defaults (v1 pages, zstd, dictionaries)", Map.of()),
                Arguments.of("v2 pages", Map.of("write.parquet.page-version", "v2")),
                Arguments.of("snappy", Map.of("write.parquet.compression-codec", "snappy")),
                Arguments.of("gzip", Map.of("write.parquet.compression-codec", "gzip")),
                Arguments.of("lz4", Map.of("write.parquet.compression-codec", "lz4")),
                Arguments.of(
                        "uncompressed v2",
                        Map.of("write.parquet.compression-codec", "uncompressed", "write.parquet.page-version", "v2")),
                Arguments.of("dictionaries off", Map.of("parquet.enable.dictionary", "false")),
                Arguments.of("dictionaries overflowing", Map.of("write.parquet.dict-size-bytes", "512")),
                Arguments.of(
                        "dictionaries overflowing, v2",
                        Map.of("write.parquet.dict-size-bytes", "512", "write.parquet.page-version", "v2")),
                Arguments.of(
                        "tiny pages, many row groups",
                        Map.of(
                                "write.parquet.page-size-bytes",
                                "512",
                                "write.parquet.page-row-limit",
                                "50",
                                "write.parquet.row-group-size-bytes",
                                "8192")),
                Arguments.of(
                        "tiny pages, many row groups, v2",
                        Map.of(
                                "write.parquet.page-size-bytes",
                                "512",
                                "write.parquet.page-row-limit",
                                "50",
                                "write.parquet.row-group-size-bytes",
                                "8192",
                                "write.parquet.page-version",
                                "v2")));
    }

    /**
     * Writes as a table with default properties would (zstd: {@code Parquet.write} alone would
     * fall back to gzip), with {@code properties} on top.
     */
    private Path write(String name, Schema schema, List<Record> records, Map<String, String> properties) {
        Path file = dir.resolve(name.replaceAll("[^a-z0-9]+", "-") + ".parquet");
        Map<String, String> table = new java.util.HashMap<>(
                Map.of(TableProperties.PARQUET_COMPRESSION, TableProperties.PARQUET_COMPRESSION_DEFAULT_SINCE_1_4_0));
        table.putAll(properties);
        IcebergParquetFiles.write(file, schema, records, table);
        return file;
    }

    private List<List<Object>> readNative(NativeParquetFile file, ScanOptions options) {
        return NativeRows.read(file, options, tracker);
    }

    private List<List<Object>> readNative(Path path, ScanOptions options, boolean throughFileIo) {
        return NativeRows.read(path, options, throughFileIo, tracker);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("writerSettings")
    void everyTypeDecodesAsIcebergsReaderReadsIt(String name, Map<String, String> properties) {
        List<Record> records = new RandomRecords(name.hashCode(), 0.15).records(RandomRecords.EVERY_TYPE, 3_000);
        Path file = write(name, RandomRecords.EVERY_TYPE, records, properties);
        List<List<Object>> expected = IcebergParquetFiles.readStock(file, RandomRecords.EVERY_TYPE);
        assertEquals(records.size(), expected.size());

        ScanOptions options = ScanOptions.of(RandomRecords.EVERY_TYPE).withBatchSize(1000);
        assertEquals(expected, readNative(file, options, false), "local file");
        assertEquals(expected, readNative(file, options, true), "through FileIO");
        assertEquals(
                expected,
                readNative(file, options.withDictionaries(true).withBatchSize(777), false),
                "dictionary arrays kept");
    }

    @ParameterizedTest(name = "seed {0}")
    @org.junit.jupiter.params.provider.ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8})
    void randomSchemasDecodeAsIcebergsReaderReadsThem(long seed) {
        Schema schema = RandomRecords.randomSchema(seed);
        List<Record> records = new RandomRecords(seed, 0.2).records(schema, 700);
        Map<String, String> settings = seed % 2 == 0
                ? Map.of("write.parquet.page-version", "v2")
                : Map.of("write.parquet.page-size-bytes", "1024", "write.parquet.row-group-size-bytes", "32768");
        Path file = write("random-" + seed, schema, records, settings);
        List<List<Object>> expected = IcebergParquetFiles.readStock(file, schema);
        assertEquals(records.size(), expected.size());
        assertEquals(
                expected,
                readNative(file, ScanOptions.of(schema).withBatchSize(256), seed % 3 == 0),
                schema.toString());
    }

    @Test
    void projectionReordersAndNewColumnsReadAsNull() {
        List<Record> records = new RandomRecords(5, 0.1).records(RandomRecords.EVERY_TYPE, 500);
        Path file = write("projection", RandomRecords.EVERY_TYPE, records, Map.of());
        Schema projection = new Schema(
                RandomRecords.EVERY_TYPE.findField("str"),
                Types.NestedField.optional(100, "added_later", Types.LongType.get()),
                RandomRecords.EVERY_TYPE.findField("i64"),
                RandomRecords.EVERY_TYPE.findField("dec38"));
        List<List<Object>> expected = IcebergParquetFiles.readStock(file, projection);
        List<List<Object>> actual = readNative(file, ScanOptions.of(projection), true);
        assertEquals(expected, actual);
        assertTrue(actual.stream().allMatch(row -> row.get(1) == null), "the new column is null everywhere");
    }

    @Test
    void resumesAtARowAndReadsChosenRowGroups() {
        List<Record> records = new RandomRecords(6, 0.1).records(RandomRecords.EVERY_TYPE, 2_000);
        Path file = write(
                "row-groups",
                RandomRecords.EVERY_TYPE,
                records,
                Map.of("write.parquet.row-group-size-bytes", "16384", "write.parquet.page-size-bytes", "2048"));
        List<List<Object>> all = IcebergParquetFiles.readStock(file, RandomRecords.EVERY_TYPE);
        try (NativeParquetFile parquet = NativeParquetFile.open(file)) {
            assertTrue(
                    parquet.rowGroupCount() > 2, "the test needs several row groups, got " + parquet.rowGroupCount());
            assertEquals(all.size(), parquet.rowCount());
            ScanOptions options = ScanOptions.of(RandomRecords.EVERY_TYPE).withBatchSize(300);

            assertEquals(all.subList(1_234, all.size()), readNative(parquet, options.withFirstRow(1_234)));

            NativeParquetFile.RowGroup second = parquet.rowGroup(1);
            NativeParquetFile.RowGroup last = parquet.rowGroup(parquet.rowGroupCount() - 1);
            List<List<Object>> chosen = readNative(
                    parquet,
                    options.withRowGroups(parquet.rowGroupCount() - 1, 1).withFirstRow(0));
            List<List<Object>> expectedChosen =
                    new ArrayList<>(all.subList((int) last.firstRow(), (int) (last.firstRow() + last.rowCount())));
            expectedChosen.addAll(all.subList((int) second.firstRow(), (int) (second.firstRow() + second.rowCount())));
            assertEquals(expectedChosen, chosen, "row groups in the order asked");
        }
    }

    @Test
    void aCorruptFileIsAnErrorNamingIt() throws Exception {
        List<Record> records = new RandomRecords(7, 0.1).records(RandomRecords.EVERY_TYPE, 200);
        Path file = write("corrupt", RandomRecords.EVERY_TYPE, records, Map.of());
        byte[] bytes = java.nio.file.Files.readAllBytes(file);
        bytes[bytes.length - 5] ^= 0x55; // the footer length
        Path broken = java.nio.file.Files.write(dir.resolve("broken.parquet"), bytes);
        var e = org.junit.jupiter.api.Assertions.assertThrows(
                dev.isthmus.ffm.NativeException.class,
                () -> NativeParquetFile.open(broken).close());
        assertTrue(e.getMessage().contains("broken.parquet"), e.getMessage());

        byte[] pages = java.nio.file.Files.readAllBytes(file);
        for (int i = 4; i < Math.min(pages.length / 2, 400); i += 3) {
            pages[i] ^= (byte) 0xA5; // damage the first column chunk
        }
        Path damaged = java.nio.file.Files.write(dir.resolve("damaged.parquet"), pages);
        var decode = org.junit.jupiter.api.Assertions.assertThrows(
                RuntimeException.class, () -> readNative(damaged, ScanOptions.of(RandomRecords.EVERY_TYPE), false));
        assertTrue(decode.getMessage().contains("damaged.parquet"), decode.getMessage());
        assertTrue(decode.getMessage().contains("row group 0"), decode.getMessage());
    }
}
