package dev.isthmus.iceberg.source;

import java.io.Serializable;

/**
 * How the native reader reads, beyond what Iceberg's own source options say.
 *
 * @param batchSize rows per decoded batch at most (the decoder's batches never span row groups)
 * @param strict fail instead of falling back to Iceberg's stock reader for a task the native
 *     reader cannot read, so a number measured with it can never be a stock one
 * @param localReads let the library read {@code file:} locations itself; {@code false} reads
 *     every file through the table's {@code FileIO}, as non-local files always are
 */
public record NativeReadOptions(int batchSize, boolean strict, boolean localReads) implements Serializable {
    public static final int DEFAULT_BATCH_SIZE = dev.isthmus.iceberg.source.parquet.ScanOptions.DEFAULT_BATCH_SIZE;

    public NativeReadOptions {
        if (batchSize <= 0) {
            throw new IllegalArgumentException("batchSize must be positive, got " + batchSize);
        }
    }

    public static NativeReadOptions defaults() {
        return new NativeReadOptions(DEFAULT_BATCH_SIZE, false, true);
    }

    public NativeReadOptions withBatchSize(int rows) {
        return new NativeReadOptions(rows, strict, localReads);
    }

    public NativeReadOptions withStrict(boolean failInsteadOfFallingBack) {
        return new NativeReadOptions(batchSize, failInsteadOfFallingBack, localReads);
    }

    public NativeReadOptions withLocalReads(boolean local) {
        return new NativeReadOptions(batchSize, strict, local);
    }
}
