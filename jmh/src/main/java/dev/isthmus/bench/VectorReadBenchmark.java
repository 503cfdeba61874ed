package dev.isthmus.bench;

import dev.isthmus.arrow.builder.BufferAllocator;
import dev.isthmus.arrow.builder.FinishedArray;
import dev.isthmus.arrow.cdata.ArrowArrayView;
import dev.isthmus.arrow.cdata.ArrowExporter;
import dev.isthmus.arrow.cdata.ImportedArray;
import dev.isthmus.arrow.flink.builder.RowDataAppender;
import dev.isthmus.arrow.flink.vector.ArrowColumnarBatch;
import dev.isthmus.arrow.flink.vector.ArrowVectors;
import dev.isthmus.arrow.memory.MemoryTracker;
import dev.isthmus.ffm.Diagnostics;
import dev.isthmus.ffm.gen.ArrowArray;
import dev.isthmus.ffm.gen.ArrowSchema;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.columnar.vector.BytesColumnVector;
import org.apache.flink.table.data.columnar.vector.LongColumnVector;
import org.apache.flink.table.data.columnar.vector.heap.HeapBytesVector;
import org.apache.flink.table.data.columnar.vector.heap.HeapLongVector;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarCharType;
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
 * The per-value cost of reading a bigint and a string column through the Arrow-backed Flink
 * vectors (over memory the native library produced) against Flink's own heap vectors holding
 * the same {@value #ROWS} values, with nulls. Scores are nanoseconds per value. The string legs
 * read each value's length and first byte through {@code getBytes}, as Flink's row accessors do;
 * the Arrow leg builds a fresh vector per batch read, so the one bulk copy of the batch's string
 * bytes to the heap that Flink's {@code Bytes} contract forces is inside the measurement.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(
        value = 1,
        jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED"})
public class VectorReadBenchmark {
    static final int ROWS = 8192;
    private static final RowType TYPE = RowType.of(
            new LogicalType[] {new BigIntType(), new VarCharType(VarCharType.MAX_LENGTH), new BigIntType(false)},
            new String[] {"price", "url", "auction"});

    private MemoryTracker tracker;
    private ArrowColumnarBatch arrow;
    private LongColumnVector arrowLongs;
    private ArrowArrayView arrowStringsView;
    private HeapLongVector heapLongs;
    private LongColumnVector arrowDenseLongs;
    private HeapLongVector heapDenseLongs;
    private HeapBytesVector heapStrings;

    @Setup(Level.Trial)
    public void setUp() {
        tracker = MemoryTracker.root().child("VectorReadBenchmark");
        heapLongs = new HeapLongVector(ROWS);
        heapStrings = new HeapBytesVector(ROWS);
        heapDenseLongs = new HeapLongVector(ROWS);
        SplittableRandom random = new SplittableRandom(7);
        FinishedArray finished;
        try (RowDataAppender appender = new RowDataAppender(TYPE, new BufferAllocator(tracker))) {
            for (int i = 0; i < ROWS; i++) {
                boolean nullRow = random.nextInt(20) == 0;
                long price = random.nextLong(10_000_000);
                byte[] url =
                        ("https://www.nexmark.com/item.htm?query=1&channel_id=" + random.nextInt(1 << 20)).getBytes();
                long auction = 1000 + random.nextLong(100_000);
                heapDenseLongs.vector[i] = auction;
                if (nullRow) {
                    heapLongs.setNullAt(i);
                    heapStrings.setNullAt(i);
                    appender.append(GenericRowData.of(null, null, auction));
                } else {
                    heapLongs.vector[i] = price;
                    heapStrings.appendBytes(i, url, 0, url.length);
                    appender.append(GenericRowData.of(price, StringData.fromBytes(url), auction));
                }
            }
            finished = appender.finish();
        }
        // Through the library, so the Arrow legs read memory Rust allocated, as the source will.
        try (Arena call = Arena.ofConfined()) {
            MemorySegment array = ArrowArray.allocate(call);
            MemorySegment schema = ArrowSchema.allocate(call);
            ArrowExporter.export(finished, array, schema);
            arrow = new ArrowColumnarBatch(ImportedArray.receive(
                    tracker, (outArray, outSchema) -> Diagnostics.arrowEcho(array, schema, outArray, outSchema)));
        }
        arrowLongs = (LongColumnVector) arrow.batch().columns[0];
        arrowStringsView = arrow.array().view().child(1);
        arrowDenseLongs = (LongColumnVector) arrow.batch().columns[2];
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        arrow.close();
        tracker.close();
    }

    @Benchmark
    @OperationsPerInvocation(ROWS)
    public long longsArrow() {
        long sum = 0;
        for (int i = 0; i < ROWS; i++) {
            if (!arrowLongs.isNullAt(i)) {
                sum += arrowLongs.getLong(i);
            }
        }
        return sum;
    }

    @Benchmark
    @OperationsPerInvocation(ROWS)
    public long longsHeap() {
        long sum = 0;
        for (int i = 0; i < ROWS; i++) {
            if (!heapLongs.isNullAt(i)) {
                sum += heapLongs.getLong(i);
            }
        }
        return sum;
    }

    /** A column without nulls: Arrow exports no validity bitmap, so only the values are read. */
    @Benchmark
    @OperationsPerInvocation(ROWS)
    public long longsNoNullsArrow() {
        long sum = 0;
        for (int i = 0; i < ROWS; i++) {
            if (!arrowDenseLongs.isNullAt(i)) {
                sum += arrowDenseLongs.getLong(i);
            }
        }
        return sum;
    }

    @Benchmark
    @OperationsPerInvocation(ROWS)
    public long longsNoNullsHeap() {
        long sum = 0;
        for (int i = 0; i < ROWS; i++) {
            if (!heapDenseLongs.isNullAt(i)) {
                sum += heapDenseLongs.getLong(i);
            }
        }
        return sum;
    }

    @Benchmark
    @OperationsPerInvocation(ROWS)
    public long stringsArrow() {
        BytesColumnVector arrowStrings = (BytesColumnVector) ArrowVectors.of(arrowStringsView);
        long sum = 0;
        for (int i = 0; i < ROWS; i++) {
            if (!arrowStrings.isNullAt(i)) {
                BytesColumnVector.Bytes b = arrowStrings.getBytes(i);
                sum += b.len + b.data[b.offset];
            }
        }
        return sum;
    }

    @Benchmark
    @OperationsPerInvocation(ROWS)
    public long stringsHeap() {
        long sum = 0;
        for (int i = 0; i < ROWS; i++) {
            if (!heapStrings.isNullAt(i)) {
                BytesColumnVector.Bytes b = heapStrings.getBytes(i);
                sum += b.len + b.data[b.offset];
            }
        }
        return sum;
    }
}
