package dev.isthmus.arrow.cdata;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The exported structs not released yet, by the id their {@code private_data} holds. An id rather
 * than a pointer to a Java object: the native side may copy (move) a struct, and the copy's
 * release must still find its export; removing the id on release makes a second release of the
 * same struct detectable instead of a double free.
 */
final class ExportRegistry {
    private static final AtomicLong NEXT_ID = new AtomicLong(1); // never 0: private_data is then not NULL
    private static final ConcurrentHashMap<Long, ExportedStruct> LIVE = new ConcurrentHashMap<>();

    private ExportRegistry() {}

    static long register(ExportedStruct struct) {
        long id = NEXT_ID.getAndIncrement();
        LIVE.put(id, struct);
        return id;
    }

    /** The struct with this id, which is no longer registered; {@code null} if it was not. */
    static ExportedStruct remove(long id) {
        return LIVE.remove(id);
    }

    static int size() {
        return LIVE.size();
    }
}
