package dev.isthmus.arrow.cdata;

import dev.isthmus.ffm.gen.ArrowArray;
import dev.isthmus.ffm.gen.ArrowSchema;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.LongAdder;

/**
 * The {@code release} callbacks of exported structs: one upcall stub per struct type, made once
 * in the global arena because it must outlive every struct that points at it.
 *
 * <p>A release runs on whatever thread the consumer calls it from, possibly a native thread the
 * JVM attaches for the call. An exception escaping an upcall kills the JVM, so nothing escapes:
 * failures are logged and counted ({@link ArrowExporter#releaseFailures()}).
 */
final class ExportRelease {
    private static final System.Logger LOG = System.getLogger(ExportRelease.class.getName());
    private static final LongAdder FAILURES = new LongAdder();

    static final MemorySegment ARRAY_CALLBACK =
            ArrowArray.release.allocate(struct -> releaseFromNative(ExportKind.ARRAY, struct), Arena.global());
    static final MemorySegment SCHEMA_CALLBACK =
            ArrowSchema.release.allocate(struct -> releaseFromNative(ExportKind.SCHEMA, struct), Arena.global());

    private ExportRelease() {}

    static long failures() {
        return FAILURES.sum();
    }

    /** The upcall's body; never throws. */
    private static void releaseFromNative(ExportKind kind, MemorySegment pointer) {
        try {
            release(kind, kind.at(pointer));
        } catch (Throwable t) {
            fail(kind, pointer, t);
        }
    }

    /**
     * Releases {@code struct} and the dependents still in place, as the C Data Interface asks:
     * then sets its {@code release} to NULL and gives its reference on the export's memory back.
     * The struct may be the consumer's copy (a moved struct); its id finds the export.
     */
    private static void release(ExportKind kind, MemorySegment struct) {
        long id = kind.privateData(struct).address();
        ExportedStruct exported = ExportRegistry.remove(id);
        if (exported == null) {
            throw new IllegalStateException(
                    "release called on an Arrow " + kind.name().toLowerCase() + " that is not live (export id " + id
                            + "): released twice, or a copy released after its original");
        }
        for (MemorySegment dependent : exported.dependents()) {
            try {
                if (!kind.release(dependent).equals(MemorySegment.NULL)) {
                    release(kind, dependent);
                }
            } catch (Throwable t) {
                fail(kind, dependent, t);
            }
        }
        // Before the reference goes: the last one frees the arena, which may hold this struct.
        kind.release(struct, MemorySegment.NULL);
        exported.arena().structReleased();
    }

    private static void fail(ExportKind kind, MemorySegment struct, Throwable t) {
        FAILURES.increment();
        try {
            LOG.log(
                    System.Logger.Level.ERROR,
                    "releasing an exported Arrow " + kind.name().toLowerCase() + " at 0x"
                            + Long.toHexString(struct.address()) + " failed; its memory may leak",
                    t);
        } catch (Throwable ignored) {
            // Logging itself failed: the count above is all that can be done without crashing the JVM.
        }
    }
}
