/**
 * Arrow's logical types and fields as Java values, and their C Data Interface format strings
 * ({@link dev.isthmus.arrow.types.ArrowFormat}). How Flink and Iceberg types map to these is in
 * {@link dev.isthmus.arrow.flink.TypeMapping}.
 */
package dev.isthmus.arrow.types;
