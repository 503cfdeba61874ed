package dev.isthmus.bench;

import dev.isthmus.iceberg.source.NativeIcebergSource;
import dev.isthmus.iceberg.source.NativeReadOptions.RowFormat;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.api.common.accumulators.LongCounter;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.streaming.util.TestStreamEnvironment;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.RowType;
import org.apache.iceberg.flink.FlinkSchemaUtil;
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
 * The source's workload: a Flink job reads the whole bids table ({@link BidsTable}, 8 files of
 * Iceberg-written Parquet) into a counting sink (or one that also hashes every value, as the main
 * job's reads do), through Iceberg's own {@code IcebergSource} and through the same source with
 * the native reader function (strict, so a native number can never be a fallback's), emitting
 * columnar rows or binary rows (the builder's default). One job per operation on a MiniCluster
 * that lives for the trial, so job submission and scheduling are paid alike by both legs. The
 * count (and the checksum, against the trial's first job) is checked after every job.
 *
 * <p>Ten warm-up jobs and fifteen measured ones: each job runs Flink's submission and scheduling
 * code once, which the JIT is still compiling (10-20% of the samples in perf profiles of the
 * native leg after thirty jobs), and with three warm-up jobs the first measured ones of a leg ran
 * up to a quarter slower than the rest; single jobs on two cores swing by as much, so medians of
 * fifteen.
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
public class SourceBenchmark {
    @Param("2000000")
    public long rows;

    @Param({"1", "2"})
    public int parallelism;

    /**
     * Flink's {@code pipeline.object-reuse}. Off (Flink's default), every record handed from the
     * source to the next operator is deep-copied by its serializer, which turns the native
     * columnar rows into binary rows; on, the rows pass by reference, as within SQL plans.
     */
    @Param({"false", "true"})
    public boolean objectReuse;

    /**
     * What the job does with each row: {@code count} reads no field (a counting sink),
     * {@code hash} reads every value (the main job's checksum, {@link NexmarkBidRows#hash}).
     */
    @Param({"count", "hash"})
    public String consumer;

    private static final RowType ROW_TYPE = FlinkSchemaUtil.convert(BidsParquetFile.SCHEMA);

    private MiniCluster cluster;
    /** The first job's checksum: every later job of the trial must read the same values. */
    private Long checksum;

    private TableLoader table;

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        table = BidsTable.ensure(rows);
        cluster = MiniClusters.start(2);
    }

    @TearDown(Level.Trial)
    public void tearDown() throws Exception {
        cluster.close();
        table.close();
    }

    @Benchmark
    public long stockSource() throws Exception {
        return count(IcebergSource.forRowData().tableLoader(table.clone()).build());
    }

    /** The native source emitting columnar rows, which Flink copies (without object reuse) field by field. */
    @Benchmark
    public long nativeSource() throws Exception {
        return count(NativeIcebergSource.forRowData()
                .tableLoader(table.clone())
                .rowFormat(RowFormat.COLUMNAR)
                .strict(true)
                .build());
    }

    /** The native source emitting binary rows, which Flink copies (without object reuse) as one array copy each. */
    @Benchmark
    public long nativeSourceBinaryRows() throws Exception {
        return count(NativeIcebergSource.forRowData()
                .tableLoader(table.clone())
                .rowFormat(RowFormat.BINARY)
                .strict(true)
                .build());
    }

    private long count(Source<RowData, ?, ?> source) throws Exception {
        long sum = readAll(cluster, parallelism, objectReuse, consumer.equals("hash"), source, rows);
        if (checksum != null && sum != checksum) {
            throw new IllegalStateException(
                    "the job's checksum " + sum + " differs from the trial's first, " + checksum);
        }
        checksum = sum;
        return rows;
    }

    /**
     * Runs one job that reads {@code source} (bids) whole into {@link Count} and a discarding sink;
     * fails unless it read {@code rows} rows. Returns the job's checksum (0 unless {@code hash}).
     */
    static long readAll(
            MiniCluster cluster,
            int parallelism,
            boolean objectReuse,
            boolean hash,
            Source<RowData, ?, ?> source,
            long rows)
            throws Exception {
        StreamExecutionEnvironment env = new TestStreamEnvironment(cluster, parallelism);
        if (objectReuse) {
            env.getConfig().enableObjectReuse();
        }
        env.fromSource(source, WatermarkStrategy.noWatermarks(), "bids", InternalTypeInfo.of(ROW_TYPE))
                .map(new Count(hash))
                .sinkTo(new DiscardingSink<>());
        JobExecutionResult result = env.execute("read bids");
        long counted = result.<Long>getAccumulatorResult(Count.ROWS);
        if (counted != rows) {
            throw new IllegalStateException("the job read " + counted + " rows of " + rows);
        }
        return result.<Long>getAccumulatorResult(Count.CHECKSUM);
    }

    /**
     * Counts rows in an accumulator, as a counting sink would, and with {@code hash} sums a hash
     * of every value as well. Without it no field is read: with object reuse on, the native
     * columnar rows are then never read at all, while the stock reader has built every value.
     */
    static final class Count extends RichMapFunction<RowData, Boolean> {
        static final String ROWS = "rows";
        static final String CHECKSUM = "checksum";
        private final boolean hash;
        private final LongCounter rows = new LongCounter();
        private final LongCounter checksum = new LongCounter();

        Count(boolean hash) {
            this.hash = hash;
        }

        @Override
        public void open(OpenContext context) {
            getRuntimeContext().addAccumulator(ROWS, rows);
            getRuntimeContext().addAccumulator(CHECKSUM, checksum);
        }

        @Override
        public Boolean map(RowData row) {
            rows.add(1);
            if (hash) {
                checksum.add(NexmarkBidRows.hash(row));
            }
            return Boolean.TRUE;
        }
    }
}
