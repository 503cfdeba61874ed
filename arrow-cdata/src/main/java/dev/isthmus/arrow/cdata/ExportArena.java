package dev.isthmus.arrow.cdata;

import dev.isthmus.arrow.builder.NativeBuffer;
import dev.isthmus.arrow.memory.MemoryTracker;
import java.lang.foreign.Arena;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The memory of one export: an arena holding its structs, pointer arrays and strings, plus the
 * data buffers it took over, reference-counted by its structs. When the last struct is released
 * (on whatever thread the consumer releases it) the buffers are freed, so a child moved out and
 * released after its parent still finds its memory alive.
 *
 * <p>The arena is an automatic one: the export registry keeps it reachable until the last
 * release, and the garbage collector frees its few hundred bytes after that. Closing a shared
 * arena instead would cost a handshake with every thread of the JVM (see {@link ImportArenas}) for every
 * batch a sink exports, and nothing reads these structs after their release, so the validity
 * check a closed arena would give buys nothing.
 */
final class ExportArena {
    private final Arena arena = Arena.ofAuto();
    private final MemoryTracker tracker;
    /** Whether this export is an array, counted by {@link MemoryTracker#arrayOpened()}. */
    private final boolean array;

    private final AtomicInteger liveStructs = new AtomicInteger();
    /** Ids of the structs registered so far, to take back if the export fails half-way. */
    private final List<Long> registered = new ArrayList<>();
    /**
     * Written last by the exporting thread and read first by the thread that releases last: this
     * volatile publishes the rest of the object (arenaBytes) to that thread.
     */
    private volatile List<NativeBuffer> buffers = List.of();

    private long arenaBytes;

    ExportArena(MemoryTracker tracker, boolean array) {
        this.tracker = tracker;
        this.array = array;
    }

    MemorySegment allocate(MemoryLayout layout) {
        arenaBytes += layout.byteSize();
        return arena.allocate(layout);
    }

    MemorySegment allocate(MemoryLayout element, long count) {
        arenaBytes += element.byteSize() * count;
        return arena.allocate(element, count);
    }

    MemorySegment allocateString(String value) {
        MemorySegment string = arena.allocateFrom(value);
        arenaBytes += string.byteSize();
        return string;
    }

    /** Records one more struct of this export; returns the id for its {@code private_data}. */
    long register(ExportKind kind, MemorySegment[] dependents) {
        long id = ExportRegistry.register(new ExportedStruct(kind, this, dependents));
        registered.add(id);
        liveStructs.incrementAndGet();
        return id;
    }

    /**
     * Counts the arena's memory (and, for an array, the array) as Java's until the last release:
     * the one step of an export a capped tracker may refuse, so it runs before the batch's buffers
     * are handed over, while a refusal can still {@link #abandon} the export whole. The arena's
     * bytes are few, but they are native memory and the cap counts all of it.
     *
     * @throws dev.isthmus.arrow.memory.MemoryLimitExceededException if that passes a cap; nothing
     *     is counted then
     */
    void account() {
        tracker.allocated(arenaBytes);
        if (array) {
            tracker.arrayOpened();
        }
    }

    /** Makes the accounted export live: the buffers are now freed at the last release. */
    void publish(List<NativeBuffer> takenBuffers) {
        registered.clear();
        buffers = takenBuffers;
    }

    /**
     * Undoes an export that failed before {@link #account} returned: nothing was counted or handed
     * out, so forgetting its structs (and the arena, to the garbage collector) is all there is.
     */
    void abandon() {
        for (long id : registered) {
            ExportRegistry.remove(id);
        }
    }

    /** One struct of this export was released; the last one frees everything. */
    void structReleased() {
        if (liveStructs.decrementAndGet() == 0) {
            List<NativeBuffer> owned = buffers;
            for (NativeBuffer buffer : owned) {
                buffer.free();
            }
            tracker.freed(arenaBytes);
            if (array) {
                tracker.arrayClosed();
            }
        }
    }
}
