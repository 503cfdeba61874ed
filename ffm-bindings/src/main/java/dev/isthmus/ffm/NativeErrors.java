package dev.isthmus.ffm;

import dev.isthmus.ffm.gen.isthmus_error;
import dev.isthmus.ffm.gen.isthmus_h;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SegmentAllocator;
import java.nio.charset.StandardCharsets;

/**
 * The Java half of the header's error model: every fallible call gets a caller-owned
 * {@code isthmus_error}, and a non-OK status becomes the matching {@link NativeException}.
 */
public final class NativeErrors {
    private NativeErrors() {}

    /** A fresh error slot; the allocator's arena owns it. */
    public static MemorySegment allocate(SegmentAllocator allocator) {
        return isthmus_error.allocate(allocator);
    }

    /** Throws the exception for {@code status} with the message the library left in {@code error}. */
    public static void check(int status, MemorySegment error) {
        if (status != isthmus_h.ISTHMUS_OK()) {
            throw NativeException.of(status, message(error));
        }
    }

    /**
     * {@link #check(int, MemorySegment)} for a call that cannot know what its input is: the
     * message is prefixed with {@code subject} (a file's location, say), so that it names it.
     */
    public static void check(int status, MemorySegment error, String subject) {
        if (status != isthmus_h.ISTHMUS_OK()) {
            throw NativeException.of(status, subject + ": " + message(error));
        }
    }

    static String message(MemorySegment error) {
        if (isthmus_error.code(error) == isthmus_h.ISTHMUS_OK()) {
            return "(the library reported no message)";
        }
        long capacity = isthmus_h.ISTHMUS_ERROR_MESSAGE_CAPACITY() - 1L;
        long length = Math.min(Integer.toUnsignedLong(isthmus_error.message_length(error)), capacity);
        byte[] bytes = isthmus_error.message(error).asSlice(0, length).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE);
        return new String(bytes, StandardCharsets.UTF_8);
    }
}
