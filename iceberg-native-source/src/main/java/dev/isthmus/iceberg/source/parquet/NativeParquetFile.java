package dev.isthmus.iceberg.source.parquet;

import dev.isthmus.arrow.cdata.ArenaRuns;
import dev.isthmus.arrow.cdata.ImportedArray;
import dev.isthmus.arrow.memory.MemoryTracker;
import dev.isthmus.ffm.NativeCall;
import dev.isthmus.ffm.NativeHandle;
import dev.isthmus.ffm.NativeLibrary;
import dev.isthmus.ffm.gen.isthmus_column_chunk_info;
import dev.isthmus.ffm.gen.isthmus_column_info;
import dev.isthmus.ffm.gen.isthmus_file_info;
import dev.isthmus.ffm.gen.isthmus_h;
import dev.isthmus.ffm.gen.isthmus_row_group_info;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import org.apache.iceberg.Files;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.SeekableInputStream;
import org.apache.iceberg.mapping.MappedField;
import org.apache.iceberg.mapping.NameMapping;

/**
 * A Parquet data file opened by the native decoder: its parsed footer, row groups for pruning
 * and splitting, and {@link #scan} to read it. A local file is read by the library itself; a
 * file from Iceberg's {@code FileIO} is read by Java ({@link InputRanges}) into buffers the
 * library hands out, so any FileIO works.
 *
 * <p>Thread-safe, {@link #close()} included: every call that reads the library's copy of the
 * footer leases the handle ({@link NativeHandle}), so a close from another thread frees it only
 * once the calls in flight have returned, and calls that start after the close throw
 * {@link IllegalStateException}. What was copied to Java at open ({@link #rowGroup},
 * {@link #columns}) stays readable after close. Each scan is iterated by one thread at a time.
 */
public final class NativeParquetFile implements AutoCloseable {
    private final NativeHandle handle;
    private final String name;
    private final InputFile input;
    private final long rowCount;
    private final RowGroup[] rowGroups;
    private final List<Column> columns;

    /**
     * One row group: its rows, where they start in the file, its bytes (from the first byte of
     * its first column chunk to the end of its last), and the stored size of its column chunks.
     */
    public record RowGroup(long rowCount, long firstRow, long byteOffset, long byteLength, long compressedSize) {}

    /**
     * One leaf column.
     *
     * @param path the dotted path from below the root
     * @param fieldId the Iceberg field id, or -1 when the file has none
     * @param physicalType Parquet's physical type (0 BOOLEAN ... 7 FIXED_LEN_BYTE_ARRAY)
     * @param arrowFormat the Arrow format the decoder reads it as (it carries the logical type and
     *     its unit), or {@code null} when this build cannot decode it
     * @param repeated whether the column is inside a list or map (more than one value per row)
     */
    public record Column(String path, int fieldId, int physicalType, String arrowFormat, boolean repeated) {}

