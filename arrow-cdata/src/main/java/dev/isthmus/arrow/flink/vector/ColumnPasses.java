package dev.isthmus.arrow.flink.vector;

import dev.isthmus.arrow.types.ArrowType.TimeUnit;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.math.BigInteger;
import java.util.Arrays;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.data.columnar.vector.BytesColumnVector;
import org.apache.flink.table.data.columnar.vector.ColumnVector;
import org.apache.flink.table.data.columnar.vector.DecimalColumnVector;
import org.apache.flink.table.data.columnar.vector.TimestampColumnVector;

/**
 * {@link BinaryRowTransposer}'s column passes, for any rows of any flat batch: first the
 * variable part of every row, which places the rows, then each column writes its slot (and
 * variable part) in every row. Columns that are this package's Arrow vectors are read straight
 * from their buffers ({@link Native}, which reads native segments and writes only the rows' heap
 * array); any other {@link ColumnVector} through Flink's vector interfaces ({@link Heap}).
 * Keeps its scratch from batch to batch; one per transposer.
 */
final class ColumnPasses {
    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ColumnReads.ORDER);
    private static final ValueLayout.OfLong LONG = ColumnReads.LONG;
    private static final ValueLayout.OfInt INT = ColumnReads.INT;

    private final ColumnReads reads;
    private final ColumnReads.Kind[] kinds;
    private final HeapColumns heap;
    private final int fixedSize;
    private final int nullBytes;

    private int capacity = -1;
    private long[] variableSizes;
    private int[] cursors;
    private long[] slots;
    private long[] first;
    private long[] second;

    ColumnPasses(ColumnReads reads) {
        this.reads = reads;
        this.kinds = reads.kinds;
        this.heap = reads.heap;
        nullBytes = BinaryRowLayout.nullBytes(kinds.length);
        fixedSize = BinaryRowLayout.fixedSize(kinds.length);
    }

    private void reserve(int count) {
        if (count <= capacity) {
            return;
        }
        int n = Math.max(count, 16);
        variableSizes = new long[n];
        cursors = new int[n];
        slots = new long[n];
        first = new long[n];
        second = new long[n];
        capacity = n;
    }

    /**
     * Writes rows {@code rows[0..count)} of {@code columns} into {@code into}.
     *
     * @param ascending whether {@code rows} ascend, so that a column's strings for them lie within
     *     the bytes from the first row's to the last's
     */
    void write(ColumnVector[] columns, int[] rows, int count, boolean ascending, BinaryRows into) {
        reserve(count);
        // First the variable part of every row, which places the rows.
        long[] sizes = variableSizes;
        Arrays.fill(sizes, 0, count, 0L);
        for (int c = 0; c < kinds.length; c++) {
            if (kinds[c].variable()) {
                boolean[] isNull = reads.markNulls(c, columns[c], rows, count);
                addVariableSizes(kinds[c], columns[c], rows, count, isNull, sizes);
            }
        }
        int[] starts = into.startsFor(count);
        long end = 0;
        for (int k = 0; k < count; k++) {
            starts[k] = (int) end;
            cursors[k] = (int) end + fixedSize;
            end += fixedSize + sizes[k];
            if (end > BinaryRowTransposer.MAX_BYTES) {
                throw new IllegalStateException(
                        "a batch of " + count + " rows takes more than " + BinaryRowTransposer.MAX_BYTES
                                + " bytes as binary rows; read it in smaller batches or as columnar rows");
            }
        }
        starts[count] = (int) end;
        byte[] data = into.dataFor((int) end);
        Heap.clearNullBits(data, starts, count, nullBytes);

        // Then each column writes its slot and variable part in every row.
        for (int c = 0; c < kinds.length; c++) {
            ColumnReads.Kind kind = kinds[c];
            boolean[] isNull = kind.variable() ? heap.nulls[c] : reads.markNulls(c, columns[c], rows, count);
            int slot = BinaryRowLayout.slot(nullBytes, c);
            int nullByte = BinaryRowLayout.nullByte(c);
            int nullMask = BinaryRowLayout.nullMask(c);
            // The commonest columns write their slots (and null bits) straight into the rows; the
            // others fill the scratch slots, scattered into the rows after.
            boolean written = true;
            if (kind == ColumnReads.Kind.LONG && columns[c] instanceof PrimitiveVectors.Longs v) {
                Native.writeLongs(v.values, v.offset, rows, count, isNull, data, starts, slot, nullByte, nullMask);
            } else if (kind == ColumnReads.Kind.TIMESTAMP && columns[c] instanceof ValueVectors.Timestamps v) {
                Native.writeTimestamps(
                        v.values, v.offset, v.unit, rows, count, isNull, data, starts, cursors, slot, nullByte,
                        nullMask);
            } else {
                written = false;
                switch (kind) {
                    case BYTES -> writeBytes(c, columns[c], rows, count, ascending, isNull, data, starts);
                    case DECIMAL -> {
                        decimals(columns[c], rows, count, isNull, reads.precisions[c], reads.scales[c]);
                        Heap.writeDecimals(data, starts, cursors, count, isNull, first, second, slots);
                    }
                    case TIMESTAMP -> {
                        timestamps(columns[c], rows, count, isNull, reads.precisions[c]);
                        Heap.writeTimestamps(data, starts, cursors, count, isNull, first, second, slots);
                    }
                    default ->
                        ColumnReads.fillSlots(
                                kind, columns[c], rows, count, isNull, reads.precisions[c], reads.scales[c], slots);
                }
            }
            if (!written) {
                Heap.scatter(data, starts, count, slot, nullByte, nullMask, isNull, slots);
            }
        }
        into.filled(count);
    }

    private void addVariableSizes(
            ColumnReads.Kind kind, ColumnVector column, int[] rows, int count, boolean[] isNull, long[] sizes) {
        switch (kind) {
            case DECIMAL -> Heap.addSizes(isNull, count, 16, sizes);
            case TIMESTAMP -> Heap.addSizes(isNull, count, 8, sizes);
            default -> addByteSizes(column, rows, count, isNull, sizes);
        }
    }

    private void addByteSizes(ColumnVector column, int[] rows, int count, boolean[] isNull, long[] sizes) {
        switch (column) {
            case ValueVectors.VariableBytes v ->
                Native.addStringSizes(v.offsets, v.large, v.offset, rows, count, isNull, sizes);
            case ValueVectors.FixedBytes f -> {
                if (f.width > 7) {
                    Heap.addSizes(isNull, count, BinaryRowLayout.roundToWord(f.width), sizes);
                }
            }
            case DictionaryVector d
            when ColumnReads.isBytes(d.dictionary) ->
                addByteSizes(d.dictionary, reads.entries(d, rows, count, isNull), count, isNull, sizes);
            default -> {
                for (int k = 0; k < count; k++) {
                    if (!isNull[k]) {
                        int length = ((BytesColumnVector) column).getBytes(rows[k]).len;
                        if (length > 7) {
                            sizes[k] += BinaryRowLayout.roundToWord(length);
                        }
                    }
                }
            }
        }
    }

    /**
     * @param ascending whether {@code rows} ascend (a batch's selected rows do; dictionary entries
     *     need not), so that their strings lie within the bytes from the first row's to the last's
     */
    private void writeBytes(
            int c,
            ColumnVector column,
            int[] rows,
            int count,
            boolean ascending,
            boolean[] isNull,
            byte[] data,
            int[] starts) {
        switch (column) {
            case ValueVectors.VariableBytes v -> {
                if (v.large) {
                    Native.copyLargeStrings(
                            v.offsets, v.data, v.offset, rows, count, isNull, data, starts, cursors, slots);
                    return;
                }
                long from = 0;
                long to = v.data.byteSize();
                if (ascending && count > 0) {
                    from = v.offsets.getAtIndex(INT, v.offset + rows[0]);
                    to = v.offsets.getAtIndex(INT, v.offset + rows[count - 1] + 1);
                }
                if (reads.copySpanToHeap(c, v, from, to, count)) {
                    Native.copyHeapStrings(
                            v.offsets,
                            heap.spans[c],
                            (int) from,
                            v.offset,
                            rows,
                            count,
                            isNull,
                            data,
                            starts,
                            cursors,
                            slots);
                } else {
                    Native.copyStrings(v.offsets, v.data, v.offset, rows, count, isNull, data, starts, cursors, slots);
                }
            }
            case ValueVectors.FixedBytes f ->
                Native.copyFixed(f.data, f.offset, f.width, rows, count, isNull, data, starts, cursors, slots);
            case DictionaryVector d
            when ColumnReads.isBytes(d.dictionary) ->
                writeBytes(c, d.dictionary, reads.entries(d, rows, count, isNull), count, false, isNull, data, starts);
            default -> Heap.copyBytes(column, rows, count, isNull, data, starts, cursors, slots);
        }
    }

    /** The unscaled value of every row not null, low words in {@link #first}, high in {@link #second}. */
    private void decimals(ColumnVector column, int[] rows, int count, boolean[] isNull, int precision, int scale) {
        if (column instanceof ValueVectors.Decimals v) {
            ColumnReads.Native.longs(v.values, v.offset, 2, 0, rows, count, first);
            ColumnReads.Native.longs(v.values, v.offset, 2, 1, rows, count, second);
            return;
        }
        for (int k = 0; k < count; k++) {
            if (!isNull[k]) {
                BigInteger unscaled = ((DecimalColumnVector) column)
                        .getDecimal(rows[k], precision, scale)
                        .toBigDecimal()
                        .unscaledValue();
                first[k] = unscaled.longValue();
                second[k] = unscaled.shiftRight(64).longValue();
            }
        }
    }

    /**
     * Millis of every row not null in {@link #first}, nanos of the milli in {@link #second}, from a
     * timestamp vector that is not this package's (whose are written by {@code Native.writeTimestamps}).
     */
    private void timestamps(ColumnVector column, int[] rows, int count, boolean[] isNull, int precision) {
        for (int k = 0; k < count; k++) {
            if (!isNull[k]) {
                TimestampData t = ((TimestampColumnVector) column).getTimestamp(rows[k], precision);
                first[k] = t.getMillisecond();
                second[k] = t.getNanoOfMillisecond();
            }
        }
    }

    /**
     * Writes from the Arrow buffers, which are all native segments, into the rows' heap array
     * (copies with {@code MemorySegment.copy}).
     */
    private static final class Native {
        private Native() {}

        /** 64-bit values into the rows' slots at {@code slot}, with their null bits. */
        static void writeLongs(
                MemorySegment values,
                long offset,
                int[] rows,
                int count,
                boolean[] isNull,
                byte[] rowData,
                int[] starts,
                int slot,
                int nullByte,
                int nullMask) {
            for (int k = 0; k < count; k++) {
                int at = starts[k];
                if (isNull[k]) {
                    BinaryRowLayout.setNull(rowData, at, slot, nullByte, nullMask);
                } else {
                    LONGS.set(rowData, at + slot, values.getAtIndex(LONG, offset + rows[k]));
                }
            }
        }

        /**
         * Timestamps of more than millisecond precision into the rows: the epoch millis in the
         * variable part, the slot at {@code slot} holding their offset and the nanos of the milli.
         */
        static void writeTimestamps(
                MemorySegment values,
                long offset,
                TimeUnit unit,
                int[] rows,
                int count,
                boolean[] isNull,
                byte[] rowData,
                int[] starts,
                int[] cursors,
                int slot,
                int nullByte,
                int nullMask) {
            long perMilli = ColumnReads.Native.perMilli(unit);
            long nanosPerUnit = 1_000_000L / perMilli;
            for (int k = 0; k < count; k++) {
                int at = starts[k];
                if (isNull[k]) {
                    BinaryRowLayout.setNull(rowData, at, slot, nullByte, nullMask);
                    continue;
                }
                long v = values.getAtIndex(LONG, offset + rows[k]);
                long millis = unit == TimeUnit.SECOND ? Math.multiplyExact(v, 1000L) : Math.floorDiv(v, perMilli);
                int cursor = cursors[k];
                LONGS.set(rowData, cursor, millis);
                LONGS.set(
                        rowData,
                        at + slot,
                        BinaryRowLayout.variableSlot(cursor - at, Math.floorMod(v, perMilli) * nanosPerUnit));
                cursors[k] = cursor + 8;
            }
        }

        static void addStringSizes(
                MemorySegment offsets,
                boolean large,
                long offset,
                int[] rows,
                int count,
                boolean[] isNull,
                long[] sizes) {
            for (int k = 0; k < count; k++) {
                if (!isNull[k]) {
                    long index = offset + rows[k];
                    long length = large
                            ? offsets.getAtIndex(LONG, index + 1) - offsets.getAtIndex(LONG, index)
                            : offsets.getAtIndex(INT, index + 1) - offsets.getAtIndex(INT, index);
                    if (length > 7) {
                        sizes[k] += (length + 7) & ~7L;
                    }
                }
            }
        }

        static void copyStrings(
                MemorySegment offsets,
                MemorySegment data,
                long offset,
                int[] rows,
                int count,
                boolean[] isNull,
                byte[] rowData,
                int[] starts,
                int[] cursors,
                long[] slots) {
            long dataSize = data.byteSize();
            for (int k = 0; k < count; k++) {
                if (!isNull[k]) {
                    long index = offset + rows[k];
                    int start = offsets.getAtIndex(INT, index);
                    int length = offsets.getAtIndex(INT, index + 1) - start;
                    slots[k] = copy(data, dataSize, start, length, rowData, starts[k], cursors, k);
                }
            }
        }

        /** As {@link #copyStrings}, from {@code heapData}, a copy of the data buffer from byte {@code base} on. */
        static void copyHeapStrings(
                MemorySegment offsets,
                byte[] heapData,
                int base,
                long offset,
                int[] rows,
                int count,
                boolean[] isNull,
                byte[] rowData,
                int[] starts,
                int[] cursors,
                long[] slots) {
            for (int k = 0; k < count; k++) {
                if (!isNull[k]) {
                    long index = offset + rows[k];
                    int end = offsets.getAtIndex(INT, index + 1);
                    int start = offsets.getAtIndex(INT, index);
                    slots[k] = Heap.copy(heapData, start - base, end - start, rowData, starts[k], cursors, k);
                }
            }
        }

        static void copyLargeStrings(
                MemorySegment offsets,
                MemorySegment data,
                long offset,
                int[] rows,
                int count,
                boolean[] isNull,
                byte[] rowData,
                int[] starts,
                int[] cursors,
                long[] slots) {
            long dataSize = data.byteSize();
            for (int k = 0; k < count; k++) {
                if (!isNull[k]) {
                    long index = offset + rows[k];
                    long start = offsets.getAtIndex(LONG, index);
                    int length = (int) (offsets.getAtIndex(LONG, index + 1) - start);
                    slots[k] = copy(data, dataSize, start, length, rowData, starts[k], cursors, k);
                }
            }
        }

        static void copyFixed(
                MemorySegment data,
                long offset,
                int width,
                int[] rows,
                int count,
                boolean[] isNull,
                byte[] rowData,
                int[] starts,
                int[] cursors,
                long[] slots) {
            long dataSize = data.byteSize();
            for (int k = 0; k < count; k++) {
                if (!isNull[k]) {
                    slots[k] = copy(data, dataSize, (offset + rows[k]) * width, width, rowData, starts[k], cursors, k);
                }
            }
        }

        /** One byte string's slot: the bytes themselves up to 7, else its place in the row's variable part. */
        private static long copy(
                MemorySegment data,
                long dataSize,
                long start,
                int length,
                byte[] rowData,
                int rowStart,
                int[] cursors,
                int k) {
            if (length <= BinaryRowLayout.MAX_INLINE) {
                long word;
                if (start + 8 <= dataSize) {
                    word = data.get(LONG, start) & ((1L << (length << 3)) - 1);
                } else {
                    word = 0;
                    for (int i = 0; i < length; i++) {
                        word |= (data.get(ValueLayout.JAVA_BYTE, start + i) & 0xFFL) << (i << 3);
                    }
                }
                return BinaryRowLayout.inlineSlot(word, length);
            }
            int at = cursors[k];
            MemorySegment.copy(data, ValueLayout.JAVA_BYTE, start, rowData, at, length);
            int padded = BinaryRowLayout.roundToWord(length);
            for (int p = at + length; p < at + padded; p++) {
                rowData[p] = 0;
            }
            cursors[k] = at + padded;
            return BinaryRowLayout.variableSlot(at - rowStart, length);
        }
    }

    /** Writes of the rows' heap array from plain arrays, and reads through Flink's vector interfaces. */
    private static final class Heap {
        private Heap() {}

        static void clearNullBits(byte[] data, int[] starts, int count, int nullBytes) {
            for (int k = 0; k < count; k++) {
                for (int b = 0; b < nullBytes; b += 8) {
                    LONGS.set(data, starts[k] + b, 0L);
                }
            }
        }

        static void scatter(
                byte[] data,
                int[] starts,
                int count,
                int slot,
                int nullByte,
                int nullMask,
                boolean[] isNull,
                long[] slots) {
            for (int k = 0; k < count; k++) {
                int at = starts[k];
                if (isNull[k]) {
                    BinaryRowLayout.setNull(data, at, slot, nullByte, nullMask);
                } else {
                    LONGS.set(data, at + slot, slots[k]);
                }
            }
        }

        static void addSizes(boolean[] isNull, int count, int size, long[] sizes) {
            for (int k = 0; k < count; k++) {
                if (!isNull[k]) {
                    sizes[k] += size;
                }
            }
        }

        /** 16 bytes each, holding what {@code DecimalData.toUnscaledBytes()} gives, zero padded. */
        static void writeDecimals(
                byte[] data,
                int[] starts,
                int[] cursors,
                int count,
                boolean[] isNull,
                long[] low,
                long[] high,
                long[] slots) {
            for (int k = 0; k < count; k++) {
                if (isNull[k]) {
                    continue;
                }
                int at = cursors[k];
                LONGS.set(data, at, 0L);
                LONGS.set(data, at + 8, 0L);
                long lo = low[k];
                long hi = high[k];
                // BigInteger.toByteArray's length: the bits of the magnitude (of ~value if
                // negative) plus a sign bit, in whole bytes.
                long magnitudeHigh = hi < 0 ? ~hi : hi;
                long magnitudeLow = hi < 0 ? ~lo : lo;
                int bits = magnitudeHigh != 0
                        ? 128 - Long.numberOfLeadingZeros(magnitudeHigh)
                        : 64 - Long.numberOfLeadingZeros(magnitudeLow);
                int length = bits / 8 + 1;
                for (int i = 0; i < length; i++) {
                    data[at + length - 1 - i] = (byte) (i < 8 ? lo >>> (i << 3) : hi >>> ((i - 8) << 3));
                }
                slots[k] = BinaryRowLayout.variableSlot(at - starts[k], length);
                cursors[k] = at + 16;
            }
        }

        static void writeTimestamps(
                byte[] data,
                int[] starts,
                int[] cursors,
                int count,
                boolean[] isNull,
                long[] millis,
                long[] nanos,
                long[] slots) {
            for (int k = 0; k < count; k++) {
                if (!isNull[k]) {
                    int at = cursors[k];
                    LONGS.set(data, at, millis[k]);
                    slots[k] = BinaryRowLayout.variableSlot(at - starts[k], nanos[k]);
                    cursors[k] = at + 8;
                }
            }
        }

        static void copyBytes(
                ColumnVector column,
                int[] rows,
                int count,
                boolean[] isNull,
                byte[] rowData,
                int[] starts,
                int[] cursors,
                long[] slots) {
            for (int k = 0; k < count; k++) {
                if (!isNull[k]) {
                    BytesColumnVector.Bytes bytes = ((BytesColumnVector) column).getBytes(rows[k]);
                    slots[k] = copy(bytes.data, bytes.offset, bytes.len, rowData, starts[k], cursors, k);
                }
            }
        }

        /** One byte string's slot: the bytes themselves up to 7, else its place in the row's variable part. */
        static long copy(byte[] from, int start, int length, byte[] rowData, int rowStart, int[] cursors, int k) {
            if (length <= BinaryRowLayout.MAX_INLINE) {
                long word;
                if (start + 8 <= from.length) {
                    word = (long) LONGS.get(from, start) & ((1L << (length << 3)) - 1);
                } else {
                    word = 0;
                    for (int i = 0; i < length; i++) {
                        word |= (from[start + i] & 0xFFL) << (i << 3);
                    }
                }
                return BinaryRowLayout.inlineSlot(word, length);
            }
            int at = cursors[k];
            int padded = BinaryRowLayout.roundToWord(length);
            LONGS.set(rowData, at + padded - 8, 0L);
            System.arraycopy(from, start, rowData, at, length);
            cursors[k] = at + padded;
            return BinaryRowLayout.variableSlot(at - rowStart, length);
        }
    }
}
