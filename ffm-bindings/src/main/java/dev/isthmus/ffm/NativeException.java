package dev.isthmus.ffm;

/**
 * An error reported by the native library through a status code and an {@code isthmus_error}.
 * One subclass per status, so callers can catch exactly what they can handle.
 */
public sealed class NativeException extends RuntimeException
        permits NativeException.InvalidArgument,
                NativeException.BufferTooSmall,
                NativeException.CorruptData,
                NativeException.Unsupported,
                NativeException.Io,
                NativeException.OutOfMemory,
                NativeException.Internal {

    private final Status status;

    private NativeException(Status status, String message) {
        super(message);
        this.status = status;
    }

    public Status status() {
        return status;
    }

    /**
     * The exception for a failed call. An unknown code means the library is newer than these
     * bindings in a way the ABI check missed, which is a bug, so it becomes {@link Internal}.
     */
    static NativeException of(int code, String message) {
        Status status = Status.ofCode(code);
        if (status == null) {
            return new Internal("unknown native status " + code + ": " + message);
        }
        return switch (status) {
            case INVALID_ARGUMENT -> new InvalidArgument(message);
            case BUFFER_TOO_SMALL -> new BufferTooSmall(message);
            case CORRUPT_DATA -> new CorruptData(message);
            case UNSUPPORTED -> new Unsupported(message);
            case IO -> new Io(message);
            case OUT_OF_MEMORY -> new OutOfMemory(message);
            case INTERNAL -> new Internal(message);
            case OK -> throw new IllegalArgumentException("status OK is not an error");
        };
    }

    /** A NULL pointer, an out-of-range value or inconsistent lengths were passed. */
    public static final class InvalidArgument extends NativeException {
        InvalidArgument(String message) {
            super(Status.INVALID_ARGUMENT, message);
        }
    }

    /** An output buffer was too small for the result. */
    public static final class BufferTooSmall extends NativeException {
        BufferTooSmall(String message) {
            super(Status.BUFFER_TOO_SMALL, message);
        }
    }

    /** Input bytes are malformed: a bad compressed stream or a corrupt file. */
    public static final class CorruptData extends NativeException {
        CorruptData(String message) {
            super(Status.CORRUPT_DATA, message);
        }
    }

    /** Valid input that the native library does not implement. */
    public static final class Unsupported extends NativeException {
        Unsupported(String message) {
            super(Status.UNSUPPORTED, message);
        }
    }

    /** An operating-system I/O call failed inside the library. */
    public static final class Io extends NativeException {
        Io(String message) {
            super(Status.IO, message);
        }
    }

    /** The library could not allocate, or refused a size read from untrusted input. */
    public static final class OutOfMemory extends NativeException {
        OutOfMemory(String message) {
            super(Status.OUT_OF_MEMORY, message);
        }
    }

    /** A bug in the library, typically a Rust panic caught at the boundary. */
    public static final class Internal extends NativeException {
        Internal(String message) {
            super(Status.INTERNAL, message);
        }
    }
}
