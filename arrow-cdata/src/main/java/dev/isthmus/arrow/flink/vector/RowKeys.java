package dev.isthmus.arrow.flink.vector;

import dev.isthmus.arrow.types.ArrowType.TimeUnit;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;
import org.apache.flink.table.data.columnar.vector.ColumnVector;

/**
 * The values of a few columns of an Arrow-backed batch, row by row, as one byte string per row
 * that is equal for two rows exactly when their values are equal as Iceberg compares them (nulls
 * equal to nulls): what the source hashes to apply equality deletes. The bytes are read from the
 * Arrow buffers into one reused array, so no Java object is built per row.
 *
 * <p>Each value is a tag byte (0 for null, 1 otherwise) and, when not null, its value in a form
 * that does not depend on how the file stored it: integers and dates widened to 8 bytes (so an
 * {@code int} promoted to {@code long} by schema evolution still matches), floats widened to
 * doubles and written as {@link Double#doubleToLongBits} (one NaN; {@code -0.0} apart from
 * {@code 0.0}, as {@link Double#compare} has them), decimals as their 16 unscaled bytes,
 * timestamps in microseconds, and byte strings as a 4-byte length and the bytes.
 */
public final class RowKeys {
    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle INTS = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);

    private final Part[] parts;
    private byte[] buffer = new byte[64];

    private RowKeys(Part[] parts) {
        this.parts = parts;
    }

    /**
     * The keys of {@code columns}, vectors of a batch imported from Arrow (or the dictionaries of
     * dictionary-encoded ones).
     *
     * @throws IllegalArgumentException if a column is not one of the Arrow-backed flat vectors
     *     (time and nested vectors included: their values as Flink reads them are not exact)
     */
    public static RowKeys of(ColumnVector... columns) {
        Part[] parts = new Part[columns.length];
        for (int c = 0; c < columns.length; c++) {
            parts[c] = part(columns[c], c);
        }
        return new RowKeys(parts);
    }

    /**
     * Writes row {@code row}'s key into {@link #bytes()} from index 0 and returns its length;
     * the bytes stay valid until the next call.
     */
    public int encode(int row) {
        int at = 0;
        for (Part part : parts) {
            at = part.write(this, row, at);
        }
        return at;
    }

    /** The array {@link #encode} writes into; a longer key replaces it, so take it after encoding. */
    public byte[] bytes() {
        return buffer;
    }

    private byte[] room(int at, int bytes) {
        if (at + bytes > buffer.length) {
            buffer = Arrays.copyOf(buffer, Math.max(buffer.length * 2, at + bytes));
        }
        return buffer;
    }

    private int writeNull(int at) {
        room(at, 1)[at] = 0;
        return at + 1;
    }

    private int writeLong(int at, long value) {
        byte[] out = room(at, 9);
        out[at] = 1;
        LONGS.set(out, at + 1, value);
        return at + 9;
    }

    private int writeBytes(int at, MemorySegment data, long start, int length) {
        byte[] out = room(at, 5 + length);
        out[at] = 1;
        INTS.set(out, at + 1, length);
        MemorySegment.copy(data, ValueLayout.JAVA_BYTE, start, out, at + 5, length);
        return at + 5 + length;
    }

    private static Part part(ColumnVector column, int index) {
        return switch (column) {
            case NullVector n -> (keys, row, at) -> keys.writeNull(at);
            case DictionaryVector d -> dictionary(d, part(d.dictionary, index));
            case PrimitiveVectors.Booleans v ->
                nullable(v, (keys, row, at) -> {
                    long bit = v.offset + row;
                    return keys.writeLong(at, (v.bits.get(ValueLayout.JAVA_BYTE, bit >>> 3) >>> (bit & 7)) & 1);
                });
            case PrimitiveVectors.Bytes v ->
                nullable(v, (keys, row, at) -> keys.writeLong(at, v.values.get(ValueLayout.JAVA_BYTE, v.offset + row)));
            case PrimitiveVectors.Shorts v ->
                nullable(
                        v,
                        (keys, row, at) -> keys.writeLong(
                                at, v.values.getAtIndex(ValueLayout.JAVA_SHORT_UNALIGNED, v.offset + row)));
            case PrimitiveVectors.Ints v ->
                nullable(
                        v,
                        (keys, row, at) -> keys.writeLong(
                                at, v.values.getAtIndex(ValueLayout.JAVA_INT_UNALIGNED, v.offset + row)));
            case PrimitiveVectors.Longs v ->
                nullable(
                        v,
                        (keys, row, at) -> keys.writeLong(
                                at, v.values.getAtIndex(ValueLayout.JAVA_LONG_UNALIGNED, v.offset + row)));
            case PrimitiveVectors.Floats v ->
                nullable(
                        v,
                        (keys, row, at) -> keys.writeLong(
                                at,
                                Double.doubleToLongBits(
                                        v.values.getAtIndex(ValueLayout.JAVA_FLOAT_UNALIGNED, v.offset + row))));
            case PrimitiveVectors.Doubles v ->
                nullable(
                        v,
                        (keys, row, at) -> keys.writeLong(
                                at,
                                Double.doubleToLongBits(
                                        v.values.getAtIndex(ValueLayout.JAVA_DOUBLE_UNALIGNED, v.offset + row))));
            case ValueVectors.Decimals v ->
                nullable(v, (keys, row, at) -> {
                    byte[] out = keys.room(at, 17);
                    out[at] = 1;
                    MemorySegment.copy(v.values, ValueLayout.JAVA_BYTE, (v.offset + row) * 16, out, at + 1, 16);
                    return at + 17;
                });
            case ValueVectors.Timestamps v -> nullable(v, timestamps(v));
            case ValueVectors.VariableBytes v ->
                nullable(
                        v,
                        v.large
                                ? (keys, row, at) -> {
                                    long start = v.offsets.getAtIndex(ValueLayout.JAVA_LONG_UNALIGNED, v.offset + row);
                                    long end =
                                            v.offsets.getAtIndex(ValueLayout.JAVA_LONG_UNALIGNED, v.offset + row + 1);
                                    return keys.writeBytes(at, v.data, start, Math.toIntExact(end - start));
                                }
                                : (keys, row, at) -> {
                                    int start = v.offsets.getAtIndex(ValueLayout.JAVA_INT_UNALIGNED, v.offset + row);
                                    int end = v.offsets.getAtIndex(ValueLayout.JAVA_INT_UNALIGNED, v.offset + row + 1);
                                    return keys.writeBytes(at, v.data, start, end - start);
                                });
            case ValueVectors.FixedBytes v ->
                nullable(v, (keys, row, at) -> keys.writeBytes(at, v.data, (v.offset + row) * v.width, v.width));
            default ->
                throw new IllegalArgumentException("Key column " + index + " cannot be hashed from its Arrow"
                        + " buffers: " + column.getClass().getSimpleName());
        };
    }

    private static Part timestamps(ValueVectors.Timestamps v) {
        long multiplier = switch (v.unit) {
            case SECOND -> 1_000_000L;
            case MILLISECOND -> 1_000L;
            case MICROSECOND, NANOSECOND -> 1L;
        };
        if (v.unit == TimeUnit.NANOSECOND) {
            return (keys, row, at) -> keys.writeLong(
                    at, Math.floorDiv(v.values.getAtIndex(ValueLayout.JAVA_LONG_UNALIGNED, v.offset + row), 1_000L));
        }
        return (keys, row, at) -> keys.writeLong(
                at,
                Math.multiplyExact(v.values.getAtIndex(ValueLayout.JAVA_LONG_UNALIGNED, v.offset + row), multiplier));
    }

    private static Part nullable(ValidityVector vector, Part values) {
        if (vector.validity == null) {
            return values;
        }
        return (keys, row, at) -> vector.isNullAt(row) ? keys.writeNull(at) : values.write(keys, row, at);
    }

    private static Part dictionary(DictionaryVector vector, Part entries) {
        return (keys, row, at) ->
                vector.isNullAt(row) ? keys.writeNull(at) : entries.write(keys, vector.entry(row), at);
    }

    /** One column's part of the key. */
    @FunctionalInterface
    private interface Part {
        /** Writes row {@code row}'s value at {@code at} of {@code keys}' buffer; returns the next index. */
        int write(RowKeys keys, int row, int at);
    }
}
