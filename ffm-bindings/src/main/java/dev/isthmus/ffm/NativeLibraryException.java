package dev.isthmus.ffm;

/** The native library could not be found, extracted, opened, or is of the wrong ABI version. */
public final class NativeLibraryException extends RuntimeException {
    NativeLibraryException(String message) {
        super(message);
    }

    NativeLibraryException(String message, Throwable cause) {
        super(message, cause);
    }
}
