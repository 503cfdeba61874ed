package dev.isthmus.arrow.builder;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * A growable bitmap in LSB bit order (bit {@code i} is bit {@code i % 8} of byte {@code i / 8}):
 * Arrow's validity bitmaps and the values of boolean arrays.
 */
final class BitBuffer {
    private final NativeBuffer buffer;
    private MemorySegment bits;

    private BitBuffer(NativeBuffer buffer) {
        this.buffer = buffer;
        this.bits = buffer.segment();
    }

    /** A bitmap for {@code capacity} bits, all clear. */
    static BitBuffer allocate(BufferAllocator allocator, int capacity) {
        BitBuffer bitmap = new BitBuffer(allocator.allocate(bytesFor(capacity)));
        bitmap.bits.fill((byte) 0);
        return bitmap;
    }

    /** A bitmap for {@code capacity} bits whose first {@code setPrefix} bits are set. */
    static BitBuffer allocateWithPrefixSet(BufferAllocator allocator, int capacity, int setPrefix) {
        BitBuffer bitmap = allocate(allocator, capacity);
        bitmap.bits.asSlice(0, setPrefix >>> 3).fill((byte) 0xFF);
        for (int i = setPrefix & ~7; i < setPrefix; i++) {
            bitmap.set(i);
        }
        return bitmap;
    }

    static long bytesFor(int bitCount) {
        return ((long) bitCount + 7) >>> 3;
    }

    void set(int i) {
        long at = i >>> 3;
        bits.set(ValueLayout.JAVA_BYTE, at, (byte) (bits.get(ValueLayout.JAVA_BYTE, at) | (1 << (i & 7))));
    }

    void clear(int i) {
        long at = i >>> 3;
        bits.set(ValueLayout.JAVA_BYTE, at, (byte) (bits.get(ValueLayout.JAVA_BYTE, at) & ~(1 << (i & 7))));
    }

    void put(int i, boolean value) {
        if (value) {
            set(i);
        } else {
            clear(i);
        }
    }

    boolean get(int i) {
        return (bits.get(ValueLayout.JAVA_BYTE, i >>> 3) & (1 << (i & 7))) != 0;
    }

    /** Clear bits in {@code [from, to)}: the nulls of a validity bitmap in that range. */
    int countClear(int from, int to) {
        int clear = 0;
        for (int i = from; i < to; i++) {
            if (!get(i)) {
                clear++;
            }
        }
        return clear;
    }

    /** Grows to hold {@code capacity} bits, keeping the first {@code preserved} bits; new bytes are zero. */
    void grow(int capacity, int preserved) {
        long oldBytes = bits.byteSize();
        buffer.grow(bytesFor(capacity), bytesFor(preserved));
        bits = buffer.segment();
        bits.asSlice(Math.min(bytesFor(preserved), oldBytes)).fill((byte) 0);
    }

    /** The memory, for a {@link FinishedArray} that takes it over. */
    NativeBuffer buffer() {
        return buffer;
    }

    void free() {
        buffer.free();
    }
}
