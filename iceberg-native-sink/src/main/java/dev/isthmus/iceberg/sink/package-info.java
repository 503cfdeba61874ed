/**
 * A Flink sink for Iceberg tables whose Parquet data files are encoded by the native library,
 * with Iceberg's metrics and an exactly-once commit. Filled by the sink issue; see
 * docs/roadmap.md.
 */
package dev.isthmus.iceberg.sink;
