package dev.isthmus.iceberg.source;

import dev.isthmus.arrow.memory.MemoryTracker;
import dev.isthmus.ffm.NativeArrowStats;
import dev.isthmus.ffm.NativeLibrary;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.metrics.SimpleCounter;

/**
 * What one source reader (one subtask) reads natively, as Flink metrics in the group
 * {@value #GROUP} under the reader's metric group; every count also goes to the JVM-wide
 * {@link NativeSourceCounters}. A reader function used without {@link NativeIcebergSource}
 * (so never given the reader's metric group) counts into unregistered counters.
 */
final class NativeReaderMetrics {
    static final String GROUP = "isthmus";
    /** The subgroup of gauges that count every reader in the JVM, not this one. */
    static final String JVM_GROUP = "jvm";

    private static final NativeArrowStats NO_STATS = new NativeArrowStats(0, 0, 0, 0, 0, 0);

    private final Counter rows;
    private final Counter batches;
    private final Counter binaryBatches;
    private final Counter fetcherTransposedBatches;
    private final Counter bytesRead;
    private final Counter decodeNanos;
    private final Counter nativeTasks;
    private final Counter fallbackTasks;
    private final Counter rowGroupsRead;
    private final Counter rowGroupsPruned;
    private final Counter rowGroupsPrunedByDictionary;
    private final Counter deleteFiles;
    private final Counter deletePositions;
    private final Counter rowsDeleted;
    private final Counter rowGroupsDeleted;
    private final Counter deleteRowGroupsPruned;
    private final Counter equalityDeleteFiles;
    private final Counter equalityDeleteKeys;
    private final Counter equalityDeleteCacheHits;

    private NativeReaderMetrics(
            Counter rows,
            Counter batches,
            Counter binaryBatches,
            Counter fetcherTransposedBatches,
            Counter bytesRead,
            Counter decodeNanos,
            Counter nativeTasks,
            Counter fallbackTasks,
            Counter rowGroupsRead,
            Counter rowGroupsPruned,
            Counter rowGroupsPrunedByDictionary,
            Counter deleteFiles,
            Counter deletePositions,
            Counter rowsDeleted,
            Counter rowGroupsDeleted,
            Counter deleteRowGroupsPruned,
            Counter equalityDeleteFiles,
            Counter equalityDeleteKeys,
            Counter equalityDeleteCacheHits) {
        this.rows = rows;
        this.batches = batches;
        this.binaryBatches = binaryBatches;
        this.fetcherTransposedBatches = fetcherTransposedBatches;
        this.bytesRead = bytesRead;
        this.decodeNanos = decodeNanos;
        this.nativeTasks = nativeTasks;
        this.fallbackTasks = fallbackTasks;
        this.rowGroupsRead = rowGroupsRead;
        this.rowGroupsPruned = rowGroupsPruned;
        this.rowGroupsPrunedByDictionary = rowGroupsPrunedByDictionary;
        this.deleteFiles = deleteFiles;
        this.deletePositions = deletePositions;
        this.rowsDeleted = rowsDeleted;
        this.rowGroupsDeleted = rowGroupsDeleted;
        this.deleteRowGroupsPruned = deleteRowGroupsPruned;
        this.equalityDeleteFiles = equalityDeleteFiles;
        this.equalityDeleteKeys = equalityDeleteKeys;
        this.equalityDeleteCacheHits = equalityDeleteCacheHits;
    }

    static NativeReaderMetrics unregistered() {
        return new NativeReaderMetrics(
                new SimpleCounter(),
                new SimpleCounter(),
                new SimpleCounter(),
                new SimpleCounter(),
                new SimpleCounter(),
                new SimpleCounter(),
                new SimpleCounter(),
                new SimpleCounter(),
                new SimpleCounter(),
                new SimpleCounter(),
                new SimpleCounter(),
                new SimpleCounter(),
                new SimpleCounter(),
                new SimpleCounter(),
                new SimpleCounter(),
                new SimpleCounter(),
                new SimpleCounter(),
                new SimpleCounter(),
                new SimpleCounter());
    }

