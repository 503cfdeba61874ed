package dev.isthmus.ffm;

import dev.isthmus.ffm.gen.isthmus_h;

/** The status codes every fallible native function returns (see {@code isthmus.h}). */
public enum Status {
    OK(isthmus_h.ISTHMUS_OK()),
    INVALID_ARGUMENT(isthmus_h.ISTHMUS_ERR_INVALID_ARGUMENT()),
    BUFFER_TOO_SMALL(isthmus_h.ISTHMUS_ERR_BUFFER_TOO_SMALL()),
    CORRUPT_DATA(isthmus_h.ISTHMUS_ERR_CORRUPT_DATA()),
    UNSUPPORTED(isthmus_h.ISTHMUS_ERR_UNSUPPORTED()),
    IO(isthmus_h.ISTHMUS_ERR_IO()),
    OUT_OF_MEMORY(isthmus_h.ISTHMUS_ERR_OUT_OF_MEMORY()),
    INTERNAL(isthmus_h.ISTHMUS_ERR_INTERNAL());

    private final int code;

    Status(int code) {
        this.code = code;
    }

    public int code() {
        return code;
    }

    /** Maps a native status code; a code this build does not know is reported as {@code null}. */
    static Status ofCode(int code) {
        for (Status s : values()) {
            if (s.code == code) {
                return s;
            }
        }
        return null;
    }
}
