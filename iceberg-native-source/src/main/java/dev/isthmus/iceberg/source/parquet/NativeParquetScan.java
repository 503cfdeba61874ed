package dev.isthmus.iceberg.source.parquet;

import dev.isthmus.arrow.cdata.ArenaRuns;
import dev.isthmus.arrow.cdata.ImportArenas;
import dev.isthmus.arrow.cdata.ImportedArray;
import dev.isthmus.arrow.cdata.SchemaImport;
import dev.isthmus.arrow.flink.vector.ArrowColumnarBatch;
import dev.isthmus.arrow.memory.MemoryTracker;
import dev.isthmus.arrow.types.ArrowField;
import dev.isthmus.ffm.NativeCall;
import dev.isthmus.ffm.NativeErrors;
import dev.isthmus.ffm.NativeHandle;
import dev.isthmus.ffm.gen.ArrowArray;
import dev.isthmus.ffm.gen.isthmus_h;
import dev.isthmus.ffm.gen.isthmus_range;
import dev.isthmus.ffm.gen.isthmus_scan_options;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.Iterator;
import java.util.NoSuchElementException;
import java.util.function.Function;
import java.util.function.Supplier;
import org.apache.iceberg.Schema;
import org.apache.iceberg.io.SeekableInputStream;
import org.apache.iceberg.mapping.MappedField;
import org.apache.iceberg.mapping.NameMapping;
import org.apache.iceberg.types.Types;

/**
 * Batches of one file's projected columns, decoded natively. Each {@link ArrowColumnarBatch}
 * owns its native memory and must be closed by whoever consumes it (the Flink source closes it
 * on recycle); batches stay valid after the scan is closed. A closed batch's buffers go back to
 * the library's pool for the scan's next batches at once. Views of it then read whatever the scan,
 * or another scan sharing its pool ({@link ScanMemory}), decodes there next (the scan holds the
 * pool's memory, so never freed memory) until the batches
 * imported with it in one arena ({@link ImportArenas}; with shared {@link ArenaRuns}, possibly the
 * batches of other scans, up to the split's end) are closed too, after which they throw
 * {@link IllegalStateException}; with {@link dev.isthmus.arrow.cdata.CheckedBatches} on they throw
 * as soon as the batch is closed.
 *
 * <p>Iterated by one thread at a time; {@link #close()} may come from any thread at any moment.
 * Each {@link #hasNext()} and {@link #next()} leases the native scan ({@link NativeHandle}), so a
 * close racing them frees the scan (and a batch decoded but not yet taken) once they return, and
 * later calls throw {@link IllegalStateException}.
 */
@SuppressWarnings("restricted") // library-owned range buffers are reinterpreted to their stated length
public final class NativeParquetScan implements Iterator<ArrowColumnarBatch>, AutoCloseable {
    private final NativeParquetFile file;
    /** Owns the native scan and everything below that its calls use; freed by {@link #free}. */
    private final NativeHandle scan;

    private final ArrowField schema;
    private final MemoryTracker tracker;
    /**
     * The structs every call fills. Calls in flight keep the scan alive ({@link NativeHandle}), and
     * the scan may be freed on any thread, so they need an arena open to every thread; an
     * automatic one, as closing a shared arena handshakes with every thread of the JVM, once per
     * file for a split of many small files.
     */
    private final Arena scratch = Arena.ofAuto();

    private final ImportArenas batchArenas;
    private final MemorySegment error = NativeErrors.allocate(scratch);
    private final MemorySegment state = scratch.allocate(ValueLayout.JAVA_INT);
    private final MemorySegment produced = ArrowArray.allocate(scratch);
    private SeekableInputStream stream;
    private InputRanges ranges;
    private ArrowColumnarBatch pending;
    private boolean ended;

    private NativeParquetScan(
            NativeParquetFile file,
            MemorySegment scan,
            MemorySegment memoryHold,
            ArrowField schema,
            MemoryTracker tracker,
            ArenaRuns runs) {
        this.file = file;
        this.scan = new NativeHandle(scan, "scan of " + file.name(), this::free);
        this.schema = schema;
        this.tracker = tracker;
        // The hold is released once every batch's arena is closed, possibly on another thread.
        Runnable releaseHold = () -> isthmus_h.isthmus_scan_memory_release(memoryHold);
        this.batchArenas = runs == null ? ImportArenas.forBatches(releaseHold) : runs.open(releaseHold);
    }

