package dev.isthmus.bindgen;

import java.io.Serial;

/** A header construct the generator does not understand, reported as {@code file:line: message}. */
public final class BindgenException extends RuntimeException {

    @Serial
    private static final long serialVersionUID = 1L;

    public BindgenException(String file, int line, String message) {
        super(file + ":" + line + ": " + message);
    }
}
