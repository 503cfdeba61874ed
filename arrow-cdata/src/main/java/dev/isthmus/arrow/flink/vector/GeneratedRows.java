package dev.isthmus.arrow.flink.vector;

import dev.isthmus.arrow.types.ArrowType.TimeUnit;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import org.apache.flink.table.data.columnar.vector.ColumnVector;

/**
 * {@link BinaryRowTransposer}'s generated path: consecutive rows whose columns all copy to heap
 * arrays in one pass each are written row by row by a loop generated for the row's shape
 * ({@link RowWriterGenerator}), which writes each row once instead of passing over all rows
 * once per column and kind of work. One per transposer.
 */
final class GeneratedRows {
    private static final ValueLayout.OfLong LONG = ColumnReads.LONG;
    private static final ValueLayout.OfInt INT = ColumnReads.INT;

    private final ColumnReads reads;
    private final ColumnReads.Kind[] kinds;
    private final HeapColumns heap;
    private final int fixedSize;
    /** Per field, its {@link RowWriterGenerator} code in the batch being transposed. */
    private final int[] codes;
    /** The codes of the last batch the generated writers were asked for, and their writer ({@code null}: none). */
    private int[] lastCodes;

    private RowWriter lastWriter;
    private long batches;

    GeneratedRows(ColumnReads reads) {
        this.reads = reads;
        this.kinds = reads.kinds;
        this.heap = reads.heap;
        this.fixedSize = BinaryRowLayout.fixedSize(kinds.length);
        this.codes = new int[kinds.length];
    }

    /**
     * Consecutive rows {@code rows[0]..} through the generated writer of their shape
     * ({@link RowWriterGenerator}), each column first copied to heap arrays in one pass. False,
     * with nothing written, when a column has no such copy (wide decimals, fixed-width or large
     * strings, strings of more than {@code ColumnReads.HEAP_COPY_BYTES_PER_ROW} a row, dictionary-encoded
     * strings, timestamps in seconds) or the shape has no writer; the column passes write those.
     */
    boolean write(ColumnVector[] columns, int[] rows, int count, BinaryRows into) {
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
                    if (!ColumnReads.fitsSpan(v, from, to, count)) {
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
        if (bytes > BinaryRowTransposer.MAX_BYTES) {
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
        batches++;
        return true;
    }

    /** How many batches a generated writer has written. */
    long batches() {
        return batches;
    }

    /** Column {@code c}'s consecutive rows {@code rows[0]..} into {@link #heap}, as its code in {@link #codes} reads them. */
    private void copyToHeap(int c, ColumnVector column, int[] rows, int count) {
        ColumnReads.Kind kind = kinds[c];
        // Slot fields' copies skip null rows, so those need their flags even when coded non-null.
        boolean[] isNull = (codes[c] & RowWriterGenerator.NULLABLE) != 0 || !kind.variable()
                ? reads.markNulls(c, column, rows, count)
                : null;
        if (column instanceof ValueVectors.VariableBytes v) {
            if (heap.offsets[c] == null) {
                heap.offsets[c] = new int[reads.capacity + 1];
            }
            int[] offsets = heap.offsets[c];
            MemorySegment.copy(v.offsets, INT, (v.offset + rows[0]) * Integer.BYTES, offsets, 0, count + 1);
            // The span fits: write checked these offsets.
            reads.copySpanToHeap(c, v, offsets[0], offsets[count], count);
            return;
        }
        if (heap.values[c] == null) {
            heap.values[c] = new long[reads.capacity];
        }
        long[] values = heap.values[c];
        switch (column) {
            case ValueVectors.Timestamps t
            when kind == ColumnReads.Kind.TIMESTAMP ->
                MemorySegment.copy(t.values, LONG, (t.offset + rows[0]) * Long.BYTES, values, 0, count);
            case PrimitiveVectors.Longs v
            when kind == ColumnReads.Kind.LONG ->
                MemorySegment.copy(v.values, LONG, (v.offset + rows[0]) * Long.BYTES, values, 0, count);
            case PrimitiveVectors.Doubles v
            when kind == ColumnReads.Kind.DOUBLE ->
                MemorySegment.copy(v.values, LONG, (v.offset + rows[0]) * Long.BYTES, values, 0, count);
            default ->
                ColumnReads.fillSlots(kind, column, rows, count, isNull, reads.precisions[c], reads.scales[c], values);
        }
    }
}
