package dev.isthmus.ffm;

import dev.isthmus.ffm.gen.isthmus_h;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Locale;

/**
 * Parquet's compression codecs as implemented by the native library (the reference C
 * libraries, statically linked). Buffers are native segments; nothing is copied on the way.
 */
public enum Codec {
    UNCOMPRESSED(isthmus_h.ISTHMUS_CODEC_UNCOMPRESSED()),
    SNAPPY(isthmus_h.ISTHMUS_CODEC_SNAPPY()),
    GZIP(isthmus_h.ISTHMUS_CODEC_GZIP()),
    BROTLI(isthmus_h.ISTHMUS_CODEC_BROTLI()),
    /** Hadoop's framing of LZ4 blocks: Parquet's deprecated {@code LZ4}. */
    LZ4_HADOOP(isthmus_h.ISTHMUS_CODEC_LZ4_HADOOP()),
    ZSTD(isthmus_h.ISTHMUS_CODEC_ZSTD()),
    LZ4_RAW(isthmus_h.ISTHMUS_CODEC_LZ4_RAW());

    /** Asks each codec for its own default level. */
    public static final int DEFAULT_LEVEL = 0;

    private final int id;

    Codec(int id) {
        this.id = id;
    }

    /** The codec's number in Parquet's {@code CompressionCodec} enum. */
    public int parquetId() {
        return id;
    }

    /** Looks a codec up by name, case-insensitively, naming the accepted ones on failure. */
    public static Codec byName(String name) {
        try {
            return valueOf(name.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(
                    "unknown codec '" + name + "'; expected one of "
                            + java.util.Arrays.toString(values()).toLowerCase(Locale.ROOT),
                    e);
        }
    }

    /** The largest output {@link #compress} can produce for {@code inputSize} bytes. */
    public long maxCompressedSize(long inputSize) {
        try (NativeCall call = NativeCall.open()) {
            MemorySegment bound = call.longSlot();
            call.check(isthmus_h.isthmus_codec_max_compressed_size(id, inputSize, bound, call.error()));
            return bound.get(ValueLayout.JAVA_LONG, 0);
        }
    }

    /**
     * Compresses all of {@code input} into the start of {@code output}.
     *
     * @param level the codec's own level, or {@link #DEFAULT_LEVEL}
     * @return the number of bytes written to {@code output}
     */
    public long compress(int level, MemorySegment input, MemorySegment output) {
        return transform(
                input,
                output,
                (error, written) -> isthmus_h.isthmus_codec_compress(
                        id, level, input, input.byteSize(), output, output.byteSize(), written, error));
    }

    /**
     * Decompresses all of {@code input} into the start of {@code output}, which must be large
     * enough for the whole result (Parquet pages record their uncompressed size).
     *
     * @return the number of bytes written to {@code output}
     */
    public long decompress(MemorySegment input, MemorySegment output) {
        return transform(
                input,
                output,
                (error, written) -> isthmus_h.isthmus_codec_decompress(
                        id, input, input.byteSize(), output, output.byteSize(), written, error));
    }

    /** One native input-to-output call: {@code (error, written) -> status}. */
    private interface NativeTransform {
        int call(MemorySegment error, MemorySegment written);
    }

    private static long transform(MemorySegment input, MemorySegment output, NativeTransform call) {
        requireNative(input, "input");
        requireNative(output, "output");
        try (NativeCall scratch = NativeCall.open()) {
            MemorySegment written = scratch.longSlot();
            scratch.check(call.call(scratch.error(), written));
            return written.get(ValueLayout.JAVA_LONG, 0);
        }
    }

    private static void requireNative(MemorySegment segment, String name) {
        if (!segment.isNative()) {
            throw new IllegalArgumentException(name + " must be a native (off-heap) segment; got a heap segment of "
                    + segment.byteSize() + " bytes");
        }
    }
}
