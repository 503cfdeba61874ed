package dev.isthmus.ffm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.isthmus.ffm.gen.isthmus_h;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.Test;

class NativeCallTest {

    @Test
    void aSuccessfulCallFillsItsOutParameters() {
        try (NativeCall call = NativeCall.open()) {
            MemorySegment bound = call.longSlot();
            call.check(isthmus_h.isthmus_codec_max_compressed_size(Codec.ZSTD.parquetId(), 1000, bound, call.error()));
            assertTrue(bound.get(ValueLayout.JAVA_LONG, 0) >= 1000, "zstd's bound covers the input");
        }
    }

    @Test
    void aFailedCallThrowsTheStatusExceptionWithTheLibrarysMessage() {
        try (NativeCall call = NativeCall.open()) {
            int status = isthmus_h.isthmus_codec_max_compressed_size(99, 10, call.longSlot(), call.error());
            var e = assertThrows(NativeException.InvalidArgument.class, () -> call.check(status));
            assertEquals(NativeErrors.message(call.error()), e.getMessage());
            assertTrue(e.getMessage().contains("99"), e.getMessage());
        }
    }

    @Test
    void aSubjectPrefixesTheMessage() {
        try (NativeCall call = NativeCall.open()) {
            int status = isthmus_h.isthmus_codec_max_compressed_size(99, 10, call.longSlot(), call.error());
            var e = assertThrows(NativeException.class, () -> call.check(status, "s3://bucket/file.parquet"));
            assertTrue(e.getMessage().startsWith("s3://bucket/file.parquet: "), e.getMessage());
        }
    }

    @Test
    void stringsAndPointersLiveUntilClose() {
        MemorySegment text;
        MemorySegment pointer;
        try (NativeCall call = NativeCall.open()) {
            text = call.string("héllo");
            pointer = call.pointer();
            pointer.set(ValueLayout.ADDRESS, 0, text);
            assertEquals(text.address(), NativeCall.address(pointer).address());
            assertEquals("héllo", text.getString(0));
        }
        assertThrows(IllegalStateException.class, () -> text.getString(0));
        assertThrows(IllegalStateException.class, () -> NativeCall.address(pointer));
    }
}
