package dev.isthmus.arrow.builder;

import dev.isthmus.arrow.memory.MemoryTracker;
import dev.isthmus.arrow.types.ArrowField;
import dev.isthmus.arrow.types.ArrowType;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.AfterEach;

/** A tracked allocator per test, and readers of a finished array's buffers. */
public abstract class BuilderTestSupport {
    protected final MemoryTracker tracker =
            MemoryTracker.root().child(getClass().getSimpleName());
    protected final BufferAllocator allocator = new BufferAllocator(tracker);

    @AfterEach
    protected void closeTracker() {
        tracker.close();
    }

    @SuppressWarnings("unchecked")
    protected <B extends ArrowBuilder> B builder(String name, ArrowType type, boolean nullable) {
        return (B) ArrowBuilder.forField(ArrowField.of(name, type, nullable), allocator);
    }

    protected static MemorySegment data(FinishedArray array, int buffer) {
        return array.buffers().get(buffer).segment();
    }

    protected static boolean isValid(FinishedArray array, int i) {
        NativeBuffer validity = array.buffers().get(0);
        return validity == null || bit(validity.segment(), i);
    }

    protected static boolean bit(MemorySegment bits, int i) {
        return (bits.get(ValueLayout.JAVA_BYTE, i >>> 3) & (1 << (i & 7))) != 0;
    }

    protected static int offset(FinishedArray array, int i) {
        return data(array, 1).getAtIndex(ValueLayout.JAVA_INT, i);
    }

    protected static String utf8(FinishedArray array, int i) {
        int start = offset(array, i);
        int end = offset(array, i + 1);
        return new String(
                data(array, 2).asSlice(start, end - start).toArray(ValueLayout.JAVA_BYTE),
                java.nio.charset.StandardCharsets.UTF_8);
    }
}
