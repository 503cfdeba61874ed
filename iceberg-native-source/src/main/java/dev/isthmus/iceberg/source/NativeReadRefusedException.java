package dev.isthmus.iceberg.source;

/**
 * A task the native reader cannot read, in strict mode (which fails rather than fall back to
 * Iceberg's stock reader).
 */
public final class NativeReadRefusedException extends RuntimeException {
    NativeReadRefusedException(String message, Throwable cause) {
        super(message, cause);
    }
}
