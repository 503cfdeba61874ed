package dev.isthmus.bench;

import dev.isthmus.arrow.cdata.ArrowArrayView;
import dev.isthmus.arrow.flink.vector.ArrowColumnarBatch;
import dev.isthmus.arrow.flink.vector.ArrowRowData;
import dev.isthmus.arrow.flink.vector.BinaryRowTransposer;
import dev.isthmus.arrow.flink.vector.BinaryRows;
import dev.isthmus.arrow.memory.MemoryTracker;
import dev.isthmus.arrow.types.ArrowType;
import dev.isthmus.iceberg.source.parquet.NativeParquetFile;
import dev.isthmus.iceberg.source.parquet.NativeParquetScan;
import dev.isthmus.iceberg.source.parquet.ScanOptions;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.IntConsumer;
import org.apache.arrow.dataset.file.FileFormat;
import org.apache.arrow.dataset.file.FileSystemDatasetFactory;
import org.apache.arrow.dataset.jni.NativeMemoryPool;
import org.apache.arrow.dataset.scanner.Scanner;
import org.apache.arrow.dataset.source.Dataset;
import org.apache.arrow.dataset.source.DatasetFactory;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.data.binary.BinaryStringData;
import org.apache.flink.table.data.columnar.ColumnarRowData;
import org.apache.iceberg.Files;
import org.apache.iceberg.flink.FlinkSchemaUtil;
import org.apache.iceberg.flink.data.FlinkParquetReaders;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.parquet.Parquet;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.ColumnReader;
import org.apache.parquet.column.impl.ColumnReadStoreImpl;
import org.apache.parquet.column.page.PageReadStore;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.io.LocalInputFile;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.io.api.Converter;
import org.apache.parquet.io.api.GroupConverter;
import org.apache.parquet.io.api.PrimitiveConverter;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
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
 * Decoding the bids file, one full single-threaded scan per operation, every value touched:
 * longs summed; strings by length plus their first and last byte (the bytes must exist,
 * without adding a per-byte loop that would dilute every leg alike); timestamps by their
 * value. Rows per second = rows / score. The {@code isthmusFlinkRows} legs read through the
 * rows the native source emits ({@code ArrowRowData}, Flink's {@code RowData} interface); {@code isthmusArrowBuffers} reads
 * the imported Arrow buffers directly, as an Arrow consumer would.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3)
@Measurement(iterations = 7)
@Fork(
        value = 1,
        jvmArgsAppend = {
            "--enable-native-access=ALL-UNNAMED",
            "--sun-misc-unsafe-memory-access=allow",
            // Arrow Java's memory module reads java.nio.Buffer's address field (the Arrow C++ leg).
            "--add-opens=java.base/java.nio=ALL-UNNAMED",
            "-Xmx4g"
        })
public class DecodeBenchmark {
    @Param("2000000")
    public long rows;

    private static final MemoryTracker TRACKER = MemoryTracker.root().child("DecodeBenchmark");

    private Path file;
    private BinaryRowTransposer transposer;
    private final BinaryRows binaryRows = new BinaryRows();

    @Setup(Level.Trial)
    public void setUp() {
        file = BidsParquetFile.ensure(rows, 1);
        transposer = new BinaryRowTransposer(FlinkSchemaUtil.convert(BidsParquetFile.SCHEMA));
    }

    /** Isthmus: the native decoder into Arrow, read through Flink's columnar rows. */
    @Benchmark
    public long isthmusFlinkRows() {
        try (NativeParquetFile parquet = NativeParquetFile.open(file)) {
            return readAll(parquet, false);
        }
    }

    /** The same, with dictionary-encoded strings kept as Arrow dictionaries. */
    @Benchmark
    public long isthmusFlinkRowsDictionaries() {
        try (NativeParquetFile parquet = NativeParquetFile.open(file)) {
            return readAll(parquet, true);
        }
    }

    /** The same through Iceberg's FileIO: Java reads the column chunks into the library's buffers. */
    @Benchmark
    public long isthmusFlinkRowsFileIo() {
        try (NativeParquetFile parquet = NativeParquetFile.open(Files.localInput(file.toFile()))) {
            return readAll(parquet, false);
        }
    }

