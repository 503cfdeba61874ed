package dev.isthmus.bench;

import dev.isthmus.arrow.flink.vector.ArrowColumnarBatch;
import dev.isthmus.arrow.flink.vector.BinaryRowTransposer;
import dev.isthmus.arrow.flink.vector.BinaryRows;
import dev.isthmus.arrow.memory.MemoryTracker;
import dev.isthmus.iceberg.source.parquet.NativeParquetFile;
import dev.isthmus.iceberg.source.parquet.NativeParquetScan;
import dev.isthmus.iceberg.source.parquet.ScanOptions;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.flink.table.types.logical.RowType;
import org.apache.iceberg.flink.FlinkSchemaUtil;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The binary-row transpose alone (`BinaryRowTransposer`, docs/source.md "Row formats"), in ns per
 * bid row: the first {@value #BATCHES} decoded batches of the bids file (8,192 rows each, held in
 * native memory for the trial) transposed whole, as the fetcher thread does, or 1,024 rows at a
 * time through a selection, as the task thread does while it emits.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 5, time = 2)
@Measurement(iterations = 10, time = 2)
@Fork(
        value = 1,
        jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow"})
public class TransposeBenchmark {
    static final int BATCHES = 40;
    static final int ROWS = BATCHES * 8192;
    private static final int CHUNK = 1024;

    private final List<ArrowColumnarBatch> batches = new ArrayList<>();
    private final BinaryRows rows = new BinaryRows();
    private final int[] chunk = new int[CHUNK];
    private BinaryRowTransposer transposer;

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        Path file = BidsParquetFile.ensure(2_000_000, 1);
        RowType type = FlinkSchemaUtil.convert(BidsParquetFile.SCHEMA);
        transposer = new BinaryRowTransposer(type);
        try (NativeParquetFile parquet = NativeParquetFile.open(file);
                NativeParquetScan scan = parquet.scan(
                        ScanOptions.of(BidsParquetFile.SCHEMA),
                        MemoryTracker.root().child("transpose-benchmark"))) {
            while (batches.size() < BATCHES && scan.hasNext()) {
                batches.add(scan.next());
            }
        }
        int total = batches.stream().mapToInt(ArrowColumnarBatch::numRows).sum();
        if (total != ROWS) {
            throw new IllegalStateException("expected " + ROWS + " rows in the first batches, got " + total);
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        batches.forEach(ArrowColumnarBatch::close);
    }

    /** Each batch at once, as the fetcher thread transposes when the task thread is behind. */
    @Benchmark
    @OperationsPerInvocation(ROWS)
    public int wholeBatches() {
        int transposed = 0;
        for (ArrowColumnarBatch batch : batches) {
            transposer.transpose(batch.batch().columns, null, batch.numRows(), rows);
            transposed += rows.count();
        }
        return transposed;
    }

    /** 1,024 consecutive rows at a time through a selection, as the task thread transposes while emitting. */
    @Benchmark
    @OperationsPerInvocation(ROWS)
    public int chunks() {
        int transposed = 0;
        for (ArrowColumnarBatch batch : batches) {
            int count = batch.numRows();
            for (int done = 0; done < count; done += CHUNK) {
                int n = Math.min(CHUNK, count - done);
                for (int k = 0; k < n; k++) {
                    chunk[k] = done + k;
                }
                transposer.transpose(batch.batch().columns, chunk, n, rows);
                transposed += rows.count();
            }
        }
        return transposed;
    }
}
