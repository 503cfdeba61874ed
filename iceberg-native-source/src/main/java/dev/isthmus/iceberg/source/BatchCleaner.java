package dev.isthmus.iceberg.source;

import dev.isthmus.arrow.flink.vector.ArrowColumnarBatch;
import java.lang.ref.Cleaner;

/**
 * Releases the Arrow batch of records that Flink drops without recycling them (the batches still
 * queued in a source reader that is cancelled or fails), so a failover does not leak the
 * decoder's memory. One cleaner thread serves every kind of records.
 */
final class BatchCleaner {
    private static final Cleaner CLEANER = Cleaner.create();

    private BatchCleaner() {}

    /** Closes {@code batch} once {@code records} is unreachable, or when the result is cleaned. */
    static Cleaner.Cleanable register(Object records, ArrowColumnarBatch batch) {
        return CLEANER.register(records, batch::close);
    }
}
