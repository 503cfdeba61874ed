package dev.isthmus.ffm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.isthmus.ffm.gen.isthmus_error;
import dev.isthmus.ffm.gen.isthmus_h;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.Test;

/** What happens at the boundary when the caller or the library misbehaves. */
class NativeBoundaryTest {

    @Test
    void aPanicBecomesAnExceptionAndTheLibraryKeepsWorking() {
        for (int i = 0; i < 100; i++) {
            String message = "deliberate panic #" + i + " ✓";
            var e = assertThrows(NativeException.Internal.class, () -> Diagnostics.panicInNative(message));
            assertTrue(e.getMessage().contains(message), e.getMessage());
            assertEquals(Status.INTERNAL, e.status());
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment in = arena.allocateFrom("still alive after panics");
            MemorySegment out = arena.allocate(Codec.ZSTD.maxCompressedSize(in.byteSize()));
            assertTrue(Codec.ZSTD.compress(3, in, out) > 0);
        }
    }

    @Test
    void nullInputWithALengthIsInvalidArgumentNamingTheParameter() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment error = isthmus_error.allocate(arena);
            MemorySegment out = arena.allocate(1024);
            MemorySegment written = arena.allocate(ValueLayout.JAVA_LONG);
            written.set(ValueLayout.JAVA_LONG, 0, -7);
            int status = isthmus_h.isthmus_codec_compress(
                    Codec.ZSTD.parquetId(), 0, MemorySegment.NULL, 100, out, out.byteSize(), written, error);
            assertEquals(isthmus_h.ISTHMUS_ERR_INVALID_ARGUMENT(), status);
            assertEquals(status, isthmus_error.code(error));
            String message = NativeErrors.message(error);
            assertTrue(message.contains("input"), message);
            assertEquals(-7, written.get(ValueLayout.JAVA_LONG, 0), "out-params stay untouched on failure");

            var e = assertThrows(NativeException.InvalidArgument.class, () -> NativeErrors.check(status, error));
            assertEquals(message, e.getMessage());
        }
    }

    @Test
    void nullOutputAndNullErrorSlotAreHandled() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment in = arena.allocate(64);
            MemorySegment written = arena.allocate(ValueLayout.JAVA_LONG);
            int status = isthmus_h.isthmus_codec_compress(
                    Codec.SNAPPY.parquetId(),
                    0,
                    in,
                    in.byteSize(),
                    MemorySegment.NULL,
                    4096,
                    written,
                    MemorySegment.NULL);
            assertEquals(isthmus_h.ISTHMUS_ERR_INVALID_ARGUMENT(), status);
        }
    }

    @Test
    void unknownAndUnimplementedCodecsAreRefused() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment error = isthmus_error.allocate(arena);
            MemorySegment bound = arena.allocate(ValueLayout.JAVA_LONG);
            int lzo = isthmus_h.isthmus_codec_max_compressed_size(3, 100, bound, error);
            assertEquals(isthmus_h.ISTHMUS_ERR_UNSUPPORTED(), lzo);
            int unknown = isthmus_h.isthmus_codec_max_compressed_size(99, 100, bound, error);
            assertEquals(isthmus_h.ISTHMUS_ERR_INVALID_ARGUMENT(), unknown);
            assertTrue(NativeErrors.message(error).contains("99"), NativeErrors.message(error));
        }
    }

    @Test
    void unknownStatusCodesBecomeInternalErrors() {
        var e = NativeException.of(12345, "from the future");
        assertTrue(e instanceof NativeException.Internal);
        assertTrue(e.getMessage().contains("12345"));
    }
}
