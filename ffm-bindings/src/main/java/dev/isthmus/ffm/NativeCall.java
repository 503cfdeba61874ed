package dev.isthmus.ffm;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The scratch of a call into the library, in one place: a confined arena that owns the call's
 * error slot, out-parameters and C strings, and the check that turns a non-OK status into a
 * {@link NativeException} carrying the library's message. One per call, or per group of calls
 * made together on one thread, in try-with-resources:
 *
 * <pre>{@code
 * try (NativeCall call = NativeCall.open()) {
 *     MemorySegment out = call.pointer();
 *     call.check(isthmus_h.isthmus_file_open_path(call.string(path), out, call.error()));
 *     return NativeCall.address(out);
 * }
 * }</pre>
 *
 * <p>Calls made once per batch (a scan's next batch, a writer's write) keep their slots for the
 * life of their handle instead, so that the hot path allocates nothing.
 */
public final class NativeCall implements AutoCloseable {
    private final Arena arena = Arena.ofConfined();
    private final MemorySegment error = NativeErrors.allocate(arena);

    private NativeCall() {}

    /**
     * Opens the scratch of a call, after checking that the library is loaded.
     *
     * @throws NativeLibraryException if it cannot be, naming what to fix
     */
    public static NativeCall open() {
        NativeLibrary.require();
        return new NativeCall();
    }

    /** The arena that owns everything this call allocates, for structs the call fills. */
    public Arena arena() {
        return arena;
    }

    /** The {@code isthmus_error} slot to pass as the call's last argument. */
    public MemorySegment error() {
        return error;
    }

    /** An out-parameter for a pointer (a handle, say); read it with {@link #address}. */
    public MemorySegment pointer() {
        return arena.allocate(ValueLayout.ADDRESS);
    }

    /** An out-parameter for a {@code uint64_t} or {@code int64_t}. */
    public MemorySegment longSlot() {
        return arena.allocate(ValueLayout.JAVA_LONG);
    }

    /** An out-parameter for a {@code uint32_t} or {@code int32_t}. */
    public MemorySegment intSlot() {
        return arena.allocate(ValueLayout.JAVA_INT);
    }

    /** {@code value} as a NUL-terminated UTF-8 string that lives until the call closes. */
    public MemorySegment string(String value) {
        return arena.allocateFrom(value);
    }

    /** Throws the exception for {@code status} with the message the library left. */
    public void check(int status) {
        NativeErrors.check(status, error);
    }

    /**
     * {@link #check(int)} for a call that cannot know what its input is: the message is prefixed
     * with {@code subject} (a file's location, say), so that it names it.
     */
    public void check(int status, String subject) {
        NativeErrors.check(status, error, subject);
    }

    /** The pointer a call left in {@code pointer} (an out-parameter from {@link #pointer()}). */
    public static MemorySegment address(MemorySegment pointer) {
        return pointer.get(ValueLayout.ADDRESS, 0);
    }

    /** Frees the call's scratch; the segments it handed out must not be used afterwards. */
    @Override
    public void close() {
        arena.close();
    }
}
