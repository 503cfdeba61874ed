package dev.isthmus.iceberg.source;

import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The keys of the equality delete files this JVM's readers loaded, one set per file, shared by
 * them: the data files of a partition are deleted from by mostly the same equality delete files,
 * so the tasks of one scan would otherwise decode them once each. Least recently used sets go
 * first once the sets take more than {@link #BUDGET_BYTES} of heap; a set larger than that is not
 * kept. Delete files never change once written, so a set is found again by its file's location and
 * the field ids. Two readers missing the same file at once both decode it.
 */
final class EqualityDeleteCache {
    /** The heap the cached sets may take together. */
    static final long BUDGET_BYTES = 128L << 20;

    /** One set's identity: its equality field ids (sorted) and its delete file's location. */
    record Key(List<Integer> fieldIds, String location) {}

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
