package dev.isthmus.ffm;

import dev.isthmus.ffm.gen.isthmus_h;
import java.lang.foreign.Arena;
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
        NativeLibrary.require();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment error = NativeErrors.allocate(arena);
            NativeErrors.check(isthmus_h.isthmus_debug_panic(arena.allocateFrom(message), error), error);
        }
        throw new IllegalStateException("isthmus_debug_panic returned OK; the library did not panic");
    }

    /** The struct layouts as the Rust side sees them (see {@code isthmus_layout_manifest}). */
    public static String layoutManifest() {
        NativeLibrary.require();
        return CStrings.staticString(isthmus_h.isthmus_layout_manifest());
    }
}
