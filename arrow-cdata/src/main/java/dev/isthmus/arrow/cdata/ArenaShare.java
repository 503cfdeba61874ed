package dev.isthmus.arrow.cdata;

import java.lang.foreign.Arena;
import java.util.ArrayList;
import java.util.List;

/**
 * One shared arena leased to up to {@code capacity} imported arrays; it closes, invalidating every
 * segment at once, when every leased place has been given back (and the share is full or sealed),
 * so its close (a handshake with every thread of the JVM) is paid once per share. Then
 * {@code onEnd} runs.
 *
 * <p>An array's release normally runs after the arena is closed, which keeps the guarantee that
 * no segment ever outlives the memory it points at (an array imported on its own: a share of one).
 * With {@code releaseAtOnce}, for arrays whose producer keeps their memory mapped after their
 * release while the consumer holds it ({@link ImportArenas}), each array is released as soon as it
 * is closed and only the arena waits for the share's end.
 *
 * <p>Leases are taken by one importing thread; arrays are closed from any thread.
 */
final class ArenaShare {
    private final Arena arena = Arena.ofShared();
    private final int capacity;
    private final boolean releaseAtOnce;
    private final Runnable onEnd;
    private int leased;
    private int returned;
    private boolean sealed;
    private List<Runnable> deferred = new ArrayList<>();

    ArenaShare(int capacity) {
        this(capacity, false, () -> {});
    }

    ArenaShare(int capacity, boolean releaseAtOnce, Runnable onEnd) {
        if (capacity < 1) {
            throw new IllegalArgumentException("an arena share needs room for at least one array, not " + capacity);
        }
        this.capacity = capacity;
        this.releaseAtOnce = releaseAtOnce;
        this.onEnd = onEnd;
    }

    Arena arena() {
        return arena;
    }

    /** Takes one place in the share; false once it is full or sealed. */
    synchronized boolean lease() {
        if (sealed || leased == capacity) {
            return false;
        }
        leased++;
        return true;
    }

    /**
     * Gives a leased place back with the release of the array that held it, which runs now with
     * {@code releaseAtOnce}, otherwise when the share's last place comes back (possibly now, on
     * this thread).
     */
    void giveBack(Runnable release) {
        try {
            if (releaseAtOnce) {
                release.run();
            }
        } finally {
            List<Runnable> releases;
            synchronized (this) {
                if (!releaseAtOnce) {
                    deferred.add(release);
                }
                returned++;
                releases = takeIfDone();
            }
            finish(releases);
        }
    }

    /** No more leases: the share ends as soon as its leased places are back. */
    void seal() {
        List<Runnable> releases;
        synchronized (this) {
            sealed = true;
            releases = takeIfDone();
        }
        finish(releases);
    }

    private List<Runnable> takeIfDone() {
        if ((sealed || leased == capacity) && returned == leased && deferred != null) {
            List<Runnable> releases = deferred;
            deferred = null;
            return releases;
        }
        return null;
    }

    /**
     * Closes the arena, then runs every release (the first failure is rethrown after the rest).
     * In this order no thread can be reading a segment while its memory is freed: closing a
     * shared arena waits until no thread is inside an access to it.
     */
    private void finish(List<Runnable> releases) {
        if (releases == null) {
            return;
        }
        arena.close();
        RuntimeException failure = null;
        for (Runnable release : releases) {
            failure = run(release, failure);
        }
        failure = run(onEnd, failure);
        if (failure != null) {
            throw failure;
        }
    }

    /** Runs {@code action}; returns the first failure so far, a later one suppressed in it. */
    static RuntimeException run(Runnable action, RuntimeException failure) {
        try {
            action.run();
        } catch (RuntimeException e) {
            if (failure == null) {
                return e;
            }
            failure.addSuppressed(e);
        }
        return failure;
    }
}
