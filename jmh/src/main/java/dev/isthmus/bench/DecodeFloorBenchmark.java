package dev.isthmus.bench;

import com.github.luben.zstd.ZstdDecompressCtx;
import dev.isthmus.ffm.Codec;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.concurrent.TimeUnit;
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
 * nothing else, with zstd-jni (the binding parquet-java uses: the floor the decoder is held to) and
 * with Isthmus's own statically linked zstd. The compressed pages are read into memory first, so
 * neither leg pays for I/O, page headers or CRCs; each decompresses into one reused buffer.
 * Run it in the same JMH invocation as {@code DecodeBenchmark} so the ratios share a machine state.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3)
@Measurement(iterations = 7)
@Fork(
        value = 1,
        jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow", "-Xmx4g"})
public class DecodeFloorBenchmark {
    @Param("2000000")
    public long rows;

    private Arena arena;
    private List<BidsPages.Page> pages;
    private byte[] heapOutput;
    private MemorySegment nativeOutput;
    /** One context for every page, as Isthmus keeps one per thread: the legs differ in the library only. */
    private ZstdDecompressCtx zstdJni;

    @Setup(Level.Trial)
    public void setUp() throws IOException {
        arena = Arena.ofShared();
        pages = BidsPages.read(BidsParquetFile.ensure(rows, 1), arena);
        int largest =
                pages.stream().mapToInt(BidsPages.Page::uncompressedSize).max().orElse(0);
        heapOutput = new byte[largest];
        nativeOutput = arena.allocate(largest, 64);
        zstdJni = new ZstdDecompressCtx();
        long expected =
                pages.stream().mapToLong(BidsPages.Page::uncompressedSize).sum();
        if (zstdJniPages() != expected || isthmusZstdPages() != expected) {
            throw new IllegalStateException(
                    "a leg did not decompress the " + expected + " bytes the page headers promise");
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        zstdJni.close();
        arena.close();
    }

    /** zstd-jni into a heap array: the floor the decoder's target is stated against. */
    @Benchmark
    public long zstdJniPages() {
        long total = 0;
        for (BidsPages.Page page : pages) {
            total += zstdJni.decompressByteArray(
                    heapOutput, 0, page.uncompressedSize(), page.compressed(), 0, page.compressed().length);
        }
        return total;
    }

    /** The same pages through Isthmus's zstd (one FFM call per page), native memory to native memory. */
    @Benchmark
    public long isthmusZstdPages() {
        long total = 0;
        for (BidsPages.Page page : pages) {
            total += Codec.ZSTD.decompress(page.nativeCompressed(), nativeOutput.asSlice(0, page.uncompressedSize()));
        }
        return total;
    }
}
