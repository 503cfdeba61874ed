package dev.isthmus.arrow.flink.vector;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import org.apache.flink.table.data.binary.BinaryRowData;

/**
 * Flink's {@link BinaryRowData} layout, in the one place both of {@link BinaryRowTransposer}'s
 * ways of writing rows take it from: the generated row writers ({@link RowWriterGenerator} emits
 * calls of the write methods below, which the JIT inlines into the row loop) and the column passes.
 *
 * <p>Per row: the null bits, with the row kind in their first byte (INSERT, so 0), padded to whole
 * words; an 8-byte slot per field; then the variable part in 8-byte words, fields in order. A value
 * that fits its slot sits there, the rest of the slot zero; a byte string of up to
 * {@value #MAX_INLINE} bytes sits in its slot with its length and a mark bit in the slot's last
 * byte; anything else goes to the variable part, its slot holding the offset from the row's start
 * in the high word and a length (or a timestamp's nanos of the millisecond) in the low one. A null
 * field has its bit set and a zero slot.
 *
 * <p>Flink marks the layout {@code @Internal}: {@code BinaryRowTransposerTest} pins every case
 * against Flink's own {@code BinaryRowWriter}, and docs/architecture.md ("Upgrading Iceberg or
 * Flink") says to rerun it on every Flink upgrade.
 */
final class BinaryRowLayout {
    /** The longest byte string kept in its slot. */
    static final int MAX_INLINE = 7;

    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    private BinaryRowLayout() {}

    /** The bytes of a row's null bits (with the row kind), whole words. */
    static int nullBytes(int arity) {
        return BinaryRowData.calculateBitSetWidthInBytes(arity);
    }

    /** The bytes of a row before its variable part: null bits and slots. */
    static int fixedSize(int arity) {
        return BinaryRowData.calculateFixPartSizeInBytes(arity);
    }

    /** Where field {@code field}'s slot starts in a row of {@code nullBytes} null bytes. */
    static int slot(int nullBytes, int field) {
        return nullBytes + 8 * field;
    }

    /** The byte of the row's null bits that holds field {@code field}'s bit. */
    static int nullByte(int field) {
        return (field + BinaryRowData.HEADER_SIZE_IN_BITS) >>> 3;
    }

    /** Field {@code field}'s bit within its {@link #nullByte}. */
    static int nullMask(int field) {
        return 1 << ((field + BinaryRowData.HEADER_SIZE_IN_BITS) & 7);
    }

    /** The variable part's room for {@code bytes} bytes: whole words. */
    static int roundToWord(int bytes) {
        return (bytes + 7) & ~7;
    }

    /** The slot of a byte string of at most {@link #MAX_INLINE} bytes, given as a little-endian word. */
    static long inlineSlot(long bytes, int length) {
        return bytes | (0x80L | length) << 56;
    }

    /** The slot of a value in the variable part, {@code offset} bytes from the row's start. */
    static long variableSlot(int offset, long lengthOrNanos) {
        return (long) offset << 32 | lengthOrNanos;
    }

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
        if (length <= MAX_INLINE) {
            long bytes = (long) LONGS.get(span, start) & ((1L << (length << 3)) - 1);
            LONGS.set(row, rowStart + slot, inlineSlot(bytes, length));
            return var;
        }
        int padded = roundToWord(length);
        LONGS.set(row, var + padded - 8, 0L);
        System.arraycopy(span, start, row, var, length);
        LONGS.set(row, rowStart + slot, variableSlot(var - rowStart, length));
        return var + padded;
    }

    /**
     * A timestamp wider than millis ({@code value} in units of which {@code perMilli} make a
     * millisecond): the millis in the variable part, the slot holding their offset and the nanos
     * of the millisecond.
     */
    static int timestamp(byte[] row, int rowStart, int slot, int var, long value, long perMilli, long nanosPerUnit) {
        LONGS.set(row, var, Math.floorDiv(value, perMilli));
        LONGS.set(row, rowStart + slot, variableSlot(var - rowStart, Math.floorMod(value, perMilli) * nanosPerUnit));
        return var + 8;
    }
}
