package dev.isthmus.arrow.cdata;

import java.lang.foreign.MemorySegment;

/**
 * A struct an export filled that has not been released yet.
 *
 * @param kind array or schema
 * @param arena the export's memory, released one struct at a time
 * @param dependents the struct's children (and dictionary) in the arena: its release releases
 *     those still in place, i.e. not moved out by the consumer
 */
record ExportedStruct(ExportKind kind, ExportArena arena, MemorySegment[] dependents) {}
