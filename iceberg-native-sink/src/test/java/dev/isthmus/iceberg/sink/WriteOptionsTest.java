package dev.isthmus.iceberg.sink;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.flink.FlinkWriteOptions;
import org.apache.iceberg.flink.sink.FlinkSink;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** The builder's options reach the job: branch, snapshot properties, overwrite, Flink configuration. */
class WriteOptionsTest {
    @RegisterExtension
    static final MiniClusterExtension CLUSTER = SinkTests.miniCluster();

    private static final Schema SCHEMA = new Schema(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.required(2, "region", Types.StringType.get()));
    private static final PartitionSpec BY_REGION =
            PartitionSpec.builderFor(SCHEMA).identity("region").build();

    @TempDir
    Path warehouse;

    @Test
    void branchAndSnapshotProperties() throws Exception {
        Table table = new SinkTests.Warehouse(warehouse).create("t", SCHEMA, BY_REGION, Map.of());
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        NativeIcebergSink.forRowData(input(env, 0, 100, "a"))
                .tableLoader(SinkTests.loader(table))
                .toBranch("audit")
                .setSnapshotProperty("app", "ingest")
                .setSnapshotProperties(Map.of("run", "7"))
                .append();
        env.execute("branch");

        table.refresh();
        assertThat(table.currentSnapshot()).as("main untouched").isNull();
        Snapshot audit = table.snapshot("audit");
        assertThat(audit.summary()).containsEntry("app", "ingest").containsEntry("run", "7");
        assertThat(SinkTests.size(SinkTests.rows(
                        IcebergGenerics.read(table)
                                .useSnapshot(audit.snapshotId())
                                .build(),
                        SCHEMA)))
                .isEqualTo(100);
    }

    @Test
    void overwriteReplacesPartitionsAsTheStockSink() throws Exception {
        SinkTests.Warehouse tables = new SinkTests.Warehouse(warehouse);
        Table stock = tables.create("stock", SCHEMA, BY_REGION, Map.of());
        Table ours = tables.create("ours", SCHEMA, BY_REGION, Map.of());
        StreamExecutionEnvironment first = StreamExecutionEnvironment.getExecutionEnvironment();
        DataStream<RowData> both = input(first, 0, 100, "a").union(input(first, 100, 50, "b"));
        FlinkSink.forRowData(both).tableLoader(SinkTests.loader(stock)).append();
        NativeIcebergSink.forRowData(both).tableLoader(SinkTests.loader(ours)).append();
        first.execute("before overwrite");

        StreamExecutionEnvironment second = StreamExecutionEnvironment.getExecutionEnvironment();
        DataStream<RowData> replacement = input(second, 1_000, 10, "a");
        FlinkSink.forRowData(replacement)
                .tableLoader(SinkTests.loader(stock))
                .overwrite(true)
                .append();
        NativeIcebergSink.forRowData(replacement)
                .tableLoader(SinkTests.loader(ours))
                .overwrite(true)
                .append();
        second.execute("overwrite");

        assertThat(SinkTests.rows(ours)).isEqualTo(SinkTests.rows(stock));
        assertThat(SinkTests.size(SinkTests.rows(ours)))
                .as("a replaced by 10 rows, b kept")
                .isEqualTo(60);
        assertThat(ours.currentSnapshot().operation()).isEqualTo("overwrite");
    }

    @Test
    void writeOptionsFallBackToTheFlinkConfiguration() throws Exception {
        Table table = new SinkTests.Warehouse(warehouse).create("t", SCHEMA, BY_REGION, Map.of());
        Configuration flinkConf = new Configuration();
        flinkConf.set(FlinkWriteOptions.WRITE_FORMAT, "avro");
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        NativeIcebergSink.forRowData(input(env, 0, 100, "a"))
                .tableLoader(SinkTests.loader(table))
                .flinkConf(flinkConf)
                .append();
        env.execute("avro");

        List<DataFile> files = SinkTests.dataFiles(table);
        assertThat(files).isNotEmpty().allSatisfy(f -> assertThat(f.format()).isEqualTo(FileFormat.AVRO));
        assertThat(SinkTests.size(SinkTests.rows(table))).isEqualTo(100);
    }

    private static DataStream<RowData> input(StreamExecutionEnvironment env, long first, int count, String region) {
        List<RowData> rows = new ArrayList<>();
        for (long id = first; id < first + count; id++) {
            rows.add(GenericRowData.of(id, StringData.fromString(region)));
        }
        return env.fromData(rows, InternalTypeInfo.of(SinkTests.flinkType(SCHEMA)));
    }
}
