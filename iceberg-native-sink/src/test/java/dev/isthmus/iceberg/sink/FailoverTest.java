package dev.isthmus.iceberg.sink;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.LongStream;
import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.FunctionSnapshotContext;
import org.apache.flink.streaming.api.checkpoint.CheckpointedFunction;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.RowKind;
import org.apache.flink.util.Collector;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.exceptions.CommitStateUnknownException;
import org.apache.iceberg.flink.sink.SinkUtil;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A job that fails once, after the writers flushed a checkpoint's files and before that
 * checkpoint is committed, and restarts from its last checkpoint: every row is in the table
 * exactly once.
 */
class FailoverTest {
    @RegisterExtension
    static final MiniClusterExtension CLUSTER = SinkTests.miniCluster();

    private static final Schema SCHEMA = RetainedCheckpoints.SCHEMA;
    private static final long ROWS = 12_000;
    /** Set by the one injected failure; static because the restarted job gets new function objects. */
    private static final AtomicBoolean FAILED = new AtomicBoolean();

    @TempDir
    Path warehouse;

    /**
     * With unaligned checkpoints the files a writer flushed for a checkpoint can reach the
     * committer after its snapshot, as part of the checkpoint's channel state.
     */
    @ParameterizedTest(name = "unaligned checkpoints: {0}")
    @ValueSource(booleans = {false, true})
    void everyRowOnceAfterAFailureBetweenFlushAndCommit(boolean unaligned) throws Exception {
        Table table = new SinkTests.Warehouse(warehouse).create("t", SCHEMA, PartitionSpec.unpartitioned(), Map.of());
        FAILED.set(false);
        Configuration config = restartOnce();
        config.set(CheckpointingOptions.ENABLE_UNALIGNED, unaligned);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(config);
        env.setParallelism(2);
        env.enableCheckpointing(100);
        NativeIcebergSink.forRowData(env.fromSequence(0, ROWS - 1)
                        .map(new FailAfterSecondBarrier())
                        .returns(InternalTypeInfo.of(SinkTests.flinkType(SCHEMA))))
                .tableLoader(SinkTests.loader(table))
                .uidPrefix("failover")
                .append();
        env.execute("failover");

        assertThat(FAILED).as("the failure was injected").isTrue();
        List<List<Object>> expected = LongStream.range(0, ROWS)
                .mapToObj(id -> List.<Object>of(id, "p" + id))
                .toList();
        assertThat(SinkTests.rows(table))
                .hasSize((int) ROWS)
                .allSatisfy((row, count) ->
                        assertThat(count).as("copies of %s", row).isOne())
                .containsOnlyKeys(expected);

        List<Snapshot> snapshots = new ArrayList<>();
        table.snapshots().forEach(snapshots::add);
        assertThat(snapshots).as("commits before and after the restart").hasSizeGreaterThan(1);
        List<Long> checkpoints = snapshots.stream()
                .map(s -> Long.parseLong(s.summary().get(SinkUtil.MAX_COMMITTED_CHECKPOINT_ID)))
                .toList();
        assertThat(checkpoints)
                .as("each checkpoint committed once, in order")
                .isSorted()
                .doesNotHaveDuplicates();
        assertThat(checkpoints.getLast()).isEqualTo(WriterOperator.END_OF_INPUT);
    }

    /**
     * A bounded job whose end-of-input commit reaches the table but whose committer fails right
     * after (the catalog's answer is lost), and restarts: from its last checkpoint, or from the
     * start without checkpoints. The rows the restart replays are all in that commit already: they
     * are not committed again and their files are deleted.
     */
    @ParameterizedTest(name = "checkpoints: {0}")
    @ValueSource(booleans = {true, false})
    void aFailureAfterTheEndOfInputCommitCommitsNothingAgain(boolean checkpoints) throws Exception {
        Table table = new SinkTests.Warehouse(warehouse).create("t", SCHEMA, PartitionSpec.unpartitioned(), Map.of());
        FAILED.set(false);
        FaultInjection.onCommit(FaultInjection.once(
                FaultInjection.committingCheckpoint(id -> id == WriterOperator.END_OF_INPUT),
                (catalog, base, metadata) -> {
                    catalog.commit(base, metadata);
                    FAILED.set(true);
                    throw new CommitStateUnknownException(new RuntimeException("Injected: the answer is lost"));
                }));
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(restartOnce());
        env.setParallelism(2);
        if (checkpoints) {
            env.enableCheckpointing(100);
        }
        NativeIcebergSink.forRowData(RetainedCheckpoints.slowRows(env, ROWS))
                .tableLoader(FaultInjection.loader(table))
                .append();
        try {
            env.execute("failure after the end of input");
        } finally {
            FaultInjection.reset();
        }

        assertThat(FAILED).as("the failure was injected").isTrue();
        List<List<Object>> expected = LongStream.range(0, ROWS)
                .mapToObj(id -> List.<Object>of(id, "p" + id))
                .toList();
        assertThat(SinkTests.rows(table))
                .hasSize((int) ROWS)
                .allSatisfy((row, count) ->
                        assertThat(count).as("copies of %s", row).isOne())
                .containsOnlyKeys(expected);
        List<Long> committed = new ArrayList<>();
        table.snapshots()
                .forEach(s -> committed.add(Long.parseLong(s.summary().get(SinkUtil.MAX_COMMITTED_CHECKPOINT_ID))));
        assertThat(committed).isSorted().doesNotHaveDuplicates().endsWith(WriterOperator.END_OF_INPUT);
        assertThat(SinkTests.unreferencedDataFiles(table))
                .as("the replay's files")
                .isEmpty();
    }