    /**
     * The names {@code mapping} gives each projected field, as the header lays them out: each
     * name NUL-terminated, each field's list ended by an empty name.
     */
    static byte[] mappedNames(Schema projection, NameMapping mapping) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (Types.NestedField field : projection.columns()) {
            MappedField mapped = mapping.find(field.fieldId());
            if (mapped != null) {
                for (String name : mapped.names()) {
                    // An empty name, or one with a NUL, cannot be a Parquet field's: the list's end
                    // would come early.
                    if (!name.isEmpty() && name.indexOf('\0') < 0) {
                        out.writeBytes(name.getBytes(StandardCharsets.UTF_8));
                        out.write(0);
                    }
                }
            }
            out.write(0);
        }
        return out.toByteArray();
    }

    /**
     * Opens a scan of {@code file}, whose handle {@code fileHandle} the caller holds a lease on; its
     * batches' arenas come from {@code runs}, or from runs of its own if {@code null}; its expected
     * schema from {@code projections} when they keep the projection, or exported for this call; its
     * memory from the pool of {@code memory}, or from a pool of its own if {@code null}.
     */
    static NativeParquetScan open(
            NativeParquetFile file,
            MemorySegment fileHandle,
            ScanOptions options,
            MemoryTracker tracker,
            ArenaRuns runs,
            ExportedProjections projections,
            ScanMemory memory) {
        MemorySegment scan;
        try (NativeCall call = NativeCall.open()) {
            Arena arena = call.arena();
            MemorySegment opts = isthmus_scan_options.allocate(arena);
            int[] ids = options.projection().columns().stream()
                    .mapToInt(Types.NestedField::fieldId)
                    .toArray();
            isthmus_scan_options.field_ids(opts, arena.allocateFrom(ValueLayout.JAVA_INT, ids));
            isthmus_scan_options.num_field_ids(opts, ids.length);
            int[] groups = options.rowGroups();
            if (groups != null) {
                isthmus_scan_options.row_groups(opts, arena.allocateFrom(ValueLayout.JAVA_INT, groups));
                isthmus_scan_options.num_row_groups(opts, groups.length);
            }
            isthmus_scan_options.first_row(opts, options.firstRow());
            isthmus_scan_options.batch_size(opts, options.batchSize());
            isthmus_scan_options.max_page_size(opts, options.maxPageSize());
            isthmus_scan_options.flags(
                    opts, options.keepDictionaries() ? isthmus_h.ISTHMUS_SCAN_FLAG_KEEP_DICTIONARIES() : 0);
            if (options.nameMapping() != null) {
                byte[] names = mappedNames(options.projection(), options.nameMapping());
                isthmus_scan_options.mapped_names(opts, arena.allocateFrom(ValueLayout.JAVA_BYTE, names));
                isthmus_scan_options.mapped_names_length(opts, names.length);
            }
            MemorySegment out = call.pointer();
            Function<MemorySegment, MemorySegment> openWith =
                    expected -> openScan(call, fileHandle, opts, expected, out);
            Supplier<MemorySegment> openProjected = () -> projections == null
                    ? ExportedProjections.withOwnExport(options.projection(), tracker, arena, openWith)
                    : projections.withExported(options.projection(), tracker, arena, openWith);
            scan = memory == null
                    ? openProjected.get()
                    : memory.withHold(hold -> {
                        isthmus_scan_options.memory(opts, hold);
                        return openProjected.get();
                    });
        }
        try {
            if (memory != null) {
                memory.keep(scan);
            }
            ArrowField schema = SchemaImport.receive(s -> {
                try (NativeCall call = NativeCall.open()) {
                    call.check(isthmus_h.isthmus_scan_schema(scan, s, call.error()));
                }
            });
            MemorySegment hold;
            try (NativeCall call = NativeCall.open()) {
                MemorySegment out = call.pointer();
                call.check(isthmus_h.isthmus_scan_hold_memory(scan, out, call.error()));
                hold = NativeCall.address(out);
            }
            NativeParquetScan opened;
            try {
                opened = new NativeParquetScan(file, scan, hold, schema, tracker, runs);
            } catch (RuntimeException | Error e) {
                isthmus_h.isthmus_scan_memory_release(hold);
                throw e;
            }
            return opened;
        } catch (RuntimeException | Error e) {
            isthmus_h.isthmus_scan_close(scan);
            throw e;
        }
    }

    /** Opens the scan with {@code expected}, which the library reads during the call only. */
    private static MemorySegment openScan(
            NativeCall call, MemorySegment fileHandle, MemorySegment opts, MemorySegment expected, MemorySegment out) {
        isthmus_scan_options.expected_schema(opts, expected);
        call.check(isthmus_h.isthmus_scan_open(fileHandle, opts, out, call.error()));
        return NativeCall.address(out);
    }

    /** The schema of every batch: a struct of the projected columns. */
    public ArrowField schema() {
        return schema;
    }

    /** @throws IllegalStateException if the scan is closed */
    @Override
    public boolean hasNext() {
        MemorySegment handle = scan.acquire();
        try {
            if (pending == null && !ended) {
                pending = advance(handle);
            }
            return pending != null;
        } finally {
            scan.release();
        }
    }

    /** @throws IllegalStateException if the scan is closed */
    @Override
    public ArrowColumnarBatch next() {
        scan.acquire();
        try {
            if (!hasNext()) {
                throw new NoSuchElementException("no more batches in " + file.name());
            }
            ArrowColumnarBatch batch = pending;
            pending = null;
            return batch;
        } finally {
            scan.release();
        }
    }

    private ArrowColumnarBatch advance(MemorySegment scan) {
        while (true) {
            NativeErrors.check(isthmus_h.isthmus_scan_next(scan, produced, state, error), error);
            int s = state.get(ValueLayout.JAVA_INT, 0);
            if (s == isthmus_h.ISTHMUS_SCAN_STATE_BATCH()) {
                // Move the filled struct into the import, which then owns and releases it.
                ImportedArray imported;
                try {
                    imported = batchArenas.receive(tracker, schema, target -> {
                        MemorySegment.copy(produced, 0, target, 0, ArrowArray.sizeof());
                        ArrowArray.release(produced, MemorySegment.NULL);
                    });
                } catch (RuntimeException | Error e) {
                    releaseProduced(e);
                    throw e;
                }
                try {
                    return new ArrowColumnarBatch(imported);
                } catch (RuntimeException | Error e) {
                    closeAfter(imported, e);
                    throw e;
                }
            }
            if (s == isthmus_h.ISTHMUS_SCAN_STATE_END()) {
                ended = true;
                return null;
            }
            if (s != isthmus_h.ISTHMUS_SCAN_STATE_NEED_RANGES()) {
                throw new IllegalStateException("isthmus_scan_next reported unknown state " + s);
            }
            fillRanges(scan);
        }
    }

    /**
     * Releases a batch the import refused before moving it out of {@link #produced} (a capped
     * tracker refuses the import's own structs before it takes the batch); once moved, the
     * struct's release is NULL and this does nothing.
     */
    private void releaseProduced(Throwable failure) {
        try {
            MemorySegment release = ArrowArray.release(produced);
            if (!release.equals(MemorySegment.NULL)) {
                ArrowArray.release.invoke(release, produced);
            }
        } catch (RuntimeException | Error e) {
            failure.addSuppressed(e);
        }
    }

    /** Closes a batch imported for a view that could not be built, keeping the first failure. */
    private static void closeAfter(ImportedArray imported, Throwable failure) {
        try {
            imported.close();
        } catch (RuntimeException | Error e) {
            failure.addSuppressed(e);
        }
    }

    /** Reads the bytes the next row group needs into the library's buffers. */
    private void fillRanges(MemorySegment scan) {
        if (file.input() == null) {
            throw new IllegalStateException("the library asked for byte ranges of local file " + file.name());
        }
        try (NativeCall call = NativeCall.open()) {
            MemorySegment count = call.intSlot();
            call.check(isthmus_h.isthmus_scan_ranges(scan, MemorySegment.NULL, 0, count, call.error()));
            int n = count.get(ValueLayout.JAVA_INT, 0);
            MemorySegment list = isthmus_range.allocateArray(n, call.arena());
            call.check(isthmus_h.isthmus_scan_ranges(scan, list, n, count, call.error()));
            if (ranges == null) {
                stream = file.input().newStream();
                ranges = new InputRanges(stream, file.name());
            }
            for (int i = 0; i < n; i++) {
                MemorySegment range = isthmus_range.asSlice(list, i);
                long length = isthmus_range.length(range);
                ranges.read(
                        isthmus_range.offset(range), isthmus_range.buffer(range).reinterpret(length));
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file.name(), e);
        }
    }

    /** Frees the scan now, or once the call in flight returns; idempotent, any thread. Batches taken stay valid. */
    @Override
    public void close() {
        scan.close();
    }

    /** Runs once, after the close, when no call holds the scan. */
    private void free(MemorySegment scan) {
        try {
            if (pending != null) {
                pending.close();
                pending = null;
            }
            if (stream != null) {
                stream.close();
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot close " + file.name(), e);
        } finally {
            isthmus_h.isthmus_scan_close(scan);
            batchArenas.close();
        }
    }
}
