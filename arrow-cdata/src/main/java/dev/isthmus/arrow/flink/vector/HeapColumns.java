package dev.isthmus.arrow.flink.vector;

/**
 * The columns of a run of consecutive rows, copied to heap arrays for a generated
 * {@link RowWriter}: per field, its slots ({@link #values}, or raw timestamp values), its null
 * flags if it has nulls, and for strings their offsets and bytes. {@link BinaryRowTransposer}
 * fills it; only the arrays of the field's {@link RowWriterGenerator} code are read.
 */
final class HeapColumns {
    /** Per field: the slot of each row, or a timestamp's value in its Arrow unit. */
    final long[][] values;
    /** Per field: whether each row is null, read only for fields coded nullable. */
    final boolean[][] nulls;
    /** Per string field: the Arrow offsets of the rows and the one after the last. */
    final int[][] offsets;
    /** Per string field: the column's bytes from {@link #bases} on, with 8 bytes to spare. */
    final byte[][] spans;

    final int[] bases;

    HeapColumns(int arity) {
        values = new long[arity][];
        nulls = new boolean[arity][];
        offsets = new int[arity][];
        spans = new byte[arity][];
        bases = new int[arity];
    }
}
