package dev.isthmus.ffm;

import java.lang.foreign.MemorySegment;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * A pointer to a native object together with the duty to free it, shared by threads that call
 * through it and a thread that may close it at any moment. Every use of the pointer takes a
 * lease ({@link #acquire()} ... {@link #release()}); {@link #close()} marks the handle closed and
 * frees it at once if no lease is out, otherwise the last lease's release frees it. So a close
 * racing a call waits for nothing and throws nothing, and the call in flight still finds the
 * object alive; calls that start after the close throw {@link IllegalStateException} naming the
 * object.
 *
 * <p>One atomic counter: a lease costs two uncontended atomic adds, so callers take one per
 * native call or per batch, never per value.
 */
public final class NativeHandle {
    private static final long CLOSED = 1;
    private static final long FREED = 2;
    /** Leases count from this bit up; the two below are the flags. */
    private static final long LEASE = 4;

    private final AtomicLong state = new AtomicLong();
    private final MemorySegment address;
    private final String name;
    private final Consumer<MemorySegment> free;

    /**
     * @param name what the handle is, for the message of a call after close (e.g. the file's name)
     * @param free frees the object; runs exactly once, on the thread that closes the handle or
     *     releases its last lease, and what it throws propagates from that {@link #close()} or
     *     {@link #release()}
     */
    public NativeHandle(MemorySegment address, String name, Consumer<MemorySegment> free) {
        this.address = Objects.requireNonNull(address, "address");
        this.name = Objects.requireNonNull(name, "name");
        this.free = Objects.requireNonNull(free, "free");
    }

    /**
     * Takes a lease and returns the pointer, which stays valid until the matching
     * {@link #release()} (leases nest).
     *
     * @throws IllegalStateException if the handle is closed
     */
    public MemorySegment acquire() {
        long before = state.getAndAdd(LEASE);
        if ((before & CLOSED) != 0) {
            release();
            throw new IllegalStateException(name + " is closed");
        }
        return address;
    }

    /** Gives a lease back; the last one after {@link #close()} frees the object. */
    public void release() {
        if (state.addAndGet(-LEASE) == CLOSED) {
            freeOnce();
        }
    }

    /**
     * Marks the handle closed and frees the object now, or when the last lease out is released.
     * Idempotent, from any thread; never blocks.
     */
    public void close() {
        long before;
        do {
            before = state.get();
            if ((before & CLOSED) != 0) {
                return;
            }
        } while (!state.compareAndSet(before, before | CLOSED));
        if (before == 0) {
            freeOnce();
        }
    }

    /**
     * The closed, unleased state is reached again by every refused {@link #acquire()}; only the
     * first to leave it for FREED frees.
     */
    private void freeOnce() {
        if (state.compareAndSet(CLOSED, CLOSED | FREED)) {
            free.accept(address);
        }
    }

    @Override
    public String toString() {
        return name;
    }
}
