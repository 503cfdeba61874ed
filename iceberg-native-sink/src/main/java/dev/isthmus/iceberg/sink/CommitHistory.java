package dev.isthmus.iceberg.sink;

import java.util.Map;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.flink.sink.SinkUtil;

/**
 * What the table's snapshots say a sink has committed. Reads the summary keys Iceberg's own
 * Flink sink writes, so the two sinks see each other's bookkeeping.
 */
public final class CommitHistory {
    /** No checkpoint of the job has been committed to the branch. */
    public static final long NONE = -1L;

    private CommitHistory() {}

    /**
     * The highest checkpoint id committed by the job and operator on the branch, found by walking
     * the branch's ancestry from its head; a snapshot without an operator id counts as the
     * operator's (older Iceberg sinks did not write one).
     */
    public static long maxCommittedCheckpointId(Table table, String jobId, String operatorId, String branch) {
        Snapshot snapshot = table.snapshot(branch);
        while (snapshot != null) {
            Map<String, String> summary = snapshot.summary();
            String snapshotOperator = summary.get(SinkUtil.OPERATOR_ID);
            if (jobId.equals(summary.get(SinkUtil.FLINK_JOB_ID))
                    && (snapshotOperator == null || snapshotOperator.equals(operatorId))) {
                String checkpoint = summary.get(SinkUtil.MAX_COMMITTED_CHECKPOINT_ID);
                if (checkpoint != null) {
                    return Long.parseLong(checkpoint);
                }
            }
            Long parent = snapshot.parentId();
            snapshot = parent == null ? null : table.snapshot(parent);
        }
        return NONE;
    }
}
