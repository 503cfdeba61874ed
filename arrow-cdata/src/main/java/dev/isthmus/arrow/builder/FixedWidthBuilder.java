package dev.isthmus.arrow.builder;

import dev.isthmus.arrow.types.ArrowField;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;

/**
 * A builder whose values sit in one buffer, {@code byteWidth} bytes each: integers, floats,
 * decimals, dates, times, timestamps and fixed-size binary. Subclasses add the typed appends.
 */
public abstract class FixedWidthBuilder extends ArrowBuilder {
    final int byteWidth;
    private NativeBuffer valuesBuffer;
    /**
     * {@link #valuesBuffer}'s memory, cached for the append paths. Read it only after
     * {@link #appendValidSlot()}: growing replaces it (and frees the old block).
     */
    MemorySegment values;

    FixedWidthBuilder(ArrowField field, String path, BufferAllocator allocator, int byteWidth) {
        super(field, path, allocator);
        this.byteWidth = byteWidth;
    }

    @Override
    final void growSlots(int newCapacity) {
        long bytes = (long) newCapacity * byteWidth;
        if (valuesBuffer == null) {
            valuesBuffer = allocator.allocate(bytes);
        } else {
            valuesBuffer.grow(bytes, (long) length * byteWidth);
        }
        values = valuesBuffer.segment();
    }

    @Override
    final void appendEmpty() {
        writeNullSlot(appendValidSlot());
    }

    /** Zeros, so a batch's bytes do not depend on what the reused buffer held before. */
    @Override
    final void writeNullSlot(int slot) {
        long at = (long) slot * byteWidth;
        switch (byteWidth) {
            case 1 -> values.set(ValueLayout.JAVA_BYTE, at, (byte) 0);
            case 2 -> values.set(ValueLayout.JAVA_SHORT, at, (short) 0);
            case 4 -> values.set(ValueLayout.JAVA_INT, at, 0);
            case 8 -> values.set(ValueLayout.JAVA_LONG, at, 0L);
            default -> values.asSlice(at, byteWidth).fill((byte) 0);
        }
    }

    @Override
    final void resetContents() {
        // Nothing beyond the slots: the values buffer is indexed by slot.
    }

    @Override
    final void truncateContents(int newLength) {
        // Likewise.
    }

    @Override
    final void takeBuffers(List<NativeBuffer> buffers) {
        buffers.add(takeValidity());
        buffers.add(valuesBuffer);
        valuesBuffer = null;
        values = null;
    }

    @Override
    final void freeBuffers() {
        if (valuesBuffer != null) {
            valuesBuffer.free();
            valuesBuffer = null;
            values = null;
        }
    }
}
