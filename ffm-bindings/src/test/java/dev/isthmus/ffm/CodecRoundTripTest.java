package dev.isthmus.ffm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.SplittableRandom;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class CodecRoundTripTest {
    private static final long SIZE = 64L << 20;
    private static Arena arena;
    private static MemorySegment original;

    @BeforeAll
    static void fillBuffer() {
        arena = Arena.ofShared();
        original = arena.allocate(SIZE, 64);
        fillSemiCompressible(original, 42);
    }

    @AfterAll
    static void free() {
        arena.close();
    }

    /** Text-like records mixed with random bytes: every codec has work to do, none degenerates. */
    static void fillSemiCompressible(MemorySegment segment, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        String[] words = {"auction", "bidder", "price", "channel", "https://www.nexmark.com/", "extra", "2026-11-30"};
        long pos = 0;
        while (pos < segment.byteSize()) {
            if (random.nextInt(4) == 0) {
                segment.set(ValueLayout.JAVA_BYTE, pos++, (byte) random.nextInt());
            } else {
                byte[] word = words[random.nextInt(words.length)].getBytes();
                long n = Math.min(word.length, segment.byteSize() - pos);
                MemorySegment.copy(MemorySegment.ofArray(word), 0, segment, pos, n);
                pos += n;
            }
        }
    }

    /** Brotli's and gzip's top levels take minutes on 64 MiB; the round trip is what is tested here. */
    private static int testLevel(Codec codec) {
        return switch (codec) {
            case BROTLI -> 1;
            case GZIP -> 1;
            default -> Codec.DEFAULT_LEVEL;
        };
    }

    @ParameterizedTest
    @EnumSource(Codec.class)
    void roundTrips64MiBOffHeap(Codec codec) {
        try (Arena local = Arena.ofConfined()) {
            MemorySegment compressed = local.allocate(codec.maxCompressedSize(SIZE));
            long compressedSize = codec.compress(testLevel(codec), original, compressed);
            if (codec != Codec.UNCOMPRESSED) {
                assertTrue(compressedSize < SIZE, codec + " did not compress: " + compressedSize);
            }
            MemorySegment restored = local.allocate(SIZE);
            long restoredSize = codec.decompress(compressed.asSlice(0, compressedSize), restored);
            assertEquals(SIZE, restoredSize);
            assertEquals(-1L, original.mismatch(restored), codec + " changed the bytes");
        }
    }

    @ParameterizedTest
    @EnumSource(Codec.class)
    void tooSmallOutputIsAClearError(Codec codec) {
        try (Arena local = Arena.ofConfined()) {
            MemorySegment input = original.asSlice(0, 1 << 16);
            MemorySegment compressed = local.allocate(codec.maxCompressedSize(input.byteSize()));
            long n = codec.compress(Codec.DEFAULT_LEVEL, input, compressed);
            MemorySegment small = local.allocate(input.byteSize() - 1);
            var e = assertThrows(
                    NativeException.BufferTooSmall.class, () -> codec.decompress(compressed.asSlice(0, n), small));
            assertTrue(e.getMessage().contains(String.valueOf(small.byteSize())), e.getMessage());

            MemorySegment tiny = local.allocate(8);
            assertThrows(NativeException.BufferTooSmall.class, () -> codec.compress(Codec.DEFAULT_LEVEL, input, tiny));
        }
    }

    @ParameterizedTest
    @EnumSource(value = Codec.class, names = "UNCOMPRESSED", mode = EnumSource.Mode.EXCLUDE)
    void garbageInputIsCorruptDataNotACrash(Codec codec) {
        try (Arena local = Arena.ofConfined()) {
            MemorySegment garbage = local.allocate(4096);
            SplittableRandom random = new SplittableRandom(7);
            for (long i = 0; i < garbage.byteSize(); i++) {
                garbage.set(ValueLayout.JAVA_BYTE, i, (byte) random.nextInt());
            }
            MemorySegment out = local.allocate(1 << 20);
            NativeException e = assertThrows(NativeException.class, () -> codec.decompress(garbage, out));
            assertTrue(
                    e instanceof NativeException.CorruptData || e instanceof NativeException.BufferTooSmall,
                    codec + " reported " + e);
            assertTrue(!e.getMessage().isBlank());
        }
    }

    @Test
    void emptyInputRoundTrips() {
        try (Arena local = Arena.ofConfined()) {
            for (Codec codec : Codec.values()) {
                MemorySegment compressed = local.allocate(codec.maxCompressedSize(0) + 1);
                long n = codec.compress(Codec.DEFAULT_LEVEL, MemorySegment.NULL, compressed);
                MemorySegment out = local.allocate(1);
                assertEquals(0, codec.decompress(compressed.asSlice(0, n), out.asSlice(0, 0)), codec.toString());
            }
        }
    }

    @Test
    void heapSegmentsAreRefusedBeforeTheDowncall() {
        var e = assertThrows(
                IllegalArgumentException.class,
                () -> Codec.ZSTD.compress(0, MemorySegment.ofArray(new byte[16]), original));
        assertTrue(e.getMessage().contains("input must be a native"), e.getMessage());
    }

    @Test
    void outOfRangeLevelIsInvalidArgument() {
        try (Arena local = Arena.ofConfined()) {
            MemorySegment out = local.allocate(1 << 20);
            var e = assertThrows(
                    NativeException.InvalidArgument.class,
                    () -> Codec.ZSTD.compress(1000, original.asSlice(0, 1024), out));
            assertTrue(e.getMessage().contains("1000"), e.getMessage());
        }
    }

    @Test
    void codecNamesResolve() {
        assertEquals(Codec.LZ4_RAW, Codec.byName(" lz4_raw "));
        var e = assertThrows(IllegalArgumentException.class, () -> Codec.byName("lzo"));
        assertTrue(e.getMessage().contains("zstd"), e.getMessage());
    }
}
