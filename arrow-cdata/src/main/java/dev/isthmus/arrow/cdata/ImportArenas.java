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
 * for the next ones, docs/ownership.md), into runs of consecutive arrays that share one shared
 * arena instead of an arena per array ({@link ArenaRuns}; a stream opened on its own has runs of
 * its own).
 *
 * <p>Why: views of an imported array must stop working before its memory can be freed, which
 * takes a shared arena (the array is produced on one thread and read and closed on others), and
 * closing a shared arena makes the JVM handshake with every one of its threads, once per batch
 * (a JFR recording over 1,024 small files counted 16,415 such pauses; docs/benchmarks.md, "Tables
 * of many small files"). Here each array is released as soon as it is closed, so its
 * memory is reused at once, and only the arenas wait for their runs to end: a run costs one
 * handshake. The hold is released after the last arena with the stream's arrays has closed, so no
 * segment outlives the memory it points at. A closed array read before its run ends returns
 * whatever the producer has written there since; after it, reads throw
 * {@link IllegalStateException}. {@link #forBatches} gives every array an arena of its own instead
 * when {@link CheckedBatches} are on, so that reads after close throw at once.
 *
 * <p>Thread-safe: imports, closes of the arrays (in any order) and {@link #close()} may come from
 * any thread. {@link #close()} takes no more imports; the hold is released once the runs with the
 * stream's arrays have ended.
 */
public final class ImportArenas implements AutoCloseable {
    /** Arrays per run for a stream with runs of its own, as {@link ArenaRuns#DEFAULT_ARRAYS_PER_ARENA}. */
    public static final int DEFAULT_ARRAYS_PER_ARENA = ArenaRuns.DEFAULT_ARRAYS_PER_ARENA;

    private final ArenaRuns runs;
    final Runnable releaseHold;
    /** Whether {@link #runs} is this stream's alone, to be closed with it. */
    private final boolean ownRuns;
    /** The bytes of the largest array imported: about what the producer's pool keeps mapped. */
    private long largestArray;
    // Guarded by the runs' monitor.
    boolean closed;
    int openRuns;
    boolean holdReleased;

    /**
     * A stream with runs of its own of {@code arraysPerArena} arrays.
     *
     * @param releaseHold releases the producer's hold on the arrays' memory; runs once, after this
     *     is closed and the last arena with it (possibly on a thread that closes an array)
     */
    public ImportArenas(int arraysPerArena, Runnable releaseHold) {
        this(new ArenaRuns(arraysPerArena, Long.MAX_VALUE), releaseHold, true);
    }

    ImportArenas(ArenaRuns runs, Runnable releaseHold, boolean ownRuns) {
        this.runs = runs;
        this.releaseHold = Objects.requireNonNull(releaseHold);
        this.ownRuns = ownRuns;
    }

    /** A stream of batches with runs of its own, as {@link ArenaRuns#forBatches()} makes them. */
    public static ImportArenas forBatches(Runnable releaseHold) {
        return new ImportArenas(ArenaRuns.forBatches(), releaseHold, true);
    }

    /** As {@link ImportedArray#receive(MemoryTracker, BiConsumer)}, in the current run's arena. */
    public ImportedArray receive(MemoryTracker tracker, BiConsumer<MemorySegment, MemorySegment> producer) {
        return noted(ImportedArray.take(runs.lease(this), tracker, null, producer));
    }

    /** As {@link ImportedArray#receive(MemoryTracker, ArrowField, Consumer)}, in the current run's arena. */
    public ImportedArray receive(MemoryTracker tracker, ArrowField field, Consumer<MemorySegment> producer) {
        return noted(ImportedArray.take(runs.lease(this), tracker, field, (array, schema) -> producer.accept(array)));
    }

    private ImportedArray noted(ImportedArray array) {
        synchronized (this) {
            largestArray = Math.max(largestArray, array.bufferBytes());
        }
        return array;
    }

    /** Takes no more imports; arrays already imported stay valid until they are closed. */
    @Override
    public void close() {
        long mapped;
        synchronized (this) {
            mapped = largestArray;
        }
        try {
            runs.closed(this, mapped);
        } finally {
            if (ownRuns) {
                runs.close();
            }
        }
    }
}
