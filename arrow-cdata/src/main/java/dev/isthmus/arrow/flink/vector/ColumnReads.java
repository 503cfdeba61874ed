package dev.isthmus.arrow.flink.vector;

import dev.isthmus.arrow.types.ArrowType.TimeUnit;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.Arrays;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.data.columnar.vector.BooleanColumnVector;
import org.apache.flink.table.data.columnar.vector.ByteColumnVector;
import org.apache.flink.table.data.columnar.vector.ColumnVector;
import org.apache.flink.table.data.columnar.vector.DecimalColumnVector;
import org.apache.flink.table.data.columnar.vector.DoubleColumnVector;
import org.apache.flink.table.data.columnar.vector.FloatColumnVector;
import org.apache.flink.table.data.columnar.vector.IntColumnVector;
import org.apache.flink.table.data.columnar.vector.LongColumnVector;
import org.apache.flink.table.data.columnar.vector.ShortColumnVector;
import org.apache.flink.table.data.columnar.vector.TimestampColumnVector;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.utils.LogicalTypeChecks;

/**
 * What both of {@link BinaryRowTransposer}'s ways of writing rows read from a batch's columns:
 * each field's kind, the rows' null flags, string bytes copied to the heap, and slot values
 * gathered into plain arrays. Reads of this package's Arrow vectors touch native segments only
 * and write plain arrays ({@link Native}); any other {@link ColumnVector} is read through
 * Flink's vector interfaces ({@link Heap}). Keeps its scratch from batch to batch; one per
 * transposer.
 */
final class ColumnReads {
    /** Flink reads its slots in the platform's order; the library runs on little-endian x86-64 only. */
    static final ByteOrder ORDER = ByteOrder.LITTLE_ENDIAN;

