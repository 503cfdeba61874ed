package dev.isthmus.arrow.flink.vector;

import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.data.columnar.vector.ColumnVector;
import org.apache.flink.table.types.logical.RowType;

/**
 * Writes the rows of a batch of columns as Flink {@link BinaryRowData}s, byte for byte what
 * Flink's own {@code BinaryRowWriter} (and so {@code RowDataSerializer.toBinaryRow}) writes for
 * the same values, into one heap array ({@link BinaryRows}). Flink copies and serializes a binary
 * row as one array copy, where a columnar row is copied field by field through per-field getters,
 * which costs more than decoding it; transposing a batch once, column by column, is much cheaper
 * than that copy.
 *
 * <p>The layout is {@link BinaryRowLayout}'s.
 *
 * <p>Flat types only ({@link #supports}). Two ways to write, the same bytes either way:
 * <ul>
 *   <li>Consecutive rows (a whole batch, or a run of it as the source emits) whose columns all
 *       copy to heap arrays in one pass each ({@link GeneratedRows}: every type but wide
 *       decimals and fixed-width bytes, strings of at most 128 bytes a row) are written row by row
 *       by a loop generated for the row's shape ({@link RowWriterGenerator}), which writes each row
 *       once instead of passing over all rows once per column and kind of work, which is faster on
 *       Nexmark bids ({@code TransposeBenchmark}; docs/benchmarks.md, "The transpose alone").
 *   <li>Anything else, column by column ({@link ColumnPasses}): columns that are this package's Arrow vectors are read
 *       straight from their buffers; any other {@link ColumnVector} (a constant column, say)
 *       through Flink's vector interfaces.
 * </ul>
 * Both read the columns through {@link ColumnReads}. Methods that read native segments write only
 * plain arrays, and the heap rows are written through a byte-array view: a hot method whose
 * segment accesses see both heap and native segments runs several times slower.
 *
 * <p>One instance per thread: it keeps its scratch arrays from batch to batch.
 */
public final class BinaryRowTransposer {
    /** The most bytes one batch of rows may take: about the largest Java array. */
    static final int MAX_BYTES = Integer.MAX_VALUE - 16;

    private final ColumnReads reads;
    private final GeneratedRows generated;
    private final ColumnPasses passes;

    /**
     * @throws IllegalArgumentException if a field's type is not flat ({@link #supports})
     * @throws IllegalStateException on a big-endian platform
     */
    public BinaryRowTransposer(RowType type) {
        if (!BinaryRowData.LITTLE_ENDIAN) {
            throw new IllegalStateException("binary rows are written little-endian, the platform is not");
        }
        reads = new ColumnReads(type);
        generated = new GeneratedRows(reads);
        passes = new ColumnPasses(reads);
    }

    /** Whether rows of {@code type} can be transposed: no nested, raw, structured or interval fields. */
    public static boolean supports(RowType type) {
        return type.getChildren().stream().allMatch(t -> ColumnReads.kind(t) != null);
    }

    /**
     * Writes rows {@code selection[0..count)} of {@code columns} (rows {@code 0..count)} when the
     * selection is {@code null}) into {@code into}, replacing what it held.
     *
     * @param columns one vector per field of the row type, each of the field's type
     * @throws IllegalStateException if the rows would take more than about 2 GiB
     */
    public void transpose(ColumnVector[] columns, int[] selection, int count, BinaryRows into) {
        if (columns.length != reads.kinds.length) {
            throw new IllegalArgumentException(columns.length + " columns for " + reads.kinds.length + " fields");
        }
        reads.reserve(count);
        int[] rows = selection == null ? reads.identity : selection;
        boolean consecutive = count > 0 && (selection == null || consecutive(selection, count));
        if (consecutive && generated.write(columns, rows, count, into)) {
            return;
        }
        boolean ascending = consecutive || selection == null || ascending(selection, count);
        passes.write(columns, rows, count, ascending, into);
    }

    /** How many transposes a generated writer has written (the others went column by column). */
    public long generatedBatches() {
        return generated.batches();
    }

    private static boolean consecutive(int[] rows, int count) {
        for (int k = 1; k < count; k++) {
            if (rows[k] != rows[0] + k) {
                return false;
            }
        }
        return true;
    }

    private static boolean ascending(int[] rows, int count) {
        for (int k = 1; k < count; k++) {
            if (rows[k] < rows[k - 1]) {
                return false;
            }
        }
        return true;
    }
}
