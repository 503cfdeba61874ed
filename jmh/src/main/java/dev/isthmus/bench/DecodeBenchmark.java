package dev.isthmus.bench;

import dev.isthmus.arrow.cdata.ArrowArrayView;
import dev.isthmus.arrow.memory.MemoryTracker;
import dev.isthmus.arrow.types.ArrowType;
import dev.isthmus.arrow.vector.ArrowColumnarBatch;
import dev.isthmus.iceberg.source.parquet.NativeParquetFile;
import dev.isthmus.iceberg.source.parquet.NativeParquetScan;
import dev.isthmus.iceberg.source.parquet.ScanOptions;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.binary.BinaryStringData;
import org.apache.flink.table.data.columnar.ColumnarRowData;
import org.apache.iceberg.Files;
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
import org.openjdk.jmh.annotations.Warmup;

/**
 * Decoding the bids file, one full single-threaded scan per operation, every value touched:
 * longs summed; strings by length plus their first and last byte (the bytes must exist,
 * without adding a per-byte loop that would dilute every leg alike); timestamps by their
 * value. Rows per second = rows / score. The native legs read through the same Flink
 * {@code ColumnarRowData} the native source emits.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3)
@Measurement(iterations = 7)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow",
        "-Xmx4g"})
public class DecodeBenchmark {
    @Param("2000000")
    public long rows;

    private static final MemoryTracker TRACKER = MemoryTracker.root().child("DecodeBenchmark");

    private Path file;

    @Setup(Level.Trial)
    public void setUp() {
        file = BidsParquetFile.ensure(rows, 1);
    }

    /** Isthmus: the native decoder into Arrow, read through Flink's columnar rows. */
    @Benchmark
    public long isthmusNative() {
        try (NativeParquetFile parquet = NativeParquetFile.open(file)) {
            return readAll(parquet, false);
        }
    }

    /** The same, with dictionary-encoded strings kept as Arrow dictionaries. */
    @Benchmark
    public long isthmusNativeDictionaries() {
        try (NativeParquetFile parquet = NativeParquetFile.open(file)) {
            return readAll(parquet, true);
        }
    }

    /** The same through Iceberg's FileIO: Java reads the column chunks into the library's buffers. */
    @Benchmark
    public long isthmusNativeFileIo() {
        try (NativeParquetFile parquet = NativeParquetFile.open(Files.localInput(file.toFile()))) {
            return readAll(parquet, false);
        }
    }

    /**
     * Isthmus as an Arrow consumer reads it: every value of every column straight from the
     * imported buffers (validity bit, value; offsets and the string's length, first and last
     * byte), column by column, as the column-reader leg does with parquet-java.
     */
    @Benchmark
    public long isthmusNativeColumnar() {
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
        MemorySegment validity = column.validity();
        MemorySegment values = column.buffer(1);
        long sum = 0;
        for (long i = column.offset(), end = i + column.length(); i < end; i++) {
            if (valid(validity, i)) {
                sum += values.getAtIndex(ValueLayout.JAVA_LONG_UNALIGNED, i);
            }
        }
        return sum;
    }

    private static long strings(ArrowArrayView column) {
        MemorySegment validity = column.validity();
        MemorySegment offsets = column.buffer(1);
        MemorySegment data = column.buffer(2);
        long sum = 0;
        for (long i = column.offset(), end = i + column.length(); i < end; i++) {
            if (valid(validity, i)) {
                int start = offsets.getAtIndex(ValueLayout.JAVA_INT_UNALIGNED, i);
                int stop = offsets.getAtIndex(ValueLayout.JAVA_INT_UNALIGNED, i + 1);
                if (stop > start) {
                    sum += stop - start + data.get(ValueLayout.JAVA_BYTE, start) + data.get(ValueLayout.JAVA_BYTE, stop - 1);
                }
            }
        }
        return sum;
    }

    /**
     * Not a competitor: the native decode and the import of each batch, with no value read in
     * Java. The gap to {@link #isthmusNative} is what reading the values through Flink's
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
        try (NativeParquetScan scan = parquet.scan(ScanOptions.of(BidsParquetFile.SCHEMA).withDictionaries(dictionaries),
                TRACKER)) {
            while (scan.hasNext()) {
                try (ArrowColumnarBatch batch = scan.next()) {
                    ColumnarRowData row = new ColumnarRowData(batch.batch());
                    for (int i = 0, n = batch.numRows(); i < n; i++) {
                        row.setRowId(i);
                        sum += row.getLong(0) + row.getLong(1) + row.getLong(2);
                        sum += touch(row.getString(3)) + touch(row.getString(4)) + touch(row.getString(6));
                        sum += row.getTimestamp(5, 6).getMillisecond();
                    }
                }
            }
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

    /** Length, first and last byte, read in place where the string's bytes already are. */
    private static long touch(StringData s) {
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
                ColumnReadStoreImpl store = new ColumnReadStoreImpl(rowGroup, new NoopGroupConverter(), schema, createdBy);
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
