/**
 * The native Parquet writer as an Iceberg {@code FileAppender<RowData>}:
 * {@link dev.isthmus.iceberg.sink.parquet.NativeParquet#write} builds a
 * {@link dev.isthmus.iceberg.sink.parquet.NativeParquetWriter} the way Iceberg's
 * {@code Parquet.write} builds its appender; the file's metrics follow Iceberg's rules.
 * See docs/encoder.md ("Java").
 */
package dev.isthmus.iceberg.sink.parquet;
