package dev.isthmus.iceberg.source;

import dev.isthmus.arrow.memory.MemoryTracker;
import java.io.Serializable;
import java.util.Objects;

/**
 * How the native reader reads, beyond what Iceberg's own source options say.
 *
 * @param batchSize rows per decoded batch at most (the decoder's batches never span row groups)
 * @param strict fail instead of falling back to Iceberg's stock reader for a task the native
 *     reader cannot read, so a number measured with it can never be a stock one
 * @param localReads let the library read {@code file:} locations itself; {@code false} reads
 *     every file through the table's {@code FileIO}, as non-local files always are
 * @param rowFormat the kind of {@code RowData} natively read tasks emit
 * @param maxNativeBytes the native memory one reader (one subtask) may hold at once, in decoded
 *     batches not yet released ({@link MemoryTracker#NO_LIMIT}: no cap); a batch that would take it past the
 *     cap fails the read with a {@link dev.isthmus.arrow.memory.MemoryLimitExceededException}
 * @param maxDeletePositions the positions a task's position delete files may delete from its data
 *     file, which the reader holds on the heap while it reads the file (8 bytes each); a task past
 *     it falls back to Iceberg's reader, or fails in strict mode
 * @param maxEqualityDeleteBytes the heap the keys of a task's equality delete files on the same
 *     columns may take (1 GiB at most); a task past it falls back to Iceberg's reader, or fails in
 *     strict mode
 */
public record NativeReadOptions(
        int batchSize,
        boolean strict,
        boolean localReads,
        RowFormat rowFormat,
        long maxNativeBytes,
        long maxDeletePositions,
        long maxEqualityDeleteBytes)
        implements Serializable {
    /**
     * How a memory cap's failure names what set it: the readers' and writers' cap is one option
     * with a builder name and a SQL name, and the message cannot tell which the job used.
     */
    public static final String MAX_NATIVE_BYTES_OPTIONS = "maxNativeBytes, or 'isthmus.max-native-bytes' in SQL";

    public static final int DEFAULT_BATCH_SIZE = dev.isthmus.iceberg.source.parquet.ScanOptions.DEFAULT_BATCH_SIZE;

    /** 16 Mi positions, 128 MiB of heap at most for one data file's deletes. */
    public static final long DEFAULT_MAX_DELETE_POSITIONS = 16L << 20;

    /** 128 MiB: several million keys of a few columns. */
    public static final long DEFAULT_MAX_EQUALITY_DELETE_BYTES = 128L << 20;

    /** 1 GiB, the most {@link #maxEqualityDeleteBytes} may be. */
    public static final long MAX_EQUALITY_DELETE_BYTES = 1L << 30;

    /** The rows natively read tasks emit (tasks that fall back emit Iceberg's own in either case). */
    public enum RowFormat {
        /**
         * {@code ArrowRowData} over the decoded Arrow batch, no copy; the batch's memory is held
         * until Flink recycles the batch. Best when the next operator reads the rows in place,
         * which is so with object reuse on; otherwise Flink copies every row field by field.
         */
        COLUMNAR,
        /**
         * {@code BinaryRowData}, each batch transposed once into a heap array and its Arrow
         * memory released at once. Best with object reuse off (Flink's default), where Flink copies
         * every record and serializes it to the network: a binary row is one array copy either way.
         * Tables with nested (struct, list, map) columns emit columnar rows.
         */
        BINARY
    }

    public NativeReadOptions {
        if (batchSize <= 0) {
            throw new IllegalArgumentException("batchSize must be positive, got " + batchSize);
        }
        Objects.requireNonNull(rowFormat, "rowFormat");
        MemoryTracker.requireValidLimit(maxNativeBytes);
        if (maxDeletePositions < 0 || maxDeletePositions > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException("maxDeletePositions must be between 0 and " + (Integer.MAX_VALUE - 8)
                    + ", got " + maxDeletePositions);
        }
        // A set's arena is one array: the limit keeps it well inside an array's reach.
        if (maxEqualityDeleteBytes < 0 || maxEqualityDeleteBytes > MAX_EQUALITY_DELETE_BYTES) {
            throw new IllegalArgumentException("maxEqualityDeleteBytes must be between 0 and "
                    + MAX_EQUALITY_DELETE_BYTES + ", got " + maxEqualityDeleteBytes);
        }
    }

    /**
     * The defaults: binary rows, which a job without object reuse (Flink's default) copies as one
     * array, and no cap on native memory (docs/memory.md).
     */
    public static NativeReadOptions defaults() {
        return new NativeReadOptions(
                DEFAULT_BATCH_SIZE,
                false,
                true,
                RowFormat.BINARY,
                MemoryTracker.NO_LIMIT,
                DEFAULT_MAX_DELETE_POSITIONS,
                DEFAULT_MAX_EQUALITY_DELETE_BYTES);
    }

    public NativeReadOptions withBatchSize(int rows) {
        return new NativeReadOptions(
                rows, strict, localReads, rowFormat, maxNativeBytes, maxDeletePositions, maxEqualityDeleteBytes);
    }

    public NativeReadOptions withStrict(boolean failInsteadOfFallingBack) {
        return new NativeReadOptions(
                batchSize,
                failInsteadOfFallingBack,
                localReads,
                rowFormat,
                maxNativeBytes,
                maxDeletePositions,
                maxEqualityDeleteBytes);
    }

    public NativeReadOptions withLocalReads(boolean local) {
        return new NativeReadOptions(
                batchSize, strict, local, rowFormat, maxNativeBytes, maxDeletePositions, maxEqualityDeleteBytes);
    }

    public NativeReadOptions withRowFormat(RowFormat format) {
        return new NativeReadOptions(
                batchSize, strict, localReads, format, maxNativeBytes, maxDeletePositions, maxEqualityDeleteBytes);
    }

    public NativeReadOptions withMaxNativeBytes(long bytes) {
        return new NativeReadOptions(
                batchSize, strict, localReads, rowFormat, bytes, maxDeletePositions, maxEqualityDeleteBytes);
    }

    public NativeReadOptions withMaxDeletePositions(long positions) {
        return new NativeReadOptions(
                batchSize, strict, localReads, rowFormat, maxNativeBytes, positions, maxEqualityDeleteBytes);
    }

    public NativeReadOptions withMaxEqualityDeleteBytes(long bytes) {
        return new NativeReadOptions(
                batchSize, strict, localReads, rowFormat, maxNativeBytes, maxDeletePositions, bytes);
    }
}
