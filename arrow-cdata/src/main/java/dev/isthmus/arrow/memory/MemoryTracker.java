package dev.isthmus.arrow.memory;

import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Accounts for the off-heap memory and the Arrow arrays that Java owns, per owner (an allocator,
 * a reader, a writer), in a tree whose root covers the whole JVM. Every count propagates to the
 * ancestors, so the root answers "what does Isthmus hold right now" and a reader's node answers
 * it for that reader; the source and sink report these as Flink metrics.
 *
 * <p>A tracker may have a cap ({@link #child(String, long, String)}): an allocation that would
 * take its live bytes, or those of a capped ancestor, past the cap throws
 * {@link MemoryLimitExceededException} before anything is counted. The check and the count are
 * not one atomic step, so allocations racing on several threads may overshoot by one allocation
 * each; every owner that uses a cap allocates from one thread at a time.
 *
 * <p>An owner closes its tracker when it is done ({@link #close()}); the tracker leaves its
 * parent's children once it is closed and holds nothing, which may be later than the close: Flink
 * can release a reader's batches after the reader closed. So a long-lived JVM does not keep a
 * tracker for every reader, writer and restart it has run.
 *
 * <p>Thread-safe: counts are atomics, updated from whichever thread allocates or releases
 * (a release callback may run on a native thread).
 */
public final class MemoryTracker implements AutoCloseable {
    /** The cap that is none: {@link #child(String)}'s, and the default of every memory cap option. */
    public static final long NO_LIMIT = Long.MAX_VALUE;

    private static final MemoryTracker ROOT = new MemoryTracker("isthmus", null, NO_LIMIT, null);

    private final String name;
    private final MemoryTracker parent;
    /** Bytes this tracker may hold live, {@link #NO_LIMIT} for no cap. */
    private final long limit;
    /** Where the cap was set, for the message (an option name). */
    private final String limitSource;

    private final Set<MemoryTracker> children = ConcurrentHashMap.newKeySet();
    private final AtomicLong liveBytes = new AtomicLong();
    private final AtomicLong allocatedBytes = new AtomicLong();
    private final AtomicLong peakBytes = new AtomicLong();
    private final AtomicLong liveArrays = new AtomicLong();
    /** Set by {@link #close()}: the tracker detaches from its parent as soon as it holds nothing. */
    private volatile boolean closed;
    /** Orders the membership changes of this tracker (never held while another lock is taken). */
    private final Object membershipLock = new Object();

    private MemoryTracker(String name, MemoryTracker parent, long limit, String limitSource) {
        this.name = name;
        this.parent = parent;
        this.limit = limit;
        this.limitSource = limitSource;
    }

    /** The JVM-wide root. */
    public static MemoryTracker root() {
        return ROOT;
    }

    /** A new tracker under this one, for one owner; close it when the owner is done. */
    public MemoryTracker child(String childName) {
        return child(childName, NO_LIMIT, null);
    }

    /**
     * A new tracker under this one whose live bytes may not exceed {@code limitBytes}
     * ({@link #NO_LIMIT}: no cap).
     *
     * @param limitSource what set the cap, named in the exception (the options that set it);
     *     may be null
     */
    public MemoryTracker child(String childName, long limitBytes, String limitSource) {
        requireValidLimit(limitBytes);
        MemoryTracker child =
                new MemoryTracker(Objects.requireNonNull(childName, "name"), this, limitBytes, limitSource);
        children.add(child);
        return child;
    }

    /**
     * Checks a memory cap as options take it: positive, {@link #NO_LIMIT} for none.
     *
     * @return {@code limitBytes}
     * @throws IllegalArgumentException if it is not positive
     */
    public static long requireValidLimit(long limitBytes) {
        if (limitBytes <= 0) {
            throw new IllegalArgumentException(
                    "a native memory cap must be positive (NO_LIMIT for none), got " + limitBytes);
        }
        return limitBytes;
    }

    /** The owner's path from the root, e.g. {@code isthmus/source-3/reader}. */
    public String path() {
        return parent == null ? name : parent.path() + "/" + name;
    }

    /**
     * Records {@code bytes} of memory taken by this owner.
     *
     * @throws MemoryLimitExceededException if that would take this tracker or an ancestor past its
     *     cap; nothing is counted then, and the caller must not keep (or must give back) the memory
     */
    public void allocated(long bytes) {
        reserve(bytes);
        confirm(bytes);
    }

    /**
     * The first half of {@link #allocated}, for memory that is not there yet: counts
     * {@code bytes} as live (so that the cap sees them), not yet as allocated. Follow it with
     * {@link #confirm} once the memory exists, or with {@link #freed} if it could not be had; the
     * allocated total and the peak then never saw it.
     *
     * @throws MemoryLimitExceededException as {@link #allocated} does; nothing is counted then
     */
    public void reserve(long bytes) {
        for (MemoryTracker t = this; t != null; t = t.parent) {
            if (t.limit != NO_LIMIT && bytes > 0) {
                long held = t.liveBytes.get(); // once: the message states the numbers the check compared
                if (held + bytes > t.limit) {
                    throw new MemoryLimitExceededException(
                            t.path(), t.limit, t.limitSource, bytes, held, t == this ? null : path());
                }
            }
        }
        for (MemoryTracker t = this; t != null; t = t.parent) {
            t.liveBytes.addAndGet(bytes);
            t.settleIfClosed();
        }
    }

    /** Counts {@code bytes} {@link #reserve reserved} earlier as allocated, now that they are. */
    public void confirm(long bytes) {
        for (MemoryTracker t = this; t != null; t = t.parent) {
            t.allocatedBytes.addAndGet(bytes);
            long live = t.liveBytes.get();
            t.peakBytes.accumulateAndGet(live, Math::max);
        }
    }

    /** Records {@code bytes} of this owner's memory given back (or a reservation not taken up). */
    public void freed(long bytes) {
        for (MemoryTracker t = this; t != null; t = t.parent) {
            t.liveBytes.addAndGet(-bytes);
            t.settleIfClosed();
        }
    }

    /** Records an Arrow array (imported or exported) that this owner is now responsible for. */
    public void arrayOpened() {
        for (MemoryTracker t = this; t != null; t = t.parent) {
            t.liveArrays.incrementAndGet();
            t.settleIfClosed();
        }
    }

    /** Records that such an array has been closed by its owner. */
    public void arrayClosed() {
        for (MemoryTracker t = this; t != null; t = t.parent) {
            t.liveArrays.decrementAndGet();
            t.settleIfClosed();
        }
    }

    public long liveBytes() {
        return liveBytes.get();
    }

    public long allocatedBytes() {
        return allocatedBytes.get();
    }

    public long peakBytes() {
        return peakBytes.get();
    }

    public long liveArrays() {
        return liveArrays.get();
    }

    /** The trackers under this one that are open or still hold something. */
    public List<MemoryTracker> children() {
        return List.copyOf(children);
    }

    /**
     * Says the owner is done: the tracker leaves its parent now if it holds nothing, or else when
     * the last of its memory and arrays is given back (by whichever thread gives it back). Counts
     * keep propagating to the ancestors either way. Closing twice does nothing more.
     */
    @Override
    public void close() {
        if (parent == null) {
            throw new UnsupportedOperationException("the root tracker cannot be closed");
        }
        closed = true;
        settleIfClosed();
    }

    /** Whether {@link #close()} was called. */
    public boolean isClosed() {
        return closed;
    }

    /**
     * After any count change or a close: a closed tracker is among its parent's children while it
     * holds memory or arrays (a fetcher still importing after its reader closed, or a reader no one
     * closes), and leaves them when drained.
     */
    private void settleIfClosed() {
        if (closed && parent != null) {
            settleMembership();
        }
    }

    /**
     * Every count change on a closed tracker ends here after it, and the decision is made from the
     * counts read under the lock, so the last thread through sees the last counts: once every
     * change has settled, an import and a release racing on two threads have left the tracker
     * among its parent's children exactly when it holds something.
     */
    private void settleMembership() {
        synchronized (membershipLock) {
            if (liveBytes.get() > 0 || liveArrays.get() > 0) {
                parent.children.add(this);
            } else {
                parent.children.remove(this);
            }
        }
    }

    @Override
    public String toString() {
        return "MemoryTracker[" + path() + ": " + liveBytes() + " bytes and " + liveArrays() + " arrays live, "
                + allocatedBytes() + " bytes allocated in all, peak " + peakBytes() + "]";
    }
}
