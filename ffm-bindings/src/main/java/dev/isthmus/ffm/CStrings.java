package dev.isthmus.ffm;

import java.lang.foreign.MemorySegment;

/** Reading the NUL-terminated strings the library returns. */
final class CStrings {
    private CStrings() {}

    /**
     * A string in the library's static storage. FFM returns such a pointer as a zero-length
     * segment; the header guarantees NUL termination, so it is safe to read up to the NUL.
     */
    @SuppressWarnings("restricted")
    static String staticString(MemorySegment pointer) {
        if (pointer.equals(MemorySegment.NULL)) {
            throw new NativeException.Internal("the library returned a NULL string");
        }
        return pointer.reinterpret(Long.MAX_VALUE).getString(0);
    }
}
