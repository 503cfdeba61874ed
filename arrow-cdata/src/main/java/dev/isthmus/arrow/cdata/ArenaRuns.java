package dev.isthmus.arrow.cdata;

import java.util.ArrayList;
import java.util.List;

/**
 * Runs of imported arrays that share one shared arena, across the producers that import through
 * it ({@link #open}): the batches of the scans of one split, say, so that a split of many small
 * files, each a batch or two, pays one arena close (a handshake with every thread of the JVM) per
 * run instead of one per file.
 *
 * <p>A run holds up to {@code arraysPerArena} arrays. Each producer's hold on its memory is
 * released once the producer is closed and every run with its arrays has ended, so a run that
 * spans producers keeps the pools of those already closed mapped until it ends. That is bounded:
 * once what closed producers keep mapped in the current run reaches {@code mappedBytesPerRun},
 * the run takes no more arrays and ends when its arrays are closed. Each producer is counted at
 * its largest array, an estimate of its pool: a pool may keep more (several arrays in flight,
 * spare capacity). {@link #close()} ends the current run the same way.
 *
 * <p>Thread-safe: imports, closes of the arrays (in any order), of the producers and of this may
 * come from any thread. The bookkeeping of runs and producers is under this object's monitor;
 * arenas close and holds are released outside it.
 */
public final class ArenaRuns implements AutoCloseable {
    /** Within one producer, closed arrays take no memory here (its pool reuses them): runs only bound the handshakes. */
    public static final int DEFAULT_ARRAYS_PER_ARENA = 64;
    /** What the closed producers of a run may keep mapped, at most, before the run is ended early. */
    public static final long DEFAULT_MAPPED_BYTES_PER_RUN = 16L << 20;

    private final int arraysPerArena;
    private final boolean releaseAtOnce;
    private final long mappedBytesPerRun;
    private Run current;
    private boolean closed;

    /**
     * @param arraysPerArena arrays per run
     * @param mappedBytesPerRun what closed producers may keep mapped in the current run before it
     *     ends early
     */
    public ArenaRuns(int arraysPerArena, long mappedBytesPerRun) {
        this(arraysPerArena, true, mappedBytesPerRun);
    }

    private ArenaRuns(int arraysPerArena, boolean releaseAtOnce, long mappedBytesPerRun) {
        if (arraysPerArena < 1) {
            throw new IllegalArgumentException("arraysPerArena must be at least 1, not " + arraysPerArena);
        }
        if (mappedBytesPerRun < 0) {
            throw new IllegalArgumentException("mappedBytesPerRun must not be negative, not " + mappedBytesPerRun);
        }
        this.arraysPerArena = arraysPerArena;
        this.releaseAtOnce = releaseAtOnce;
        this.mappedBytesPerRun = mappedBytesPerRun;
    }

    /**
     * The runs for streams of batches: {@value #DEFAULT_ARRAYS_PER_ARENA} arrays and
     * {@value #DEFAULT_MAPPED_BYTES_PER_RUN} bytes of closed producers' memory, or, with
     * {@link CheckedBatches} on, an arena per array that closes when the array is closed and before
     * its release, so no read of a closed array can see the producer's next writes.
     */
    public static ArenaRuns forBatches() {
        return CheckedBatches.ENABLED
                ? new ArenaRuns(1, false, 0)
                : new ArenaRuns(DEFAULT_ARRAYS_PER_ARENA, true, DEFAULT_MAPPED_BYTES_PER_RUN);
    }

    /**
     * A producer of arrays whose memory it keeps mapped while the consumer holds it.
     *
     * @param releaseHold releases the producer's hold on its arrays' memory; runs once, after the
     *     producer is closed and the last arena with its arrays has closed (possibly on a thread
     *     that closes an array)
     * @throws IllegalStateException if this is closed
     */
    public synchronized ImportArenas open(Runnable releaseHold) {
        if (closed) {
            throw new IllegalStateException("these arena runs are closed");
        }
        return new ImportArenas(this, releaseHold, false);
    }

    /** A place in the current run for one of {@code producer}'s arrays, starting a run if needed. */
    synchronized ArenaShare lease(ImportArenas producer) {
        if (producer.closed) {
            throw new IllegalStateException("these import arenas are closed");
        }
        if (closed) {
            throw new IllegalStateException("these arena runs are closed");
        }
        if (current == null || !current.share.lease()) {
            // A full run ends by itself when its arrays are closed.
            current = new Run();
            current.share.lease();
        }
        if (!current.producers.contains(producer)) {
            current.producers.add(producer);
            producer.openRuns++;
        }
        return current.share;
    }

    /**
     * {@code producer} takes no more imports. Its hold is released now if no run has its arrays;
     * otherwise its memory ({@code mappedBytes}) stays mapped until they end, and the current run
     * is ended early once what its closed producers keep mapped reaches the bound.
     */
    void closed(ImportArenas producer, long mappedBytes) {
        Run full = null;
        boolean release;
        synchronized (this) {
            if (producer.closed) {
                return;
            }
            producer.closed = true;
            release = takeHold(producer);
            if (current != null && current.producers.contains(producer)) {
                current.mappedBytes += mappedBytes;
                if (current.mappedBytes >= mappedBytesPerRun) {
                    full = current;
                    current = null;
                }
            }
        }
        try {
            if (full != null) {
                full.share.seal();
            }
        } finally {
            if (release) {
                producer.releaseHold.run();
            }
        }
    }

    /** Whether {@code producer}'s hold is to be released now: closed, no run open with it, not yet released. */
    private boolean takeHold(ImportArenas producer) {
        if (!producer.closed || producer.openRuns > 0 || producer.holdReleased) {
            return false;
        }
        producer.holdReleased = true;
        return true;
    }

    private void ended(Run run) {
        List<ImportArenas> released = new ArrayList<>();
        synchronized (this) {
            for (ImportArenas producer : run.producers) {
                producer.openRuns--;
                if (takeHold(producer)) {
                    released.add(producer);
                }
            }
        }
        RuntimeException failure = null;
        for (ImportArenas producer : released) {
            failure = ArenaShare.run(producer.releaseHold, failure);
        }
        if (failure != null) {
            throw failure;
        }
    }

    /**
     * Takes no more producers or imports and ends the current run early: it ends when its arrays
     * are closed. Arrays imported before stay valid until they are closed.
     */
    @Override
    public void close() {
        Run last;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            last = current;
            current = null;
        }
        if (last != null) {
            last.share.seal();
        }
    }

    /** One shared arena and the producers with arrays in it. */
    private final class Run {
        final ArenaShare share = new ArenaShare(arraysPerArena, releaseAtOnce, () -> ended(this));
        /** Few: the producers of one split's files, compared by identity. */
        final List<ImportArenas> producers = new ArrayList<>(4);

        long mappedBytes;
    }
}
