package dev.isthmus.iceberg.source.parquet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.isthmus.arrow.LeakCheckExtension;
import dev.isthmus.arrow.memory.MemoryTracker;
import dev.isthmus.ffm.NativeException;
import dev.isthmus.ffm.Status;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Damaged files fail with the status a caller quarantining bad files looks for
 * ({@link NativeException.CorruptData}), and with a message naming the file, on every path:
 * local, through {@code FileIO} (where the library sees only bytes Java hands it) and scans.
 */
@ExtendWith(LeakCheckExtension.class)
class DamagedFilesTest {
    private static final Schema SCHEMA = new Schema(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.optional(2, "name", Types.StringType.get()));

    @TempDir
    Path dir;

    private final MemoryTracker tracker = MemoryTracker.root().child("DamagedFilesTest");
    private Path intact;

    @BeforeEach
    void writeIntactFile() {
        intact = dir.resolve("intact.parquet");
        List<Record> records = new java.util.ArrayList<>();
        for (long i = 0; i < 2000; i++) {
            Record record = GenericRecord.create(SCHEMA);
            record.setField("id", i);
            record.setField("name", i % 7 == 0 ? null : "name " + (i % 100));
            records.add(record);
        }
        IcebergParquetFiles.write(intact, SCHEMA, records, Map.of());
    }

    @AfterEach
    void closeTracker() {
        tracker.close();
    }

    /** A copy of the intact file, with {@code damage} applied to its bytes. */
    private InputFile damaged(String name, UnaryOperator<byte[]> damage) throws IOException {
        Path file = dir.resolve(name);
        Files.write(file, damage.apply(Files.readAllBytes(intact)));
        return org.apache.iceberg.Files.localInput(file.toFile());
    }

    private static NativeException.CorruptData openFails(InputFile input) {
        return assertThrows(
                NativeException.CorruptData.class,
                () -> NativeParquetFile.open(input).close());
    }

    @Test
    void footerErrorsThroughFileIoNameTheFile() throws IOException {
        InputFile truncated = damaged("truncated.parquet", bytes -> Arrays.copyOf(bytes, bytes.length / 2));
        NativeException e = openFails(truncated);
        assertEquals(Status.CORRUPT_DATA, e.status());
        assertTrue(
                e.getMessage().startsWith(truncated.location() + ": not a Parquet file: it ends with "),
                e.getMessage());

        InputFile badMagic = damaged("bad-magic.parquet", bytes -> {
            bytes[bytes.length - 1] = 'X';
            return bytes;
        });
        assertEquals(
                badMagic.location() + ": not a Parquet file: it ends with [50, 41, 52, 58] instead of PAR1",
                openFails(badMagic).getMessage());

        InputFile badLength = damaged("bad-footer-length.parquet", bytes -> {
            ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).putInt(bytes.length - 8, bytes.length);
            return bytes;
        });
        assertEquals(
                badLength.location() + ": footer length " + badLength.getLength() + " does not fit a file of "
                        + badLength.getLength() + " bytes",
                openFails(badLength).getMessage());

        for (int size : new int[] {0, 3, 11}) {
            InputFile tiny = damaged("tiny-" + size + ".parquet", bytes -> Arrays.copyOf(bytes, size));
            assertEquals(
                    tiny.location() + ": not a Parquet file: " + size + " bytes are too few",
                    openFails(tiny).getMessage());
        }

        // Damage past the tail: the footer itself, which the library parses under the given name.
        InputFile badFooter = damaged("bad-footer.parquet", bytes -> {
            int length = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).getInt(bytes.length - 8);
            bytes[bytes.length - 8 - length] = 0x1f;
            return bytes;
        });
        assertTrue(openFails(badFooter).getMessage().startsWith(badFooter.location() + ": footer: "));
    }

    /**
     * A damaged dictionary page, reached by {@link NativeParquetFile#dictionary} and by scans, both
     * through FileIO: the message names file, row group, column and page.
     */
    @Test
    void damagedPagesThroughFileIoNameTheirPlace() throws IOException {
        long dataPage;
        try (NativeParquetFile file = NativeParquetFile.open(intact)) {
            NativeParquetFile.ColumnChunk name = file.columnChunk(0, 1);
            assertTrue(name.dictionaryCoversValues(), "the names are dictionary-encoded: " + name);
            dataPage = name.dataPageOffset();
        }
        // The last byte before the data pages is the dictionary page's: its checksum fails.
        InputFile input = damaged("damaged-dictionary.parquet", bytes -> {
            bytes[(int) dataPage - 1] ^= 0x55;
            return bytes;
        });
        String where = input.location() + ": row group 0, column 'name', page 0: ";
        try (NativeParquetFile file = NativeParquetFile.open(input)) {
            NativeException e = assertThrows(
                    NativeException.CorruptData.class,
                    () -> file.dictionary(0, 1, tracker).close());
            assertTrue(e.getMessage().startsWith(where + "page checksum mismatch"), e.getMessage());
            NativeException scan = assertThrows(
                    NativeException.CorruptData.class, () -> NativeRows.read(file, ScanOptions.of(SCHEMA), tracker));
            assertTrue(scan.getMessage().startsWith(where + "page checksum mismatch"), scan.getMessage());
        }
    }

    @Test
    void aFileLackingARequiredFieldIsCorruptOnBothPaths() {
        Schema projection = new Schema(
                Types.NestedField.required(1, "id", Types.LongType.get()),
                Types.NestedField.required(3, "added", Types.StringType.get()));
        for (boolean throughFileIo : new boolean[] {false, true}) {
            NativeException e = assertThrows(
                    NativeException.CorruptData.class,
                    () -> NativeRows.read(intact, ScanOptions.of(projection), throughFileIo, tracker));
            assertTrue(
                    e.getMessage().startsWith(intact.toString())
                            || e.getMessage()
                                    .startsWith(org.apache.iceberg.Files.localInput(intact.toFile())
                                            .location()),
                    e.getMessage());
            assertTrue(
                    e.getMessage().endsWith(": field id 3 ('added') is required, but the file does not have it"),
                    e.getMessage());
        }
        // Optional, it is a column of nulls (schema evolution).
        Schema optional = new Schema(
                Types.NestedField.required(1, "id", Types.LongType.get()),
                Types.NestedField.optional(3, "added", Types.StringType.get()));
        List<List<Object>> rows = NativeRows.read(intact, ScanOptions.of(optional), true, tracker);
        assertEquals(2000, rows.size());
        assertEquals(Arrays.asList(5L, null), rows.get(5));
    }

    @Test
    void pagesLargerThanTheScanLimitAreRefusedNamingThePage() {
        ScanOptions options = ScanOptions.of(SCHEMA).withMaxPageSize(100);
        for (boolean throughFileIo : new boolean[] {false, true}) {
            NativeException e = assertThrows(
                    NativeException.CorruptData.class, () -> NativeRows.read(intact, options, throughFileIo, tracker));
            assertTrue(
                    e.getMessage()
                            .contains("intact.parquet: row group 0, column 'id', page 0: " + "uncompressed_page_size "),
                    e.getMessage());
            assertTrue(
                    e.getMessage()
                            .endsWith(" exceeds the scan's limit of 100 bytes per page (the max_page_size "
                                    + "scan option)"),
                    e.getMessage());
        }
        assertEquals(
                2000,
                NativeRows.read(intact, ScanOptions.of(SCHEMA).withMaxPageSize(1 << 20), true, tracker)
                        .size());
        assertThrows(
                IllegalArgumentException.class, () -> ScanOptions.of(SCHEMA).withMaxPageSize(-1));
    }
}
