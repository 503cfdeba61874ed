package dev.isthmus.iceberg.sink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.LongStream;
import org.apache.flink.api.common.JobID;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;
import org.apache.flink.table.data.RowData;
import org.apache.flink.types.RowKind;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotRef;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.exceptions.CommitStateUnknownException;
import org.apache.iceberg.flink.TableLoader;
import org.apache.iceberg.flink.sink.SinkUtil;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The committer when the Iceberg commit, the manifest writes of a checkpoint or the task after
 * its end-of-input commit fail, in Flink's operator test harness: a failed task is its harness
 * closed, the restart a new harness restored from the last completed checkpoint's state. After
 * each restore every row is committed exactly once, each checkpoint at most once, and no data
 * file or committer manifest of the failed attempt is left behind.
 */
@SuppressWarnings("try") // the harness's close() declares InterruptedException
class CommitFailureTest {
    @TempDir
    Path warehouse;

    private Table table;
    private CommitterHarness committers;
    private TableLoader loader;

    @BeforeEach
    void table() {
        // Iceberg retries a failed commit; a short wait keeps the retries quick.
        table = new SinkTests.Warehouse(warehouse)
                .create(
                        "t",
                        CommitterHarness.SCHEMA,
                        CommitterHarness.BY_REGION,
                        Map.of(
                                TableProperties.COMMIT_MIN_RETRY_WAIT_MS,
                                "1",
                                TableProperties.COMMIT_MAX_RETRY_WAIT_MS,
                                "1"));
        committers = new CommitterHarness(table);
        loader = FaultInjection.loader(table);
    }

    @AfterEach
    void noFaults() {
        FaultInjection.reset();
    }

    @Test
    void aConflictIcebergRetriesCommitsOnce() throws Exception {
        FaultInjection.onCommit(FaultInjection.once(metadata -> true, (catalog, base, metadata) -> {
            throw new CommitFailedException("Injected conflict");
        }));
        try (var committer = open(null)) {
            committer.processElement(committers.files(1, 100, "a"));
            committer.snapshot(1, 1);
            committer.notifyOfCompletedCheckpoint(1);
        }
        assertThat(checkpointsCommitted()).containsExactly("1");
        assertThat(committers.rowCount()).isEqualTo(100);
        assertNothingLeftBehind();
    }

    /**
     * The catalog refuses every commit until the restart. The checkpoint's files stay pending in
     * its state and are committed on restore; the files received for the next checkpoint, in no
     * checkpoint's state, are deleted when the task fails.
     */
    @Test
    void aCommitTheCatalogRefusesIsCommittedOnRestore() throws Exception {
        FaultInjection.onCommit(FaultInjection.refusing(metadata -> true));
        CommitterHarness.Checkpoint state;
        try (var committer = open(null)) {
            committer.processElement(committers.files(1, 100, "a"));
            state = CommitterHarness.checkpoint(committer, 1);
            committer.processElement(committers.files(2, 50, "b"));
            assertThatThrownBy(() -> committer.notifyOfCompletedCheckpoint(1))
                    .hasMessageContaining("the catalog refuses the commit");
        }
        assertThat(committers.snapshots()).isEmpty();

        FaultInjection.reset();
        try (var _ = open(state)) {
            assertThat(checkpointsCommitted()).containsExactly("1");
            assertThat(committers.rowCount()).isEqualTo(100);
        }
        assertNothingLeftBehind();
    }

