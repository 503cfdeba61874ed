package dev.isthmus.bench;

import com.github.luben.zstd.Zstd;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The stock side of {@link CodecBenchmark} for zstd: zstd-jni, the binding parquet-java
 * compresses pages with, on the same block, level and direct buffers.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(
        value = 1,
        jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED"})
public class StockZstdBenchmark {
    private Arena arena;
    private ByteBuffer input;
    private ByteBuffer compressed;
    private ByteBuffer output;

    @Setup(Level.Trial)
    public void setUp() {
        arena = Arena.ofShared();
        MemorySegment block = arena.allocate(CodecBenchmark.BLOCK, 64);
        NexmarkBids.fillCsv(block, 1);
        input = block.asByteBuffer();
        compressed = ByteBuffer.allocateDirect((int) Zstd.compressBound(CodecBenchmark.BLOCK));
        output = ByteBuffer.allocateDirect(CodecBenchmark.BLOCK);
        Zstd.compress(compressed, input.duplicate(), CodecBenchmark.ZSTD_LEVEL);
        compressed.flip();
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        arena.close();
    }

    @Benchmark
    public long zstdJniCompress() {
        ByteBuffer target = compressed.duplicate().clear();
        return Zstd.compress(target, input.duplicate(), CodecBenchmark.ZSTD_LEVEL);
    }

    @Benchmark
    public long zstdJniDecompress() {
        ByteBuffer target = output.duplicate().clear();
        return Zstd.decompress(target, compressed.duplicate());
    }
}
