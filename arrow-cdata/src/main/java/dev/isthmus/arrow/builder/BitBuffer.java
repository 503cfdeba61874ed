package dev.isthmus.arrow.builder;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;

/**
 * A growable bitmap staged on the heap, in LSB bit order (bit {@code i} is bit {@code i % 8} of
 * byte {@code i / 8}): Arrow's validity bitmaps and the values of boolean arrays.
 */
final class BitBuffer {
    private byte[] bits;

    private BitBuffer(byte[] bits) {
        this.bits = bits;
    }

    /** A bitmap for {@code capacity} bits, all clear. */
    static BitBuffer allocate(int capacity) {
        return new BitBuffer(new byte[bytesFor(capacity)]);
    }

    /** A bitmap for {@code capacity} bits whose first {@code setPrefix} bits are set. */
    static BitBuffer withPrefixSet(int capacity, int setPrefix) {
        BitBuffer bitmap = allocate(capacity);
        Arrays.fill(bitmap.bits, 0, setPrefix >>> 3, (byte) 0xFF);
        for (int i = setPrefix & ~7; i < setPrefix; i++) {
            bitmap.set(i);
        }
        return bitmap;
    }

    static int bytesFor(int bitCount) {
        return (int) (((long) bitCount + 7) >>> 3);
    }

    void set(int i) {
        bits[i >>> 3] |= (byte) (1 << (i & 7));
    }

    void clear(int i) {
        bits[i >>> 3] &= (byte) ~(1 << (i & 7));
    }

    void put(int i, boolean value) {
        if (value) {
            set(i);
        } else {
            clear(i);
        }
    }

    boolean get(int i) {
        return (bits[i >>> 3] & (1 << (i & 7))) != 0;
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

    /** Grows to hold {@code capacity} bits, keeping the bits; new bytes are zero. */
    void grow(int capacity) {
        bits = Arrays.copyOf(bits, bytesFor(capacity));
    }

    /**
     * The first {@code bitCount} bits in a new native buffer; the last byte's bits past them are
     * zero, so a batch's bytes do not depend on what the staging held before.
     */
    NativeBuffer copyOut(BufferAllocator allocator, int bitCount) {
        int bytes = bytesFor(bitCount);
        NativeBuffer buffer = allocator.allocate(bytes);
        MemorySegment out = buffer.segment();
        MemorySegment.copy(bits, 0, out, ValueLayout.JAVA_BYTE, 0, bytes);
        if ((bitCount & 7) != 0) {
            out.set(ValueLayout.JAVA_BYTE, bytes - 1, (byte) (bits[bytes - 1] & ((1 << (bitCount & 7)) - 1)));
        }
        return buffer;
    }
}