    /**
     * The catalog gives no answer: the new metadata may or may not be the table's. The restore
     * reads the table's history and commits the checkpoint only if it is not there.
     */
    @ParameterizedTest(name = "metadata swapped: {0}")
    @ValueSource(booleans = {false, true})
    void aCommitInUnknownStateIsCommittedOnceOnRestore(boolean swapped) throws Exception {
        FaultInjection.onCommit(FaultInjection.once(metadata -> true, (catalog, base, metadata) -> {
            if (swapped) {
                catalog.commit(base, metadata);
            }
            throw new CommitStateUnknownException(new RuntimeException("Injected: no answer from the catalog"));
        }));
        CommitterHarness.Checkpoint state;
        try (var committer = open(null)) {
            committer.processElement(committers.files(1, 100, "a"));
            state = CommitterHarness.checkpoint(committer, 1);
            assertThatThrownBy(() -> committer.notifyOfCompletedCheckpoint(1))
                    .isInstanceOf(CommitStateUnknownException.class);
        }
        assertThat(committers.snapshots()).hasSize(swapped ? 1 : 0);

        try (var _ = open(state)) {
            assertThat(checkpointsCommitted()).containsExactly("1");
            assertThat(committers.rowCount()).isEqualTo(100);
        }
        // Iceberg keeps the manifest list and manifests of a commit in unknown state (they may be
        // the table's): metadata files, none of them a data file or the committer's.
        assertNothingLeftBehind();
    }

    /** The process dies right after the catalog swapped the metadata of checkpoints 2 and 3. */
    @Test
    void aCrashAfterTheMetadataSwapIsNotCommittedAgain() throws Exception {
        CommitterHarness.Checkpoint state;
        try (var committer = open(null)) {
            committer.processElement(committers.files(1, 100, "a"));
            committer.snapshot(1, 1);
            committer.notifyOfCompletedCheckpoint(1);
            committer.processElement(committers.files(2, 50, "b"));
            committer.snapshot(2, 2);
            committer.processElement(committers.files(3, 30, "a"));
            state = CommitterHarness.checkpoint(committer, 3);
            FaultInjection.onCommit(FaultInjection.once(
                    FaultInjection.committingCheckpoint(id -> id == 3), (catalog, base, metadata) -> {
                        catalog.commit(base, metadata);
                        throw new FaultInjection.Crash("Injected crash after the swap");
                    }));
            assertThatThrownBy(() -> committer.notifyOfCompletedCheckpoint(3)).isInstanceOf(FaultInjection.Crash.class);
        }
        try (var _ = open(state)) {
            assertThat(checkpointsCommitted()).containsExactly("1", "3");
            assertThat(committers.rowCount()).isEqualTo(180);
        }
        assertNothingLeftBehind();
    }

    /** The process dies after the swap of the restore's own commit; the next restore skips it. */
    @Test
    void aCrashAfterTheRestoresCommitIsNotCommittedAgain() throws Exception {
        CommitterHarness.Checkpoint state;
        try (var committer = open(null)) {
            committer.processElement(committers.files(1, 100, "a"));
            state = CommitterHarness.checkpoint(committer, 1);
        }
        FaultInjection.onCommit(FaultInjection.once(metadata -> true, (catalog, base, metadata) -> {
            catalog.commit(base, metadata);
            throw new FaultInjection.Crash("Injected crash after the restore's commit");
        }));
        assertThatThrownBy(() -> open(state)).isInstanceOf(FaultInjection.Crash.class);
        try (var _ = open(state)) {
            assertThat(checkpointsCommitted()).containsExactly("1");
            assertThat(committers.rowCount()).isEqualTo(100);
        }
        assertNothingLeftBehind();
    }

    /**
     * With unaligned checkpoints a writer's files for checkpoint 2 can be in that checkpoint's
     * channel state: after the restore they reach the committer again, after its snapshot of 2.
     * A failure before the next checkpoint must not delete them, since every later restore from
     * checkpoint 2 replays the same files.
     */
    @Test
    void filesReplayedFromTheRestoredCheckpointsChannelStateSurviveAFailure() throws Exception {
        CommitterHarness.Checkpoint state;
        StreamRecord<FlushedFiles> inChannelState = committers.files(2, 20, "b");
        try (var committer = open(null)) {
            committer.processElement(committers.files(2, 10, "a"));
            state = CommitterHarness.checkpoint(committer, 2);
        }
        try (var restored = open(state)) {
            restored.processElement(inChannelState);
        }
        try (var restored = open(state)) {
            restored.processElement(inChannelState);
            restored.snapshot(3, 3);
            restored.notifyOfCompletedCheckpoint(3);
        }
        assertThat(committers.rowCount()).isEqualTo(30);
        assertNothingLeftBehind();
    }

