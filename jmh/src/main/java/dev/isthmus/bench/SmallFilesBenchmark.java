package dev.isthmus.bench;

import dev.isthmus.iceberg.source.NativeIcebergSource;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.streaming.util.TestStreamEnvironment;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.data.RowData;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;
import org.apache.iceberg.flink.TableLoader;
import org.apache.iceberg.flink.source.IcebergSource;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * A table of many small files, as streaming ingestion leaves them: {@code rows} bids in
 * {@code files} data files written by Iceberg with a new table's defaults
 * ({@link BidsTable#ensureSmallFiles}), so Iceberg's planner packs many files into each task
 * (each counted at its 4 MiB open cost against the 128 MiB split size). Read whole, stock and
 * native (strict, so no number is a fallback's), by a DataStream job (the source into a map that
 * hashes every value, {@link SourceBenchmark.Count}) and by a batch SQL aggregate over every
 * column ({@link SqlBenchmark}'s {@code all} query, native rows in the catalog's default format).
 * One job per operation on a MiniCluster of two slots that lives for the fork.
 *
 * <p>Warm, as annotated: the jobs after five warm-up jobs of the same leg. Cold, the first job in
 * a fresh JVM (class loading, the native library's load, the JIT's first compilations, all inside
 * the one measured job): {@code -wi 0 -i 1 -f 5}. Every job must count all rows, and its
 * checksum (or query result) must equal the fork's first job's.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 5)
@Measurement(iterations = 10)
@Fork(
        value = 1,
        jvmArgsAppend = {
            "--enable-native-access=ALL-UNNAMED",
            "--sun-misc-unsafe-memory-access=allow",
            "--add-opens=java.base/java.nio=ALL-UNNAMED",
            "-Xmx6g"
        })
public class SmallFilesBenchmark {
    @Param("3000000")
    public long rows;

    @Param({"256", "1024"})
    public int files;

    @Param("2")
    public int parallelism;

    private MiniCluster cluster;
    private TableLoader table;
    private StreamTableEnvironment sql;
    private Long checksum;
    private List<Row> aggregate;

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        table = BidsTable.ensureSmallFiles(rows, files);
        cluster = MiniClusters.start(2);
        sql = StreamTableEnvironment.create(
                new TestStreamEnvironment(cluster, parallelism), EnvironmentSettings.inBatchMode());
        SqlBenchmark.createCatalogs(sql);
    }

    @TearDown(Level.Trial)
    public void tearDown() throws Exception {
        cluster.close();
        table.close();
    }

    @Benchmark
    public long stockSource() throws Exception {
        return read(IcebergSource.forRowData().tableLoader(table.clone()).build());
    }

    @Benchmark
    public long nativeSource() throws Exception {
        return read(NativeIcebergSource.forRowData()
                .tableLoader(table.clone())
                .strict(true)
                .build());
    }

    @Benchmark
    public int stockSql() throws Exception {
        return aggregate("stock");
    }

    @Benchmark
    public int nativeSql() throws Exception {
        return aggregate("lake");
    }

    private long read(Source<RowData, ?, ?> source) throws Exception {
        long sum = SourceBenchmark.readAll(cluster, parallelism, false, true, source, rows);
        if (checksum != null && sum != checksum) {
            throw new IllegalStateException(
                    "the job's checksum " + sum + " differs from the fork's first, " + checksum);
        }
        checksum = sum;
        return rows;
    }

    private int aggregate(String catalog) throws Exception {
        String from = catalog + "." + BidsTable.NAMESPACE + "." + BidsTable.smallFilesName(rows, files);
        List<Row> result = new ArrayList<>();
        try (CloseableIterator<Row> it =
                sql.executeSql(String.format(SqlBenchmark.ALL, from)).collect()) {
            it.forEachRemaining(result::add);
        }
        result.sort((a, b) -> String.valueOf(a.getField(0)).compareTo(String.valueOf(b.getField(0))));
        long total = result.stream().mapToLong(r -> (Long) r.getField(1)).sum();
        if (total != rows) {
            throw new IllegalStateException("the query counted " + total + " rows of " + rows + ": " + result);
        }
        if (aggregate != null && !aggregate.equals(result)) {
            throw new IllegalStateException("the query gave " + result + ", the fork's first job " + aggregate);
        }
        aggregate = result;
        return result.size();
    }
}
