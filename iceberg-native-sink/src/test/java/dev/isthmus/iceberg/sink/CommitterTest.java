package dev.isthmus.iceberg.sink;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.java.typeutils.PojoTypeInfo;
import org.apache.flink.runtime.jobgraph.OperatorID;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;
import org.apache.flink.types.RowKind;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotRef;
import org.apache.iceberg.Table;
import org.apache.iceberg.flink.sink.SinkUtil;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The committer's exactly-once protocol, step by step in Flink's operator test harness: what is
 * committed when, what a restore commits and what it must not commit again.
 */
@SuppressWarnings("try") // the harness's close() declares InterruptedException
class CommitterTest {
    @TempDir
    Path warehouse;

    private Table table;
    private OperatorID operatorId;
    private CommitterHarness committers;

    @BeforeEach
    void table() {
        table = new SinkTests.Warehouse(warehouse)
                .create(
                        "t",
                        CommitterHarness.SCHEMA,
                        CommitterHarness.BY_REGION,
                        Map.of(CommitterOperator.MAX_CONTINUOUS_EMPTY_COMMITS, "2"));
        committers = new CommitterHarness(table);
        operatorId = committers.operatorId;
    }

    @Test
    void logLinesCallTheEndOfInputCommitSo() {
        assertThat(CommitterOperator.describe(WriterOperator.END_OF_INPUT)).isEqualTo("end of input");
        assertThat(CommitterOperator.describe(9)).isEqualTo("checkpoint 9");
    }

    @Test
    void flushedFilesTravelWithoutKryo() {
        assertThat(TypeInformation.of(FlushedFiles.class)).isInstanceOf(PojoTypeInfo.class);
    }

    @Test
    void commitsOnlyWhenTheCheckpointCompletes() throws Exception {
        try (var committer = open(false, Map.of("app", "test"), SnapshotRef.MAIN_BRANCH, null)) {
            committer.processElement(files(1, 100, "a"));
            committer.snapshot(1, 1);
            assertThat(snapshots()).isEmpty();
            committer.notifyOfCompletedCheckpoint(1);
            table.refresh();
            Snapshot snapshot = table.currentSnapshot();
            assertThat(snapshot.operation()).isEqualTo("append");
            assertThat(snapshot.summary())
                    .containsEntry(SinkUtil.MAX_COMMITTED_CHECKPOINT_ID, "1")
                    .containsEntry(
                            SinkUtil.FLINK_JOB_ID,
                            committer.getEnvironment().getJobID().toString())
                    .containsEntry(SinkUtil.OPERATOR_ID, operatorId.toString())
                    .containsEntry("app", "test");
            assertThat(rowCount()).isEqualTo(100);
        }
    }

    @Test
    void restoreCommitsWhatTheFailedJobLeftPendingAndOnlyOnce() throws Exception {
        CommitterHarness.Checkpoint state;
        String failedJob;
        try (var committer = open(false, Map.of(), SnapshotRef.MAIN_BRANCH, null)) {
            failedJob = committer.getEnvironment().getJobID().toString();
            committer.processElement(files(1, 100, "a"));
            committer.snapshot(1, 1);
            committer.notifyOfCompletedCheckpoint(1);
            committer.processElement(files(2, 50, "b"));
            state = CommitterHarness.checkpoint(committer, 2);
            // The job fails after checkpoint 2 is taken, before it is reported complete.
        }
        assertThat(rowCount()).isEqualTo(100);

        try (var _ = open(false, Map.of(), SnapshotRef.MAIN_BRANCH, state)) {
            assertThat(rowCount()).isEqualTo(150);
            assertThat(table.currentSnapshot().summary())
                    .containsEntry(SinkUtil.MAX_COMMITTED_CHECKPOINT_ID, "2")
                    .containsEntry(SinkUtil.FLINK_JOB_ID, failedJob);
        }
        // A second failure before the next checkpoint restores the same state again.
        try (var _ = open(false, Map.of(), SnapshotRef.MAIN_BRANCH, state)) {
            assertThat(rowCount()).isEqualTo(150);
            assertThat(snapshots()).hasSize(2);
        }
        assertThat(CommitHistory.maxCommittedCheckpointId(
                        table, failedJob, operatorId.toString(), SnapshotRef.MAIN_BRANCH))
                .isEqualTo(2);
    }

    @Test
    void aLaterCheckpointCommitsTheEarlierOnesAndTheirLateNoticeCommitsNothing() throws Exception {
        try (var committer = open(false, Map.of(), SnapshotRef.MAIN_BRANCH, null)) {
            committer.processElement(files(1, 10, "a"));
            committer.snapshot(1, 1);
            committer.processElement(files(2, 20, "b"));
            committer.snapshot(2, 2);
            committer.notifyOfCompletedCheckpoint(2);
            committer.notifyOfCompletedCheckpoint(1);
            assertThat(snapshots()).hasSize(1);
            assertThat(table.currentSnapshot().summary()).containsEntry(SinkUtil.MAX_COMMITTED_CHECKPOINT_ID, "2");
            assertThat(rowCount()).isEqualTo(30);
        }
    }

