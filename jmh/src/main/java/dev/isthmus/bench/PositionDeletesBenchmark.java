package dev.isthmus.bench;

import dev.isthmus.iceberg.source.NativeIcebergSource;
import dev.isthmus.iceberg.source.NativeSourceCounters;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.table.data.RowData;
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
 * Merge-on-read with position deletes: the bids of {@link SourceBenchmark} with about one row in
 * ten deleted by one position delete file per data file ({@link BidsTable#ensureWithPositionDeletes}),
 * read whole by Iceberg's source and by the native one (strict, binary rows), and the rows it
 * keeps written without deletes ({@link BidsTable#ensureLiveRows}), read natively: what the
 * deletes cost the native reader. Every job hashes every value into a checksum, which must be the
 * same for all three legs, and must count the live rows.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 10)
@Measurement(iterations = 15)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow",
        "--add-opens=java.base/java.nio=ALL-UNNAMED", "-Xmx6g"})
public class PositionDeletesBenchmark {
    @Param("2000000")
    public long rows;

    @Param({"1", "2"})
    public int parallelism;

    private MiniCluster cluster;
    private TableLoader deleted;
    private TableLoader live;
    private long liveRows;
    /** The live rows' checksum, from the stock reader of the deleted table: every leg must match it. */
    private long expected;

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        deleted = BidsTable.ensureWithPositionDeletes(rows);
        live = BidsTable.ensureLiveRows(rows);
        liveRows = BidsTable.liveRows(rows);
        cluster = MiniClusters.start(2);
        expected = SourceBenchmark.readAll(cluster, parallelism, false, true,
                IcebergSource.forRowData().tableLoader(deleted.clone()).build(), liveRows);
    }

    @TearDown(Level.Trial)
    public void tearDown() throws Exception {
        cluster.close();
        deleted.close();
        live.close();
    }

    @Benchmark
    public long stockSource() throws Exception {
        return read(IcebergSource.forRowData().tableLoader(deleted.clone()).build());
    }

    @Benchmark
    public long nativeSource() throws Exception {
        long before = NativeSourceCounters.rowsDeleted();
        long read = read(NativeIcebergSource.forRowData().tableLoader(deleted.clone()).strict(true).build());
        if (NativeSourceCounters.rowsDeleted() - before != rows - liveRows) {
            throw new IllegalStateException("the native reader left out " + (NativeSourceCounters.rowsDeleted() - before)
                    + " rows, not the " + (rows - liveRows) + " deleted");
        }
        return read;
    }

    /** The same live rows natively, from a table without deletes. */
    @Benchmark
    public long nativeSourceWithoutDeletes() throws Exception {
        return read(NativeIcebergSource.forRowData().tableLoader(live.clone()).strict(true).build());
    }

    private long read(Source<RowData, ?, ?> source) throws Exception {
        long sum = SourceBenchmark.readAll(cluster, parallelism, false, true, source, liveRows);
        if (sum != expected) {
            throw new IllegalStateException("the job's checksum " + sum + " differs from the stock reader's, " + expected);
        }
        return liveRows;
    }
}
