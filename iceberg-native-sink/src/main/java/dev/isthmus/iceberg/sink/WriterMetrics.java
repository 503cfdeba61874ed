package dev.isthmus.iceberg.sink;

import dev.isthmus.iceberg.sink.write.NativeDataFiles;
import java.util.Arrays;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.MetricGroup;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.io.WriteResult;

/**
 * The writer's metrics, in the group {@code isthmusWriter}: rows taken, and at each flush the
 * data and delete files completed with their bytes, and how long the flush took. {@code writeTimeMs}
 * is the time spent inside the task writer (encoding and I/O), summed over rows.
 * {@code liveNativeBytes} is the off-heap memory the native writers of this JVM hold
 * ({@link NativeDataFiles#liveNativeBytes()}).
 */
final class WriterMetrics {
    static final String GROUP = "isthmusWriter";

    private final Counter rows;
    private final Counter dataFiles;
    private final Counter dataBytes;
    private final Counter deleteFiles;
    private final Counter deleteBytes;
    private final Counter flushes;
    private long writeNanos;
    private volatile long lastFlushMillis;

    WriterMetrics(MetricGroup operatorGroup, String table) {
        MetricGroup group = operatorGroup.addGroup(GROUP).addGroup("table", table);
        this.rows = group.counter("rows");
        this.dataFiles = group.counter("dataFiles");
        this.dataBytes = group.counter("dataBytes");
        this.deleteFiles = group.counter("deleteFiles");
        this.deleteBytes = group.counter("deleteBytes");
        this.flushes = group.counter("flushes");
        group.gauge("writeTimeMs", () -> writeNanos / 1_000_000);
        group.gauge("lastFlushDurationMs", () -> lastFlushMillis);
        // JVM-wide, as the source's memory gauges: the writers of all sinks share the native library.
        group.gauge("liveNativeBytes", NativeDataFiles::liveNativeBytes);
    }

    void wrote(long nanos) {
        rows.inc();
        writeNanos += nanos;
    }

    void flushed(WriteResult result, long nanos) {
        flushes.inc();
        dataFiles.inc(result.dataFiles().length);
        dataBytes.inc(Arrays.stream(result.dataFiles()).mapToLong(ContentFile::fileSizeInBytes).sum());
        deleteFiles.inc(result.deleteFiles().length);
        deleteBytes.inc(Arrays.stream(result.deleteFiles()).mapToLong(ContentFile::fileSizeInBytes).sum());
        writeNanos += nanos;
        lastFlushMillis = nanos / 1_000_000;
    }
}
