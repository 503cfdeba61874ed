package dev.isthmus.arrow.builder;

import dev.isthmus.arrow.memory.MemoryTracker;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.Objects;

/**
 * Hands out {@link NativeBuffer}s: blocks of off-heap memory that are freed one by one.
 *
 * <p>Why not an {@link java.lang.foreign.Arena}: an arena frees all its memory at once, so a
 * buffer that doubles its capacity would keep every outgrown copy alive until the whole batch is
 * released, and a shared arena's {@code close()} costs a handshake with every thread. The
 * builders need the opposite: free the old block right after growing, and let an exported batch
 * take exactly the blocks it holds. So the blocks come from the C allocator ({@code aligned_alloc}
 * and {@code free}, reached through FFM downcalls), 64-byte aligned as the Arrow format
 * recommends, and every allocation and free is counted in this allocator's {@link MemoryTracker}.
 *
 * <p>Thread-safe: the C allocator is, and so is the tracker.
 */
public final class BufferAllocator {
    /** Arrow's recommended buffer alignment; also a multiple of every value width (16 for decimal128). */
    static final long ALIGNMENT = 64;

    private static final Linker LINKER = Linker.nativeLinker();
    private static final MethodHandle ALIGNED_ALLOC = libc(
            "aligned_alloc", FunctionDescriptor.of(ValueLayout.ADDRESS, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG));
    private static final MethodHandle FREE = libc("free", FunctionDescriptor.ofVoid(ValueLayout.ADDRESS));

    private final MemoryTracker tracker;

    public BufferAllocator(MemoryTracker tracker) {
        this.tracker = Objects.requireNonNull(tracker, "tracker");
    }

    /** The tracker that counts this allocator's memory, and the arrays exported from it. */
    public MemoryTracker tracker() {
        return tracker;
    }

    /**
     * A new buffer of at least {@code bytes} bytes (rounded up to the alignment), uninitialised.
     *
     * @throws OutOfMemoryError if the C allocator cannot provide the memory
     */
    public NativeBuffer allocate(long bytes) {
        return new NativeBuffer(this, allocateBlock(alignedSize(bytes)));
    }

    static long alignedSize(long bytes) {
        if (bytes < 0) {
            throw new IllegalArgumentException("negative buffer size " + bytes);
        }
        return Math.max(ALIGNMENT, (bytes + ALIGNMENT - 1) & -ALIGNMENT);
    }

    @SuppressWarnings("restricted") // the block is ours, exactly `capacity` bytes long
    MemorySegment allocateBlock(long capacity) {
        // Reserved first, so a capped tracker refuses before any memory is taken; counted as
        // allocated (and in the peak) only once the C allocator has given it.
        tracker.reserve(capacity);
        MemorySegment block;
        try {
            block = (MemorySegment) ALIGNED_ALLOC.invokeExact(ALIGNMENT, capacity);
        } catch (Throwable t) {
            tracker.freed(capacity);
            throw new IllegalStateException("aligned_alloc failed", t);
        }
        if (block.equals(MemorySegment.NULL)) {
            tracker.freed(capacity);
            throw new OutOfMemoryError(
                    "cannot allocate " + capacity + " bytes of off-heap memory for Arrow buffers (" + tracker + ")");
        }
        tracker.confirm(capacity);
        return block.reinterpret(capacity);
    }

    void freeBlock(MemorySegment block) {
        try {
            FREE.invokeExact(block);
        } catch (Throwable t) {
            throw new IllegalStateException("free failed", t);
        }
        tracker.freed(block.byteSize());
    }

    @SuppressWarnings("restricted") // binding the C allocator is what this class is for
    private static MethodHandle libc(String name, FunctionDescriptor descriptor) {
        MemorySegment symbol = LINKER.defaultLookup()
                .find(name)
                .orElseThrow(() -> new UnsatisfiedLinkError("the C library has no '" + name + "'"));
        return LINKER.downcallHandle(symbol, descriptor);
    }
}