    /**
     * {@link #isthmusFlinkRows} through Flink's own {@code ColumnarRowData} over the same vectors,
     * which builds a {@code Bytes} view and a wrapping memory segment for every string: what the
     * source's {@code ArrowRowData} saves.
     */
    @Benchmark
    public long isthmusFlinkColumnarRowData() {
        long sum = 0;
        try (NativeParquetFile parquet = NativeParquetFile.open(file);
                NativeParquetScan scan = parquet.scan(ScanOptions.of(BidsParquetFile.SCHEMA), TRACKER)) {
            while (scan.hasNext()) {
                try (ArrowColumnarBatch batch = scan.next()) {
                    ColumnarRowData row = new ColumnarRowData(batch.batch());
                    sum += readRows(row, row::setRowId, batch.numRows());
                }
            }
        }
        return sum;
    }

    /**
     * The native source's binary rows, its default for DataStream jobs: each batch transposed into
     * Flink's {@code BinaryRowData} layout as the source's fetcher transposes a whole batch, every
     * value read through one {@code BinaryRowData} pointed at each row in turn. A loop of its own,
     * so that its call sites see one row class whichever legs share a fork.
     */
    @Benchmark
    public long isthmusBinaryRows() {
        long sum = 0;
        BinaryRowData row = new BinaryRowData(BidsParquetFile.SCHEMA.columns().size());
        try (NativeParquetFile parquet = NativeParquetFile.open(file);
                NativeParquetScan scan = parquet.scan(ScanOptions.of(BidsParquetFile.SCHEMA), TRACKER)) {
            while (scan.hasNext()) {
                try (ArrowColumnarBatch batch = scan.next()) {
                    transposer.transpose(batch.batch().columns, null, batch.numRows(), binaryRows);
                    for (int i = 0, n = binaryRows.count(); i < n; i++) {
                        binaryRows.pointTo(row, i);
                        sum += row.getLong(0) + row.getLong(1) + row.getLong(2);
                        sum += touch(row.getString(3)) + touch(row.getString(4)) + touch(row.getString(6));
                        sum += row.getTimestamp(5, 6).getMillisecond();
                    }
                }
            }
        }
        return sum;
    }

    /**
     * Isthmus as an Arrow consumer reads it: every value of every column straight from the
     * imported buffers (validity bit, value; offsets and the string's length, first and last
     * byte), column by column, as the column-reader leg does with parquet-java.
     */
    @Benchmark
    public long isthmusArrowBuffers() {
        long sum = 0;
        try (NativeParquetFile parquet = NativeParquetFile.open(file);
                NativeParquetScan scan = parquet.scan(ScanOptions.of(BidsParquetFile.SCHEMA), TRACKER)) {
            while (scan.hasNext()) {
                try (ArrowColumnarBatch batch = scan.next()) {
                    ArrowArrayView struct = batch.array().view();
                    for (int c = 0; c < struct.childCount(); c++) {
                        ArrowArrayView column = struct.child(c);
                        sum += column.field().type() instanceof ArrowType.Utf8 ? strings(column) : longs(column);
                    }
                }
            }
        }
        return sum;
    }

    private static boolean valid(MemorySegment validity, long i) {
        return validity == null || (validity.get(ValueLayout.JAVA_BYTE, i >>> 3) & (1 << (i & 7))) != 0;
    }

    private static long longs(ArrowArrayView column) {
        return longs(column.validity(), column.buffer(1), column.offset(), column.length());
    }

    /** The one value loop of every leg that reads Arrow buffers, whoever produced them. */
    private static long longs(MemorySegment validity, MemorySegment values, long offset, long length) {
        long sum = 0;
        for (long i = offset, end = i + length; i < end; i++) {
            if (valid(validity, i)) {
                sum += values.getAtIndex(ValueLayout.JAVA_LONG_UNALIGNED, i);
            }
        }
        return sum;
    }

    private static long strings(ArrowArrayView column) {
        return strings(column.validity(), column.buffer(1), column.buffer(2), column.offset(), column.length());
    }

    private static long strings(
            MemorySegment validity, MemorySegment offsets, MemorySegment data, long offset, long length) {
        long sum = 0;
        for (long i = offset, end = i + length; i < end; i++) {
            if (valid(validity, i)) {
                int start = offsets.getAtIndex(ValueLayout.JAVA_INT_UNALIGNED, i);
                int stop = offsets.getAtIndex(ValueLayout.JAVA_INT_UNALIGNED, i + 1);
                if (stop > start) {
                    sum += stop
                            - start
                            + data.get(ValueLayout.JAVA_BYTE, start)
                            + data.get(ValueLayout.JAVA_BYTE, stop - 1);
                }
            }
        }
        return sum;
    }

