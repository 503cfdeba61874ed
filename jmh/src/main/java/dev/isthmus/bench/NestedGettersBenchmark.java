package dev.isthmus.bench;

import dev.isthmus.arrow.flink.vector.ArrowColumnarBatch;
import dev.isthmus.arrow.flink.vector.ArrowRowData;
import dev.isthmus.arrow.memory.MemoryTracker;
import dev.isthmus.iceberg.source.parquet.NativeParquetFile;
import dev.isthmus.iceberg.source.parquet.NativeParquetScan;
import dev.isthmus.iceberg.source.parquet.ScanOptions;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.apache.flink.table.data.ArrayData;
import org.apache.flink.table.data.RowData;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Where {@link NestedBenchmark#decodeIsthmusFlinkRows} spends its time beyond the decode: the
 * same scan of the same file, each leg reading one part of what {@link NestedBenchmark#touchNative}
 * reads through the source's rows. {@code nothing} reads no value (the scan, the row moved
 * along); each other leg's time over it is its part's. Meant for {@code ci/paired.sh}, which takes
 * the legs in turn within each fork; the parts need not add up to {@code everything}, which
 * runs the whole of {@code touchNative} at once.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3)
@Measurement(iterations = 7)
@Fork(
        value = 1,
        jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow", "-Xmx4g"})
public class NestedGettersBenchmark {
    private static final MemoryTracker TRACKER = MemoryTracker.root().child("NestedGettersBenchmark");

    private Path input;

    /** The decode legs' file of {@link NestedBenchmark}: its million bids, written by Iceberg's writer. */
    @Setup(Level.Trial)
    public void setUp() throws IOException {
        input = Files.createTempFile("isthmus-nested-getters", ".parquet");
        NestedBenchmark.writeStock(input, NestedBenchmark.bids(1_000_000, 1));
    }

    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
        Files.deleteIfExists(input);
    }

    /** The parts {@link NestedBenchmark#touchNative} reads, one leg each. */
    private enum Part {
        NOTHING,
        TOP_LEVEL_FIELDS,
        STRUCT_NULLS,
        STRUCT,
        LIST_NULLS,
        LIST,
        EVERYTHING
    }

    /**
     * One loop for every leg, which picks its part by a switch on a value that never changes
     * within a leg: each part is a static method of its own, whose call sites only ever see the
     * source's row classes, where a loop calling a lambda per leg would make that call megamorphic
     * in a fork that runs every leg.
     */
    private long read(Part part) {
        long sum = 0;
        try (NativeParquetFile parquet = NativeParquetFile.open(input);
                NativeParquetScan scan = parquet.scan(ScanOptions.of(NestedBenchmark.SCHEMA), TRACKER)) {
            while (scan.hasNext()) {
                try (ArrowColumnarBatch batch = scan.next()) {
                    ArrowRowData row = batch.row(0);
                    for (int i = 0, n = batch.numRows(); i < n; i++) {
                        row.setRowId(i);
                        sum += switch (part) {
                            case NOTHING -> 1;
                            case TOP_LEVEL_FIELDS -> topLevelFieldsOf(row);
                            case STRUCT_NULLS -> structNullsOf(row);
                            case STRUCT -> structOf(row);
                            case LIST_NULLS -> listNullsOf(row);
                            case LIST -> listOf(row);
                            case EVERYTHING -> NestedBenchmark.touchNative(row);
                        };
                    }
                }
            }
        }
        return sum;
    }

    @Benchmark
    public long nothing() {
        return read(Part.NOTHING);
    }

    @Benchmark
    public long topLevelFields() {
        return read(Part.TOP_LEVEL_FIELDS);
    }

    @Benchmark
    public long structNulls() {
        return read(Part.STRUCT_NULLS);
    }

    @Benchmark
    public long struct() {
        return read(Part.STRUCT);
    }

    @Benchmark
    public long listNulls() {
        return read(Part.LIST_NULLS);
    }

    @Benchmark
    public long list() {
        return read(Part.LIST);
    }

    /** All of {@link NestedBenchmark#touchNative}. */
    @Benchmark
    public long everything() {
        return read(Part.EVERYTHING);
    }

    /** The three longs, the channel string and the timestamp. */
    private static long topLevelFieldsOf(RowData row) {
        return row.getLong(0)
                + row.getLong(1)
                + row.getLong(2)
                + (row.isNullAt(3) ? 5 : DecodeBenchmark.touch(row.getString(3)))
                + row.getTimestamp(4, 6).getMillisecond();
    }

    /** The struct's null, its row object and its three fields' nulls, no value. */
    private static long structNullsOf(RowData row) {
        if (row.isNullAt(5)) {
            return 7;
        }
        RowData details = row.getRow(5, 3);
        return (details.isNullAt(0) ? 5 : 1) + (details.isNullAt(1) ? 1 : 2) + (details.isNullAt(2) ? 3 : 4);
    }

    /** The struct whole: its string and its two longs too. */
    private static long structOf(RowData row) {
        if (row.isNullAt(5)) {
            return 7;
        }
        RowData details = row.getRow(5, 3);
        return (details.isNullAt(0) ? 5 : DecodeBenchmark.touch(details.getString(0)))
                + (details.isNullAt(1) ? 1 : details.getLong(1))
                + (details.isNullAt(2) ? 3 : details.getLong(2));
    }

    /** The list's null, its array object and its elements' nulls, no value. */
    private static long listNullsOf(RowData row) {
        if (row.isNullAt(6)) {
            return 11;
        }
        ArrayData tags = row.getArray(6);
        long sum = 0;
        for (int t = 0; t < tags.size(); t++) {
            sum += tags.isNullAt(t) ? 13 : 1;
        }
        return sum;
    }

    /** The list whole: its strings too. */
    private static long listOf(RowData row) {
        if (row.isNullAt(6)) {
            return 11;
        }
        ArrayData tags = row.getArray(6);
        long sum = 0;
        for (int t = 0; t < tags.size(); t++) {
            sum += tags.isNullAt(t) ? 13 : DecodeBenchmark.touch(tags.getString(t));
        }
        return sum;
    }
}
