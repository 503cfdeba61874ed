/**
 * Where Flink and Iceberg meet Arrow: the type mapping between Flink's and Iceberg's types and
 * Arrow's ({@link dev.isthmus.arrow.flink.TypeMapping}) and the Iceberg metadata an exported
 * schema carries ({@link dev.isthmus.arrow.flink.SchemaMetadata}). Its subpackages adapt rows:
 * {@link dev.isthmus.arrow.flink.builder} fills Arrow builders from {@code RowData}, and
 * {@link dev.isthmus.arrow.flink.vector} reads imported arrays as Flink column vectors and binary
 * rows. The packages outside {@code flink} depend on neither Flink nor Iceberg.
 */
package dev.isthmus.arrow.flink;
