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
 * <p>Imports take one thread at a time; the arrays may be closed from any thread, in any order.
 * {@link #close()} ends the last run early: it then ends when its arrays are closed.
 */
public final class ImportArenas implements AutoCloseable {
    /** Runs of this length keep at most a few megabytes of closed batches of a typical scan. */
    public static final int DEFAULT_ARRAYS_PER_ARENA = 8;

    private final int arraysPerArena;
    private ArenaShare current;
    private boolean closed;

    public ImportArenas(int arraysPerArena) {
        if (arraysPerArena < 1) {
            throw new IllegalArgumentException("arraysPerArena must be at least 1, not " + arraysPerArena);
        }
        this.arraysPerArena = arraysPerArena;
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
            current = new ArenaShare(arraysPerArena);
            current.lease();
        }
        return current;
    }

    /** Takes no more imports; arrays already imported stay valid until they are closed. */
    @Override
    public void close() {
        if (!closed) {
            closed = true;
            if (current != null) {
                current.seal();
                current = null;
            }
        }
    }
}