    /**
     * A changelog over many checkpoints, with the same failure: a key's insert, update and delete
     * often fall into different checkpoints, so equality deletes must apply to the earlier
     * checkpoints' data and each checkpoint's RowDelta must be committed once, in order.
     */
    @ParameterizedTest(name = "upsert={0}")
    @ValueSource(booleans = {false, true})
    void changelogOverCheckpointsOnceAfterAFailure(boolean upsert) throws Exception {
        Schema keyed = new Schema(SCHEMA.columns(), java.util.Set.of(1));
        Table table = new SinkTests.Warehouse(warehouse).create("t", keyed, PartitionSpec.unpartitioned(), Map.of());
        FAILED.set(false);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(restartOnce());
        env.setParallelism(2);
        env.enableCheckpointing(100);
        // One source subtask keeps each key's changes in order; the sink keys them to its writers.
        NativeIcebergSink.forRowData(env.fromSequence(0, ROWS - 1)
                        .setParallelism(1)
                        .map(new FailAfterSecondBarrier())
                        .setParallelism(1)
                        .returns(InternalTypeInfo.of(SinkTests.flinkType(SCHEMA)))
                        .flatMap(FailoverTest::change)
                        .setParallelism(1)
                        .returns(InternalTypeInfo.of(SinkTests.flinkType(keyed))))
                .tableLoader(SinkTests.loader(table))
                .upsert(upsert)
                .writeParallelism(2)
                .append();
        env.execute("changelog failover");

        assertThat(FAILED).as("the failure was injected").isTrue();
        List<List<Object>> expected = LongStream.range(0, ROWS / 4)
                .filter(k -> k % 3 != 0)
                .mapToObj(k -> List.<Object>of(k, "v1"))
                .toList();
        assertThat(SinkTests.rows(table))
                .hasSize(expected.size())
                .allSatisfy((row, count) ->
                        assertThat(count).as("copies of %s", row).isOne())
                .containsOnlyKeys(expected);
        List<Long> checkpoints = new ArrayList<>();
        table.snapshots()
                .forEach(s -> checkpoints.add(Long.parseLong(s.summary().get(SinkUtil.MAX_COMMITTED_CHECKPOINT_ID))));
        assertThat(checkpoints).hasSizeGreaterThan(2).isSorted().doesNotHaveDuplicates();
        assertThat(Long.parseLong(table.currentSnapshot().summary().get("total-equality-deletes")))
                .as("changes of keys written in earlier checkpoints are equality deletes")
                .isPositive();
    }

    /**
     * Four passes over all keys, a quarter of the input apart, so that checkpoints fall between a
     * key's changes: +I "v0", then -U "v0", then +U "v1", then -D "v1" when k % 3 == 0.
     */
    private static void change(RowData sequence, Collector<RowData> out) {
        long i = sequence.getLong(0);
        long key = i % (ROWS / 4);
        switch ((int) (i / (ROWS / 4))) {
            case 0 -> out.collect(GenericRowData.ofKind(RowKind.INSERT, key, StringData.fromString("v0")));
            case 1 -> out.collect(GenericRowData.ofKind(RowKind.UPDATE_BEFORE, key, StringData.fromString("v0")));
            case 2 -> out.collect(GenericRowData.ofKind(RowKind.UPDATE_AFTER, key, StringData.fromString("v1")));
            default -> {
                if (key % 3 == 0) {
                    out.collect(GenericRowData.ofKind(RowKind.DELETE, key, StringData.fromString("v1")));
                }
            }
        }
    }

    private static Configuration restartOnce() {
        Configuration config = new Configuration();
        config.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
        config.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, 1);
        config.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ofMillis(100));
        return config;
    }

    /**
     * Throws on the first row after the barrier of checkpoint 2 passed it: by then the writer
     * chained after it has flushed that checkpoint's files, which nobody has committed yet.
     */
    static final class FailAfterSecondBarrier extends RichMapFunction<Long, RowData> implements CheckpointedFunction {
        private transient boolean armed;
        private transient long seen;

        @Override
        public RowData map(Long id) throws Exception {
            if (armed && FAILED.compareAndSet(false, true)) {
                throw new IllegalStateException("Injected failure after checkpoint 2's barrier");
            }
            // Slow enough that several checkpoints happen while rows flow.
            if (++seen % 10 == 0) {
                Thread.sleep(2);
            }
            return GenericRowData.of(id, StringData.fromString("p" + id));
        }

        @Override
        public void snapshotState(FunctionSnapshotContext context) {
            if (context.getCheckpointId() >= 2) {
                armed = true;
            }
        }

        @Override
        public void initializeState(FunctionInitializationContext context) {
            armed = false;
        }
    }
}
