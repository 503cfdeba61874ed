package dev.isthmus.arrow.memory;

/**
 * An allocation refused because it would take an owner's native memory past its cap
 * ({@link MemoryTracker#child(String, long, String)}). A runtime exception, not an
 * {@link OutOfMemoryError}: the JVM is fine, one reader or writer asked for more than it was
 * allowed, and failing its task (and restarting it, if the job is configured so) is the answer.
 */
public final class MemoryLimitExceededException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final String owner;
    private final long limit;
    private final long requested;
    private final long held;

    /** @param requester the tracker under {@code owner} that asked, or {@code null} if the owner did */
    MemoryLimitExceededException(
            String owner, long limit, String limitSource, long requested, long held, String requester) {
        super(owner + " would exceed its native memory cap of " + limit + " bytes"
                + (limitSource == null ? "" : " (" + limitSource + ")") + ": asked for " + requested
                + " bytes while holding " + held + (requester == null ? "" : ", for " + requester));
        this.owner = owner;
        this.limit = limit;
        this.requested = requested;
        this.held = held;
    }

    /** The capped tracker's path, which names the reader or writer. */
    public String owner() {
        return owner;
    }

    public long limit() {
        return limit;
    }

    public long requested() {
        return requested;
    }

    public long held() {
        return held;
    }
}
