package dev.isthmus.bench;

import dev.isthmus.arrow.builder.BufferAllocator;
import dev.isthmus.arrow.builder.FinishedArray;
import dev.isthmus.arrow.flink.builder.RowDataAppender;
import dev.isthmus.arrow.memory.MemoryTracker;
import dev.isthmus.iceberg.sink.parquet.NativeParquet;
import dev.isthmus.iceberg.sink.parquet.NativeParquetWriter;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.types.logical.RowType;
import org.apache.iceberg.MetricsConfig;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.flink.data.FlinkParquetWriters;
import org.apache.iceberg.io.FileAppender;
import org.apache.iceberg.parquet.Parquet;
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
 * Encoding the bids (the rows of {@link BidsParquetFile}, as Flink rows) into one Parquet file
 * per operation, single-threaded, zstd level 3, a table's defaults otherwise, to a local temp
 * file. Rows per second = rows / score.
 *
 * <ul>
 *   <li>{@code icebergFlinkWriter}: Iceberg's Parquet writer with {@code FlinkParquetWriters},
 *       as Iceberg's Flink sink writes a data file, fed the prebuilt rows;</li>
 *   <li>{@code isthmusNativeFromRowData}: {@link NativeParquetWriter} end to end, the same rows in,
 *       the bytes going through the {@code OutputFile}'s stream as for any FileIO;</li>
 *   <li>{@code isthmusNativeFromRowDataToPath}: the same, the library writing the local path itself
 *       ({@code NativeParquet.write(Path)});</li>
 *   <li>{@code isthmusNativeFromArrow}: the native writer fed Arrow batches built beforehand
 *       (per invocation, unmeasured: the writer takes their buffers), i.e. the encoder and its
 *       output path alone;</li>
 *   <li>{@code rowDataToArrow}: the other part, building those batches from the rows.</li>
 * </ul>
 *
 * {@code compressionThreads} is the library's {@code isthmus.compression-threads} (0: pages are
 * compressed on the calling thread, like parquet-java). The trial's tear-down prints the size of
 * each file the legs wrote.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3)
