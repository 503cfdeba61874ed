package dev.isthmus.iceberg.sink;

import static org.assertj.core.api.Assertions.assertThat;

import dev.isthmus.iceberg.source.parquet.RandomRecords;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Stream;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DistributionMode;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.flink.sink.FlinkSink;
import org.apache.iceberg.flink.sink.SinkUtil;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Appends: the same rows of every flat type through Iceberg's FlinkSink and through this sink, in
 * one job, read back with Iceberg's generic reader and compared as multisets, for each kind of
 * partition transform.
 */
class AppendParityTest {
    @RegisterExtension
    static final MiniClusterExtension CLUSTER = SinkTests.miniCluster();

    private static final Schema SCHEMA = RandomRecords.EVERY_TYPE;
    private static final int ROWS = 3_000;

    @TempDir
    Path warehouse;

    static Stream<Arguments> specs() {
        return Stream.of(
                Arguments.of("unpartitioned", spec(b -> b), DistributionMode.NONE),
                Arguments.of("identity", spec(b -> b.identity("bool")), DistributionMode.HASH),
                Arguments.of("bucket", spec(b -> b.bucket("i64", 4)), DistributionMode.HASH),
                Arguments.of("truncate", spec(b -> b.truncate("str_req", 2)), DistributionMode.NONE),
                Arguments.of("year_month", spec(b -> b.year("date").month("ts")), DistributionMode.NONE),
                Arguments.of("day_hour", spec(b -> b.day("tstz").hour("ts")), DistributionMode.HASH));
    }

    private static Function<Schema, PartitionSpec> spec(Function<PartitionSpec.Builder, PartitionSpec.Builder> f) {
        return schema -> f.apply(PartitionSpec.builderFor(schema)).build();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("specs")
    void appendsWhatTheStockSinkAppends(String name, Function<Schema, PartitionSpec> spec, DistributionMode mode)
            throws Exception {
        SinkTests.Warehouse tables = new SinkTests.Warehouse(warehouse);
        // Small files: the writers roll to new ones, 1000 rows at a time as Iceberg's do.
        // Format v3: the nanosecond timestamps need it.
        Map<String, String> props = Map.of("write.target-file-size-bytes", "32768", "format-version", "3");
        Table stock = tables.create("stock", SCHEMA, spec.apply(SCHEMA), props);
        Table ours = tables.create("ours", SCHEMA, spec.apply(SCHEMA), props);
        List<RowData> rows =
                SinkTests.toRowData(narrowTimes(new RandomRecords(name.hashCode(), 0.1).records(SCHEMA, ROWS)), SCHEMA);

        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2);
        DataStream<RowData> input = env.fromData(rows, InternalTypeInfo.of(SinkTests.flinkType(SCHEMA)));
        // The collection source runs at parallelism 1; the writers would too without being told.
        FlinkSink.forRowData(input)
                .tableLoader(SinkTests.loader(stock))
                .distributionMode(mode)
                .writeParallelism(2)
                .append();
        NativeIcebergSink.forRowData(input)
                .tableLoader(SinkTests.loader(ours))
                .distributionMode(mode)
                .writeParallelism(2)
                .append();
        env.execute("append " + name);

        Map<java.util.List<Object>, Integer> expected = SinkTests.rows(stock);
        assertThat(SinkTests.size(expected)).isEqualTo(ROWS);
        assertThat(SinkTests.rows(ours)).isEqualTo(expected);

        ours.refresh();
        Snapshot snapshot = ours.currentSnapshot();
        assertThat(snapshot.operation()).isEqualTo("append");
        assertThat(snapshot.summary())
                .containsEntry(SinkUtil.MAX_COMMITTED_CHECKPOINT_ID, Long.toString(WriterOperator.END_OF_INPUT))
                .containsKey(SinkUtil.FLINK_JOB_ID)
                .containsKey(SinkUtil.OPERATOR_ID);
        List<DataFile> files = SinkTests.dataFiles(ours);
        assertThat(files).allSatisfy(f -> assertThat(f.recordCount()).isPositive());
        if (ours.spec().isUnpartitioned()) {
            assertThat(files).as("rolled at the target size").hasSizeGreaterThan(2);
        } else if (mode == DistributionMode.HASH) {
            // Data file names start with the writing subtask's index.
            Map<String, java.util.Set<String>> writersPerPartition = files.stream()
                    .collect(java.util.stream.Collectors.groupingBy(
                            f -> f.partition().toString(),
                            java.util.stream.Collectors.mapping(
                                    f -> Path.of(f.location())
                                            .getFileName()
                                            .toString()
                                            .split("-")[0],
                                    java.util.stream.Collectors.toSet())));
            assertThat(writersPerPartition.values())
                    .as("hash distribution: one writer per partition")
                    .allSatisfy(writers -> assertThat(writers).hasSize(1));
            assertThat(writersPerPartition).hasSizeGreaterThan(1);
        }
    }

    /**
     * Time values within a few days, so that time partitions number tens, not thousands: a
     * writer per partition holds a file open, and the stock sink's as well as this one's.
     */
    private static List<Record> narrowTimes(List<Record> records) {
        LocalDateTime base = LocalDateTime.of(2024, 2, 28, 0, 0);
        for (int i = 0; i < records.size(); i++) {
            Record r = records.get(i);
            if (r.getField("date") != null) {
                r.setField("date", base.toLocalDate().plusDays(i % 5));
            }
            r.setField("ts", base.plusSeconds(i * 5L % 21_600).plusNanos(i * 1_000L));
            if (r.getField("tstz") != null) {
                r.setField("tstz", base.plusSeconds(i * 61L % 259_200).atOffset(ZoneOffset.UTC));
            }
        }
        return records;
    }
}