    /**
     * Registers the metrics under {@code parent}. {@code liveBatches} and {@code liveNativeBytes}
     * are this reader's ({@code reader}): its decoded Arrow batches not yet released (columnar rows
     * hold theirs until Flink recycles them; binary rows release theirs once transposed) and the
     * bytes of their buffers. The subgroup {@value #JVM_GROUP} holds the batch count for every
     * native reader in the JVM ({@code all}), the library's count of the buffer bytes of the
     * arrays it exported and Java has not released (by the buffers' full lengths, so close to but
     * not the sum of the readers' {@code liveNativeBytes}; the sink's batches, exported by Java,
     * are not among them), and all the Arrow buffer memory the library holds (those arrays, and
     * what the scans' pools keep for their next batches). The library's two read 0 where it
     * cannot load.
     */
    static NativeReaderMetrics register(MetricGroup parent, MemoryTracker reader, MemoryTracker all) {
        MetricGroup group = parent.addGroup(GROUP);
        group.gauge("liveBatches", (Gauge<Long>) reader::liveArrays);
        group.gauge("liveNativeBytes", (Gauge<Long>) reader::liveBytes);
        MetricGroup jvm = group.addGroup(JVM_GROUP);
        jvm.gauge("liveBatches", (Gauge<Long>) all::liveArrays);
        jvm.gauge("liveNativeBytes", (Gauge<Long>) () -> nativeStats().exportedBytesLive());
        jvm.gauge("allocatedNativeBytes", (Gauge<Long>) () -> nativeStats().allocatedBytes());
        jvm.gauge("equalityDeleteCacheBytes", (Gauge<Long>) EqualityDeleteCache::bytes);
        return new NativeReaderMetrics(
                group.counter("rows"),
                group.counter("batches"),
                group.counter("binaryBatches"),
                group.counter("fetcherTransposedBatches"),
                group.counter("bytesRead"),
                group.counter("decodeNanos"),
                group.counter("nativeTasks"),
                group.counter("fallbackTasks"),
                group.counter("rowGroupsRead"),
                group.counter("rowGroupsPruned"),
                group.counter("rowGroupsPrunedByDictionary"),
                group.counter("deleteFiles"),
                group.counter("deletePositions"),
                group.counter("rowsDeleted"),
                group.counter("rowGroupsDeleted"),
                group.counter("deleteRowGroupsPruned"),
                group.counter("equalityDeleteFiles"),
                group.counter("equalityDeleteKeys"),
                group.counter("equalityDeleteCacheHits"));
    }

    /** The library's counts, all 0 where it cannot load (every task then falls back: it holds nothing). */
    private static NativeArrowStats nativeStats() {
        return NativeLibrary.available() ? NativeArrowStats.read() : NO_STATS;
    }

    /**
     * A task opened natively: its row groups to read, pruned by statistics and pruned by
     * dictionaries, and the column-chunk bytes it will read.
     */
    void nativeTask(int groups, int pruned, int prunedByDictionary, long bytes) {
        nativeTasks.inc();
        rowGroupsRead.inc(groups);
        rowGroupsPruned.inc(pruned);
        rowGroupsPrunedByDictionary.inc(prunedByDictionary);
        bytesRead.inc(bytes);
        NativeSourceCounters.nativeTask(groups, pruned, prunedByDictionary, bytes);
    }

    /**
     * A native task's position deletes: its delete files, the distinct positions they delete from
     * its data file, the row groups skipped because they delete every row, and the delete files'
     * row groups not read because their {@code file_path} bounds leave out the data file.
     */
    void positionDeletes(int files, long positions, int groupsDeleted, int deleteGroupsPruned) {
        if (files == 0) {
            return;
        }
        deleteFiles.inc(files);
        deletePositions.inc(positions);
        rowGroupsDeleted.inc(groupsDeleted);
        deleteRowGroupsPruned.inc(deleteGroupsPruned);
        NativeSourceCounters.positionDeletes(files, positions, groupsDeleted, deleteGroupsPruned);
    }

    /**
     * A native task's equality deletes: the delete files it applies (each once per set of key
     * columns), the distinct keys they hold, and how many of its sets came from the cache.
     */
    void equalityDeletes(int files, long keys, int cacheHits) {
        if (files == 0) {
            return;
        }
        equalityDeleteFiles.inc(files);
        equalityDeleteKeys.inc(keys);
        equalityDeleteCacheHits.inc(cacheHits);
        NativeSourceCounters.equalityDeletes(files, keys, cacheHits);
    }

    /** Decoded rows of a batch left out as deleted (by either kind of delete). */
    void deletedRows(int rows) {
        if (rows > 0) {
            rowsDeleted.inc(rows);
            NativeSourceCounters.rowsDeleted(rows);
        }
    }

    void fallbackTask() {
        fallbackTasks.inc();
        NativeSourceCounters.fallbackTask();
    }

    /** Time spent in the decoder (and, for FileIO files, reading their bytes) for one batch. */
    void decoded(long nanos) {
        decodeNanos.inc(nanos);
    }

    /** A batch of {@code emitted} records handed to Flink, as binary rows or columnar ones. */
    void batch(int emitted, boolean binary) {
        batches.inc();
        rows.inc(emitted);
        if (binary) {
            binaryBatches.inc();
        }
        NativeSourceCounters.batch(emitted, binary);
    }

    /** A binary batch transposed by the fetcher thread rather than as it is emitted on the task thread. */
    void transposedByFetcher() {
        fetcherTransposedBatches.inc();
        NativeSourceCounters.transposedByFetcher();
    }
}
