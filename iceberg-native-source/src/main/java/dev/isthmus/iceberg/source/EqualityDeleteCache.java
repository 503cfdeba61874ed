package dev.isthmus.iceberg.source;

import java.io.InterruptedIOException;
import java.io.UncheckedIOException;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.function.Supplier;

/**
 * The keys of the equality delete files this JVM's readers loaded, one set per file, shared by
 * them: the data files of a partition are deleted from by mostly the same equality delete files,
 * so the tasks of one scan would otherwise decode them once each. Least recently used sets go
 * first once the sets take more than the budget ({@value #BUDGET_PROPERTY}, 128 MiB by default);
 * a set larger than that is not kept. Delete files never change once written, so a set is found
 * again by its file's location and the field ids.
 *
 * <p>Readers that miss the same file at once decode it once: the first loads it, the others wait
 * for its set. A load that fails (a limit, a damaged file, an interrupted reader) fails only its
 * own reader; each waiter then loads the file itself, under its own limit.
 */
final class EqualityDeleteCache {
    /** The JVM system property that sets the heap the cached sets may take together, in bytes; 0 keeps none. */
    static final String BUDGET_PROPERTY = "isthmus.equality-delete-cache-bytes";

    private static final long BUDGET_BYTES = Long.getLong(BUDGET_PROPERTY, 128L << 20);

    /** One set's identity: its equality field ids (sorted) and its delete file's location. */
    record Key(List<Integer> fieldIds, String location) {}

    /** A set and whether this lookup decoded it ({@code false}: cached, or decoded by a reader it waited for). */
    record Lookup(KeySet set, boolean loaded) {}

    private static final LinkedHashMap<Key, KeySet> SETS = new LinkedHashMap<>(16, 0.75f, true);
    private static final Map<Key, CompletableFuture<KeySet>> LOADING = new HashMap<>();
    private static long bytes;

    private EqualityDeleteCache() {}

    /**
     * The set of {@code key}: cached, loaded by another reader meanwhile, or {@code load}ed here
     * (and cached if it fits). {@code load}'s exceptions reach this caller only.
     */
    static Lookup get(Key key, Supplier<KeySet> load) {
        CompletableFuture<KeySet> mine = new CompletableFuture<>();
        while (true) {
            CompletableFuture<KeySet> pending;
            synchronized (EqualityDeleteCache.class) {
                KeySet cached = SETS.get(key);
                if (cached != null) {
                    return new Lookup(cached, false);
                }
                pending = LOADING.putIfAbsent(key, mine);
            }
            if (pending == null) {
                break;
            }
            KeySet shared = await(pending);
            if (shared != null) {
                return new Lookup(shared, false);
            }
            // That load failed: look again, and load here unless another reader has begun meanwhile.
        }
        KeySet set = null;
        try {
            set = load.get();
            return new Lookup(set, true);
        } finally {
            synchronized (EqualityDeleteCache.class) {
                LOADING.remove(key);
                if (set != null) {
                    put(key, set);
                }
            }
            mine.complete(set);
        }
    }

    /** The set another reader loaded, or {@code null} if its load failed. */
    private static KeySet await(CompletableFuture<KeySet> pending) {
        try {
            return pending.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new UncheckedIOException(
                    new InterruptedIOException("interrupted while another reader loaded an equality delete file"));
        } catch (ExecutionException e) {
            throw new IllegalStateException("a load completes with a set or null", e);
        }
    }

    private static void put(Key key, KeySet set) {
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
