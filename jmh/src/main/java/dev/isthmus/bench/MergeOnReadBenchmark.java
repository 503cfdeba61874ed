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
 * Merge-on-read: the bids of {@link SourceBenchmark} with about one row in ten deleted, read whole
 * by Iceberg's source and by the native one (strict, binary rows), and the rows the table keeps
 * written without deletes, read natively: what the deletes cost the native reader. With
 * {@code deletes=position} the rows are deleted by one position delete file per data file, as a
 * rewrite of position deletes leaves them ({@link BidsTable#ensureWithPositionDeletes}); with
 * {@code deletes=position-unscoped} by the same files written without exact {@code file_path}
 * bounds, so every task gets all of them ({@link BidsTable#ensureWithUnscopedPositionDeletes}); with
 * {@code deletes=vector} by a deletion vector per data file of a v3 table
 * ({@link BidsTable#ensureWithDeletionVectors}); with {@code deletes=equality} their keys are upserted by one commit of an equality delete file and
 * the new rows, as Flink's upsert sink writes them ({@link BidsTable#ensureUpserted}). Every job
 * hashes every value into a checksum, which must be the same for all three legs, and must count
 * the live rows; the native job must leave out exactly the deleted rows.
 * {@link #nativeSourceUncached} times the native job with the JVM's equality delete cache off.
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
public class MergeOnReadBenchmark {
    @Param("2000000")
    public long rows;

    @Param({"1", "2"})
    public int parallelism;

    @Param({"position", "position-unscoped", "vector", "equality"})
    public String deletes;

    private MiniCluster cluster;
    private TableLoader deleted;
    private TableLoader live;
    private long liveRows;
    private long deletedRows;
    /** The live rows' checksum, from the stock reader of the deleted table: every leg must match it. */
    private long expected;

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        boolean byPosition = !deletes.equals("equality");
        deleted = switch (deletes) {
            case "position" -> BidsTable.ensureWithPositionDeletes(rows);
            case "position-unscoped" -> BidsTable.ensureWithUnscopedPositionDeletes(rows);
            case "vector" -> BidsTable.ensureWithDeletionVectors(rows);
            case "equality" -> BidsTable.ensureUpserted(rows);
            default ->
                throw new IllegalArgumentException(
                        "deletes must be position, position-unscoped, vector or equality, got " + deletes);
        };
        live = byPosition ? BidsTable.ensureLiveRows(rows) : BidsTable.ensureUpsertedLiveRows(rows);
        // Upserts keep a row per key: the old rows of the keys upserted are the deleted ones.
        deletedRows = rows - BidsTable.liveRows(rows);
        liveRows = byPosition ? rows - deletedRows : rows;
        cluster = MiniClusters.start(2);
        expected = SourceBenchmark.readAll(
                cluster,
                parallelism,
                false,
                true,
                IcebergSource.forRowData().tableLoader(deleted.clone()).build(),
                liveRows);
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
        long read = read(NativeIcebergSource.forRowData()
                .tableLoader(deleted.clone())
                .strict(true)
                .build());
        if (NativeSourceCounters.rowsDeleted() - before != deletedRows) {
            throw new IllegalStateException("the native reader left out "
                    + (NativeSourceCounters.rowsDeleted() - before) + " rows, not the " + deletedRows + " deleted");
        }
        return read;
    }

    /**
     * The native source with the JVM's equality delete cache off, so every task decodes the
     * equality delete files it applies (only tasks loading the same file at once share it): what
     * the cache saves. The same as {@link #nativeSource} for position deletes and deletion vectors,
     * which are never cached, so there it shows the spread of two identical legs.
     */
    @Benchmark
    @Fork(
            value = 1,
            jvmArgsAppend = {
                "--enable-native-access=ALL-UNNAMED",
                "--sun-misc-unsafe-memory-access=allow",
                "--add-opens=java.base/java.nio=ALL-UNNAMED",
                "-Xmx6g",
                "-Disthmus.equality-delete-cache-bytes=0"
            })
    public long nativeSourceUncached() throws Exception {
        return nativeSource();
    }

    /** The same live rows natively, from a table without deletes. */
    @Benchmark
    public long nativeSourceWithoutDeletes() throws Exception {
        return read(NativeIcebergSource.forRowData()
                .tableLoader(live.clone())
                .strict(true)
                .build());
    }

    private long read(Source<RowData, ?, ?> source) throws Exception {
        long sum = SourceBenchmark.readAll(cluster, parallelism, false, true, source, liveRows);
        if (sum != expected) {
            throw new IllegalStateException(
                    "the job's checksum " + sum + " differs from the stock reader's, " + expected);
        }
        return liveRows;
    }
}
