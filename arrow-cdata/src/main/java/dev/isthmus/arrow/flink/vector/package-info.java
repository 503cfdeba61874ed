/**
 * Imported Arrow arrays as Flink sees rows: column vectors read in place
 * ({@link dev.isthmus.arrow.flink.vector.ArrowColumnarBatch}), and binary rows transposed from
 * the columns ({@link dev.isthmus.arrow.flink.vector.BinaryRowTransposer}) into
 * {@link dev.isthmus.arrow.flink.vector.BinaryRows}.
 */
package dev.isthmus.arrow.flink.vector;