    /**
     * With delete files each pending checkpoint is its own snapshot: a crash after the first of
     * them leaves the second to the restore, and only the second.
     */
    @Test
    void aCrashBetweenTheSnapshotsOfTwoDeltaCheckpointsCommitsOnlyTheSecondOnRestore() throws Exception {
        CommitterHarness.Checkpoint state;
        try (var committer = open(null)) {
            committer.processElement(committers.files(1, 10, "a"));
            committer.snapshot(1, 1);
            committer.notifyOfCompletedCheckpoint(1);
            committer.processElement(delta(
                    2,
                    List.of(
                            CommitterHarness.row(RowKind.DELETE, 0, "a"),
                            CommitterHarness.row(RowKind.INSERT, 100, "a"))));
            committer.snapshot(2, 2);
            committer.processElement(delta(
                    3,
                    List.of(
                            CommitterHarness.row(RowKind.DELETE, 1, "a"),
                            CommitterHarness.row(RowKind.INSERT, 101, "a"))));
            state = CommitterHarness.checkpoint(committer, 3);
            FaultInjection.onCommit(FaultInjection.once(
                    FaultInjection.committingCheckpoint(id -> id == 2), (catalog, base, metadata) -> {
                        catalog.commit(base, metadata);
                        throw new FaultInjection.Crash("Injected crash after checkpoint 2's snapshot");
                    }));
            assertThatThrownBy(() -> committer.notifyOfCompletedCheckpoint(3)).isInstanceOf(FaultInjection.Crash.class);
        }
        assertThat(checkpointsCommitted()).containsExactly("1", "2");
        try (var _ = open(state)) {
            assertThat(checkpointsCommitted()).containsExactly("1", "2", "3");
        }
        assertThat(SinkTests.rows(table).keySet())
                .extracting(row -> row.get(0))
                .containsExactlyInAnyOrder(2L, 3L, 4L, 5L, 6L, 7L, 8L, 9L, 100L, 101L);
        assertNothingLeftBehind();
    }

    /** An aborted checkpoint's files are committed with the next completed one, once. */
    @Test
    void anAbortedCheckpointIsCommittedWithTheNextOne() throws Exception {
        try (var committer = open(null)) {
            committer.processElement(committers.files(1, 10, "a"));
            committer.snapshot(1, 1);
            committer.getOperator().notifyCheckpointAborted(1);
            committer.processElement(committers.files(2, 20, "b"));
            committer.snapshot(2, 2);
            committer.notifyOfCompletedCheckpoint(2);
            committer.notifyOfCompletedCheckpoint(1);
        }
        assertThat(checkpointsCommitted()).containsExactly("2");
        assertThat(committers.rowCount()).isEqualTo(30);
        assertNothingLeftBehind();
    }

    /**
     * A checkpoint declined before its barrier reached the committer: its files arrive, its
     * snapshot never comes, and the next checkpoint commits them.
     */
    @Test
    void aCheckpointDeclinedUpstreamIsCommittedWithTheNextOne() throws Exception {
        try (var committer = open(null)) {
            committer.processElement(committers.files(1, 10, "a"));
            committer.getOperator().notifyCheckpointAborted(1);
            committer.processElement(committers.files(2, 20, "b"));
            committer.snapshot(2, 2);
            committer.notifyOfCompletedCheckpoint(2);
        }
        assertThat(checkpointsCommitted()).containsExactly("2");
        assertThat(committers.rowCount()).isEqualTo(30);
    }