    /**
     * One column chunk's footer metadata.
     *
     * @param byteOffset the chunk's first byte (its dictionary page, else its first data page)
     * @param valueCount level entries, nulls included (rows, for a column outside lists and maps)
     * @param nullCount nulls, or -1 when the statistics do not say
     * @param min the statistics' minimum in Parquet's PLAIN encoding (no length prefix), or
     *     {@code null} when unknown
     * @param max likewise, the maximum
     * @param dictionaryPageOffset where its dictionary page starts, or -1 when it has none (0 also
     *     means none)
     * @param dataPageOffset where its first data page starts
     * @param encodings bit {@code e} set for each Parquet {@code Encoding} {@code e} the chunk lists
     * @param allDictionary 1 if its {@code encoding_stats} say every data page is dictionary-encoded,
     *     0 if they say not, -1 without {@code encoding_stats}
     */
    public record ColumnChunk(
            long byteOffset,
            long compressedSize,
            long valueCount,
            long nullCount,
            byte[] min,
            byte[] max,
            long dictionaryPageOffset,
            long dataPageOffset,
            int encodings,
            int allDictionary) {
        private static final int PLAIN_DICTIONARY = 2;
        private static final int RLE = 3;
        private static final int BIT_PACKED = 4;

        /**
         * Whether the chunk's dictionary page holds every value of the chunk, as parquet-java and
         * Iceberg's {@code ParquetDictionaryRowGroupFilter} decide it: from {@code encoding_stats}
         * when present; without them only from a v1 encoding list (PLAIN_DICTIONARY plus the levels'
         * RLE and BIT_PACKED), since a v2 chunk lists its dictionary page as PLAIN, which a data page
         * that fell back would list too.
         */
        public boolean dictionaryCoversValues() {
            // 0 means none too: the file's magic is there, and writers that set it so mean none, as
            // parquet-java reads it (ColumnChunkMetaData.getStartingPos).
            if (dictionaryPageOffset <= 0 || dataPageOffset <= dictionaryPageOffset) {
                return false;
            }
            if (allDictionary >= 0) {
                return allDictionary == 1;
            }
            int levels = (1 << RLE) | (1 << BIT_PACKED);
            return (encodings & (1 << PLAIN_DICTIONARY)) != 0 && (encodings & ~levels & ~(1 << PLAIN_DICTIONARY)) == 0;
        }
    }

    private NativeParquetFile(MemorySegment address, String name, InputFile input) {
        this.handle = new NativeHandle(address, name, isthmus_h::isthmus_file_close);
        this.name = name;
        this.input = input;
        // No other thread has the file yet: the address is used without a lease.
        try (NativeCall call = NativeCall.open()) {
            MemorySegment info = isthmus_file_info.allocate(call.arena());
            call.check(isthmus_h.isthmus_file_get_info(address, info, call.error()));
            this.rowCount = isthmus_file_info.num_rows(info);
            this.rowGroups = new RowGroup[isthmus_file_info.num_row_groups(info)];
            MemorySegment rg = isthmus_row_group_info.allocate(call.arena());
            for (int i = 0; i < rowGroups.length; i++) {
                call.check(isthmus_h.isthmus_file_row_group(address, i, rg, call.error()));
                rowGroups[i] = new RowGroup(
                        isthmus_row_group_info.num_rows(rg),
                        isthmus_row_group_info.first_row(rg),
                        isthmus_row_group_info.byte_offset(rg),
                        isthmus_row_group_info.byte_length(rg),
                        isthmus_row_group_info.compressed_size(rg));
            }
            Column[] leaves = new Column[isthmus_file_info.num_columns(info)];
            MemorySegment column = isthmus_column_info.allocate(call.arena());
            for (int i = 0; i < leaves.length; i++) {
                call.check(isthmus_h.isthmus_file_column(address, i, column, call.error()));
                MemorySegment format = isthmus_column_info.arrow_format(column);
                leaves[i] = new Column(
                        string(isthmus_column_info.path(column)),
                        isthmus_column_info.has_field_id(column) == 1 ? isthmus_column_info.field_id(column) : -1,
                        isthmus_column_info.physical_type(column),
                        format.equals(MemorySegment.NULL) ? null : string(format),
                        isthmus_column_info.max_repetition_level(column) > 0);
            }
            this.columns = List.of(leaves);
        } catch (RuntimeException e) {
            handle.close();
            throw e;
        }
    }

    /** Opens a local file, read by the library with positional reads. */
    public static NativeParquetFile open(Path path) {
        try (NativeCall call = NativeCall.open()) {
            MemorySegment out = call.pointer();
            call.check(isthmus_h.isthmus_file_open_path(call.string(path.toString()), out, call.error()));
            return new NativeParquetFile(NativeCall.address(out), path.toString(), null);
        }
    }

