package dev.isthmus.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.util.TestStreamEnvironment;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;
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
 * Batch SQL over the bids table ({@link BidsTable}) through Iceberg's {@code iceberg} catalog and
 * through the {@code isthmus-iceberg} catalog (strict), with each row format the native reads can
 * emit: what decides the {@code isthmus.row-format} option's {@code auto}, since Flink's planner
 * reuses objects in every batch query. The queries aggregate by channel, reading every column
 * ({@code all}) or two ({@code two}: a price filter, which Iceberg pushes into the scan, and the
 * channel). One query per operation on a MiniCluster that lives for the trial; every job's result
 * must equal the trial's first.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 10)
@Measurement(iterations = 15)
@Fork(
        value = 1,
        jvmArgsAppend = {
            "--enable-native-access=ALL-UNNAMED",
            "--sun-misc-unsafe-memory-access=allow",
            "--add-opens=java.base/java.nio=ALL-UNNAMED",
            "-Xmx6g"
        })
public class SqlBenchmark {
    static final String ALL = "SELECT channel, COUNT(*), SUM(auction), MIN(bidder), SUM(price), "
            + "SUM(CHAR_LENGTH(url)), SUM(CHAR_LENGTH(extra)), MAX(`dateTime`) FROM %s GROUP BY channel";
    private static final String TWO = "SELECT channel, COUNT(*) FROM %s WHERE price < 1000 GROUP BY channel";

    @Param("2000000")
    public long rows;

    @Param({"1", "2"})
    public int parallelism;

    @Param({"all", "two"})
    public String query;

    private MiniCluster cluster;
    private StreamTableEnvironment sql;
    private List<Row> first;

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        BidsTable.ensure(rows).close();
        cluster = MiniClusters.start(2);
        StreamExecutionEnvironment env = new TestStreamEnvironment(cluster, parallelism);
        sql = StreamTableEnvironment.create(env, EnvironmentSettings.inBatchMode());
        createCatalogs(sql);
    }

    /**
     * The bench warehouse ({@link BidsTable#warehouse()}) as catalog {@code stock} (Iceberg's) and
     * {@code lake} (Isthmus's, strict, so no native number is a fallback's).
     */
    static void createCatalogs(StreamTableEnvironment sql) throws Exception {
        String warehouse = BidsTable.warehouse().toUri().toString();
        sql.executeSql("CREATE CATALOG stock WITH ('type'='iceberg', 'catalog-type'='hadoop', 'warehouse'='" + warehouse
                        + "')")
                .await();
        sql.executeSql("CREATE CATALOG lake WITH ('type'='isthmus-iceberg', 'catalog-type'='hadoop', 'warehouse'='"
                        + warehouse + "', 'isthmus.strict'='true')")
                .await();
    }

    @TearDown(Level.Trial)
    public void tearDown() throws Exception {
        cluster.close();
    }

    @Benchmark
    public int stock() throws Exception {
        return run("stock." + table());
    }

    @Benchmark
    public int nativeColumnarRows() throws Exception {
        return run("lake." + table() + " /*+ OPTIONS('isthmus.row-format'='columnar') */");
    }

    @Benchmark
    public int nativeBinaryRows() throws Exception {
        return run("lake." + table() + " /*+ OPTIONS('isthmus.row-format'='binary') */");
    }

    private String table() {
        return BidsTable.NAMESPACE + ".bids_" + rows;
    }

    private int run(String from) throws Exception {
        List<Row> result = new ArrayList<>();
        try (CloseableIterator<Row> it = sql.executeSql(String.format(query.equals("all") ? ALL : TWO, from))
                .collect()) {
            it.forEachRemaining(result::add);
        }
        result.sort((a, b) -> String.valueOf(a.getField(0)).compareTo(String.valueOf(b.getField(0))));
        if (first == null) {
            first = result;
        } else if (!first.equals(result)) {
            throw new IllegalStateException("the query gave " + result + ", the trial's first job " + first);
        }
        return result.size();
    }
}