    /**
     * Arrow C++ (arrow-dataset's Parquet scanner, through its JNI bindings) in batches of the
     * native leg's size, every value read by the same loops as {@link #isthmusArrowBuffers}
     * over the buffers Arrow Java imports: one file open and scan per operation, as the native
     * legs do. Its checksum equals {@link #isthmusArrowBuffers}'s and
     * {@link #parquetJavaColumnReader}'s (timestamps as their raw micros); {@link ArrowCpp}
     * checks that before the first measurement.
     */
    @Benchmark
    public long arrowCpp(ArrowCpp arrow) {
        return arrow.scan(file);
    }

    /**
     * The Arrow C++ leg's state: its allocator, its thread limits and the check that its values
     * are the other legs'. Only the forks that run {@link #arrowCpp} load Arrow C++.
     *
     * <p>Threads: Java reaches none of Arrow C++'s thread settings. arrow-dataset 18.3's JNI
     * scanner takes only columns, filter, batch size and (for CSV only) fragment options; it
     * leaves {@code ScanOptions.use_threads} at false, the Parquet reader's properties at their
     * defaults, and has no call for {@code arrow::SetCpuThreadPoolCapacity}. What remains are the
     * environment variables Arrow C++ reads when it creates its two thread pools, on first use:
     * {@code OMP_NUM_THREADS} (CPU pool) and {@code ARROW_IO_THREADS} (I/O pool). A JMH fork
     * cannot be given an environment, so this sets both to 1 with libc's {@code setenv} through
     * FFM before Arrow C++ starts, unless the environment already sets them. Even then the scan is
     * not on the calling thread: Arrow C++ decodes on a pool thread of its own while the Java
     * thread imports and reads the previous batches, so this leg may use a little more than one
     * core. The setup prints each thread Arrow started and its CPU time in one scan.
     */
    @State(Scope.Benchmark)
    public static class ArrowCpp {
        private static final String[] COLUMNS = BidsParquetFile.SCHEMA.columns().stream()
                .map(org.apache.iceberg.types.Types.NestedField::name)
                .toArray(String[]::new);

        private BufferAllocator allocator;

        @Setup(Level.Trial)
        public void setUp(DecodeBenchmark benchmark) throws IOException {
            String cpu = limitThreads("OMP_NUM_THREADS");
            String io = limitThreads("ARROW_IO_THREADS");
            allocator = new RootAllocator();
            Path file = benchmark.file;
            Map<String, String> before = threads();
            long sum = scan(file);
            Map<String, Long> cpuBefore = threadCpuMillis();
            long ownBefore = ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime();
            long again = scan(file);
            long own = (ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime() - ownBefore) / 1_000_000;
            Map<String, Long> cpuAfter = threadCpuMillis();
            long nativeSum = benchmark.isthmusArrowBuffers();
            long stockSum = benchmark.parquetJavaColumnReader();
            if (sum != again || sum != nativeSum || sum != stockSum) {
                throw new IllegalStateException(String.format(
                        Locale.ROOT,
                        "Arrow C++ read other values: checksums %d and %d, Isthmus %d, parquet-java %d",
                        sum,
                        again,
                        nativeSum,
                        stockSum));
            }
            StringBuilder started = new StringBuilder();
            threads().forEach((tid, name) -> {
                if (!before.containsKey(tid)) {
                    started.append(String.format(
                            Locale.ROOT,
                            " [%s %s: %d ms]",
                            tid,
                            name,
                            cpuAfter.getOrDefault(tid, 0L) - cpuBefore.getOrDefault(tid, 0L)));
                }
            });
            System.out.printf(
                    Locale.ROOT,
                    "%narrow-dataset: OMP_NUM_THREADS=%s ARROW_IO_THREADS=%s; checksum %d (= Isthmus, = parquet-java); "
                            + "second scan: %d ms CPU on the calling thread; threads started since Arrow C++ "
                            + "loaded, with their CPU in that scan:%s%n",
                    cpu,
                    io,
                    sum,
                    own,
                    started.length() == 0 ? " none" : started);
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            allocator.close();
        }

