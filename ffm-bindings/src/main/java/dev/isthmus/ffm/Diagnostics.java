package dev.isthmus.ffm;

import dev.isthmus.ffm.gen.isthmus_h;
import java.lang.foreign.MemorySegment;

/** Self-checks of the native boundary, for tests and for operators diagnosing a deployment. */
public final class Diagnostics {
    private Diagnostics() {}

    /**
     * Makes the library panic on purpose. The panic is caught inside the library and arrives
     * here as a {@link NativeException.Internal} carrying {@code message}; the JVM and the
     * library stay usable.
     */
    public static void panicInNative(String message) {
        try (NativeCall call = NativeCall.open()) {
            call.check(isthmus_h.isthmus_debug_panic(call.string(message), call.error()));
        }
        throw new IllegalStateException("isthmus_debug_panic returned OK; the library did not panic");
    }

    /**
     * Hands an exported array to the library, which validates it, copies it and exports the copy
     * into {@code outArray}/{@code outSchema} ({@code isthmus_arrow_echo}): a round trip through
     * memory Rust allocated, for tests and benchmarks of the import side. The library takes the
     * input structs over and releases them before it returns; the caller owns the output.
     */
    public static void arrowEcho(
            MemorySegment array, MemorySegment schema, MemorySegment outArray, MemorySegment outSchema) {
        try (NativeCall call = NativeCall.open()) {
            call.check(isthmus_h.isthmus_arrow_echo(array, schema, outArray, outSchema, call.error()));
        }
    }

    /** The struct layouts as the Rust side sees them (see {@code isthmus_layout_manifest}). */
    public static String layoutManifest() {
        NativeLibrary.require();
        return CStrings.staticString(isthmus_h.isthmus_layout_manifest());
    }
}
