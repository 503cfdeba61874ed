/**
 * Accounting of the native memory and Arrow arrays Java owns: a tree of
 * {@link dev.isthmus.arrow.memory.MemoryTracker}s with optional caps, the library's own counters
 * ({@link dev.isthmus.ffm.NativeArrowStats}) and a leak check for tests and shutdown.
 */
package dev.isthmus.arrow.memory;
