/**
 * Flink rows into Arrow builders: {@link dev.isthmus.arrow.flink.builder.RowDataAppender} appends
 * {@code RowData} of a {@code RowType} into a {@link dev.isthmus.arrow.builder.StructBuilder} tree
 * through one {@link dev.isthmus.arrow.flink.builder.FieldWriter} per field, called from a method
 * generated per row type ({@link dev.isthmus.arrow.flink.builder.AppendGenerator}), undoing a row
 * that fails part way.
 */
package dev.isthmus.arrow.flink.builder;
