package dev.isthmus.arrow.cdata;

/**
 * Whether reads of a closed (recycled) batch are caught: the system property
 * {@value #PROPERTY}{@code =true}, read once when this class loads. Off by default, and then
 * costs nothing: the flag is a constant the JIT folds away. The project's own tests run with it on.
 *
 * <p>Off, a scan's batches share an arena with the batches imported next to them
 * ({@link ImportArenas}), so a row or vector kept past its batch's close reads whatever the scan
 * decoded into that memory since, until the arena closes. On, every batch has an arena of its own
 * that closes, before the batch is released, when the batch is closed: any read of it afterwards
 * throws {@link IllegalStateException}, and reads through its Flink rows say that a recycled
 * batch was read. The price is one handshake with every thread of the JVM per batch, the cost
 * {@link ImportArenas} exists to avoid.
 * See docs/ownership.md.
 */
public final class CheckedBatches {
    public static final String PROPERTY = "isthmus.checked-batches";

    /** Whether checked batches are on in this JVM. */
    public static final boolean ENABLED = Boolean.getBoolean(PROPERTY);

    private CheckedBatches() {}
}