@Measurement(iterations = 7)
@Fork(
        value = 1,
        jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow", "-Xmx6g"})
public class EncodeBenchmark {
    @Param("2000000")
    public int rows;

    @Param("0")
    public int compressionThreads;

    private static final int BATCH = NativeParquet.DEFAULT_BATCH_SIZE;
    private static final MemoryTracker TRACKER = MemoryTracker.root().child("EncodeBenchmark");

    private Map<String, String> properties;
    private RowType rowType;
    private RowData[] bids;
    private Path dir;
    private Path stockFile;
    private Path nativeFile;

    @Setup(Level.Trial)
    public void setUp() throws IOException {
        properties = Map.of(
                TableProperties.PARQUET_COMPRESSION,
                "zstd",
                TableProperties.PARQUET_COMPRESSION_LEVEL,
                "3",
                "isthmus.compression-threads",
                Integer.toString(compressionThreads));
        rowType = NativeParquetWriter.flinkType(BidsParquetFile.SCHEMA);
        bids = bids(rows, 1);
        dir = Files.createTempDirectory("isthmus-encode");
        stockFile = dir.resolve("stock.parquet");
        nativeFile = dir.resolve("native.parquet");
    }

    /** The bids of {@link BidsParquetFile} (same generator and seed) as Flink's generic rows. */
    static RowData[] bids(int count, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        GenericRecord template = GenericRecord.create(BidsParquetFile.SCHEMA);
        RowData[] rows = new RowData[count];
        for (int i = 0; i < count; i++) {
            Record bid = BidsParquetFile.bid(template, random, i);
            rows[i] = GenericRowData.of(
                    bid.get(0),
                    bid.get(1),
                    bid.get(2),
                    StringData.fromString((String) bid.get(3)),
                    StringData.fromString((String) bid.get(4)),
                    TimestampData.fromLocalDateTime((LocalDateTime) bid.get(5)),
                    StringData.fromString((String) bid.get(6)));
        }
        return rows;
    }

    /** The batches the Arrow leg consumes, rebuilt for each invocation because writing takes them. */
    @State(Scope.Thread)
    public static class ArrowBatches {
        private List<FinishedArray> batches = List.of();

        @Setup(Level.Invocation)
        public void build(EncodeBenchmark bench) {
            batches = toArrow(bench.bids, bench.rowType);
        }

        @TearDown(Level.Invocation)
        public void freeUnwritten() {
            batches.forEach(FinishedArray::close);
            batches = List.of();
        }
    }

    private static List<FinishedArray> toArrow(RowData[] rows, RowType rowType) {
        List<FinishedArray> batches = new ArrayList<>(rows.length / BATCH + 1);
        toArrow(rows, rowType, batches::add);
        return batches;
    }

    /** Hands each batch of {@code rows} to {@code sink} as soon as it is built. */
    private static void toArrow(RowData[] rows, RowType rowType, Consumer<FinishedArray> sink) {
        try (RowDataAppender appender = new RowDataAppender(rowType, new BufferAllocator(TRACKER))) {
            for (RowData row : rows) {
                appender.append(row);
                if (appender.rowCount() == BATCH) {
                    sink.accept(appender.finish());
                }
            }
            if (appender.rowCount() > 0) {
                sink.accept(appender.finish());
            }
        }
    }

    @Benchmark
    public long icebergFlinkWriter() throws IOException {
        FileAppender<RowData> writer = Parquet.write(org.apache.iceberg.Files.localOutput(stockFile.toFile()))
                .schema(BidsParquetFile.SCHEMA)
                .createWriterFunc(messageType -> FlinkParquetWriters.buildWriter(rowType, messageType))
                .setAll(properties)
                .metricsConfig(MetricsConfig.getDefault())
                .overwrite()
                .build();
        try (writer) {
            for (RowData row : bids) {
                writer.add(row);
            }
        }
        return writer.length();
    }

    @Benchmark
    public long isthmusNativeFromRowData() throws IOException {
        NativeParquetWriter writer = open();
        try (writer) {
            for (RowData row : bids) {
                writer.add(row);
            }
        }
        return writer.length();
    }

    @Benchmark
    public long isthmusNativeFromRowDataToPath() throws IOException {
        NativeParquetWriter writer = NativeParquet.write(nativeFile)
                .schema(BidsParquetFile.SCHEMA)
                .setAll(properties)
                .memoryTracker(TRACKER)
                .overwrite()
                .build();
        try (writer) {
            for (RowData row : bids) {
                writer.add(row);
            }
        }
        return writer.length();
    }

    @Benchmark
    public long isthmusNativeFromArrow(ArrowBatches arrow) throws IOException {
        NativeParquetWriter writer = open();
        try (writer) {
            for (FinishedArray batch : arrow.batches) {
                writer.write(batch);
            }
        }
        arrow.batches = List.of();
        return writer.length();
    }

    /**
     * Each batch is closed once built, as the sink's writer frees each batch once written, so the
     * C allocator hands the same memory back: holding a file's batches until the end would have
     * each operation take about 100 MB of fresh pages from the kernel, which the sink never does.
     */
    @Benchmark
    public long rowDataToArrow() {
        long[] length = {0};
        toArrow(bids, rowType, batch -> {
            length[0] += batch.length();
            batch.close();
        });
        return length[0];
    }

    private NativeParquetWriter open() {
        return NativeParquet.write(org.apache.iceberg.Files.localOutput(nativeFile.toFile()))
                .schema(BidsParquetFile.SCHEMA)
                .setAll(properties)
                .memoryTracker(TRACKER)
                .overwrite()
                .build();
    }

    /** The size of the file this trial wrote, so the legs' files can be compared. */
    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
        for (Path file : List.of(stockFile, nativeFile)) {
            if (Files.exists(file)) {
                System.out.printf(
                        "%n%s: %,d bytes (%s)%n",
                        file.getFileName(), Files.size(file), file == stockFile ? "parquet-java" : "Isthmus");
                Files.delete(file);
            }
        }
        Files.deleteIfExists(dir);
    }
}
