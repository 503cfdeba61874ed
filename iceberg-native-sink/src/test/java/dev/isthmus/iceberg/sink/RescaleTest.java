package dev.isthmus.iceberg.sink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.LongStream;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.flink.sink.SinkUtil;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A job whose commits fail for good from checkpoint 3 on, started again from its last
 * checkpoint with another parallelism: the writers (which keep no state) and the source's splits
 * are redistributed, the committer (parallelism 1) restores its pending checkpoints and commits
 * them, and every row is in the table once.
 */
class RescaleTest {
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

    @ParameterizedTest(name = "{0} -> {1} writers")
    @CsvSource({"2, 1", "1, 2"})
    void aRestoreWithAnotherParallelismCommitsEveryRowOnce(int before, int after) throws Exception {
        Table table = new SinkTests.Warehouse(dir.resolve("warehouse"))
                .create("t", SCHEMA, PartitionSpec.unpartitioned(), Map.of());
        FaultInjection.onCommit(FaultInjection.refusing(FaultInjection.committingCheckpoint(id -> id >= 3)));
        assertThatThrownBy(() -> job(table, before, RetainedCheckpoints.retainedIn(dir.resolve("first")))
                        .execute())
                .hasStackTraceContaining("the catalog refuses the commit");
        Path checkpoint = RetainedCheckpoints.latest(dir.resolve("first"));
        FaultInjection.reset();

        job(table, after, RetainedCheckpoints.restoredFrom(checkpoint, dir.resolve("second")))
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
                .as("the restore commits the checkpoint it restored, for the failed job")
                .contains(RetainedCheckpoints.jobId(checkpoint) + "/" + RetainedCheckpoints.id(checkpoint))
                .doesNotHaveDuplicates();
    }

    private static StreamExecutionEnvironment job(Table table, int parallelism, Configuration config) {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(config);
        env.setParallelism(parallelism);
        env.enableCheckpointing(100);
        NativeIcebergSink.forRowData(RetainedCheckpoints.slowRows(env, ROWS))
                .tableLoader(FaultInjection.loader(table))
                .uidPrefix("sink")
                .append();
        return env;
    }
}
