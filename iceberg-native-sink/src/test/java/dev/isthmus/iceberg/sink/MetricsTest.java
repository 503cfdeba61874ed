package dev.isthmus.iceberg.sink;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.flink.api.common.JobID;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.Metric;
import org.apache.flink.runtime.testutils.InMemoryReporter;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** The writer's and committer's metrics agree with what the table holds afterwards. */
class MetricsTest {
    /** Keeps the metrics of finished jobs. */
    private static final InMemoryReporter METRICS = InMemoryReporter.createWithRetainedMetrics();

    @RegisterExtension
    static final MiniClusterExtension CLUSTER = SinkTests.miniCluster(METRICS);

    private static final Schema SCHEMA = new Schema(
            List.of(
                    Types.NestedField.required(1, "id", Types.LongType.get()),
                    Types.NestedField.optional(2, "name", Types.StringType.get())),
            Set.of(1));
    private static final int ROWS = 5_000;

    @TempDir
    Path warehouse;

    @Test
    void countRowsFilesBytesAndCommits() throws Exception {
        Table table = new SinkTests.Warehouse(warehouse)
                .create(
                        "metered",
                        SCHEMA,
                        PartitionSpec.unpartitioned(),
                        Map.of("write.target-file-size-bytes", "16384"));
        List<RowData> rows = new ArrayList<>();
        for (long i = 0; i < ROWS; i++) {
            rows.add(GenericRowData.of(i, StringData.fromString("name-" + i)));
        }
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2);
        // Upsert: every row also deletes its key, so delete files are counted too.
        NativeIcebergSink.forRowData(env.fromData(rows, InternalTypeInfo.of(SinkTests.flinkType(SCHEMA))))
                .tableLoader(SinkTests.loader(table))
                .upsert(true)
                .writeParallelism(2)
                .append();
        JobID job = env.execute("metrics").getJobID();

        table.refresh();
        List<DataFile> dataFiles = SinkTests.dataFiles(table);
        List<DeleteFile> deleteFiles = SinkTests.deleteFiles(table);
        assertThat(dataFiles).hasSizeGreaterThan(2);
        assertThat(deleteFiles).isNotEmpty();

        // The table's name is its location for a table loaded by path.
        String writer = WriterMetrics.GROUP + ".table.";
        assertThat(sum(job, writer, "rows")).isEqualTo(ROWS);
        assertThat(sum(job, writer, "dataFiles")).isEqualTo(dataFiles.size());
        assertThat(sum(job, writer, "dataBytes")).isEqualTo(bytes(dataFiles));
        assertThat(sum(job, writer, "deleteFiles")).isEqualTo(deleteFiles.size());
        assertThat(sum(job, writer, "deleteBytes")).isEqualTo(bytes(deleteFiles));
        assertThat(sum(job, writer, "flushes"))
                .as("one end-of-input flush per writer")
                .isEqualTo(2);
        assertThat(sum(job, writer, "jvm.encodeTimeMs"))
                .as("the data files were encoded natively")
                .isPositive();
        assertThat(metrics(job, writer, "encodeTimeMs"))
                .as("JVM-wide, so only under jvm")
                .hasSize(2);
        // The writers closed their files: no native memory is left behind them.
        assertThat(metrics(job, writer, "jvm.liveNativeBytes")).hasSize(2);
        assertThat(metrics(job, writer, "liveNativeBytes"))
                .as("each subtask's own, and the JVM's")
                .hasSize(4);
        assertThat(sum(job, writer, "liveNativeBytes")).isZero();

        String committer = CommitterMetrics.GROUP + ".table.";
        assertThat(sum(job, committer, "commits")).isEqualTo(1);
        assertThat(sum(job, committer, "committedDataFiles")).isEqualTo(dataFiles.size());
        assertThat(sum(job, committer, "committedDeleteFiles")).isEqualTo(deleteFiles.size());
        assertThat(sum(job, committer, "committedDataRows")).isEqualTo(ROWS);
        assertThat(sum(job, committer, "lastCommittedCheckpointId")).isEqualTo(WriterOperator.END_OF_INPUT);
        assertThat(metrics(job, committer, "lastCommitDurationMs")).hasSize(1);
    }

    private static long bytes(List<? extends ContentFile<?>> files) {
        return files.stream().mapToLong(ContentFile::fileSizeInBytes).sum();
    }

    private static List<Metric> metrics(JobID job, String group, String name) {
        List<Metric> found = new ArrayList<>();
        METRICS.getMetricsByGroup().forEach((metricGroup, byName) -> {
            if (job.toString().equals(metricGroup.getAllVariables().get("<job_id>"))) {
                byName.forEach((metricName, metric) -> {
                    String id = metricGroup.getMetricIdentifier(metricName);
                    if (id.contains("." + group) && id.endsWith("." + name)) {
                        found.add(metric);
                    }
                });
            }
        });
        return found;
    }

    /** The metric summed over the subtasks that have it. */
    private static long sum(JobID job, String group, String name) {
        List<Metric> found = metrics(job, group, name);
        assertThat(found).as(group + name).isNotEmpty();
        return found.stream()
                .mapToLong(m -> switch (m) {
                    case Counter c -> c.getCount();
                    case Gauge<?> g -> ((Number) g.getValue()).longValue();
                    default -> throw new IllegalArgumentException(name + " is a " + m);
                })
                .sum();
    }
}
