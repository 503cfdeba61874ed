package dev.isthmus.iceberg.sink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.LongStream;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.data.RowData;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.flink.sink.FlinkSink;
import org.apache.iceberg.flink.sink.SinkUtil;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A job moves from Iceberg's own FlinkSink (v1) to this sink and back, each time started from
 * the last checkpoint of a job whose commits failed for good: the committer's state (pending
 * checkpoints, job id) is read by the other sink, which commits what was pending, once. A
 * checkpoint Iceberg's sink took with one writer does not restore (docs/sink.md says why).
 */
class StockSinkStateTest {
    @RegisterExtension
    static final MiniClusterExtension CLUSTER = SinkTests.miniCluster();

    private static final Schema SCHEMA = RetainedCheckpoints.SCHEMA;
    private static final long ROWS = 12_000;

    @TempDir
    Path dir;

    @AfterEach
    void noFaults() {
        FaultInjection.reset();
    }

    @Test
    void pendingCheckpointsMoveFromIcebergsSinkToThisOneAndBack() throws Exception {
        Table table = new SinkTests.Warehouse(dir.resolve("warehouse"))
                .create("t", SCHEMA, PartitionSpec.unpartitioned(), Map.of());

        FaultInjection.onCommit(FaultInjection.refusing(FaultInjection.committingCheckpoint(id -> id >= 3)));
        assertThatThrownBy(() -> job(table, false, 2, RetainedCheckpoints.retainedIn(dir.resolve("stock")))
                        .execute())
                .hasStackTraceContaining("the catalog refuses the commit");
        Path stockCheckpoint = RetainedCheckpoints.latest(dir.resolve("stock"));

        long nativeFailsFrom = RetainedCheckpoints.id(stockCheckpoint) + 3;
        FaultInjection.onCommit(
                FaultInjection.refusing(FaultInjection.committingCheckpoint(id -> id >= nativeFailsFrom)));
        assertThatThrownBy(() -> job(
                                table,
                                true,
                                2,
                                RetainedCheckpoints.restoredFrom(stockCheckpoint, dir.resolve("native")))
                        .execute())
                .hasStackTraceContaining("the catalog refuses the commit");
        Path nativeCheckpoint = RetainedCheckpoints.latest(dir.resolve("native"));

        FaultInjection.reset();
        job(table, false, 2, RetainedCheckpoints.restoredFrom(nativeCheckpoint, dir.resolve("stock-again")))
                .execute();

        List<List<Object>> expected = LongStream.range(0, ROWS)
                .mapToObj(id -> List.<Object>of(id, "p" + id))
                .toList();
        assertThat(SinkTests.rows(table))
                .hasSize((int) ROWS)
                .allSatisfy((row, count) ->
                        assertThat(count).as("copies of %s", row).isOne())
                .containsOnlyKeys(expected);
        List<String> commits = new ArrayList<>();
        table.snapshots()
                .forEach(s -> commits.add(s.summary().get(SinkUtil.FLINK_JOB_ID) + "/"
                        + s.summary().get(SinkUtil.MAX_COMMITTED_CHECKPOINT_ID)));
        assertThat(commits)
                .as("each restore commits the checkpoint it restored, for the job that took it")
                .contains(
                        RetainedCheckpoints.jobId(stockCheckpoint) + "/" + RetainedCheckpoints.id(stockCheckpoint),
                        RetainedCheckpoints.jobId(nativeCheckpoint) + "/" + RetainedCheckpoints.id(nativeCheckpoint))
                .doesNotHaveDuplicates();
    }

    /**
     * With one writer Iceberg's sink chains its committer after the writer, and the checkpoint
     * records the committer with the max parallelism of the source's chain (128); this sink's
     * committer heads its own chain with max parallelism 1, and Flink refuses the mapping.
     */
    @Test
    void aCheckpointOfIcebergsSinkWithOneWriterDoesNotRestore() {
        Table table = new SinkTests.Warehouse(dir.resolve("warehouse"))
                .create("t", SCHEMA, PartitionSpec.unpartitioned(), Map.of());
        FaultInjection.onCommit(FaultInjection.refusing(FaultInjection.committingCheckpoint(id -> id >= 2)));
        assertThatThrownBy(() -> job(table, false, 1, RetainedCheckpoints.retainedIn(dir.resolve("stock")))
                        .execute())
                .hasStackTraceContaining("the catalog refuses the commit");
        Path stockCheckpoint = RetainedCheckpoints.latest(dir.resolve("stock"));
        FaultInjection.reset();

        assertThatThrownBy(() -> job(
                                table,
                                true,
                                1,
                                RetainedCheckpoints.restoredFrom(stockCheckpoint, dir.resolve("native")))
                        .execute())
                .hasStackTraceContaining("Max parallelism mismatch between checkpoint/savepoint state and new program");
    }

    /**
     * The same job with either sink. One source subtask ends the input of both writers at once, so
     * that Iceberg's sink, which loses end-of-input files arriving over several checkpoints
     * (UnevenEndOfInputTest), commits them all.
     */
    private static StreamExecutionEnvironment job(Table table, boolean nativeSink, int writers, Configuration config) {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(config);
        env.setParallelism(1);
        env.enableCheckpointing(100);
        DataStream<RowData> rows = RetainedCheckpoints.slowRows(env, ROWS);
        if (nativeSink) {
            NativeIcebergSink.forRowData(rows)
                    .tableLoader(FaultInjection.loader(table))
                    .writeParallelism(writers)
                    .uidPrefix("sink")
                    .append();
        } else {
            FlinkSink.forRowData(rows)
                    .tableLoader(FaultInjection.loader(table))
                    .writeParallelism(writers)
                    .uidPrefix("sink")
                    .append();
        }
        return env;
    }
}
