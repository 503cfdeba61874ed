/**
 * Arrow builders: batches built in Java arrays and copied into native memory that Java owns,
 * ready to be exported through the C Data Interface ({@link dev.isthmus.arrow.cdata.ArrowExporter}). The builders take plain
 * Java values; filling them from Flink rows is {@link dev.isthmus.arrow.flink.builder}'s job.
 *
 * <p>{@link dev.isthmus.arrow.builder.ArrowBuilder#forField} makes the builder tree of a field;
 * {@code finish()} copies the batch, staged in Java arrays, into native buffers and hands them
 * to a {@link dev.isthmus.arrow.builder.FinishedArray}.
 * Buffers are {@link dev.isthmus.arrow.builder.NativeBuffer}s from a
 * {@link dev.isthmus.arrow.builder.BufferAllocator}, each freed on its own and counted in a
 * {@link dev.isthmus.arrow.memory.MemoryTracker}.
 */
package dev.isthmus.arrow.builder;
