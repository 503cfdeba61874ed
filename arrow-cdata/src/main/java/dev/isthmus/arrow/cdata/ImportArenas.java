package dev.isthmus.arrow.cdata;

import dev.isthmus.arrow.memory.MemoryTracker;
import dev.isthmus.arrow.types.ArrowField;
import java.lang.foreign.MemorySegment;
import java.util.Objects;
import java.util.function.BiConsumer;
import java.util.function.Consumer;

/**
 * Imports a stream of arrays (a scan's batches) from a producer that keeps a released array's
 * memory mapped while the consumer holds it (a scan's pool, which reuses a released batch's buffers
 * for the next ones, docs/ownership.md), with one shared arena per run of {@code arraysPerArena}
 * consecutive arrays instead of one per array.
 *
 * <p>Why: views of an imported array must stop working before its memory can be freed, which
 * takes a shared arena (the array is produced on one thread and read and closed on others), and
 * closing a shared arena makes the JVM handshake with every one of its threads: 50-200 us on the
 * machines measured, once per batch. Here each array is released as soon as it is closed, so its
 * memory is reused at once, and only the arenas wait for their runs to end: a run costs one
 * handshake and no memory. The hold is released after the last arena has closed, so no segment
 * outlives the memory it points at. A closed array read before its run ends returns whatever the
 * producer has written there since; after it, reads throw {@link IllegalStateException}.
 * {@link #forBatches} gives every array an arena of its own instead when {@link CheckedBatches} are
 * on, so that reads after close throw at once.
 *
 * <p>Thread-safe: imports, closes of the arrays (in any order) and {@link #close()} may come from
 * any thread. {@link #close()} ends the last run early: it then ends when its arrays are closed.
 */
public final class ImportArenas implements AutoCloseable {
    /** Closed arrays take no memory here: runs only bound the handshakes. */
    public static final int DEFAULT_ARRAYS_PER_ARENA = 64;

    private final int arraysPerArena;
    private final boolean releaseAtOnce;
    private final Runnable releaseHold;
    private ArenaShare current;
    private boolean closed;
    /** Runs whose arena has not closed yet, and whether the hold has been released. */
    private int openRuns;
    private boolean holdReleased;

    /**
     * @param releaseHold releases the producer's hold on the arrays' memory; runs once, after this
     *     is closed and the last arena with it (possibly on a thread that closes an array)
     */
    public ImportArenas(int arraysPerArena, Runnable releaseHold) {
        this(arraysPerArena, true, releaseHold);
    }

    private ImportArenas(int arraysPerArena, boolean releaseAtOnce, Runnable releaseHold) {
        if (arraysPerArena < 1) {
            throw new IllegalArgumentException("arraysPerArena must be at least 1, not " + arraysPerArena);
        }
        this.arraysPerArena = arraysPerArena;
        this.releaseAtOnce = releaseAtOnce;
        this.releaseHold = Objects.requireNonNull(releaseHold);
    }

    /**
     * The arenas for a stream of batches: runs of {@value #DEFAULT_ARRAYS_PER_ARENA}, or, with
     * {@link CheckedBatches} on, an arena per array that closes when the array is closed and before
     * its release, so no read of a closed array can see the producer's next writes.
     */
    public static ImportArenas forBatches(Runnable releaseHold) {
        return CheckedBatches.ENABLED ? new ImportArenas(1, false, releaseHold)
                : new ImportArenas(DEFAULT_ARRAYS_PER_ARENA, true, releaseHold);
    }

    /** As {@link ImportedArray#receive(MemoryTracker, BiConsumer)}, in the current run's arena. */
    public ImportedArray receive(MemoryTracker tracker, BiConsumer<MemorySegment, MemorySegment> producer) {
        return ImportedArray.take(lease(), tracker, null, producer);
    }

    /** As {@link ImportedArray#receive(MemoryTracker, ArrowField, Consumer)}, in the current run's arena. */
    public ImportedArray receive(MemoryTracker tracker, ArrowField field, Consumer<MemorySegment> producer) {
        return ImportedArray.take(lease(), tracker, field, (array, schema) -> producer.accept(array));
    }

    /** Synchronized with {@link #close()}, so no run starts after the hold may have been released. */
    private synchronized ArenaShare lease() {
        if (closed) {
            throw new IllegalStateException("these import arenas are closed");
        }
        if (current == null || !current.lease()) {
            // A full run ends by itself when its arrays are closed.
            openRuns++;
            current = new ArenaShare(arraysPerArena, releaseAtOnce, this::runEnded);
            current.lease();
        }
        return current;
    }

    private void runEnded() {
        synchronized (this) {
            openRuns--;
        }
        releaseHoldIfDone();
    }

    private void releaseHoldIfDone() {
        synchronized (this) {
            if (!closed || openRuns > 0 || holdReleased) {
                return;
            }
            holdReleased = true;
        }
        releaseHold.run();
    }

    /** Takes no more imports; arrays already imported stay valid until they are closed. */
    @Override
    public void close() {
        ArenaShare last;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            last = current;
            current = null;
        }
        try {
            if (last != null) {
                last.seal();
            }
        } finally {
            releaseHoldIfDone();
        }
    }
}
