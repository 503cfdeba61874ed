package dev.isthmus.iceberg.sink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.isthmus.arrow.memory.MemoryTracker;
import dev.isthmus.iceberg.sink.write.NativeDataFiles;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Stream;
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

/** The builder's memory cap in a job, and the writers' trackers once their operators closed. */
class SinkMemoryTest {
    @RegisterExtension
    static final MiniClusterExtension CLUSTER = SinkTests.miniCluster();

    private static final Schema SCHEMA = new Schema(List.of(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.optional(2, "name", Types.StringType.get())));
    private static final int ROWS = 50_000;

    @TempDir
    Path warehouse;

    /** The JVM-wide tracker of the sink's writers (the class creates it when loaded). */
    private static MemoryTracker sinkMemory() {
        NativeDataFiles.liveNativeBytes();
        return MemoryTracker.root().children().stream()
                .filter(t -> t.path().equals("isthmus/isthmus-sink"))
                .findFirst()
                .orElseThrow();
    }

    private static void write(Table table, long maxNativeBytes) throws Exception {
        List<RowData> rows = new ArrayList<>();
        for (long i = 0; i < ROWS; i++) {
            rows.add(GenericRowData.of(i, StringData.fromString("name-" + i)));
        }
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(1);
        NativeIcebergSink.forRowData(env.fromData(rows, InternalTypeInfo.of(SinkTests.flinkType(SCHEMA))))
                .tableLoader(SinkTests.loader(table))
                .maxNativeBytes(maxNativeBytes)
                .append();
        env.execute("capped");
    }

    @Test
    void aJobPastTheBuildersCapFailsNamingItAndCommitsNothing() throws Exception {
        Table table =
                new SinkTests.Warehouse(warehouse).create("capped", SCHEMA, PartitionSpec.unpartitioned(), Map.of());
        int writerTrackers = sinkMemory().children().size();

        Exception e = assertThrows(Exception.class, () -> write(table, 64 * 1024));
        List<String> messages = Stream.<Throwable>iterate(e, Objects::nonNull, Throwable::getCause)
                .map(t -> String.valueOf(t.getMessage()))
                .toList();
        assertTrue(
                messages.stream()
                        .anyMatch(m -> m.contains("(subtask 0) would exceed its native memory cap of "
                                + "65536 bytes (maxNativeBytes, or 'isthmus.max-native-bytes' in SQL)")),
                messages.toString());
        table.refresh();
        assertNull(table.currentSnapshot(), "the failed job committed nothing");
        assertEquals(writerTrackers, sinkMemory().children().size(), "the failed writer's tracker left the sink's");

        write(table, 64L << 20);
        table.refresh();
        assertEquals(ROWS, SinkTests.size(SinkTests.rows(table)), "with room for its row group the job writes");
        assertEquals(writerTrackers, sinkMemory().children().size(), "so did the finished writer's");
    }
}
