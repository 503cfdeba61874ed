package dev.isthmus.iceberg.sink;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.LongStream;
import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Bounded input with checkpoints, one writer finishing long before the other: its end-of-input
 * files reach the committer before checkpoints the other writer still takes part in, and must be
 * committed with the rest. Iceberg 1.11's FlinkSink, run alongside in the same job, loses part of
 * these rows.
 */
class UnevenEndOfInputTest {
    @RegisterExtension
    static final MiniClusterExtension CLUSTER = SinkTests.miniCluster();

    private static final Schema SCHEMA = new Schema(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.optional(2, "payload", Types.StringType.get()));
    private static final long ROWS = 10_000;

    @TempDir
    Path warehouse;

    @Test
    void everyRowOfEveryWriterIsCommitted() throws Exception {
        Table table = new SinkTests.Warehouse(warehouse).create("t", SCHEMA, PartitionSpec.unpartitioned(), Map.of());
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2);
        env.enableCheckpointing(100);
        NativeIcebergSink.forRowData(env.fromSequence(0, ROWS - 1)
                        .map(new SlowSecondSubtask())
                        .returns(InternalTypeInfo.of(SinkTests.flinkType(SCHEMA))))
                .tableLoader(SinkTests.loader(table))
                .append();
        env.execute("uneven end of input");

        List<List<Object>> expected = LongStream.range(0, ROWS)
                .mapToObj(id -> List.<Object>of(id, "p" + id))
                .toList();
        assertThat(SinkTests.rows(table))
                .hasSize((int) ROWS)
                .allSatisfy((row, count) -> assertThat(count).isOne())
                .containsOnlyKeys(expected);
        List<Long> checkpoints = new java.util.ArrayList<>();
        table.snapshots()
                .forEach(s -> checkpoints.add(Long.parseLong(
                        s.summary().get(org.apache.iceberg.flink.sink.SinkUtil.MAX_COMMITTED_CHECKPOINT_ID))));
        assertThat(checkpoints)
                .as("checkpoints committed while the slow writer ran")
                .hasSizeGreaterThan(1);
    }

    /** Subtask 1 takes about 2.5 s for its half; subtask 0 finishes at once. */
    static final class SlowSecondSubtask extends RichMapFunction<Long, RowData> {
        @Override
        public RowData map(Long id) throws Exception {
            if (getRuntimeContext().getTaskInfo().getIndexOfThisSubtask() == 1 && id % 20 == 0) {
                Thread.sleep(10);
            }
            return GenericRowData.of(id, StringData.fromString("p" + id));
        }
    }
}
