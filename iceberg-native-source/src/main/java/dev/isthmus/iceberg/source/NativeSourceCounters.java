package dev.isthmus.iceberg.source;

import java.util.concurrent.atomic.AtomicLong;

/**
 * What the native readers of this JVM have done since it started: tasks read natively and by
 * the stock fallback, row groups read and pruned by statistics or by dictionaries, column-chunk
 * bytes read, batches (and those emitted as
 * binary rows) and rows emitted.
 *
 * <p>The per-reader Flink metrics ({@link NativeIcebergSource}) count the same things; these
 * totals also cover reader functions used inside a plain {@code IcebergSource}, which Iceberg
 * never gives a metric group.
 */
public final class NativeSourceCounters {
    private static final AtomicLong NATIVE_TASKS = new AtomicLong();
    private static final AtomicLong FALLBACK_TASKS = new AtomicLong();
    private static final AtomicLong ROW_GROUPS_READ = new AtomicLong();
    private static final AtomicLong ROW_GROUPS_PRUNED = new AtomicLong();
    private static final AtomicLong ROW_GROUPS_PRUNED_BY_DICTIONARY = new AtomicLong();
    private static final AtomicLong BYTES_READ = new AtomicLong();
    private static final AtomicLong BATCHES = new AtomicLong();
    private static final AtomicLong BINARY_BATCHES = new AtomicLong();
    private static final AtomicLong FETCHER_TRANSPOSED_BATCHES = new AtomicLong();
    private static final AtomicLong ROWS = new AtomicLong();
    private static final AtomicLong DELETE_FILES = new AtomicLong();
    private static final AtomicLong DELETE_POSITIONS = new AtomicLong();
    private static final AtomicLong ROWS_DELETED = new AtomicLong();
    private static final AtomicLong ROW_GROUPS_DELETED = new AtomicLong();
    private static final AtomicLong DELETE_ROW_GROUPS_PRUNED = new AtomicLong();
    private static final AtomicLong EQUALITY_DELETE_FILES = new AtomicLong();
    private static final AtomicLong EQUALITY_DELETE_KEYS = new AtomicLong();
    private static final AtomicLong EQUALITY_DELETE_CACHE_HITS = new AtomicLong();

    private NativeSourceCounters() {}

    /** File scan tasks read natively. */
    public static long nativeTasks() {
        return NATIVE_TASKS.get();
    }

    /** File scan tasks read by Iceberg's stock reader instead. */
    public static long fallbackTasks() {
        return FALLBACK_TASKS.get();
    }

    /** Row groups decoded by native tasks. */
    public static long rowGroupsRead() {
        return ROW_GROUPS_READ.get();
    }

    /** Stored bytes of the column chunks native tasks decode: those of the projected leaves in the row groups read. */
    public static long bytesRead() {
        return BYTES_READ.get();
    }

    /** Row groups of native tasks skipped because their statistics rule out every row the filter keeps. */
    public static long rowGroupsPruned() {
        return ROW_GROUPS_PRUNED.get();
    }

    /**
     * Row groups of native tasks that statistics kept but skipped because their dictionaries, which
     * hold every value of the columns concerned, rule out every row the filter keeps.
     */
    public static long rowGroupsPrunedByDictionary() {
        return ROW_GROUPS_PRUNED_BY_DICTIONARY.get();
    }

    /** Native batches handed to Flink. */
    public static long batches() {
        return BATCHES.get();
    }

    /** Native batches handed to Flink as binary rows ({@link NativeReadOptions.RowFormat#BINARY}). */
    public static long binaryBatches() {
        return BINARY_BATCHES.get();
    }

    /** Of the binary batches, those the fetcher thread transposed (the task thread transposed the rest). */
    public static long fetcherTransposedBatches() {
        return FETCHER_TRANSPOSED_BATCHES.get();
    }

    /** Rows emitted by native tasks. */
    public static long rows() {
        return ROWS.get();
    }

    /** Position delete files native tasks applied (a file counted once per task it applies to). */
    public static long deleteFiles() {
        return DELETE_FILES.get();
    }

    /** Distinct positions those files deleted from native tasks' data files. */
    public static long deletePositions() {
        return DELETE_POSITIONS.get();
    }

    /** Equality delete files native tasks applied (a file counted once per task it applies to). */
    public static long equalityDeleteFiles() {
        return EQUALITY_DELETE_FILES.get();
    }

    /** Distinct keys in the equality delete sets native tasks applied. */
    public static long equalityDeleteKeys() {
        return EQUALITY_DELETE_KEYS.get();
    }

    /** Equality delete sets native tasks found in the JVM's cache instead of decoding them. */
    public static long equalityDeleteCacheHits() {
        return EQUALITY_DELETE_CACHE_HITS.get();
    }

    /** Decoded rows native tasks left out because a position or equality delete deleted them. */
    public static long rowsDeleted() {
        return ROWS_DELETED.get();
    }

    /** Row groups native tasks skipped undecoded because every one of their rows was deleted. */
    public static long rowGroupsDeleted() {
        return ROW_GROUPS_DELETED.get();
    }

    /**
     * Row groups of position delete files that native tasks did not read, because their
     * {@code file_path} bounds leave out the task's data file.
     */
    public static long deleteRowGroupsPruned() {
        return DELETE_ROW_GROUPS_PRUNED.get();
    }

    static void positionDeletes(int files, long positions, int rowGroupsDeleted, int deleteRowGroupsPruned) {
        DELETE_FILES.addAndGet(files);
        DELETE_POSITIONS.addAndGet(positions);
        ROW_GROUPS_DELETED.addAndGet(rowGroupsDeleted);
        DELETE_ROW_GROUPS_PRUNED.addAndGet(deleteRowGroupsPruned);
    }

    static void equalityDeletes(int files, long keys, int cacheHits) {
        EQUALITY_DELETE_FILES.addAndGet(files);
        EQUALITY_DELETE_KEYS.addAndGet(keys);
        EQUALITY_DELETE_CACHE_HITS.addAndGet(cacheHits);
    }

    static void rowsDeleted(long rows) {
        ROWS_DELETED.addAndGet(rows);
    }

    static void nativeTask(int rowGroups, int pruned, int prunedByDictionary, long bytes) {
        NATIVE_TASKS.incrementAndGet();
        BYTES_READ.addAndGet(bytes);
        ROW_GROUPS_READ.addAndGet(rowGroups);
        ROW_GROUPS_PRUNED.addAndGet(pruned);
        ROW_GROUPS_PRUNED_BY_DICTIONARY.addAndGet(prunedByDictionary);
    }

    static void fallbackTask() {
        FALLBACK_TASKS.incrementAndGet();
    }

    static void batch(int rows, boolean binary) {
        BATCHES.incrementAndGet();
        if (binary) {
            BINARY_BATCHES.incrementAndGet();
        }
        ROWS.addAndGet(rows);
    }

    static void transposedByFetcher() {
        FETCHER_TRANSPOSED_BATCHES.incrementAndGet();
    }
}