    /** Opens a file through Iceberg's FileIO: Java reads the footer and, during scans, the column chunks. */
    public static NativeParquetFile open(InputFile input) {
        NativeLibrary.require();
        long size = input.getLength();
        try (SeekableInputStream stream = input.newStream();
                NativeCall call = NativeCall.open()) {
            InputRanges ranges = new InputRanges(stream, input.location());
            // A file too short to have a tail is the library's to refuse, as too short for Parquet.
            MemorySegment tail = call.arena().allocate(8);
            if (size >= 8) {
                ranges.read(size - 8, tail);
            }
            MemorySegment footerLength = call.intSlot();
            // The library sees only the tail: name the file for it.
            call.check(isthmus_h.isthmus_footer_length(tail, 8, size, footerLength, call.error()), input.location());
            long length = Integer.toUnsignedLong(footerLength.get(ValueLayout.JAVA_INT, 0));
            MemorySegment footer = call.arena().allocate(Math.max(1, length));
            ranges.read(size - 8 - length, footer.asSlice(0, length));
            MemorySegment out = call.pointer();
            call.check(isthmus_h.isthmus_file_open_footer(
                    footer, length, size, call.string(input.location()), out, call.error()));
            return new NativeParquetFile(NativeCall.address(out), input.location(), input);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the footer of " + input.location(), e);
        }
    }

    public String name() {
        return name;
    }

    public long rowCount() {
        return rowCount;
    }

    public int rowGroupCount() {
        return rowGroups.length;
    }

    public RowGroup rowGroup(int i) {
        return rowGroups[i];
    }

    /** The leaf columns, in the file's order (the index is the {@code leaf} of {@link #columnChunk}). */
    public List<Column> columns() {
        return columns;
    }

    /**
     * The leaf columns with the field ids {@code mapping} gives their paths when no leaf of the
     * file has a field id, as Iceberg applies a name mapping (the repeated groups of 3-level lists
     * and maps, {@code list} and {@code key_value}, are not in a mapping's paths; a leaf the
     * mapping does not cover keeps -1); otherwise, or without a mapping, {@link #columns()}.
     */
    public List<Column> columns(NameMapping mapping) {
        if (mapping == null || columns.stream().anyMatch(c -> c.fieldId() >= 0)) {
            return columns;
        }
        return columns.stream()
                .map(c -> {
                    String[] path = c.path().split("\\.", -1);
                    MappedField mapped = mapping.find(path);
                    if (mapped == null) {
                        mapped = mapping.find(java.util.Arrays.stream(path)
                                .filter(name -> !name.equals("list") && !name.equals("key_value"))
                                .toArray(String[]::new));
                    }
                    return new Column(
                            c.path(),
                            mapped == null || mapped.id() == null ? -1 : mapped.id(),
                            c.physicalType(),
                            c.arrowFormat(),
                            c.repeated());
                })
                .toList();
    }

    /** The footer's metadata of leaf {@code leaf} in row group {@code rowGroup}, statistics copied out. */
    public ColumnChunk columnChunk(int rowGroup, int leaf) {
        // The statistics point into the footer: copied out under the lease.
        MemorySegment file = handle.acquire();
        try (NativeCall call = NativeCall.open()) {
            MemorySegment chunk = isthmus_column_chunk_info.allocate(call.arena());
            call.check(isthmus_h.isthmus_file_column_chunk(file, rowGroup, leaf, chunk, call.error()));
            return new ColumnChunk(
                    isthmus_column_chunk_info.byte_offset(chunk),
                    isthmus_column_chunk_info.compressed_size(chunk),
                    isthmus_column_chunk_info.num_values(chunk),
                    isthmus_column_chunk_info.null_count(chunk),
                    bytes(isthmus_column_chunk_info.min_value(chunk), isthmus_column_chunk_info.min_length(chunk)),
                    bytes(isthmus_column_chunk_info.max_value(chunk), isthmus_column_chunk_info.max_length(chunk)),
                    isthmus_column_chunk_info.dictionary_page_offset(chunk),
                    isthmus_column_chunk_info.data_page_offset(chunk),
                    isthmus_column_chunk_info.encodings(chunk),
                    isthmus_column_chunk_info.all_dictionary(chunk));
        } finally {
            handle.release();
        }
    }