    static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ORDER);
    static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ORDER);
    private static final ValueLayout.OfShort SHORT = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ORDER);
    /**
     * A string column whose data buffer holds at most this many bytes per row transposed is copied
     * to the heap whole, then each value from there: a bulk copy per value has a fixed set-up cost
     * larger than copying short strings twice ({@code TransposeBenchmark}). Sparse selections and long strings are
     * copied value by value.
     */
    private static final long HEAP_COPY_BYTES_PER_ROW = 128;

    enum Kind {
        BOOLEAN,
        BYTE,
        SHORT,
        INT,
        LONG,
        FLOAT,
        DOUBLE,
        COMPACT_DECIMAL,
        DECIMAL,
        COMPACT_TIMESTAMP,
        TIMESTAMP,
        BYTES;

        /** Whether values of this kind may take room in the variable part. */
        boolean variable() {
            return this == DECIMAL || this == TIMESTAMP || this == BYTES;
        }
    }

    final Kind[] kinds;
    final int[] precisions;
    final int[] scales;
    /**
     * Per column, the rows' null flags, the string bytes copied to the heap, and for the generated
     * writers the other heap copies (slots, timestamps, string offsets: allocated when first used).
     */
    final HeapColumns heap;

    int capacity = -1;
    /** {@code 0..capacity)}: the rows of a batch read whole. */
    int[] identity;

    private int[] entries;

    /** @throws IllegalArgumentException if a field's type is not flat */
    ColumnReads(RowType type) {
        int arity = type.getFieldCount();
        kinds = new Kind[arity];
        precisions = new int[arity];
        scales = new int[arity];
        for (int c = 0; c < arity; c++) {
            LogicalType field = type.getTypeAt(c);
            kinds[c] = kind(field);
            if (kinds[c] == null) {
                throw new IllegalArgumentException("no binary rows of " + field + " (field " + c + " of " + type + ")");
            }
            if (field instanceof DecimalType d) {
                precisions[c] = d.getPrecision();
                scales[c] = d.getScale();
            } else if (kinds[c] == Kind.COMPACT_TIMESTAMP || kinds[c] == Kind.TIMESTAMP) {
                precisions[c] = LogicalTypeChecks.getPrecision(field);
            }
        }
        heap = new HeapColumns(arity);
    }

    static Kind kind(LogicalType type) {
        return switch (type.getTypeRoot()) {
            case BOOLEAN -> Kind.BOOLEAN;
            case TINYINT -> Kind.BYTE;
            case SMALLINT -> Kind.SHORT;
            case INTEGER, DATE, TIME_WITHOUT_TIME_ZONE -> Kind.INT;
            case BIGINT -> Kind.LONG;
            case FLOAT -> Kind.FLOAT;
            case DOUBLE -> Kind.DOUBLE;
            case DECIMAL ->
                DecimalData.isCompact(((DecimalType) type).getPrecision()) ? Kind.COMPACT_DECIMAL : Kind.DECIMAL;
            case TIMESTAMP_WITHOUT_TIME_ZONE, TIMESTAMP_WITH_LOCAL_TIME_ZONE ->
                TimestampData.isCompact(LogicalTypeChecks.getPrecision(type)) ? Kind.COMPACT_TIMESTAMP : Kind.TIMESTAMP;
            case CHAR, VARCHAR, BINARY, VARBINARY -> Kind.BYTES;
            default -> null;
        };
    }

    /** Makes room for batches of {@code count} rows. */
    void reserve(int count) {
        if (count <= capacity) {
            return;
        }
        int n = Math.max(count, 16);
        identity = new int[n];
        for (int i = 0; i < n; i++) {
            identity[i] = i;
        }
        for (int c = 0; c < kinds.length; c++) {
            heap.nulls[c] = new boolean[n];
            // The generated writers' copies, allocated at this capacity when first used.
            heap.values[c] = null;
            heap.offsets[c] = null;
        }
        entries = new int[n];
        capacity = n;
    }

    /** Column {@code c}'s null flags for the rows, kept in {@code heap.nulls[c]}. */
    boolean[] markNulls(int c, ColumnVector column, int[] rows, int count) {
        boolean[] isNull = heap.nulls[c];
        Arrays.fill(isNull, 0, count, false);
        markNulls(column, rows, count, isNull);
        return isNull;
    }

    /** Flags the null rows of {@code column} that are not flagged yet, reading only those. */
    private void markNulls(ColumnVector column, int[] rows, int count, boolean[] isNull) {
        if (column instanceof DictionaryVector d && isBytes(d.dictionary)) {
            if (d.validity != null) {
                Native.markNulls(d.validity, d.offset, rows, count, isNull);
            }
            markNulls(d.dictionary, entries(d, rows, count, isNull), count, isNull);
        } else if (column instanceof ValidityVector v && !(column instanceof DictionaryVector)) {
            if (v.validity != null) {
                Native.markNulls(v.validity, v.offset, rows, count, isNull);
            }
        } else {
            for (int k = 0; k < count; k++) {
                if (!isNull[k] && column.isNullAt(rows[k])) {
                    isNull[k] = true;
                }
            }
        }
    }

    /** Byte strings read from their Arrow buffers: plain, fixed width, or a dictionary of either. */
    static boolean isBytes(ColumnVector column) {
        return column instanceof ValueVectors.VariableBytes || column instanceof ValueVectors.FixedBytes;
    }

    /** The dictionary entry of every row not null, in {@link #entries}. */
    int[] entries(DictionaryVector column, int[] rows, int count, boolean[] isNull) {
        int[] e = entries;
        for (int k = 0; k < count; k++) {
            e[k] = isNull[k] ? 0 : column.entry(rows[k]);
        }
        return e;
    }

    /**
     * Copies bytes {@code [from, to)} of {@code v}'s data, column {@code c}'s, to
     * {@code heap.spans[c]} if {@link #fitsSpan} them; false (and nothing copied) otherwise.
     */
    boolean copySpanToHeap(int c, ValueVectors.VariableBytes v, long from, long to, int count) {
        if (!fitsSpan(v, from, to, count)) {
            return false;
        }
        int size = (int) (to - from);
        // 8 bytes to spare, so that a string of under a word is read as one.
        if (heap.spans[c] == null || heap.spans[c].length < size + 8) {
            heap.spans[c] = new byte[size + 8];
        }
        MemorySegment.copy(v.data, ValueLayout.JAVA_BYTE, from, heap.spans[c], 0, size);
        heap.bases[c] = (int) from;
        return true;
    }

    /** Whether bytes {@code [from, to)} of {@code v}'s data come to at most {@link #HEAP_COPY_BYTES_PER_ROW} per row. */
    static boolean fitsSpan(ValueVectors.VariableBytes v, long from, long to, int count) {
        long size = to - from;
        return from >= 0
                && size >= 0
                && size <= HEAP_COPY_BYTES_PER_ROW * count
                && size <= BinaryRowTransposer.MAX_BYTES - 8
                && to <= v.data.byteSize();
    }

    /** The slot of every row not null, in {@code out}. */
    static void fillSlots(
            Kind kind,
            ColumnVector column,
            int[] rows,
            int count,
            boolean[] isNull,
            int precision,
            int scale,
            long[] out) {
        switch (column) {
            case PrimitiveVectors.Booleans v
            when kind == Kind.BOOLEAN -> Native.booleans(v.bits, v.offset, rows, count, out);
            case PrimitiveVectors.Bytes v when kind == Kind.BYTE -> Native.bytes(v.values, v.offset, rows, count, out);
            case PrimitiveVectors.Shorts v
            when kind == Kind.SHORT -> Native.shorts(v.values, v.offset, rows, count, out);
            case PrimitiveVectors.Ints v when kind == Kind.INT -> Native.ints(v.values, v.offset, rows, count, out);
            case PrimitiveVectors.Floats v when kind == Kind.FLOAT -> Native.ints(v.values, v.offset, rows, count, out);
            case PrimitiveVectors.ScaledLongsAsInts v
            when kind == Kind.INT -> Native.scaledLongs(v.values, v.offset, v.divisor, rows, count, out);
            case PrimitiveVectors.SecondsAsMillis v
            when kind == Kind.INT -> Native.secondsAsMillis(v.values, v.offset, rows, count, out);
            case PrimitiveVectors.Doubles v
            when kind == Kind.DOUBLE -> Native.longs(v.values, v.offset, 1, 0, rows, count, out);
            // The low word of the 128-bit value: a compact decimal's unscaled value fits in it.
            case ValueVectors.Decimals v
            when kind == Kind.COMPACT_DECIMAL -> Native.longs(v.values, v.offset, 2, 0, rows, count, out);
            case ValueVectors.Timestamps v
            when kind == Kind.COMPACT_TIMESTAMP -> Native.millis(v.values, v.offset, v.unit, rows, count, isNull, out);
            default -> Heap.slots(kind, column, rows, count, isNull, precision, scale, out);
        }
    }

    /**
     * Reads of the Arrow buffers, which are all native segments; they write only plain arrays.
     * Values of null rows are read where the buffers hold a slot for them anyway, and ignored.
     */
    static final class Native {
        private Native() {}

        static void markNulls(MemorySegment validity, long offset, int[] rows, int count, boolean[] isNull) {
            for (int k = 0; k < count; k++) {
                if (!isNull[k]) {
                    long bit = offset + rows[k];
                    isNull[k] = (validity.get(ValueLayout.JAVA_BYTE, bit >>> 3) & (1 << (bit & 7))) == 0;
                }
            }
        }

        static void booleans(MemorySegment bits, long offset, int[] rows, int count, long[] out) {
            for (int k = 0; k < count; k++) {
                long bit = offset + rows[k];
                out[k] = (bits.get(ValueLayout.JAVA_BYTE, bit >>> 3) >>> (bit & 7)) & 1;
            }
        }

        static void bytes(MemorySegment values, long offset, int[] rows, int count, long[] out) {
            for (int k = 0; k < count; k++) {
                out[k] = values.get(ValueLayout.JAVA_BYTE, offset + rows[k]) & 0xFFL;
            }
        }

        static void shorts(MemorySegment values, long offset, int[] rows, int count, long[] out) {
            for (int k = 0; k < count; k++) {
                out[k] = values.getAtIndex(SHORT, offset + rows[k]) & 0xFFFFL;
            }
        }

        /** 32-bit values as they are: ints, and floats' bits (Flink writes their raw bits). */
        static void ints(MemorySegment values, long offset, int[] rows, int count, long[] out) {
            for (int k = 0; k < count; k++) {
                out[k] = values.getAtIndex(INT, offset + rows[k]) & 0xFFFFFFFFL;
            }
        }

        static void scaledLongs(MemorySegment values, long offset, long divisor, int[] rows, int count, long[] out) {
            for (int k = 0; k < count; k++) {
                out[k] = (int) Math.floorDiv(values.getAtIndex(LONG, offset + rows[k]), divisor) & 0xFFFFFFFFL;
            }
        }

        static void secondsAsMillis(MemorySegment values, long offset, int[] rows, int count, long[] out) {
            for (int k = 0; k < count; k++) {
                out[k] = values.getAtIndex(INT, offset + rows[k]) * 1000 & 0xFFFFFFFFL;
            }
        }

        /** Word {@code word} of each row's {@code words} 64-bit words, as they are. */
        static void longs(MemorySegment values, long offset, int words, int word, int[] rows, int count, long[] out) {
            for (int k = 0; k < count; k++) {
                out[k] = values.getAtIndex(LONG, (offset + rows[k]) * words + word);
            }
        }

        /**
         * Epoch millis of the rows not null, as the Timestamps vector gives them (seconds are
         * scaled exactly, so null rows are skipped).
         */
        static void millis(
                MemorySegment values,
                long offset,
                TimeUnit unit,
                int[] rows,
                int count,
                boolean[] isNull,
                long[] millis) {
            long perMilli = perMilli(unit);
            for (int k = 0; k < count; k++) {
                if (isNull[k]) {
                    continue;
                }
                long v = values.getAtIndex(LONG, offset + rows[k]);
                millis[k] = unit == TimeUnit.SECOND ? Math.multiplyExact(v, 1000L) : Math.floorDiv(v, perMilli);
            }
        }

        static long perMilli(TimeUnit unit) {
            return switch (unit) {
                case SECOND, MILLISECOND -> 1L;
                case MICROSECOND -> 1_000L;
                case NANOSECOND -> 1_000_000L;
            };
        }
    }

    /** Reads through Flink's vector interfaces, for vectors that are not this package's. */
    private static final class Heap {
        private Heap() {}

        /** Slots read through Flink's vector interfaces, for vectors that are not this package's. */
        static void slots(
                Kind kind,
                ColumnVector column,
                int[] rows,
                int count,
                boolean[] isNull,
                int precision,
                int scale,
                long[] out) {
            for (int k = 0; k < count; k++) {
                if (isNull[k]) {
                    continue;
                }
                int row = rows[k];
                out[k] = switch (kind) {
                    case BOOLEAN -> ((BooleanColumnVector) column).getBoolean(row) ? 1 : 0;
                    case BYTE -> ((ByteColumnVector) column).getByte(row) & 0xFFL;
                    case SHORT -> ((ShortColumnVector) column).getShort(row) & 0xFFFFL;
                    case INT -> ((IntColumnVector) column).getInt(row) & 0xFFFFFFFFL;
                    case LONG -> ((LongColumnVector) column).getLong(row);
                    case FLOAT -> Float.floatToRawIntBits(((FloatColumnVector) column).getFloat(row)) & 0xFFFFFFFFL;
                    case DOUBLE -> Double.doubleToRawLongBits(((DoubleColumnVector) column).getDouble(row));
                    case COMPACT_DECIMAL ->
                        ((DecimalColumnVector) column)
                                .getDecimal(row, precision, scale)
                                .toUnscaledLong();
                    case COMPACT_TIMESTAMP ->
                        ((TimestampColumnVector) column)
                                .getTimestamp(row, precision)
                                .getMillisecond();
                    default -> throw new IllegalStateException(kind + " has no slot of its own");
                };
            }
        }
    }
}
