package dev.isthmus.iceberg.sink;

import dev.isthmus.arrow.memory.MemoryTracker;
import dev.isthmus.iceberg.sink.parquet.NativeParquetWriter;
import dev.isthmus.iceberg.sink.write.NativeDataFiles;
import java.util.Arrays;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.MetricGroup;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.io.WriteResult;

/**
 * The writer's metrics, in the group {@code isthmusWriter}: rows taken, at each flush the
 * data and delete files completed with their bytes and how long the flush took, and
 * {@code liveNativeBytes}, the native memory this subtask's writers hold (Arrow batches being
 * built, row-group pages buffered). The subgroup {@value #JVM_GROUP} counts every native writer
 * of the JVM: {@code encodeTimeMs} ({@link NativeParquetWriter#encodeNanos()}, timed per batch: a
 * clock read per row would cost more than the row) and {@code liveNativeBytes}
 * ({@link NativeDataFiles#liveNativeBytes()}).
 */
final class WriterMetrics {
    static final String GROUP = "isthmusWriter";
    static final String JVM_GROUP = "jvm";

    private final Counter rows;
    private final Counter dataFiles;
    private final Counter dataBytes;
    private final Counter deleteFiles;
    private final Counter deleteBytes;
    private final Counter flushes;
    private volatile long lastFlushMillis;

    /** @param memory the subtask's writers' tracker */
    WriterMetrics(MetricGroup operatorGroup, String table, MemoryTracker memory) {
        MetricGroup group = operatorGroup.addGroup(GROUP).addGroup("table", table);
        this.rows = group.counter("rows");
        this.dataFiles = group.counter("dataFiles");
        this.dataBytes = group.counter("dataBytes");
        this.deleteFiles = group.counter("deleteFiles");
        this.deleteBytes = group.counter("deleteBytes");
        this.flushes = group.counter("flushes");
        group.gauge("lastFlushDurationMs", () -> lastFlushMillis);
        group.gauge("liveNativeBytes", () -> memory.liveBytes());
        MetricGroup jvm = group.addGroup(JVM_GROUP);
        jvm.gauge("encodeTimeMs", () -> NativeParquetWriter.encodeNanos() / 1_000_000);
        jvm.gauge("liveNativeBytes", NativeDataFiles::liveNativeBytes);
    }

    void wrote() {
        rows.inc();
    }

    void flushed(WriteResult result, long nanos) {
        flushes.inc();
        dataFiles.inc(result.dataFiles().length);
        dataBytes.inc(Arrays.stream(result.dataFiles())
                .mapToLong(ContentFile::fileSizeInBytes)
                .sum());
        deleteFiles.inc(result.deleteFiles().length);
        deleteBytes.inc(Arrays.stream(result.deleteFiles())
                .mapToLong(ContentFile::fileSizeInBytes)
                .sum());
        lastFlushMillis = nanos / 1_000_000;
    }
}
