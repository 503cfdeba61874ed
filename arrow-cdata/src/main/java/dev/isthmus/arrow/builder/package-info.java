/**
 * Off-heap Arrow builders: batches of Flink rows laid out as Arrow arrays in memory that Java
 * owns, ready to be exported through the C Data Interface
 * ({@link dev.isthmus.arrow.cdata.ArrowExporter}).
 *
 * <p>{@link dev.isthmus.arrow.builder.RowDataAppender} appends {@code RowData} of a
 * {@code RowType} into an {@link dev.isthmus.arrow.builder.ArrowBuilder} tree;
 * {@code finish()} hands the batch's buffers to a {@link dev.isthmus.arrow.builder.FinishedArray}.
 * Buffers are {@link dev.isthmus.arrow.builder.NativeBuffer}s from a
 * {@link dev.isthmus.arrow.builder.BufferAllocator}, each freed on its own and counted in a
 * {@link dev.isthmus.arrow.memory.MemoryTracker}.
 */
package dev.isthmus.arrow.builder;
