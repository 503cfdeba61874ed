package dev.isthmus.iceberg.sink;

import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.MetricGroup;

/**
 * The committer's metrics, in the group {@code isthmusCommitter}: Iceberg commits made, the data
 * and delete files and data rows they added, how long the last one took, and the last checkpoint
 * committed ({@code -1} before the first).
 */
final class CommitterMetrics {
    static final String GROUP = "isthmusCommitter";

    private final Counter commits;
    private final Counter dataFiles;
    private final Counter deleteFiles;
    private final Counter dataRows;
    private volatile long lastCommitMillis;
    private volatile long lastCommittedCheckpointId = -1;

    CommitterMetrics(MetricGroup operatorGroup, String table) {
        MetricGroup group = operatorGroup.addGroup(GROUP).addGroup("table", table);
        this.commits = group.counter("commits");
        this.dataFiles = group.counter("committedDataFiles");
        this.deleteFiles = group.counter("committedDeleteFiles");
        this.dataRows = group.counter("committedDataRows");
        group.gauge("lastCommitDurationMs", () -> lastCommitMillis);
        group.gauge("lastCommittedCheckpointId", () -> lastCommittedCheckpointId);
    }

    void committed(long checkpointId, long dataFileCount, long deleteFileCount, long rows, long nanos) {
        commits.inc();
        dataFiles.inc(dataFileCount);
        deleteFiles.inc(deleteFileCount);
        dataRows.inc(rows);
        lastCommitMillis = nanos / 1_000_000;
        lastCommittedCheckpointId = checkpointId;
    }
}
