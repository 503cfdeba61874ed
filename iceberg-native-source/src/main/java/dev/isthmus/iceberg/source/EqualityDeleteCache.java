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
 * for its set. A load that fails (a damaged file, an interrupted reader) fails only its own
 * reader; each waiter then loads the file itself. A load past its reader's limit fails the
 * waiters with no more room at once; those with more load the file themselves.
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
    private static final Map<Key, CompletableFuture<Outcome>> LOADING = new HashMap<>();
    private static long bytes;

    private EqualityDeleteCache() {}

    /**
     * The set of {@code key}: cached, loaded by another reader meanwhile, or {@code load}ed here
     * (and cached if it fits). {@code load}'s exceptions reach this caller only, but a reader
     * that waited for a load that ran out of room ({@link DeleteLimitException}) with at least as
     * much room as its own fails the same way at once instead of decoding the file again.
     *
     * @param room the bytes the caller's set may take ({@code load}'s limit)
     */
    static Lookup get(Key key, long room, Supplier<KeySet> load) {
        CompletableFuture<Outcome> mine = new CompletableFuture<>();
        while (true) {
            CompletableFuture<Outcome> pending;
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
            Outcome outcome = await(pending);
            if (outcome.set() != null) {
                return new Lookup(outcome.set(), false);
            }
            if (outcome.limit() != null && room <= outcome.room()) {
                throw new DeleteLimitException(
                        outcome.limit().refusal(), outcome.limit().getMessage());
            }
            // That load failed otherwise: look again, and load here unless another reader has begun.
        }
        KeySet set = null;
        DeleteLimitException limit = null;
        try {
            set = load.get();
            return new Lookup(set, true);
        } catch (DeleteLimitException e) {
            limit = e;
            throw e;
        } finally {
            try {
                synchronized (EqualityDeleteCache.class) {
                    LOADING.remove(key);
                    if (set != null) {
                        put(key, set);
                    }
                }
            } finally {
                mine.complete(new Outcome(set, room, limit));
            }
        }
    }

    /** How a load ended: its set, or the limit it ran into with the room it had, or neither. */
    private record Outcome(KeySet set, long room, DeleteLimitException limit) {}

    private static Outcome await(CompletableFuture<Outcome> pending) {
        try {
            return pending.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new UncheckedIOException(
                    new InterruptedIOException("interrupted while another reader loaded an equality delete file"));
        } catch (ExecutionException e) {
            throw new IllegalStateException("a load completes with an outcome", e);
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
