package dev.isthmus.bench;

import dev.isthmus.arrow.builder.ArrowBuilder;
import dev.isthmus.arrow.builder.BufferAllocator;
import dev.isthmus.arrow.builder.FinishedArray;
import dev.isthmus.arrow.builder.Int64Builder;
import dev.isthmus.arrow.builder.ListBuilder;
import dev.isthmus.arrow.builder.StructBuilder;
import dev.isthmus.arrow.builder.TimestampBuilder;
import dev.isthmus.arrow.builder.VarBinaryBuilder;
import dev.isthmus.arrow.flink.TypeMapping;
import dev.isthmus.arrow.flink.builder.RowDataAppender;
import dev.isthmus.arrow.flink.vector.ArrowColumnarBatch;
import dev.isthmus.arrow.flink.vector.ArrowRowData;
import dev.isthmus.arrow.memory.MemoryTracker;
import dev.isthmus.iceberg.sink.parquet.NativeParquet;
import dev.isthmus.iceberg.sink.parquet.NativeParquetWriter;
import dev.isthmus.iceberg.source.parquet.NativeParquetFile;
import dev.isthmus.iceberg.source.parquet.NativeParquetScan;
import dev.isthmus.iceberg.source.parquet.ScanOptions;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.apache.flink.table.data.ArrayData;
import org.apache.flink.table.data.GenericArrayData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.data.binary.BinaryStringData;
import org.apache.flink.table.types.logical.RowType;
import org.apache.iceberg.MetricsConfig;
import org.apache.iceberg.Schema;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.flink.data.FlinkParquetReaders;
import org.apache.iceberg.flink.data.FlinkParquetWriters;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.FileAppender;
import org.apache.iceberg.parquet.Parquet;
import org.apache.iceberg.types.Types;
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
 * Nested columns, both directions, single-threaded, zstd level 3: Nexmark-like bids with a
 * struct of auction details and a list of tags ({@link #SCHEMA}), as Flink rows.
 *
 * <ul>
 *   <li>{@code encodeIcebergFlinkWriter}: Iceberg's Parquet writer with {@code FlinkParquetWriters},
 *       as Iceberg's Flink sink writes a data file, fed prebuilt rows;</li>
 *   <li>{@code encodeIsthmus}: {@link NativeParquetWriter}, the same rows in;</li>
 *   <li>{@code encodeRowsToArrow}: the part of {@code encodeIsthmus} in Java, building its Arrow
 *       batches from the rows (each freed once built);</li>
 *   <li>{@code decodeIcebergFlinkReader}: Iceberg's Parquet reader with {@code FlinkParquetReaders},
 *       reusing its row containers, as Iceberg's Flink source reads a data file;</li>
 *   <li>{@code decodeIsthmusFlinkRows}: the native decoder read through the rows the native source
 *       emits ({@code ArrowRowData});</li>
 *   <li>{@code decodeIsthmusOnly}: the same decode and import, no value read.</li>
 * </ul>
 *
 * Both decode legs read the same file, written by Iceberg's writer at set-up, and touch every
 * value the same way ({@link #touchNative}, {@link #touchStock}). Rows per second = rows / score.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3)
@Measurement(iterations = 7)
@Fork(
        value = 1,
        jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow", "-Xmx6g"})
public class NestedBenchmark {
    static final Schema SCHEMA = new Schema(
            Types.NestedField.optional(1, "auction", Types.LongType.get()),
            Types.NestedField.optional(2, "bidder", Types.LongType.get()),
            Types.NestedField.optional(3, "price", Types.LongType.get()),
            Types.NestedField.optional(4, "channel", Types.StringType.get()),
            Types.NestedField.optional(5, "dateTime", Types.TimestampType.withoutZone()),
            Types.NestedField.optional(
                    6,
                    "details",
                    Types.StructType.of(
                            Types.NestedField.optional(7, "itemName", Types.StringType.get()),
                            Types.NestedField.optional(8, "category", Types.LongType.get()),
                            Types.NestedField.optional(9, "reserve", Types.LongType.get()))),
            Types.NestedField.optional(10, "tags", Types.ListType.ofOptional(11, Types.StringType.get())));

    private static final String[] CHANNELS = {"Google", "Facebook", "Baidu", "Apple"};
    private static final String[] TAGS = {"new", "used", "rare", "signed", "boxed", "vintage", "bundle"};
    private static final LocalDateTime BASE = LocalDateTime.of(2026, 11, 30, 0, 0);
    private static final MemoryTracker TRACKER = MemoryTracker.root().child("NestedBenchmark");

    @Param("1000000")
    public int rows;

    /** zstd level 3, a table's defaults otherwise: what both writers write with. */
    static final Map<String, String> PROPERTIES =
            Map.of(TableProperties.PARQUET_COMPRESSION, "zstd", TableProperties.PARQUET_COMPRESSION_LEVEL, "3");

    private static final RowType ROW_TYPE = NativeParquetWriter.flinkType(SCHEMA);

    private RowData[] bids;
    private Path dir;
    private Path stockFile;
    private Path nativeFile;
    private Path input;

    @Setup(Level.Trial)
    public void setUp() throws IOException {
        bids = bids(rows, 1);
        dir = Files.createTempDirectory("isthmus-nested");
        stockFile = dir.resolve("stock.parquet");
        nativeFile = dir.resolve("native.parquet");
        input = dir.resolve("input.parquet");
        writeStock(input, bids);
        long stock = readStock(input);
        long isthmus = readNative(input);
        if (stock != isthmus) {
            throw new IllegalStateException("the decode legs disagree: " + stock + " against " + isthmus);
        }
    }

    /** Bids with their auction's details (a null struct now and then) and 0 to 4 tags (some null). */
    static RowData[] bids(int count, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        RowData[] rows = new RowData[count];
        for (int i = 0; i < count; i++) {
            long auction = 1000 + (random.nextInt(10) == 0 ? random.nextLong(100_000) : random.nextLong(100));
            String channel = CHANNELS[random.nextInt(CHANNELS.length)];
            RowData details = random.nextInt(20) == 0
                    ? null
                    : GenericRowData.of(
                            StringData.fromString("item-" + (auction % 5_000)),
                            auction % 10,
                            random.nextInt(4) == 0 ? null : 100 + random.nextLong(1_000_000));
            Object[] tags = new Object[random.nextInt(5)];
            for (int t = 0; t < tags.length; t++) {
                tags[t] = random.nextInt(30) == 0 ? null : StringData.fromString(TAGS[random.nextInt(TAGS.length)]);
            }
            rows[i] = GenericRowData.of(
                    auction,
                    1000 + random.nextLong(1_000_000),
                    100 + random.nextLong(10_000_000),
                    StringData.fromString(channel),
                    TimestampData.fromLocalDateTime(BASE.plusNanos((i * 10L + random.nextInt(10)) * 1_000_000L)),
                    details,
                    random.nextInt(10) == 0 ? null : new GenericArrayData(tags));
        }
        return rows;
    }

    /** Writes {@code rows} to {@code file} as Iceberg's Flink sink writes a data file; returns its length. */
    static long writeStock(Path file, RowData[] rows) throws IOException {
        FileAppender<RowData> writer = Parquet.write(org.apache.iceberg.Files.localOutput(file.toFile()))
                .schema(SCHEMA)
                .createWriterFunc(messageType -> FlinkParquetWriters.buildWriter(ROW_TYPE, messageType))
                .setAll(PROPERTIES)
                .metricsConfig(MetricsConfig.getDefault())
                .overwrite()
                .build();
        try (writer) {
            for (RowData row : rows) {
                writer.add(row);
            }
        }
        return writer.length();
    }

    @Benchmark
    public long encodeIcebergFlinkWriter() throws IOException {
        return writeStock(stockFile, bids);
    }

    @Benchmark
    public long encodeIsthmus() throws IOException {
        NativeParquetWriter writer = NativeParquet.write(org.apache.iceberg.Files.localOutput(nativeFile.toFile()))
                .schema(SCHEMA)
                .setAll(PROPERTIES)
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
    public long encodeRowsToArrow() {
        long length = 0;
        try (RowDataAppender appender = new RowDataAppender(ROW_TYPE, new BufferAllocator(TRACKER))) {
            for (RowData row : bids) {
                appender.append(row);
                if (appender.rowCount() == NativeParquet.DEFAULT_BATCH_SIZE) {
                    try (FinishedArray batch = appender.finish()) {
                        length += batch.length();
                    }
                }
            }
            if (appender.rowCount() > 0) {
                try (FinishedArray batch = appender.finish()) {
                    length += batch.length();
                }
            }
        }
        return length;
    }

    /**
     * The batches of {@link #encodeRowsToArrow}, built by code written for this schema alone: every
     * getter and builder call made where the JIT sees one class, no field writer in between. So the
     * most that a writer generated per row type could gain over {@link RowDataAppender}'s field
     * writers. Strings are copied as the appender copies them.
     */
    @Benchmark
    public long encodeRowsToArrowByHand() {
        long length = 0;
        try (StructBuilder batch = (StructBuilder)
                ArrowBuilder.forField(TypeMapping.toArrow("", ROW_TYPE.copy(false)), new BufferAllocator(TRACKER))) {
            Int64Builder auction = (Int64Builder) batch.child(0);
            Int64Builder bidder = (Int64Builder) batch.child(1);
            Int64Builder price = (Int64Builder) batch.child(2);
            VarBinaryBuilder channel = (VarBinaryBuilder) batch.child(3);
            TimestampBuilder dateTime = (TimestampBuilder) batch.child(4);
            StructBuilder details = (StructBuilder) batch.child(5);
            VarBinaryBuilder itemName = (VarBinaryBuilder) details.child(0);
            Int64Builder category = (Int64Builder) details.child(1);
            Int64Builder reserve = (Int64Builder) details.child(2);
            ListBuilder tags = (ListBuilder) batch.child(6);
            VarBinaryBuilder tag = (VarBinaryBuilder) tags.elements();
            for (RowData row : bids) {
                appendLong(auction, row, 0);
                appendLong(bidder, row, 1);
                appendLong(price, row, 2);
                appendString(channel, row.isNullAt(3) ? null : row.getString(3));
                if (row.isNullAt(4)) {
                    dateTime.appendNull();
                } else {
                    TimestampData time = row.getTimestamp(4, 6);
                    dateTime.append(time.getMillisecond(), time.getNanoOfMillisecond());
                }
                if (row.isNullAt(5)) {
                    details.appendNull();
                } else {
                    RowData nested = row.getRow(5, 3);
                    appendString(itemName, nested.isNullAt(0) ? null : nested.getString(0));
                    appendLong(category, nested, 1);
                    appendLong(reserve, nested, 2);
                    details.append();
                }
                if (row.isNullAt(6)) {
                    tags.appendNull();
                } else {
                    ArrayData elements = row.getArray(6);
                    for (int i = 0; i < elements.size(); i++) {
                        appendString(tag, elements.isNullAt(i) ? null : elements.getString(i));
                    }
                    tags.endList();
                }
                batch.append();
                if (batch.length() == NativeParquet.DEFAULT_BATCH_SIZE) {
                    try (FinishedArray finished = batch.finish()) {
                        length += finished.length();
                    }
                }
            }
            if (batch.length() > 0) {
                try (FinishedArray finished = batch.finish()) {
                    length += finished.length();
                }
            }
        }
        return length;
    }

    private static void appendLong(Int64Builder out, RowData row, int pos) {
        if (row.isNullAt(pos)) {
            out.appendNull();
        } else {
            out.append(row.getLong(pos));
        }
    }

    /** The bids' strings are all {@link BinaryStringData}, held on the heap when Flink encoded them. */
    private static void appendString(VarBinaryBuilder out, StringData value) {
        if (value == null) {
            out.appendNull();
            return;
        }
        BinaryStringData binary = (BinaryStringData) value;
        if (binary.getBinarySection() == null) {
            out.append(binary.getJavaObject());
        } else {
            out.append(binary.getSegments()[0].getHeapMemory(), binary.getOffset(), binary.getSizeInBytes());
        }
    }

    @Benchmark
    public long decodeIcebergFlinkReader() {
        return readStock(input);
    }

    @Benchmark
    public long decodeIsthmusFlinkRows() {
        return readNative(input);
    }

    /** The native decode and import alone, no value read: what {@link #decodeIsthmusFlinkRows} adds is Flink's getters. */
    @Benchmark
    public long decodeIsthmusOnly() {
        long rowsSeen = 0;
        try (NativeParquetFile parquet = NativeParquetFile.open(input);
                NativeParquetScan scan = parquet.scan(ScanOptions.of(SCHEMA), TRACKER)) {
            while (scan.hasNext()) {
                try (ArrowColumnarBatch batch = scan.next()) {
                    rowsSeen += batch.numRows();
                }
            }
        }
        return rowsSeen;
    }

    private long readStock(Path file) {
        long sum = 0;
        try (CloseableIterable<RowData> rows = Parquet.read(org.apache.iceberg.Files.localInput(file.toFile()))
                .project(SCHEMA)
                .createReaderFunc(fileSchema -> FlinkParquetReaders.buildReader(SCHEMA, fileSchema))
                .reuseContainers()
                .build()) {
            for (RowData row : rows) {
                sum += touchStock(row);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return sum;
    }

    private long readNative(Path file) {
        long sum = 0;
        try (NativeParquetFile parquet = NativeParquetFile.open(file);
                NativeParquetScan scan = parquet.scan(ScanOptions.of(SCHEMA), TRACKER)) {
            while (scan.hasNext()) {
                try (ArrowColumnarBatch batch = scan.next()) {
                    ArrowRowData row = batch.row(0);
                    for (int i = 0, n = batch.numRows(); i < n; i++) {
                        row.setRowId(i);
                        sum += touchNative(row);
                    }
                }
            }
        }
        return sum;
    }

    /**
     * Every value of a bid, for the native legs: longs summed, strings as
     * {@link DecodeBenchmark#touch(StringData)}, nulls counted. Iceberg's leg has a copy of its
     * own ({@link #touchStock}) because the JIT keeps the classes it saw per call site: in one
     * JVM, as {@code PairedShots} runs the legs, a shared copy sees Iceberg's row, struct and list
     * classes and the source's at every call and must handle both at each, where alone in a JVM
     * (as JMH runs each leg, and as a Flink operator sees one row class) each sees one. The two
     * must stay the same.
     */
    static long touchNative(RowData row) {
        long sum = row.getLong(0)
                + row.getLong(1)
                + row.getLong(2)
                + string(row, 3)
                + row.getTimestamp(4, 6).getMillisecond();
        if (row.isNullAt(5)) {
            sum += 7;
        } else {
            RowData details = row.getRow(5, 3);
            sum += string(details, 0)
                    + (details.isNullAt(1) ? 1 : details.getLong(1))
                    + (details.isNullAt(2) ? 3 : details.getLong(2));
        }
        if (row.isNullAt(6)) {
            sum += 11;
        } else {
            ArrayData tags = row.getArray(6);
            for (int t = 0; t < tags.size(); t++) {
                sum += tags.isNullAt(t) ? 13 : DecodeBenchmark.touch(tags.getString(t));
            }
        }
        return sum;
    }

    /** {@link #touchNative}'s copy for Iceberg's reader's rows (see there why a copy). */
    static long touchStock(RowData row) {
        long sum = row.getLong(0)
                + row.getLong(1)
                + row.getLong(2)
                + stockString(row, 3)
                + row.getTimestamp(4, 6).getMillisecond();
        if (row.isNullAt(5)) {
            sum += 7;
        } else {
            RowData details = row.getRow(5, 3);
            sum += stockString(details, 0)
                    + (details.isNullAt(1) ? 1 : details.getLong(1))
                    + (details.isNullAt(2) ? 3 : details.getLong(2));
        }
        if (row.isNullAt(6)) {
            sum += 11;
        } else {
            ArrayData tags = row.getArray(6);
            for (int t = 0; t < tags.size(); t++) {
                sum += tags.isNullAt(t) ? 13 : DecodeBenchmark.touch(tags.getString(t));
            }
        }
        return sum;
    }

    private static long stockString(RowData row, int field) {
        return row.isNullAt(field) ? 5 : DecodeBenchmark.touch(row.getString(field));
    }

    private static long string(RowData row, int field) {
        return row.isNullAt(field) ? 5 : DecodeBenchmark.touch(row.getString(field));
    }

    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
        for (Path file : new Path[] {stockFile, nativeFile, input}) {
            if (Files.exists(file)) {
                System.out.printf("%n%s: %,d bytes%n", file.getFileName(), Files.size(file));
                Files.delete(file);
            }
        }
        Files.deleteIfExists(dir);
    }
}
