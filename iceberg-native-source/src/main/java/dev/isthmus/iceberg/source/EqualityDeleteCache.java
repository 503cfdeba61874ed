package dev.isthmus.iceberg.source;

import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The equality delete sets this JVM (a TaskManager) loaded, shared by its readers: every data
 * file of a partition is deleted from by the same equality delete files, so the tasks of one scan
 * would otherwise decode them once each. Least recently used sets go first once the sets take
 * more than {@link #BUDGET_BYTES} of heap; a set larger than that is not kept. Delete files never
 * change once written, so a set is found again by its files' locations and the field ids.
 */
final class EqualityDeleteCache {
    /** The heap the cached sets may take together. */
    static final long BUDGET_BYTES = 64L << 20;

    /** One set's identity: its equality field ids (sorted) and its delete files' locations (sorted). */
    record Key(List<Integer> fieldIds, List<String> locations) {}

    private static final LinkedHashMap<Key, KeySet> SETS = new LinkedHashMap<>(16, 0.75f, true);
    private static long bytes;

    private EqualityDeleteCache() {}

    static synchronized KeySet get(Key key) {
        return SETS.get(key);
    }

    static synchronized void put(Key key, KeySet set) {
        if (set.bytes() > BUDGET_BYTES) {
            return;
        }
        KeySet previous = SETS.put(key, set);
        bytes += set.bytes() - (previous == null ? 0 : previous.bytes());
        Iterator<Map.Entry<Key, KeySet>> eldest = SETS.entrySet().iterator();
        while (bytes > BUDGET_BYTES) {
            bytes -= eldest.next().getValue().bytes();
            eldest.remove();
        }
    }

    /** The heap the cached sets take. */
    static synchronized long bytes() {
        return bytes;
    }

    /** Forgets every set (for tests that count loads). */
    static synchronized void clear() {
        SETS.clear();
        bytes = 0;
    }
}
