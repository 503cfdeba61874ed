package dev.isthmus.bench;

import com.github.luben.zstd.Zstd;
import com.github.luben.zstd.ZstdCompressCtx;
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
 * The floor under {@link EncodeBenchmark}: compressing every page of the bids file at zstd level
 * 3 and nothing else, with zstd-jni (what parquet-java compresses with) and with Isthmus's zstd.
 * Both writers compress these same pages (the native writer's pages are byte-identical to
 * parquet-java's), so no single-threaded writer at this level can beat this time, and the
 * stock writer's time over it bounds the ratio any encoder can reach against it.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3)
@Measurement(iterations = 7)
@Fork(
        value = 1,
        jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow", "-Xmx4g"})
public class EncodeFloorBenchmark {
    @Param("2000000")
    public long rows;

    private static final int LEVEL = 3;

    private Arena arena;
    private List<BidsPages.Page> pages;
    private byte[] heapOutput;
    private MemorySegment nativeOutput;
    /** One context for every page, as Isthmus keeps one per thread: the legs differ in the library only. */
    private ZstdCompressCtx zstdJni;

    @Setup(Level.Trial)
    public void setUp() throws IOException {
        arena = Arena.ofShared();
        pages = BidsPages.read(BidsParquetFile.ensure(rows, 1), arena);
        int largest =
                pages.stream().mapToInt(BidsPages.Page::uncompressedSize).max().orElse(0);
        heapOutput = new byte[(int) Zstd.compressBound(largest)];
        nativeOutput = arena.allocate(Codec.ZSTD.maxCompressedSize(largest), 64);
        zstdJni = new ZstdCompressCtx().setLevel(LEVEL);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        zstdJni.close();
        arena.close();
    }

    @Benchmark
    public long zstdJniCompressPages() {
        long total = 0;
        for (BidsPages.Page page : pages) {
            total += zstdJni.compressByteArray(
                    heapOutput, 0, heapOutput.length, page.uncompressed(), 0, page.uncompressed().length);
        }
        return total;
    }

    @Benchmark
    public long isthmusZstdCompressPages() {
        long total = 0;
        for (BidsPages.Page page : pages) {
            total += Codec.ZSTD.compress(LEVEL, page.nativeUncompressed(), nativeOutput);
        }
        return total;
    }
}
