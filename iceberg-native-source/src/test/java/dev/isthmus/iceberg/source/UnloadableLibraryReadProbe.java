package dev.isthmus.iceberg.source;

import dev.isthmus.iceberg.source.NativeReadOptions.RowFormat;
import dev.isthmus.iceberg.source.ReadResults.Emitted;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Table;
import org.apache.iceberg.flink.FlinkSchemaUtil;
import org.apache.iceberg.flink.source.FlinkSplitPlanner;
import org.apache.iceberg.flink.source.ScanContext;
import org.apache.iceberg.flink.source.reader.ReaderFunction;
import org.apache.iceberg.flink.source.reader.RowDataReaderFunction;
import org.apache.iceberg.flink.source.split.IcebergSourceSplit;

/**
 * Run by {@link UnloadableLibraryReadTest} in a JVM where the native library cannot load: reads
 * a table with the reader function as two jobs would (job-a with two subtasks, one per row
 * format, job-b with one), compares every split with Iceberg's reader, reads the gauges, and
 * tries a strict read. Prints {@code key=value} lines; the fallbacks log through
 * {@link StdoutLogProvider}.
 */
public final class UnloadableLibraryReadProbe {
    private UnloadableLibraryReadProbe() {}

    public static void main(String[] args) throws Exception {
        // Iceberg's Java readers and writers must manage without native code too: no JNI codec.
        Table table = new TestTables(Path.of(args[0]))
                .create(
                        "unloadable",
                        SampleTable.SCHEMA,
                        PartitionSpec.unpartitioned(),
                        Map.of("write.parquet.compression-codec", "uncompressed"));
        // A split per file: six, so that each subtask falls back for several tasks.
        for (int file = 0; file < 6; file++) {
            TestTables.append(table, SampleTable.records(file * 500L, 500));
        }
        List<IcebergSourceSplit> splits = plan(table);
        RowType type = FlinkSchemaUtil.convert(table.schema());
        ReaderFunction<RowData> stock = new RowDataReaderFunction(
                new Configuration(), table.schema(), null, null, true, table.io(), table.encryption(), List.of(), -1);
        System.out.println("splits=" + splits.size());
        System.out.println("tasks="
                + splits.stream().mapToInt(s -> s.task().files().size()).sum());

        boolean same = true;
        long rows = 0;
        Map<String, Object> gauges = new HashMap<>();
        for (String job : List.of("job-a", "job-b")) {
            int subtasks = job.equals("job-a") ? 2 : 1;
            long fallbacks = NativeSourceCounters.fallbackTasks();
            for (int subtask = 0; subtask < subtasks; subtask++) {
                RowFormat format = subtask == 0 ? RowFormat.BINARY : RowFormat.COLUMNAR;
                NativeReaderFunction function = new NativeReaderFunction(
                                table.schema(),
                                null,
                                null,
                                true,
                                table.io(),
                                table.encryption(),
                                List.of(),
                                -1,
                                NativeReadOptions.defaults().withRowFormat(format))
                        .named(table.name());
                JobMetricGroup group = new JobMetricGroup(job);
                function.registerReader(group, subtask);
                for (int i = subtask; i < splits.size(); i += subtasks) {
                    List<Emitted> expected = ReadResults.read(stock, splits.get(i), type);
                    List<Emitted> actual = ReadResults.read(function, splits.get(i), type);
                    same &= expected.equals(actual);
                    rows += actual.size();
                }
                for (Map.Entry<String, Gauge<?>> gauge : group.gauges().entrySet()) {
                    gauges.put(gauge.getKey(), gauge.getValue().getValue());
                }
            }
            System.out.println(job + ".fallbackTasks=" + (NativeSourceCounters.fallbackTasks() - fallbacks));
        }
        System.out.println("sameAsStock=" + same);
        System.out.println("rows=" + rows);
        System.out.println("gauges=" + new java.util.TreeMap<>(gauges));

        NativeReaderFunction strict = new NativeReaderFunction(
                table.schema(),
                null,
                null,
                true,
                table.io(),
                table.encryption(),
                List.of(),
                -1,
                NativeReadOptions.defaults().withStrict(true));
        strict.registerReader(new JobMetricGroup("job-strict"), 0);
        try {
            ReadResults.read(strict, splits.getFirst(), type);
            System.out.println("strict=read");
        } catch (NativeReadRefusedException e) {
            System.out.println("strict=" + e.getMessage());
            System.out.println("strictCause=" + e.getCause().getClass().getName());
        }
    }

    private static List<IcebergSourceSplit> plan(Table table) {
        ScanContext context =
                ScanContext.builder().splitSize(20_000L).splitOpenFileCost(1L).build();
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
            return FlinkSplitPlanner.planIcebergSourceSplits(table, context, pool);
        } finally {
            pool.shutdown();
        }
    }
}
