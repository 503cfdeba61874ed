package dev.isthmus.iceberg.source;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The source's {@code limit}, applied as Iceberg's FLIP-27 reader applies it: per reader
 * function instance (so per subtask), counting records as they are read, across splits.
 *
 * <p>Mirrors Iceberg 1.11's {@code RecordLimiter} (package-private in
 * {@code org.apache.iceberg.flink.source.reader}), which {@code RowDataReaderFunction} creates once
 * per instance and shares between the {@code LimitableDataIterator}s of its splits; this one takes a
 * batch's records at once and cuts the batch at the limit. Parity is pinned by
 * {@code NativeReaderFunctionTest#limitCutsAtTheSameRecordAsStock} (both reader functions over the
 * same splits cut at the same record, in both row formats); docs/architecture.md, "Upgrading
 * Iceberg or Flink", says what to compare on an upgrade.
 */
final class RecordLimiter {
    private final long limit;
    private final AtomicLong read = new AtomicLong();

    RecordLimiter(long limit) {
        this.limit = limit;
    }

    boolean reached() {
        return limit > 0 && read.get() >= limit;
    }

    /** How many of {@code available} records may still be read; they are counted as read. */
    int take(int available) {
        if (limit <= 0) {
            read.addAndGet(available);
            return available;
        }
        long left = Math.max(0, limit - read.get());
        int n = (int) Math.min(available, left);
        read.addAndGet(n);
        return n;
    }
}