        long scan(Path file) {
            long sum = 0;
            try (DatasetFactory factory = new FileSystemDatasetFactory(
                            allocator,
                            NativeMemoryPool.getDefault(),
                            FileFormat.PARQUET,
                            file.toUri().toString());
                    Dataset dataset = factory.finish();
                    Scanner scanner = dataset.newScan(
                            new org.apache.arrow.dataset.scanner.ScanOptions.Builder(ScanOptions.DEFAULT_BATCH_SIZE)
                                    .columns(Optional.of(COLUMNS))
                                    .build());
                    ArrowReader reader = scanner.scanBatches()) {
                while (reader.loadNextBatch()) {
                    VectorSchemaRoot root = reader.getVectorSchemaRoot();
                    for (FieldVector column : root.getFieldVectors()) {
                        sum += column instanceof VarCharVector strings ? strings(strings) : longs(column);
                    }
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            } catch (Exception e) {
                throw new IllegalStateException("arrow-dataset scan of " + file + " failed", e);
            }
            return sum;
        }

        /** Bigint and timestamp[us] columns: 8-byte values. */
        private static long longs(FieldVector column) {
            if (!(column instanceof BaseFixedWidthVector fixed) || fixed.getTypeWidth() != Long.BYTES) {
                throw new IllegalStateException("unexpected column " + column.getField());
            }
            int n = column.getValueCount();
            return DecodeBenchmark.longs(validity(column), segment(column.getDataBuffer()), 0, n);
        }

        private static long strings(VarCharVector column) {
            int n = column.getValueCount();
            return DecodeBenchmark.strings(
                    validity(column), segment(column.getOffsetBuffer()), segment(column.getDataBuffer()), 0, n);
        }

        /** Null when every value is valid, as the C Data Interface allows and the loops expect. */
        private static MemorySegment validity(FieldVector column) {
            return column.getNullCount() == 0 ? null : segment(column.getValidityBuffer());
        }

        private static MemorySegment segment(ArrowBuf buf) {
            return MemorySegment.ofAddress(buf.memoryAddress()).reinterpret(buf.capacity());
        }

        /** Sets {@code name} to 1 unless the environment has it; returns the value in effect. */
        private static String limitThreads(String name) {
            String set = System.getenv(name);
            if (set != null) {
                return set;
            }
            Linker linker = Linker.nativeLinker();
            MethodHandle setenv = linker.downcallHandle(
                    linker.defaultLookup().find("setenv").orElseThrow(),
                    FunctionDescriptor.of(
                            ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.ADDRESS, ValueLayout.JAVA_INT));
            try (Arena arena = Arena.ofConfined()) {
                int rc = (int) setenv.invokeExact(arena.allocateFrom(name), arena.allocateFrom("1"), 0);
                if (rc != 0) {
                    throw new IllegalStateException("setenv(" + name + ") failed: " + rc);
                }
            } catch (Throwable t) {
                throw t instanceof RuntimeException r ? r : new IllegalStateException(t);
            }
            return "1 (set here)";
        }

        /** This process's OS threads: id to name. */
        private static Map<String, String> threads() throws IOException {
            Map<String, String> threads = new TreeMap<>();
            try (var tasks = java.nio.file.Files.list(Path.of("/proc/self/task"))) {
                for (Path task : (Iterable<Path>) tasks::iterator) {
                    try {
                        threads.put(
                                task.getFileName().toString(),
                                java.nio.file.Files.readString(task.resolve("comm"))
                                        .strip());
                    } catch (IOException gone) {
                        // the thread ended meanwhile
                    }
                }
            }
            return threads;
        }

        /** Each OS thread's user plus system CPU time so far, from /proc (clock ticks of 10 ms). */
        private static Map<String, Long> threadCpuMillis() throws IOException {
            Map<String, Long> cpu = new TreeMap<>();
            for (String tid : threads().keySet()) {
                try {
                    String stat = java.nio.file.Files.readString(Path.of("/proc/self/task", tid, "stat"));
                    String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                    cpu.put(tid, (Long.parseLong(fields[11]) + Long.parseLong(fields[12])) * 10);
                } catch (IOException gone) {
                    // the thread ended meanwhile
                }
            }
            return cpu;
        }
    }

    /**
     * Not a competitor: the native decode and the import of each batch, with no value read in
     * Java. The gap to {@link #isthmusFlinkRows} is what reading the values through Flink's
     * row interface costs.
     */
    @Benchmark
    public long isthmusDecodeOnly() {
        long rowsSeen = 0;
        try (NativeParquetFile parquet = NativeParquetFile.open(file);
                NativeParquetScan scan = parquet.scan(ScanOptions.of(BidsParquetFile.SCHEMA), TRACKER)) {
            while (scan.hasNext()) {
                try (ArrowColumnarBatch batch = scan.next()) {
                    rowsSeen += batch.numRows();
                }
            }
        }
        return rowsSeen;
    }