    /** The same with delete files: the aborted checkpoint's RowDelta comes first. */
    @Test
    void anAbortedDeltaCheckpointIsCommittedBeforeTheNextOne() throws Exception {
        try (var committer = open(null)) {
            committer.processElement(committers.files(1, 10, "a"));
            committer.snapshot(1, 1);
            committer.notifyOfCompletedCheckpoint(1);
            committer.processElement(delta(2, List.of(CommitterHarness.row(RowKind.DELETE, 0, "a"))));
            committer.snapshot(2, 2);
            committer.getOperator().notifyCheckpointAborted(2);
            committer.processElement(delta(3, List.of(CommitterHarness.row(RowKind.INSERT, 0, "a"))));
            committer.snapshot(3, 3);
            committer.notifyOfCompletedCheckpoint(3);
        }
        assertThat(checkpointsCommitted()).containsExactly("1", "2", "3");
        assertThat(committers.rowCount())
                .as("deleted in 2, inserted again in 3")
                .isEqualTo(10);
        assertNothingLeftBehind();
    }

    /** The state of the checkpoint after an aborted one holds both; a restore commits both. */
    @Test
    void aRestoreAfterAnAbortedCheckpointCommitsItOnce() throws Exception {
        CommitterHarness.Checkpoint state;
        try (var committer = open(null)) {
            committer.processElement(committers.files(1, 10, "a"));
            committer.snapshot(1, 1);
            committer.getOperator().notifyCheckpointAborted(1);
            committer.processElement(committers.files(2, 20, "b"));
            state = CommitterHarness.checkpoint(committer, 2);
        }
        for (int restart = 0; restart < 2; restart++) {
            try (var _ = open(state)) {
                assertThat(checkpointsCommitted()).containsExactly("2");
                assertThat(committers.rowCount()).isEqualTo(30);
            }
        }
        assertNothingLeftBehind();
    }

    /**
     * The second manifest of a checkpoint (the delete files', after the data files') cannot be
     * written; the checkpoint is declined and the job goes on: the next checkpoint commits the
     * files once, and the manifest that was written for the declined one does not stay behind.
     */
    @Test
    void aManifestWriteThatFailsIsRetriedByTheNextCheckpoint() throws Exception {
        AtomicInteger manifests = new AtomicInteger();
        try (var committer = open(null)) {
            committer.processElement(committers.files(1, 10, "a"));
            committer.snapshot(1, 1);
            committer.notifyOfCompletedCheckpoint(1);
            committer.processElement(delta(
                    2,
                    List.of(
                            CommitterHarness.row(RowKind.DELETE, 0, "a"),
                            CommitterHarness.row(RowKind.INSERT, 100, "a"))));
            FaultInjection.refuseOutput(location -> isCommitterManifest(location) && manifests.incrementAndGet() == 2);
            assertThatThrownBy(() -> committer.snapshot(2, 2)).hasStackTraceContaining("Injected failure creating");
            assertThat(manifests).hasValue(2);
            FaultInjection.reset();
            committer.getOperator().notifyCheckpointAborted(2);
            committer.snapshot(3, 3);
            committer.notifyOfCompletedCheckpoint(3);
        }
        assertThat(checkpointsCommitted()).containsExactly("1", "2");
        assertThat(SinkTests.rows(table).keySet())
                .extracting(row -> row.get(0))
                .containsExactlyInAnyOrder(1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L, 9L, 100L);
        assertNothingLeftBehind();
    }

    /**
     * No manifest can be written and the job fails over to checkpoint 1: the files flushed for
     * checkpoint 2 are in no checkpoint's state, and the failing committer deletes them.
     */
    @Test
    void aManifestWriteThatFailsTheJobLeavesNoDataFiles() throws Exception {
        CommitterHarness.Checkpoint state;
        try (var committer = open(null)) {
            committer.processElement(committers.files(1, 10, "a"));
            state = CommitterHarness.checkpoint(committer, 1);
            committer.notifyOfCompletedCheckpoint(1);
            committer.processElement(committers.files(2, 20, "b"));
            FaultInjection.refuseOutput(this::isCommitterManifest);
            assertThatThrownBy(() -> committer.snapshot(2, 2)).hasStackTraceContaining("Injected failure creating");
        }
        FaultInjection.reset();
        try (var _ = open(state)) {
            assertThat(checkpointsCommitted()).containsExactly("1");
            assertThat(committers.rowCount()).isEqualTo(10);
        }
        assertNothingLeftBehind();
    }

