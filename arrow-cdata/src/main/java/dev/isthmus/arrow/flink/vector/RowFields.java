package dev.isthmus.arrow.flink.vector;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * The writes of one field of one binary row, called by the row writers {@link RowWriterGenerator}
 * generates: small static methods the JIT inlines into the generated row loop. Values come from
 * the heap arrays of {@link HeapColumns}; the layout is {@link BinaryRowTransposer}'s, whose
 * column passes mark their nulls with {@link #setNull} too.
 */
final class RowFields {
    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    private RowFields() {}

    /** An 8-byte word at {@code at}: a slot, or a word of the null bits. */
    static void word(byte[] row, int at, long value) {
        LONGS.set(row, at, value);
    }

    /** Marks a field null: its bit set, its slot zero. */
    static void setNull(byte[] row, int rowStart, int slot, int nullByte, int nullMask) {
        row[rowStart + nullByte] |= (byte) nullMask;
        LONGS.set(row, rowStart + slot, 0L);
    }

    /**
     * String {@code k} of a column whose bytes from offset {@code base} on are in {@code span}
     * (with at least 8 bytes after the last string's): inline in the slot if at most 7 bytes long,
     * else copied to {@code var}, zero padded to a word. Returns where the variable part goes on.
     */
    static int string(byte[] row, int rowStart, int slot, int var, byte[] span, int[] offsets, int k, int base) {
        int start = offsets[k];
        int length = offsets[k + 1] - start;
        start -= base;
        if (length <= 7) {
            long bytes = (long) LONGS.get(span, start) & ((1L << (length << 3)) - 1);
            LONGS.set(row, rowStart + slot, bytes | (0x80L | length) << 56);
            return var;
        }
        int padded = (length + 7) & ~7;
        LONGS.set(row, var + padded - 8, 0L);
        System.arraycopy(span, start, row, var, length);
        LONGS.set(row, rowStart + slot, (long) (var - rowStart) << 32 | length);
        return var + padded;
    }

    /**
     * A timestamp wider than millis ({@code value} in units of which {@code perMilli} make a
     * millisecond): the millis in the variable part, the slot holding their offset and the nanos
     * of the millisecond.
     */
    static int timestamp(byte[] row, int rowStart, int slot, int var, long value, long perMilli, long nanosPerUnit) {
        LONGS.set(row, var, Math.floorDiv(value, perMilli));
        LONGS.set(row, rowStart + slot, (long) (var - rowStart) << 32 | Math.floorMod(value, perMilli) * nanosPerUnit);
        return var + 8;
    }
}
