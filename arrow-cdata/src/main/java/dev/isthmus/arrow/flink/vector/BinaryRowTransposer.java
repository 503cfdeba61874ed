package dev.isthmus.arrow.flink.vector;

import dev.isthmus.arrow.types.ArrowType.TimeUnit;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.math.BigInteger;
import java.nio.ByteOrder;
import java.util.Arrays;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.data.columnar.vector.BooleanColumnVector;
import org.apache.flink.table.data.columnar.vector.ByteColumnVector;
import org.apache.flink.table.data.columnar.vector.BytesColumnVector;
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
 * Writes the rows of a batch of columns as Flink {@link BinaryRowData}s, byte for byte what
 * Flink's own {@code BinaryRowWriter} (and so {@code RowDataSerializer.toBinaryRow}) writes for
 * the same values, into one heap array ({@link BinaryRows}). Flink copies and serializes a binary
 * row as one array copy, where a columnar row is copied field by field through per-field getters,
 * which costs more than decoding it; transposing a batch once, column by column, is much cheaper
 * than that copy.
 *
 * <p>The layout, per row: the null bits with the row kind in their first byte (INSERT, so 0), an
 * 8-byte slot per field, then the variable part in 8-byte words, fields in order. Booleans, bytes,
 * shorts, ints (also DATE and TIME), longs, floats and doubles sit in their slot (the rest of it
 * zero), as do compact decimals (precision up to 18: the unscaled long) and compact timestamps
 * (precision up to 3: epoch millis). Byte strings (CHAR, VARCHAR, BINARY, VARBINARY) of up to 7
 * bytes sit in the slot with their length and a mark bit in its last byte; longer ones, wider
 * decimals (16 bytes holding the unscaled value's minimal big-endian two's complement) and wider
 * timestamps (millis, with the nanos of the millisecond in the slot) go to the variable part, the
 * slot holding their offset from the row's start and their length. Null fields have their bit set
 * and a zero slot, and take no variable part.
 *
 * <p>Flat types only ({@link #supports}). Two ways to write, the same bytes either way:
 * <ul>
 *   <li>Consecutive rows (a whole batch, or a run of it as the source emits) whose columns all
 *       copy to heap arrays in one pass each ({@link #transposeGenerated}: every type but wide
 *       decimals and fixed-width bytes, strings of at most 128 bytes a row) are written row by row
 *       by a loop generated for the row's shape ({@link RowWriterGenerator}), which writes each row
 *       once instead of passing over all rows once per column and kind of work, which is faster on
 *       Nexmark bids ({@code TransposeBenchmark}; docs/benchmarks.md, "The transpose alone").
 *   <li>Anything else, column by column: columns that are this package's Arrow vectors are read
 *       straight from their buffers; any other {@link ColumnVector} (a constant column, say)
 *       through Flink's vector interfaces.
 * </ul>
 * Methods that read native segments write only plain arrays, and the heap rows are written
 * through a byte-array view: a hot method whose segment accesses see both heap and native
 * segments runs several times slower.
 *
 * <p>One instance per thread: it keeps its scratch arrays from batch to batch.
 */
public final class BinaryRowTransposer {
    /** The most bytes one batch of rows may take: about the largest Java array. */
    static final int MAX_BYTES = Integer.MAX_VALUE - 16;

    /** Flink reads its slots in the platform's order; the library runs on little-endian x86-64 only. */
    private static final ByteOrder ORDER = ByteOrder.LITTLE_ENDIAN;

    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ORDER);
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ORDER);
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ORDER);
    private static final ValueLayout.OfShort SHORT = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ORDER);
    /**
     * A string column whose data buffer holds at most this many bytes per row transposed is copied
     * to the heap whole, then each value from there: a bulk copy per value has a fixed set-up cost
     * larger than copying short strings twice ({@code TransposeBenchmark}). Sparse selections and long strings are
     * copied value by value.
     */
    private static final long HEAP_COPY_BYTES_PER_ROW = 128;

    private enum Kind {
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

    private final Kind[] kinds;
    private final int[] precisions;
    private final int[] scales;
    private final int fixedSize;
    private final int nullBytes;

    private int capacity = -1;
    private int[] identity;
    private long[] variableSizes;
    private int[] cursors;
    private int[] entries;
    private long[] slots;
    private long[] first;
    private long[] second;
    /**
     * Per column, the rows' null flags, the string bytes copied to the heap, and for the generated
     * writers the other heap copies (slots, timestamps, string offsets: allocated when first used).
     */
    private final HeapColumns heap;
    /** Per field, its {@link RowWriterGenerator} code in the batch being transposed. */
    private final int[] codes;
    /** The codes of the last batch the generated writers were asked for, and their writer ({@code null}: none). */
    private int[] lastCodes;

    private RowWriter lastWriter;
    private long generatedBatches;

    /**
     * @throws IllegalArgumentException if a field's type is not flat ({@link #supports})
     * @throws IllegalStateException on a big-endian platform
     */
    public BinaryRowTransposer(RowType type) {
        if (!BinaryRowData.LITTLE_ENDIAN) {
            throw new IllegalStateException("binary rows are written little-endian, the platform is not");
        }
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
        nullBytes = BinaryRowLayout.nullBytes(arity);
        fixedSize = BinaryRowLayout.fixedSize(arity);
        heap = new HeapColumns(arity);
        codes = new int[arity];
    }

    /** Whether rows of {@code type} can be transposed: no nested, raw, structured or interval fields. */
    public static boolean supports(RowType type) {
        return type.getChildren().stream().allMatch(field -> kind(field) != null);
    }

    private static Kind kind(LogicalType type) {
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

    /**
     * Writes rows {@code selection[0..count)} of {@code columns} (rows {@code 0..count)} when the
     * selection is {@code null}) into {@code into}, replacing what it held.
     *
     * @param columns one vector per field of the row type, each of the field's type
     * @throws IllegalStateException if the rows would take more than about 2 GiB
     */
    public void transpose(ColumnVector[] columns, int[] selection, int count, BinaryRows into) {
        if (columns.length != kinds.length) {
            throw new IllegalArgumentException(columns.length + " columns for " + kinds.length + " fields");
        }
        reserve(count);
        int[] rows = selection == null ? identity : selection;
        boolean consecutive = count > 0 && (selection == null || Heap.consecutive(selection, count));
        if (consecutive && transposeGenerated(columns, rows, count, into)) {
            return;
        }
        boolean ascending = consecutive || selection == null || Heap.ascending(selection, count);

        // First the variable part of every row, which places the rows.
        long[] sizes = variableSizes;
        Arrays.fill(sizes, 0, count, 0L);
        for (int c = 0; c < kinds.length; c++) {
            if (kinds[c].variable()) {
                boolean[] isNull = markNulls(c, columns[c], rows, count);
                addVariableSizes(kinds[c], columns[c], rows, count, isNull, sizes);
            }
        }
        int[] starts = into.startsFor(count);
        long end = 0;
        for (int k = 0; k < count; k++) {
            starts[k] = (int) end;
            cursors[k] = (int) end + fixedSize;
            end += fixedSize + sizes[k];
            if (end > MAX_BYTES) {
                throw new IllegalStateException("a batch of " + count + " rows takes more than " + MAX_BYTES
                        + " bytes as binary rows; read it in smaller batches or as columnar rows");
            }
        }
        starts[count] = (int) end;
        byte[] data = into.dataFor((int) end);
        Heap.clearNullBits(data, starts, count, nullBytes);

        // Then each column writes its slot and variable part in every row.
        for (int c = 0; c < kinds.length; c++) {
            Kind kind = kinds[c];
            boolean[] isNull = kind.variable() ? heap.nulls[c] : markNulls(c, columns[c], rows, count);
            int slot = BinaryRowLayout.slot(nullBytes, c);
            int nullByte = BinaryRowLayout.nullByte(c);
            int nullMask = BinaryRowLayout.nullMask(c);
            // The commonest columns write their slots (and null bits) straight into the rows; the
            // others fill the scratch slots, scattered into the rows after.
            boolean written = true;
            if (kind == Kind.LONG && columns[c] instanceof PrimitiveVectors.Longs v) {
                Native.writeLongs(v.values, v.offset, rows, count, isNull, data, starts, slot, nullByte, nullMask);
            } else if (kind == Kind.TIMESTAMP && columns[c] instanceof ValueVectors.Timestamps v) {
                Native.writeTimestamps(
                        v.values, v.offset, v.unit, rows, count, isNull, data, starts, cursors, slot, nullByte,
                        nullMask);
            } else {
                written = false;
                switch (kind) {
                    case BYTES -> writeBytes(c, columns[c], rows, count, ascending, isNull, data, starts);
                    case DECIMAL -> {
                        decimals(columns[c], rows, count, isNull, precisions[c], scales[c]);
                        Heap.writeDecimals(data, starts, cursors, count, isNull, first, second, slots);
                    }
                    case TIMESTAMP -> {
                        timestamps(columns[c], rows, count, isNull, precisions[c]);
                        Heap.writeTimestamps(data, starts, cursors, count, isNull, first, second, slots);
                    }
                    default -> fillSlots(kind, columns[c], rows, count, isNull, precisions[c], scales[c], slots);
                }
            }
            if (!written) {
                Heap.scatter(data, starts, count, slot, nullByte, nullMask, isNull, slots);
            }
        }
        into.filled(count);
    }

    /**
     * Consecutive rows {@code rows[0]..} through the generated writer of their shape
     * ({@link RowWriterGenerator}), each column first copied to heap arrays in one pass. False,
     * with nothing written, when a column has no such copy (wide decimals, fixed-width or large
     * strings, strings of more than {@link #HEAP_COPY_BYTES_PER_ROW} a row, dictionary-encoded
     * strings, timestamps in seconds) or the shape has no writer; the column passes write those.
     */
    private boolean transposeGenerated(ColumnVector[] columns, int[] rows, int count, BinaryRows into) {
        int first = rows[0];
        long bytes = (long) fixedSize * count;
        for (int c = 0; c < kinds.length; c++) {
            ColumnVector column = columns[c];
            int code;
            switch (kinds[c]) {
                case BYTES -> {
                    if (!(column instanceof ValueVectors.VariableBytes v) || v.large) {
                        return false;
                    }
                    long from = v.offsets.getAtIndex(INT, v.offset + first);
                    long to = v.offsets.getAtIndex(INT, v.offset + first + count);
                    if (!fitsSpan(v, from, to, count)) {
                        return false;
                    }
                    // Inline strings take no room; the others at most 7 bytes of padding each.
                    bytes += to - from + 7L * count;
                    code = RowWriterGenerator.STRING;
                }
                case TIMESTAMP -> {
                    if (!(column instanceof ValueVectors.Timestamps t) || t.unit == TimeUnit.SECOND) {
                        return false;
                    }
                    bytes += 8L * count;
                    code = switch (t.unit) {
                        case MILLISECOND -> RowWriterGenerator.TIMESTAMP_MILLIS;
                        case MICROSECOND -> RowWriterGenerator.TIMESTAMP_MICROS;
                        default -> RowWriterGenerator.TIMESTAMP_NANOS;
                    };
                }
                case DECIMAL -> {
                    return false;
                }
                default -> code = RowWriterGenerator.SLOT;
            }
            boolean noNulls =
                    column instanceof ValidityVector v && !(column instanceof DictionaryVector) && v.validity == null;
            codes[c] = noNulls ? code : code | RowWriterGenerator.NULLABLE;
        }
        if (bytes > MAX_BYTES) {
            return false;
        }
        if (!Arrays.equals(codes, lastCodes)) {
            lastCodes = codes.clone();
            lastWriter = RowWriterGenerator.writer(codes);
        }
        RowWriter writer = lastWriter;
        if (writer == null) {
            return false;
        }
        for (int c = 0; c < kinds.length; c++) {
            copyToHeap(c, columns[c], rows, count);
        }
        int[] starts = into.startsFor(count);
        writer.write(heap, count, into.dataFor((int) bytes), starts);
        into.filled(count);
        generatedBatches++;
        return true;
    }

    /** How many transposes a generated writer has written (the others went column by column). */
    public long generatedBatches() {
        return generatedBatches;
    }

    /** Column {@code c}'s consecutive rows {@code rows[0]..} into {@link #heap}, as its code in {@link #codes} reads them. */
    private void copyToHeap(int c, ColumnVector column, int[] rows, int count) {
        Kind kind = kinds[c];
        // Slot fields' copies skip null rows, so those need their flags even when coded non-null.
        boolean[] isNull = (codes[c] & RowWriterGenerator.NULLABLE) != 0 || !kind.variable()
                ? markNulls(c, column, rows, count)
                : null;
        if (column instanceof ValueVectors.VariableBytes v) {
            if (heap.offsets[c] == null) {
                heap.offsets[c] = new int[capacity + 1];
            }
            int[] offsets = heap.offsets[c];
            MemorySegment.copy(v.offsets, INT, (v.offset + rows[0]) * Integer.BYTES, offsets, 0, count + 1);
            // The span fits: transposeGenerated checked these offsets.
            copySpanToHeap(c, v, offsets[0], offsets[count], count);
            return;
        }
        if (heap.values[c] == null) {
            heap.values[c] = new long[capacity];
        }
        long[] values = heap.values[c];
        switch (column) {
            case ValueVectors.Timestamps t
            when kind == Kind.TIMESTAMP ->
                MemorySegment.copy(t.values, LONG, (t.offset + rows[0]) * Long.BYTES, values, 0, count);
            case PrimitiveVectors.Longs v
            when kind == Kind.LONG ->
                MemorySegment.copy(v.values, LONG, (v.offset + rows[0]) * Long.BYTES, values, 0, count);
            case PrimitiveVectors.Doubles v
            when kind == Kind.DOUBLE ->
                MemorySegment.copy(v.values, LONG, (v.offset + rows[0]) * Long.BYTES, values, 0, count);
            default -> fillSlots(kind, column, rows, count, isNull, precisions[c], scales[c], values);
        }
    }

    private void reserve(int count) {
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
        variableSizes = new long[n];
        cursors = new int[n];
        entries = new int[n];
        slots = new long[n];
        first = new long[n];
        second = new long[n];
        capacity = n;
    }

    /** Column {@code c}'s null flags for the rows, kept in {@code heap.nulls[c]}. */
    private boolean[] markNulls(int c, ColumnVector column, int[] rows, int count) {
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
    private static boolean isBytes(ColumnVector column) {
        return column instanceof ValueVectors.VariableBytes || column instanceof ValueVectors.FixedBytes;
    }

    /** The dictionary entry of every row not null, in {@link #entries}. */
    private int[] entries(DictionaryVector column, int[] rows, int count, boolean[] isNull) {
        int[] e = entries;
        for (int k = 0; k < count; k++) {
            e[k] = isNull[k] ? 0 : column.entry(rows[k]);
        }
        return e;
    }

    private void addVariableSizes(
            Kind kind, ColumnVector column, int[] rows, int count, boolean[] isNull, long[] sizes) {
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
            when isBytes(d.dictionary) ->
                addByteSizes(d.dictionary, entries(d, rows, count, isNull), count, isNull, sizes);
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
     * Copies bytes {@code [from, to)} of {@code v}'s data, column {@code c}'s, to
     * {@code heap.spans[c]} if {@link #fitsSpan} them; false (and nothing copied) otherwise.
     */
    private boolean copySpanToHeap(int c, ValueVectors.VariableBytes v, long from, long to, int count) {
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
    private static boolean fitsSpan(ValueVectors.VariableBytes v, long from, long to, int count) {
        long size = to - from;
        return from >= 0
                && size >= 0
                && size <= HEAP_COPY_BYTES_PER_ROW * count
                && size <= MAX_BYTES - 8
                && to <= v.data.byteSize();
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
                if (copySpanToHeap(c, v, from, to, count)) {
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
            when isBytes(d.dictionary) ->
                writeBytes(c, d.dictionary, entries(d, rows, count, isNull), count, false, isNull, data, starts);
            default -> Heap.copyBytes(column, rows, count, isNull, data, starts, cursors, slots);
        }
    }

    /** The slot of every row not null, in {@code out}. */
    private static void fillSlots(
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

    /** The unscaled value of every row not null, low words in {@link #first}, high in {@link #second}. */
    private void decimals(ColumnVector column, int[] rows, int count, boolean[] isNull, int precision, int scale) {
        if (column instanceof ValueVectors.Decimals v) {
            Native.longs(v.values, v.offset, 2, 0, rows, count, first);
            Native.longs(v.values, v.offset, 2, 1, rows, count, second);
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
     * Reads of the Arrow buffers, which are all native segments; they write only plain arrays
     * (and copy into the rows' array with {@code MemorySegment.copy}). Values of null rows are
     * read where the buffers hold a slot for them anyway, and ignored.
     */
    private static final class Native {
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
            long perMilli = perMilli(unit);
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

        private static long perMilli(TimeUnit unit) {
            return switch (unit) {
                case SECOND, MILLISECOND -> 1L;
                case MICROSECOND -> 1_000L;
                case NANOSECOND -> 1_000_000L;
            };
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

    /** Writes of the rows' heap array, and reads through Flink's vector interfaces. */
    private static final class Heap {
        private Heap() {}

        static boolean consecutive(int[] rows, int count) {
            for (int k = 1; k < count; k++) {
                if (rows[k] != rows[0] + k) {
                    return false;
                }
            }
            return true;
        }

        static boolean ascending(int[] rows, int count) {
            for (int k = 1; k < count; k++) {
                if (rows[k] < rows[k - 1]) {
                    return false;
                }
            }
            return true;
        }

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
