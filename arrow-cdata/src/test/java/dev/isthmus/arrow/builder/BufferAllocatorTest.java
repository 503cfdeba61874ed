package dev.isthmus.arrow.builder;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.isthmus.arrow.LeakCheckExtension;
import dev.isthmus.arrow.memory.MemoryLimitExceededException;
import dev.isthmus.arrow.memory.MemoryTracker;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(LeakCheckExtension.class)
class BufferAllocatorTest {
    private final MemoryTracker tracker = MemoryTracker.root().child("BufferAllocatorTest");
    private final BufferAllocator allocator = new BufferAllocator(tracker);

    @AfterEach
    void closeTracker() {
        tracker.close();
    }

    @Test
    void buffersAreAlignedRoundedAndCounted() {
        NativeBuffer buffer = allocator.allocate(100);
        assertEquals(0, buffer.address() % 64, "Arrow recommends 64-byte alignment");
        assertEquals(128, buffer.capacity());
        assertEquals(128, tracker.liveBytes());
        buffer.free();
        assertEquals(0, tracker.liveBytes());
        assertEquals(128, tracker.allocatedBytes());
    }

    @Test
    void aCappedTrackerRefusesTheAllocationThatWouldPassItsCap() {
        try (MemoryTracker capped = tracker.child("capped", 1024, "test.cap")) {
            BufferAllocator small = new BufferAllocator(capped);
            NativeBuffer held = small.allocate(1000);
            MemoryLimitExceededException e = assertThrows(MemoryLimitExceededException.class, () -> small.allocate(1));
            assertEquals(
                    "isthmus/BufferAllocatorTest/capped would exceed its native memory cap of 1024 bytes "
                            + "(test.cap): asked for 64 bytes while holding 1024",
                    e.getMessage());
            assertEquals(1024, capped.liveBytes(), "the refused block is neither taken nor counted");
            assertEquals(1024, tracker.liveBytes(), "nor counted in the ancestors");
            held.free();
            small.allocate(1024).free();
        }
        assertEquals(0, tracker.liveBytes());
    }

    @Test
    void growingKeepsThePreservedBytesAndFreesTheOldBlock() {
        NativeBuffer buffer = allocator.allocate(64);
        for (int i = 0; i < 16; i++) {
            buffer.segment().setAtIndex(ValueLayout.JAVA_INT, i, i * 7);
        }
        buffer.grow(1000, 40);
        assertEquals(1024, buffer.capacity());
        for (int i = 0; i < 10; i++) {
            assertEquals(i * 7, buffer.segment().getAtIndex(ValueLayout.JAVA_INT, i));
        }
        assertEquals(1024, tracker.liveBytes(), "the outgrown block is freed at once");
        assertEquals(64 + 1024, tracker.allocatedBytes());
        buffer.free();
    }

    @Test
    void aFreedBufferRefusesAccessAndASecondFreeDoesNothing() {
        NativeBuffer buffer = allocator.allocate(8);
        buffer.free();
        buffer.free();
        assertTrue(buffer.isFreed());
        assertThrows(IllegalStateException.class, buffer::segment);
        assertEquals(0, tracker.liveBytes());
    }

    @Test
    void anImpossibleSizeIsAnOutOfMemoryErrorNamingTheTrackerAndCountsNothing() {
        allocator.allocate(100).free();
        long rootAllocated = MemoryTracker.root().allocatedBytes();
        OutOfMemoryError e = assertThrows(OutOfMemoryError.class, () -> allocator.allocate(1L << 62));
        assertTrue(e.getMessage().contains("BufferAllocatorTest"), e.getMessage());
        assertEquals(0, tracker.liveBytes());
        assertEquals(128, tracker.allocatedBytes(), "memory the C allocator refused was never allocated");
        assertEquals(128, tracker.peakBytes(), "nor part of the peak");
        assertTrue(MemoryTracker.root().allocatedBytes() - rootAllocated < 1L << 62, "nor the ancestors' totals");
    }
}
