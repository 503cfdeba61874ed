package dev.isthmus.iceberg.source.parquet;

import dev.isthmus.arrow.memory.MemoryTracker;
import dev.isthmus.ffm.NativeErrors;
import dev.isthmus.ffm.NativeLibrary;
import dev.isthmus.ffm.gen.isthmus_file_info;
import dev.isthmus.ffm.gen.isthmus_h;
import dev.isthmus.ffm.gen.isthmus_row_group_info;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.SeekableInputStream;

/**
 * A Parquet data file opened by the native decoder: its parsed footer, row groups for pruning
 * and splitting, and {@link #scan} to read it. A local file is read by the library itself; a
 * file from Iceberg's {@code FileIO} is read by Java ({@link InputRanges}) into buffers the
 * library hands out, so any FileIO works.
 *
 * <p>Thread-safe for the metadata accessors; each scan is used by one thread at a time.
 */
public final class NativeParquetFile implements AutoCloseable {
    private final MemorySegment handle;
    private final String name;
    private final InputFile input;
    private final long rowCount;
    private final RowGroup[] rowGroups;
    private final AtomicBoolean closed = new AtomicBoolean();

    /** One row group: its rows, where they start in the file, and its bytes. */
    public record RowGroup(long rowCount, long firstRow, long byteOffset, long byteLength) {}

    private NativeParquetFile(MemorySegment handle, String name, InputFile input) {
        this.handle = handle;
        this.name = name;
        this.input = input;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment error = NativeErrors.allocate(arena);
            MemorySegment info = isthmus_file_info.allocate(arena);
            NativeErrors.check(isthmus_h.isthmus_file_get_info(handle, info, error), error);
            this.rowCount = isthmus_file_info.num_rows(info);
            this.rowGroups = new RowGroup[isthmus_file_info.num_row_groups(info)];
            MemorySegment rg = isthmus_row_group_info.allocate(arena);
            for (int i = 0; i < rowGroups.length; i++) {
                NativeErrors.check(isthmus_h.isthmus_file_row_group(handle, i, rg, error), error);
                rowGroups[i] = new RowGroup(isthmus_row_group_info.num_rows(rg), isthmus_row_group_info.first_row(rg),
                        isthmus_row_group_info.byte_offset(rg), isthmus_row_group_info.byte_length(rg));
            }
        } catch (RuntimeException e) {
            isthmus_h.isthmus_file_close(handle);
            throw e;
        }
    }

    /** Opens a local file, read by the library with positional reads. */
    public static NativeParquetFile open(Path path) {
        NativeLibrary.require();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment error = NativeErrors.allocate(arena);
            MemorySegment out = arena.allocate(ValueLayout.ADDRESS);
            NativeErrors.check(isthmus_h.isthmus_file_open_path(arena.allocateFrom(path.toString()), out, error), error);
            return new NativeParquetFile(out.get(ValueLayout.ADDRESS, 0), path.toString(), null);
        }
    }

    /** Opens a file through Iceberg's FileIO: Java reads the footer and, during scans, the column chunks. */
    public static NativeParquetFile open(InputFile input) {
        NativeLibrary.require();
        long size = input.getLength();
        try (SeekableInputStream stream = input.newStream(); Arena arena = Arena.ofConfined()) {
            InputRanges ranges = new InputRanges(stream, input.location());
            MemorySegment error = NativeErrors.allocate(arena);
            if (size < 8) {
                throw new IllegalArgumentException(input.location() + " is " + size + " bytes, too short for Parquet");
            }
            MemorySegment tail = arena.allocate(8);
            ranges.read(size - 8, tail);
            MemorySegment footerLength = arena.allocate(ValueLayout.JAVA_INT);
            NativeErrors.check(isthmus_h.isthmus_footer_length(tail, 8, size, footerLength, error), error);
            long length = Integer.toUnsignedLong(footerLength.get(ValueLayout.JAVA_INT, 0));
            MemorySegment footer = arena.allocate(Math.max(1, length));
            ranges.read(size - 8 - length, footer.asSlice(0, length));
            MemorySegment out = arena.allocate(ValueLayout.ADDRESS);
            NativeErrors.check(isthmus_h.isthmus_file_open_footer(footer, length, size,
                    arena.allocateFrom(input.location()), out, error), error);
            return new NativeParquetFile(out.get(ValueLayout.ADDRESS, 0), input.location(), input);
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

    /** Starts a scan; it keeps what it needs, so it may outlive this handle. */
    public NativeParquetScan scan(ScanOptions options, MemoryTracker tracker) {
        if (closed.get()) {
            throw new IllegalStateException(name + " is closed");
        }
        return NativeParquetScan.open(this, options, tracker);
    }

    MemorySegment handle() {
        return handle;
    }

    /** The FileIO the scan reads ranges from, or {@code null} for a local file the library reads. */
    InputFile input() {
        return input;
    }

    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            isthmus_h.isthmus_file_close(handle);
        }
    }
}