    /**
     * The dictionary of leaf {@code leaf} in row group {@code rowGroup}: its entries as an Arrow
     * array of the column's type ({@link Column#arrowFormat()}), which the caller closes. Java
     * reads only the dictionary page, {@code [dictionaryPageOffset, dataPageOffset)}, through the
     * file's FileIO (a local file through Iceberg's local input), so pruning a row group costs one
     * small read and never its data pages.
     *
     * @throws IllegalArgumentException if the chunk has no dictionary page before its data pages
     * @throws dev.isthmus.ffm.NativeException if the page is damaged or cannot be decoded
     */
    public ImportedArray dictionary(int rowGroup, int leaf, MemoryTracker tracker) {
        ColumnChunk chunk = columnChunk(rowGroup, leaf);
        long length = chunk.dataPageOffset() - chunk.dictionaryPageOffset();
        // The library checked the chunk's range against the file at open; the page lies inside it.
        if (chunk.dictionaryPageOffset() <= 0 || length <= 0 || length > chunk.compressedSize()) {
            throw new IllegalArgumentException(String.format(
                    Locale.ROOT,
                    "%s: row group %d, column '%s' has no dictionary page before its data pages (%d to %d)",
                    name,
                    rowGroup,
                    columns.get(leaf).path(),
                    chunk.dictionaryPageOffset(),
                    chunk.dataPageOffset()));
        }
        InputFile source = input != null ? input : Files.localInput(name);
        try (NativeCall call = NativeCall.open();
                SeekableInputStream stream = source.newStream()) {
            MemorySegment page = call.arena().allocate(length);
            new InputRanges(stream, name).read(chunk.dictionaryPageOffset(), page);
            // The page is read without the lease, so a close need not wait for the I/O.
            MemorySegment file = handle.acquire();
            try {
                return ImportedArray.receive(
                        tracker,
                        (array, schema) -> call.check(isthmus_h.isthmus_file_dictionary(
                                file, rowGroup, leaf, page, length, array, schema, call.error())));
            } finally {
                handle.release();
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read a dictionary page of " + name, e);
        }
    }

    /** Statistics bytes point into the file's memory, which lives until close: copy them out. */
    @SuppressWarnings("restricted")
    private static byte[] bytes(MemorySegment pointer, int length) {
        if (pointer.equals(MemorySegment.NULL)) {
            return null;
        }
        return pointer.reinterpret(Integer.toUnsignedLong(length)).toArray(ValueLayout.JAVA_BYTE);
    }

    /** Strings in column metadata live as long as the file; read up to their NUL. */
    @SuppressWarnings("restricted")
    private static String string(MemorySegment pointer) {
        return pointer.reinterpret(Long.MAX_VALUE).getString(0);
    }

    /** Starts a scan; it keeps what it needs, so it may outlive this handle. */
    public NativeParquetScan scan(ScanOptions options, MemoryTracker tracker) {
        return scan(options, tracker, null, null, null);
    }

    /**
     * Starts a scan whose batches share arenas with other scans' batches in {@code runs} (the files
     * of one split: one arena close per run rather than per file), or with runs of its own if
     * {@code null}, and whose expected schema is the one {@code projections} keep for the options'
     * projection (the split's, {@link ExportedProjections}), or one exported for this scan if they
     * keep none or are {@code null}, and whose memory comes from the pool {@code memory} shares with
     * the split's other scans, or from a pool of its own if {@code null}; it keeps what it needs, so
     * it may outlive this handle.
     *
     * @throws IllegalStateException if {@code runs}, {@code projections} or {@code memory} is closed
     */
    public NativeParquetScan scan(
            ScanOptions options,
            MemoryTracker tracker,
            ArenaRuns runs,
            ExportedProjections projections,
            ScanMemory memory) {
        MemorySegment file = handle.acquire();
        try {
            return NativeParquetScan.open(this, file, options, tracker, runs, projections, memory);
        } finally {
            handle.release();
        }
    }

    /** The FileIO the scan reads ranges from, or {@code null} for a local file the library reads. */
    InputFile input() {
        return input;
    }

    /** Frees the library's footer now, or once the calls in flight return; idempotent, any thread. */
    @Override
    public void close() {
        handle.close();
    }
}
