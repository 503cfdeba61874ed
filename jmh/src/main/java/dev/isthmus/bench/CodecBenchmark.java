package dev.isthmus.bench;

import dev.isthmus.ffm.Codec;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
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
 * Native codecs through the FFM boundary on an 8 MiB block of Nexmark-like bids. Scores are
 * blocks per second; {@link StockZstdBenchmark} is the stock comparison for zstd.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(
        value = 1,
        jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED"})
public class CodecBenchmark {
    static final int BLOCK = 8 << 20;
    static final int ZSTD_LEVEL = 3;

    @Param({"ZSTD", "LZ4_RAW", "SNAPPY", "GZIP"})
    public String codec;

    private Arena arena;
    private Codec nativeCodec;
    private MemorySegment input;
    private MemorySegment compressed;
    private long compressedSize;
    private MemorySegment output;

    @Setup(Level.Trial)
    public void setUp() {
        arena = Arena.ofShared();
        nativeCodec = Codec.byName(codec);
        input = arena.allocate(BLOCK, 64);
        NexmarkBids.fillCsv(input, 1);
        compressed = arena.allocate(nativeCodec.maxCompressedSize(BLOCK), 64);
        compressedSize = nativeCodec.compress(level(), input, compressed);
        output = arena.allocate(BLOCK, 64);
    }

    private int level() {
        return nativeCodec == Codec.ZSTD ? ZSTD_LEVEL : Codec.DEFAULT_LEVEL;
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        arena.close();
    }

    @Benchmark
    public long nativeCompress() {
        return nativeCodec.compress(level(), input, compressed);
    }

    @Benchmark
    public long nativeDecompress() {
        return nativeCodec.decompress(compressed.asSlice(0, compressedSize), output);
    }
}
