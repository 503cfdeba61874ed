/**
 * The Arrow C Data Interface over Java's FFM API, independent of Flink and Iceberg: exports with
 * release callbacks ({@link dev.isthmus.arrow.cdata.ArrowExporter}), imports that own and release
 * what the library produced ({@link dev.isthmus.arrow.cdata.ImportedArray},
 * {@link dev.isthmus.arrow.cdata.SchemaImport}), the arenas imports share, and read-only views of
 * imported arrays. Who owns which struct when is written down in docs/ownership.md.
 */
package dev.isthmus.arrow.cdata;
