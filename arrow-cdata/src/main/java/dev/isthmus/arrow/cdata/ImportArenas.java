package dev.isthmus.arrow.cdata;

import dev.isthmus.arrow.memory.MemoryTracker;
import dev.isthmus.arrow.types.ArrowField;
import java.lang.foreign.MemorySegment;
import java.util.function.BiConsumer;
import java.util.function.Consumer;

/**
 * Imports a stream of arrays (a scan's batches) with one shared arena per run of
 * {@code arraysPerArena} consecutive arrays instead of one per array.
 *
 * <p>Why: views of an imported array must stop working when its memory is freed, which takes a
 * shared arena (the array is produced on one thread and read and closed on others), and closing a
 * shared arena makes the JVM handshake with every one of its threads: 50-200 us on the machines
 * measured, once per batch. Sharing the arena among a few consecutive batches pays that once per
 * run. The price, paid only by the runs' arrays: a closed array's memory is released when the last
 * array of its run is closed, so up to {@code arraysPerArena - 1} closed batches stay allocated
 * behind an open one, and a closed array read in the meantime returns its old values instead of
 * throwing. Once the memory is freed, reads throw {@link IllegalStateException} as for any import.
 *
 * <p>{@link #holding} is for a producer whose memory stays mapped after an array's release while
 * the consumer holds it (a scan's pool, which reuses a released batch's buffers for the next
 * ones): each array is released as soon as it is closed, so its memory is reused at once, and only
 * the arenas wait for their runs to end, which can then be long (few handshakes) at no cost in
 * memory. The hold is released after the last arena has closed. A closed array read before its run
 * ends then returns whatever the producer has written there since, never freed memory.
 *
 * <p>Imports take one thread at a time; the arrays may be closed from any thread, in any order.
 * {@link #close()} ends the last run early: it then ends when its arrays are closed.
 */
public final class ImportArenas implements AutoCloseable {
    /** Runs of this length keep at most a few megabytes of closed batches of a typical scan. */
    public static final int DEFAULT_ARRAYS_PER_ARENA = 8;
    /** With a held producer pool, closed arrays take no memory: runs only bound the handshakes. */
    public static final int HELD_ARRAYS_PER_ARENA = 64;

    private final int arraysPerArena;
    /** With a producer's hold: releases at once, and the hold's release after the last arena. */
    private final Runnable releaseHold;
    private ArenaShare current;
    private boolean closed;
    /** Runs whose arena has not closed yet, and whether the hold has been released. */
    private int openRuns;
    private boolean holdReleased;

    public ImportArenas(int arraysPerArena) {
        this(arraysPerArena, null);
    }

    private ImportArenas(int arraysPerArena, Runnable releaseHold) {
        if (arraysPerArena < 1) {
            throw new IllegalArgumentException("arraysPerArena must be at least 1, not " + arraysPerArena);
        }
        this.arraysPerArena = arraysPerArena;
        this.releaseHold = releaseHold;
    }

    /**
     * Imports of a producer that keeps released arrays' memory mapped until {@code releaseHold}
     * runs: arrays are released as soon as they are closed, and {@code releaseHold} runs once,
     * after this is closed and the last arena with it.
     */
    public static ImportArenas holding(int arraysPerArena, Runnable releaseHold) {
        return new ImportArenas(arraysPerArena, java.util.Objects.requireNonNull(releaseHold));
    }

    /** As {@link ImportedArray#receive(MemoryTracker, BiConsumer)}, in the current run's arena. */
    public ImportedArray receive(MemoryTracker tracker, BiConsumer<MemorySegment, MemorySegment> producer) {
        return ImportedArray.take(lease(), tracker, null, producer);
    }

    /** As {@link ImportedArray#receive(MemoryTracker, ArrowField, Consumer)}, in the current run's arena. */
    public ImportedArray receive(MemoryTracker tracker, ArrowField field, Consumer<MemorySegment> producer) {
        return ImportedArray.take(lease(), tracker, field, (array, schema) -> producer.accept(array));
    }

    private ArenaShare lease() {
        if (closed) {
            throw new IllegalStateException("these import arenas are closed");
        }
        if (current == null || !current.lease()) {
            // A full run ends by itself when its arrays are closed.
            if (releaseHold == null) {
                current = new ArenaShare(arraysPerArena);
            } else {
                synchronized (this) {
                    openRuns++;
                }
                current = new ArenaShare(arraysPerArena, true, this::runEnded);
            }
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
            if (releaseHold == null || !closed || openRuns > 0 || holdReleased) {
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