    /** Every value through Flink's columnar rows; the same sum as {@link #stockRowScan}. */
    static long readAll(NativeParquetFile parquet, boolean dictionaries) {
        long sum = 0;
        try (NativeParquetScan scan =
                parquet.scan(ScanOptions.of(BidsParquetFile.SCHEMA).withDictionaries(dictionaries), TRACKER)) {
            while (scan.hasNext()) {
                try (ArrowColumnarBatch batch = scan.next()) {
                    ArrowRowData row = batch.row(0);
                    sum += readRows(row, row::setRowId, batch.numRows());
                }
            }
        }
        return sum;
    }

    /**
     * Every value of {@code rows} rows of a bid batch through {@code row}, moved along it by
     * {@code moveTo}; each leg runs in a fork of its own, so both calls stay monomorphic.
     */
    private static long readRows(RowData row, IntConsumer moveTo, int rows) {
        long sum = 0;
        for (int i = 0; i < rows; i++) {
            moveTo.accept(i);
            sum += row.getLong(0) + row.getLong(1) + row.getLong(2);
            sum += touch(row.getString(3)) + touch(row.getString(4)) + touch(row.getString(6));
            sum += row.getTimestamp(5, 6).getMillisecond();
        }
        return sum;
    }

    /** What Iceberg's Flink source runs per row: parquet-java pages into RowData objects. */
    @Benchmark
    public long icebergFlinkRowReader() throws IOException {
        return stockRowScan(file);
    }

    static long stockRowScan(Path file) throws IOException {
        long sum = 0;
        try (CloseableIterable<RowData> rowsRead = Parquet.read(Files.localInput(file.toFile()))
                .project(BidsParquetFile.SCHEMA)
                .createReaderFunc(fileSchema -> FlinkParquetReaders.buildReader(BidsParquetFile.SCHEMA, fileSchema))
                .build()) {
            for (RowData row : rowsRead) {
                sum += row.getLong(0) + row.getLong(1) + row.getLong(2);
                sum += touch(row.getString(3)) + touch(row.getString(4)) + touch(row.getString(6));
                sum += row.getTimestamp(5, 6).getMillisecond();
            }
        }
        return sum;
    }

    /** A string's length and its first and last byte: the bytes must exist, with no per-byte loop, read in place where they already are. */
    static long touch(StringData s) {
        if (s instanceof BinaryStringData b) {
            int n = b.getSizeInBytes();
            return n == 0 ? 0 : n + b.byteAt(0) + b.byteAt(n - 1);
        }
        byte[] bytes = s.toBytes();
        return bytes.length == 0 ? 0 : bytes.length + bytes[0] + bytes[bytes.length - 1];
    }

    /** parquet-java's column API, no row assembly: the cheapest way parquet-java can be driven. */
    @Benchmark
    public long parquetJavaColumnReader() throws IOException {
        long sum = 0;
        try (ParquetFileReader reader = ParquetFileReader.open(new LocalInputFile(file))) {
            MessageType schema = reader.getFooter().getFileMetaData().getSchema();
            String createdBy = reader.getFooter().getFileMetaData().getCreatedBy();
            PageReadStore rowGroup;
            while ((rowGroup = reader.readNextRowGroup()) != null) {
                ColumnReadStoreImpl store =
                        new ColumnReadStoreImpl(rowGroup, new NoopGroupConverter(), schema, createdBy);
                for (ColumnDescriptor column : schema.getColumns()) {
                    ColumnReader values = store.getColumnReader(column);
                    int maxDefinition = column.getMaxDefinitionLevel();
                    boolean binary = column.getPrimitiveType().getPrimitiveTypeName() == PrimitiveTypeName.BINARY;
                    for (long i = values.getTotalValueCount(); i > 0; i--) {
                        if (values.getCurrentDefinitionLevel() == maxDefinition) {
                            if (binary) {
                                Binary b = values.getBinary();
                                int n = b.length();
                                sum += n == 0 ? 0 : n + b.getBytesUnsafe()[0] + b.getBytesUnsafe()[n - 1];
                            } else {
                                sum += values.getLong();
                            }
                        }
                        values.consume();
                    }
                }
            }
        }
        return sum;
    }

    /** ColumnReadStoreImpl wants converters for record assembly, which the column API never calls. */
    private static final class NoopGroupConverter extends GroupConverter {
        private static final PrimitiveConverter NOOP = new PrimitiveConverter() {};

        @Override
        public Converter getConverter(int fieldIndex) {
            return NOOP;
        }

        @Override
        public void start() {}

        @Override
        public void end() {}
    }
}
