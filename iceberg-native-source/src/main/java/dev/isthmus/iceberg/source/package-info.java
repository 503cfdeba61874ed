/**
 * A Flink source for Iceberg tables whose Parquet data files are decoded by the native library
 * into Arrow batches, keeping Iceberg's planning, split enumeration and checkpointed positions.
 * Filled by the source issue; see docs/roadmap.md.
 */
package dev.isthmus.iceberg.source;
