package dev.isthmus.bench;

import com.github.luben.zstd.Zstd;
import dev.isthmus.ffm.Codec;
import java.io.IOException;
import java.io.InputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.parquet.format.ColumnChunk;
import org.apache.parquet.format.ColumnMetaData;
import org.apache.parquet.format.CompressionCodec;
import org.apache.parquet.format.FileMetaData;
import org.apache.parquet.format.PageHeader;
import org.apache.parquet.format.RowGroup;
import org.apache.parquet.format.Util;
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
 * The floor under {@link DecodeBenchmark}: decompressing every page of the same bids file and
 * nothing else, as the issue defines it (zstd-jni, the binding parquet-java uses), and through
 * Isthmus's own statically linked zstd. The compressed pages are read into memory first, so
 * neither leg pays for I/O, page headers or CRCs; each decompresses into one reused buffer.
 * Run it in the same JMH invocation as {@code DecodeBenchmark} so the ratios share a machine state.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3)
@Measurement(iterations = 7)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow",
        "-Xmx4g"})
public class DecodeFloorBenchmark {
    @Param("2000000")
    public long rows;

    /** One compressed page: its bytes and the size its header promises. */
    private record Page(byte[] compressed, MemorySegment nativeCompressed, int uncompressedSize) {}

    private Arena arena;
    private List<Page> pages;
    private byte[] heapOutput;
    private MemorySegment nativeOutput;

    @Setup(Level.Trial)
    public void setUp() throws IOException {
        arena = Arena.ofShared();
        pages = readPages(BidsParquetFile.ensure(rows, 1), arena);
        int largest = pages.stream().mapToInt(Page::uncompressedSize).max().orElse(0);
        heapOutput = new byte[largest];
        nativeOutput = arena.allocate(largest, 64);
        long expected = pages.stream().mapToLong(Page::uncompressedSize).sum();
        if (zstdJniPages() != expected || isthmusZstdPages() != expected) {
            throw new IllegalStateException("a leg did not decompress the " + expected + " bytes the page headers promise");
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        arena.close();
    }

    /** zstd-jni into a heap array: the definition of the floor. */
    @Benchmark
    public long zstdJniPages() {
        long total = 0;
        for (Page page : pages) {
            total += Zstd.decompressByteArray(heapOutput, 0, page.uncompressedSize(), page.compressed(), 0,
                    page.compressed().length);
        }
        return total;
    }

    /** The same pages through Isthmus's zstd (one FFM call per page), native memory to native memory. */
    @Benchmark
    public long isthmusZstdPages() {
        long total = 0;
        for (Page page : pages) {
            total += Codec.ZSTD.decompress(page.nativeCompressed(), nativeOutput.asSlice(0, page.uncompressedSize()));
        }
        return total;
    }

    /** Every page of every column chunk (dictionary pages included), checked to be zstd. */
    private static List<Page> readPages(Path file, Arena arena) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
            FileMetaData footer = readFooter(channel);
            List<Page> pages = new ArrayList<>();
            for (RowGroup group : footer.getRow_groups()) {
                for (ColumnChunk chunk : group.getColumns()) {
                    ColumnMetaData column = chunk.getMeta_data();
                    if (column.getCodec() != CompressionCodec.ZSTD) {
                        throw new IllegalStateException(file + ": column " + column.getPath_in_schema()
                                + " is " + column.getCodec() + ", not ZSTD");
                    }
                    long start = column.isSetDictionary_page_offset() ? column.getDictionary_page_offset()
                            : column.getData_page_offset();
                    ByteBuffer bytes = read(channel, start, Math.toIntExact(column.getTotal_compressed_size()));
                    try (InputStream in = new ByteBufferInput(bytes)) {
                        while (bytes.hasRemaining()) {
                            PageHeader header = Util.readPageHeader(in);
                            byte[] body = new byte[header.getCompressed_page_size()];
                            bytes.get(body);
                            MemorySegment copy = arena.allocate(body.length, 64);
                            MemorySegment.copy(MemorySegment.ofArray(body), 0, copy, 0, body.length);
                            pages.add(new Page(body, copy, header.getUncompressed_page_size()));
                        }
                    }
                }
            }
            return pages;
        }
    }

    private static FileMetaData readFooter(FileChannel channel) throws IOException {
        long size = channel.size();
        ByteBuffer tail = read(channel, size - 8, 8).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        int footerLength = tail.getInt();
        try (InputStream in = new ByteBufferInput(read(channel, size - 8 - footerLength, footerLength))) {
            return Util.readFileMetaData(in);
        }
    }

    private static ByteBuffer read(FileChannel channel, long position, int length) throws IOException {
        ByteBuffer buffer = ByteBuffer.allocate(length);
        while (buffer.hasRemaining()) {
            if (channel.read(buffer, position + buffer.position()) < 0) {
                throw new IOException("unexpected end of file at " + (position + buffer.position()));
            }
        }
        return buffer.flip();
    }

    /** A stream over a buffer that advances it, so page bodies can be sliced after each header. */
    private static final class ByteBufferInput extends InputStream {
        private final ByteBuffer buffer;

        ByteBufferInput(ByteBuffer buffer) {
            this.buffer = buffer;
        }

        @Override
        public int read() {
            return buffer.hasRemaining() ? buffer.get() & 0xff : -1;
        }

        @Override
        public int read(byte[] target, int offset, int length) {
            if (!buffer.hasRemaining()) {
                return -1;
            }
            int n = Math.min(length, buffer.remaining());
            buffer.get(target, offset, n);
            return n;
        }
    }
}