    /**
     * A bounded job fails after its end-of-input commit and restarts from checkpoint 1: the
     * replay writes the rows after checkpoint 1 again, which the end-of-input commit already
     * holds. They are not committed a second time, and their files are deleted.
     */
    @Test
    void aFailureAfterTheEndOfInputCommitDoesNotCommitTheReplay() throws Exception {
        CommitterHarness.Checkpoint state;
        try (var committer = open(null)) {
            committer.processElement(committers.files(1, LongStream.range(0, 10), "a"));
            state = CommitterHarness.checkpoint(committer, 1);
            committer.notifyOfCompletedCheckpoint(1);
            committer.processElement(committers.files(WriterOperator.END_OF_INPUT, LongStream.range(10, 30), "b"));
            committer.endInput();
            // The task fails before it finishes.
        }
        assertThat(committers.rowCount()).isEqualTo(30);

        try (var replay = open(state)) {
            replay.processElement(committers.files(2, LongStream.range(10, 20), "b"));
            replay.snapshot(2, 2);
            replay.notifyOfCompletedCheckpoint(2);
            replay.processElement(committers.files(WriterOperator.END_OF_INPUT, LongStream.range(20, 30), "b"));
            replay.endInput();
        }
        assertThat(SinkTests.rows(table))
                .hasSize(30)
                .allSatisfy((row, count) -> assertThat(count).isOne());
        assertThat(checkpointsCommitted()).containsExactly("1", Long.toString(WriterOperator.END_OF_INPUT));
        assertNothingLeftBehind();
    }

    /**
     * A new run of a bounded job that reuses the job id of an earlier one (Flink's application
     * mode derives it from the cluster id) starts as a first attempt: its rows are new and are
     * committed, though a commit of that job id holds an end of input.
     */
    @Test
    void aNewRunWithTheJobIdOfAFinishedOneCommitsItsRows() throws Exception {
        JobID jobId = new JobID();
        for (int run = 0; run < 2; run++) {
            try (var committer = committers.open(jobId, loader, false, Map.of(), SnapshotRef.MAIN_BRANCH, null)) {
                committer.processElement(committers.files(WriterOperator.END_OF_INPUT, 10, "a"));
                committer.endInput();
            }
        }
        assertThat(committers.rowCount()).isEqualTo(20);
        assertThat(committers.snapshots())
                .extracting(s -> s.summary().get(SinkUtil.FLINK_JOB_ID))
                .containsExactly(jobId.toString(), jobId.toString());
        assertNothingLeftBehind();
    }

    private OneInputStreamOperatorTestHarness<FlushedFiles, Void> open(CommitterHarness.Checkpoint checkpoint)
            throws Exception {
        return committers.open(loader, false, Map.of(), SnapshotRef.MAIN_BRANCH, checkpoint);
    }

    private StreamRecord<FlushedFiles> delta(long checkpointId, List<RowData> rows) throws Exception {
        return new StreamRecord<>(FlushedFiles.of(checkpointId, committers.write(true, rows)));
    }

    private boolean isCommitterManifest(String location) {
        return location.contains(committers.operatorId.toString());
    }

    private List<String> checkpointsCommitted() {
        return committers.snapshots().stream()
                .map(Snapshot::summary)
                .map(summary -> summary.get(SinkUtil.MAX_COMMITTED_CHECKPOINT_ID))
                .toList();
    }

    private void assertNothingLeftBehind() {
        assertThat(SinkTests.unreferencedDataFiles(table))
                .as("data files no snapshot references")
                .isEmpty();
        assertThat(SinkTests.committerManifests(table))
                .as("committer manifests")
                .isEmpty();
    }
}
