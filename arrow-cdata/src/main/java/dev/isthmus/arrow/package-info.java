/**
 * The Arrow C Data Interface implemented over Java's FFM API: arrays produced by the native
 * library are read in place through Flink column vectors, and arrays built here off-heap are
 * handed to the library. Filled by the arrow-cdata issue; see docs/roadmap.md.
 */
package dev.isthmus.arrow;
