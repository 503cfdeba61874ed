/**
 * A Flink sink for Iceberg tables with an exactly-once commit: {@link
 * dev.isthmus.iceberg.sink.NativeIcebergSink} builds the writer and committer operators. Data files
 * are encoded by whatever {@link dev.isthmus.iceberg.sink.write.DataFileAppenders} provides (the
 * native encoder, once it lands); delete files, manifests and commits are Iceberg's. See
 * docs/sink.md.
 */
package dev.isthmus.iceberg.sink;