    @Test
    void endOfInputFilesSpreadOverCheckpointsAreAllCommitted() throws Exception {
        try (var committer = open(false, Map.of(), SnapshotRef.MAIN_BRANCH, null)) {
            // One writer finishes, a checkpoint follows while the other still writes.
            committer.processElement(files(WriterOperator.END_OF_INPUT, 10, "a"));
            committer.processElement(files(3, 20, "a"));
            committer.snapshot(3, 3);
            committer.notifyOfCompletedCheckpoint(3);
            assertThat(rowCount()).isEqualTo(20);
            committer.processElement(files(WriterOperator.END_OF_INPUT, 30, "b"));
            committer.processElement(files(4, 0, "b"));
            committer.snapshot(4, 4);
            committer.processElement(files(WriterOperator.END_OF_INPUT, 40, "b"));
            committer.endInput();
            assertThat(rowCount()).isEqualTo(100);
        }
    }

    @Test
    void deltasCommitOneSnapshotPerCheckpoint() throws Exception {
        try (var committer = open(false, Map.of(), SnapshotRef.MAIN_BRANCH, null)) {
            committer.processElement(files(1, 10, "a"));
            committer.snapshot(1, 1);
            committer.processElement(new StreamRecord<>(FlushedFiles.of(
                    2,
                    committers.write(
                            true,
                            List.of(
                                    CommitterHarness.row(RowKind.DELETE, 0, "a"),
                                    CommitterHarness.row(RowKind.INSERT, 1000, "a"))))));
            committer.snapshot(2, 2);
            committer.notifyOfCompletedCheckpoint(2);
            List<Snapshot> snapshots = snapshots();
            assertThat(snapshots)
                    .extracting(s -> s.summary().get(SinkUtil.MAX_COMMITTED_CHECKPOINT_ID))
                    .containsExactly("1", "2");
            assertThat(snapshots.get(1).operation()).isEqualTo("overwrite");
            assertThat(rowCount()).isEqualTo(10);
        }
    }

    @Test
    void emptyCheckpointsAreCommittedEveryNth() throws Exception {
        try (var committer = open(false, Map.of(), SnapshotRef.MAIN_BRANCH, null)) {
            committer.snapshot(1, 1);
            committer.notifyOfCompletedCheckpoint(1);
            assertThat(snapshots()).isEmpty();
            committer.snapshot(2, 2);
            committer.notifyOfCompletedCheckpoint(2);
            assertThat(snapshots()).hasSize(1);
            assertThat(table.currentSnapshot().summary()).containsEntry(SinkUtil.MAX_COMMITTED_CHECKPOINT_ID, "2");
        }
    }

    @Test
    void overwriteReplacesThePartitionsWritten() throws Exception {
        try (var committer = open(false, Map.of(), SnapshotRef.MAIN_BRANCH, null)) {
            committer.processElement(files(1, 10, "a"));
            committer.processElement(files(1, 20, "b"));
            committer.snapshot(1, 1);
            committer.notifyOfCompletedCheckpoint(1);
        }
        try (var overwriting = open(true, Map.of(), SnapshotRef.MAIN_BRANCH, null)) {
            overwriting.processElement(files(1, 5, "a"));
            overwriting.endInput();
        }
        table.refresh();
        assertThat(table.currentSnapshot().operation()).isEqualTo("overwrite");
        assertThat(SinkTests.rows(table).keySet()).extracting(r -> r.get(1)).containsOnly("a", "b");
        assertThat(rowCount()).isEqualTo(25);
    }

    @Test
    void commitsToTheBranchAskedFor() throws Exception {
        try (var committer = open(false, Map.of(), "audit", null)) {
            committer.processElement(files(1, 10, "a"));
            committer.endInput();
        }
        table.refresh();
        assertThat(table.currentSnapshot()).as("main untouched").isNull();
        Snapshot branch = table.snapshot("audit");
        assertThat(branch.summary())
                .containsEntry(SinkUtil.MAX_COMMITTED_CHECKPOINT_ID, Long.toString(WriterOperator.END_OF_INPUT));
        assertThat(CommitHistory.maxCommittedCheckpointId(
                        table, branch.summary().get(SinkUtil.FLINK_JOB_ID), operatorId.toString(), "audit"))
                .isEqualTo(WriterOperator.END_OF_INPUT);
    }

    @Test
    void readsTheBookkeepingOfIcebergsOwnSink() {
        // What Iceberg's FlinkSink writes into the summary of its commits.
        table.newAppend()
                .set(SinkUtil.FLINK_JOB_ID, "job-1")
                .set(SinkUtil.OPERATOR_ID, "op-1")
                .set(SinkUtil.MAX_COMMITTED_CHECKPOINT_ID, "7")
                .commit();
        table.newAppend()
                .set(SinkUtil.FLINK_JOB_ID, "job-2")
                .set(SinkUtil.MAX_COMMITTED_CHECKPOINT_ID, "3")
                .commit();
        assertThat(CommitHistory.maxCommittedCheckpointId(table, "job-1", "op-1", "main"))
                .isEqualTo(7);
        assertThat(CommitHistory.maxCommittedCheckpointId(table, "job-1", "op-2", "main"))
                .isEqualTo(CommitHistory.NONE);
        assertThat(CommitHistory.maxCommittedCheckpointId(table, "job-2", "any", "main"))
                .isEqualTo(3);
    }

    private OneInputStreamOperatorTestHarness<FlushedFiles, Void> open(
            boolean overwrite, Map<String, String> properties, String branch, CommitterHarness.Checkpoint state)
            throws Exception {
        return committers.open(SinkTests.loader(table), overwrite, properties, branch, state);
    }

    private StreamRecord<FlushedFiles> files(long checkpointId, int rows, String region) throws Exception {
        return committers.files(checkpointId, rows, region);
    }

    private List<Snapshot> snapshots() {
        return committers.snapshots();
    }

    private int rowCount() {
        return committers.rowCount();
    }
}
