package dev.isthmus.arrow.builder;

import java.lang.foreign.MemorySegment;

/**
 * One block of off-heap memory from a {@link BufferAllocator}, with a single owner at a time: a
 * builder while it fills the block, then a {@link FinishedArray}, then the export that hands it to
 * the native library. The owner frees it exactly once.
 *
 * <p>{@link #segment()} has no lifetime checks of its own (the global scope): the owner must not
 * hand it to code that may outlive the buffer.
 *
 * <p>Not thread-safe; ownership moves between threads only through a happens-before edge
 * (the release callback's bookkeeping provides one).
 */
public final class NativeBuffer {
    private final BufferAllocator allocator;
    private MemorySegment block;

    NativeBuffer(BufferAllocator allocator, MemorySegment block) {
        this.allocator = allocator;
        this.block = block;
    }

    /** The whole block, {@link #capacity()} bytes. */
    public MemorySegment segment() {
        requireLive();
        return block;
    }

    public long address() {
        requireLive();
        return block.address();
    }

    public long capacity() {
        requireLive();
        return block.byteSize();
    }

    public boolean isFreed() {
        return block == null;
    }

    /**
     * Moves the contents into a new block of at least {@code minCapacity} bytes and frees the old
     * one. The first {@code preserved} bytes are copied; the rest is uninitialised.
     */
    void grow(long minCapacity, long preserved) {
        requireLive();
        MemorySegment bigger = allocator.allocateBlock(BufferAllocator.alignedSize(minCapacity));
        MemorySegment.copy(block, 0, bigger, 0, Math.min(preserved, block.byteSize()));
        allocator.freeBlock(block);
        block = bigger;
    }

    /** Gives the memory back. A second call does nothing. */
    public void free() {
        if (block != null) {
            MemorySegment freed = block;
            block = null;
            allocator.freeBlock(freed);
        }
    }

    private void requireLive() {
        if (block == null) {
            throw new IllegalStateException("this Arrow buffer has been freed");
        }
    }

    @Override
    public String toString() {
        return block == null
                ? "NativeBuffer[freed]"
                : "NativeBuffer[" + block.byteSize() + " bytes at 0x" + Long.toHexString(block.address()) + "]";
    }
}
