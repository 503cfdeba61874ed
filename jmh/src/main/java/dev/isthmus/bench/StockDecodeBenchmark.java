package dev.isthmus.bench;

import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
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
 * The stock decoders on the bids file, one full single-threaded scan per operation, every
 * value touched: longs summed; strings by length plus their first and last byte (the bytes
 * must exist, without adding a per-byte loop that would dilute every leg alike); timestamps by
 * their value. Rows per second = rows / score.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3)
@Measurement(iterations = 7)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow",
        "-Xmx4g"})
public class StockDecodeBenchmark {
    @Param("2000000")
    public long rows;

    private Path file;

    @Setup(Level.Trial)
    public void setUp() {
        file = BidsParquetFile.ensure(rows, 1);
    }

    /** What Iceberg's Flink source runs per row: parquet-java pages into RowData objects. */
    @Benchmark
    public long icebergFlinkRowReader() throws IOException {
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

    private static long touch(StringData s) {
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
