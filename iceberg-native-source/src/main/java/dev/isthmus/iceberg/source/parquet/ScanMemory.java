package dev.isthmus.iceberg.source.parquet;

import dev.isthmus.ffm.NativeCall;
import dev.isthmus.ffm.gen.isthmus_h;
import java.lang.foreign.MemorySegment;
import java.util.function.Function;

/**
 * The library's buffer pool that the scans of one split share: each scan takes its batches'
 * buffers, and its readers' page and read buffers, from the pool and gives them back to it, so that
 * a split of many small files decodes each file into memory an earlier file left mapped instead of
 * faulting fresh pages in per file. The pool is the split's first scan's, on which this takes a hold
 * ({@code isthmus_scan_options.memory} in the C header); it holds at most about what the split had
 * outstanding at once, and is freed once this is closed and every scan and batch that used it is
 * done (docs/memory.md).
 *
 * <p>Thread-safe: the hold is used and released under this object's monitor, so a close from
 * another thread waits for a scan opening with it.
 */
public final class ScanMemory implements AutoCloseable {
    /** {@link MemorySegment#NULL} until the first scan's pool is held. */
    private MemorySegment hold = MemorySegment.NULL;

    private boolean closed;

    /**
     * Runs {@code open} with the hold to open a scan with ({@link MemorySegment#NULL} before the first
     * scan: that scan makes the pool), valid during the call only.
     *
     * @throws IllegalStateException if this is closed
     */
    synchronized <T> T withHold(Function<MemorySegment, T> open) {
        if (closed) {
            throw new IllegalStateException("this split's scan memory is closed");
        }
        return open.apply(hold);
    }

    /** Holds {@code scan}'s pool for the scans after it, unless one is held already. */
    synchronized void keep(MemorySegment scan) {
        if (closed || !MemorySegment.NULL.equals(hold)) {
            return;
        }
        try (NativeCall call = NativeCall.open()) {
            MemorySegment out = call.pointer();
            call.check(isthmus_h.isthmus_scan_hold_memory(scan, out, call.error()));
            hold = NativeCall.address(out);
        }
    }

    /** Releases the hold, so the pool goes once its scans and batches are done; idempotent, any thread. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        // A split read by the fallback alone took no hold, and must not load the bindings: the
        // library may be what could not load.
        if (!MemorySegment.NULL.equals(hold)) {
            isthmus_h.isthmus_scan_memory_release(hold);
            hold = MemorySegment.NULL;
        }
    }
}
