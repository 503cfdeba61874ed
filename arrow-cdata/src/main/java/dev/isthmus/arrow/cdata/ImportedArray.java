package dev.isthmus.arrow.cdata;

import dev.isthmus.arrow.memory.MemoryTracker;
import dev.isthmus.arrow.types.ArrowField;
import dev.isthmus.ffm.gen.ArrowArray;
import dev.isthmus.ffm.gen.ArrowSchema;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BiConsumer;
import java.util.function.Consumer;

/**
 * An Arrow array produced by the native library and now owned by Java: the
 * {@code ArrowArray}/{@code ArrowSchema} pair, their buffers (still in native memory, read in
 * place through {@link #view()}), and the duty to release them exactly once.
 *
 * <p>{@link #close()} closes the arena every view's segments belong to and then calls the
 * producer's release callbacks, so reading after close throws {@link IllegalStateException}
 * rather than touching freed memory, even on a thread racing with the close. Closing twice does
 * nothing. Arrays imported through {@link ImportArenas} are released when closed but share an
 * arena with the arrays imported next to them, which closes when all of those are closed too; the
 * producer keeps their memory mapped until then ({@link CheckedBatches} on: an arena of their own,
 * as here). See docs/ownership.md.
 */
public final class ImportedArray implements AutoCloseable {
    private final ArenaShare share;
    private final MemorySegment array;
    private final MemorySegment schema;
    private final MemoryTracker tracker;
    private final ArrowField field;
    private final ArrowArrayView view;
    /** The bytes of the producer's buffers, counted in the tracker while the array is held. */
    private final long bufferBytes;

    private final AtomicBoolean closed = new AtomicBoolean();

    private ImportedArray(
            ArenaShare share,
            MemorySegment array,
            MemorySegment schema,
            MemoryTracker tracker,
            ArrowField field,
            ArrowArrayView view,
            long bufferBytes) {
        this.share = share;
        this.array = array;
        this.schema = schema;
        this.tracker = tracker;
        this.field = field;
        this.view = view;
        this.bufferBytes = bufferBytes;
    }

    /**
     * Allocates empty structs, lets {@code producer} fill them (typically a native call that
     * takes them as out-parameters), and takes ownership of what it produced.
     *
     * <p>If the producer throws, or what it produced is not a valid array, whatever it filled
     * in is released and the exception propagates: nothing leaks either way.
     *
     * @param producer receives the {@code ArrowArray} and {@code ArrowSchema} to fill
     */
    public static ImportedArray receive(MemoryTracker tracker, BiConsumer<MemorySegment, MemorySegment> producer) {
        return take(ownShare(), tracker, null, producer);
    }

    /**
     * Like {@link #receive(MemoryTracker, BiConsumer)} for a producer that fills only the
     * {@code ArrowArray}, its schema being known already (a scan's batches all share one).
     */
    public static ImportedArray receive(MemoryTracker tracker, ArrowField field, Consumer<MemorySegment> producer) {
        return take(ownShare(), tracker, field, (array, schema) -> producer.accept(array));
    }

    /** An arena of the array's own. */
    private static ArenaShare ownShare() {
        ArenaShare share = new ArenaShare(1);
        share.lease();
        return share;
    }

    /**
     * Imports into a place leased from {@code share}, which gets it back when the array is
     * closed (or at once, if the import fails). With {@code knownField} null, a schema struct is
     * allocated beside the array and read. The bytes of the array's buffers are counted in
     * {@code tracker} until it is released, so that a capped tracker refuses an array that would
     * take it past its cap: the array is then released at once and the exception propagates.
     */
    static ImportedArray take(
            ArenaShare share,
            MemoryTracker tracker,
            ArrowField knownField,
            BiConsumer<MemorySegment, MemorySegment> producer) {
        Arena arena = share.arena();
        MemorySegment array;
        MemorySegment schema;
        try {
            // The structs outlive the share's arena: releases run after it closes (ArenaShare).
            Arena structs = Arena.ofAuto();
            array = ArrowArray.allocate(structs);
            schema = knownField == null ? ArrowSchema.allocate(structs) : null;
            tracker.allocated(structBytes(schema));
        } catch (Throwable t) {
            share.giveBack(() -> {});
            throw t;
        }
        try {
            producer.accept(array, schema);
            if (ArrowArray.release(array).equals(MemorySegment.NULL)) {
                throw new IllegalStateException("the producer did not fill the ArrowArray (release is NULL)");
            }
            ArrowField field = knownField != null ? knownField : SchemaImport.read(schema);
            ArrowArrayView view = ArrowArrayView.read(array, field, arena);
            long bytes = bufferBytes(view);
            tracker.allocated(bytes);
            tracker.arrayOpened();
            return new ImportedArray(share, array, schema, tracker, field, view, bytes);
        } catch (Throwable t) {
            share.giveBack(() -> release(array, schema, tracker, 0));
            throw t;
        }
    }

    /**
     * The bytes the array's buffers span, as its type and length bound them (so not any spare
     * capacity of the producer's allocations); a dictionary shared by several arrays counts in each.
     */
    static long bufferBytes(ArrowArrayView view) {
        long bytes = 0;
        for (int i = 0; i < view.bufferCount(); i++) {
            MemorySegment buffer = view.buffer(i);
            if (buffer != null) {
                bytes += buffer.byteSize();
            }
        }
        for (int i = 0; i < view.childCount(); i++) {
            bytes += bufferBytes(view.child(i));
        }
        return view.dictionary() == null ? bytes : bytes + bufferBytes(view.dictionary());
    }

    private static long structBytes(MemorySegment schema) {
        return ArrowArray.sizeof() + (schema == null ? 0 : ArrowSchema.sizeof());
    }

    public ArrowField field() {
        return field;
    }

    /** The array's buffers, valid until {@link #close()}. */
    public ArrowArrayView view() {
        return view;
    }

    public long length() {
        return view.length();
    }

    /** The bytes of the producer's buffers this array spans. */
    long bufferBytes() {
        return bufferBytes;
    }

    /** Whether {@link #close()} has been called. */
    public boolean isClosed() {
        return closed.get();
    }

    /**
     * Releases the producer's memory, or lets the array's arena share release it with the rest of
     * the share. Safe to call more than once, from any thread.
     */
    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            tracker.arrayClosed();
            share.giveBack(() -> release(array, schema, tracker, bufferBytes));
        }
    }

    /** {@code schema} is {@code null} when the import did not include one. */
    private static void release(MemorySegment array, MemorySegment schema, MemoryTracker tracker, long bufferBytes) {
        try {
            MemorySegment releaseArray = ArrowArray.release(array);
            if (!releaseArray.equals(MemorySegment.NULL)) {
                ArrowArray.release.invoke(releaseArray, array);
            }
            if (schema != null) {
                MemorySegment releaseSchema = ArrowSchema.release(schema);
                if (!releaseSchema.equals(MemorySegment.NULL)) {
                    ArrowSchema.release.invoke(releaseSchema, schema);
                }
            }
        } finally {
            tracker.freed(structBytes(schema) + bufferBytes);
        }
    }
}
