package dev.isthmus.arrow.builder;

import dev.isthmus.arrow.types.ArrowField;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.List;

/**
 * A builder whose values sit in one buffer, {@code byteWidth} bytes each: integers, floats,
 * decimals, dates, times, timestamps and fixed-size binary. Subclasses add the typed appends,
 * which write into {@link #values} through the views below, in the platform's byte order as the
 * C Data Interface expects. One Java array stages a batch, so a batch holds at most 2 GiB of one
 * field's values (a list's elements included); appending past that fails, naming the field.
 */
public abstract class FixedWidthBuilder extends ArrowBuilder {
    static final VarHandle SHORTS = MethodHandles.byteArrayViewVarHandle(short[].class, ByteOrder.nativeOrder());
    static final VarHandle INTS = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.nativeOrder());
    static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.nativeOrder());
    static final VarHandle FLOATS = MethodHandles.byteArrayViewVarHandle(float[].class, ByteOrder.nativeOrder());
    static final VarHandle DOUBLES = MethodHandles.byteArrayViewVarHandle(double[].class, ByteOrder.nativeOrder());

    /** The staging of a builder that has none yet: growing replaces it, nothing writes to it. */
    private static final byte[] NO_VALUES = new byte[0];

    final int byteWidth;
    /**
     * The staged values, {@link #capacity} slots of {@link #byteWidth} bytes. Write a slot only
     * after {@link #appendValidSlot()}: growing replaces the array.
     */
    byte[] values = NO_VALUES;

    FixedWidthBuilder(ArrowField field, String path, BufferAllocator allocator, int byteWidth) {
        super(field, path, allocator);
        this.byteWidth = byteWidth;
    }

    @Override
    final int maxSlots() {
        return MAX_ARRAY_LENGTH / byteWidth;
    }

    @Override
    final void growSlots(int newCapacity) {
        values = Arrays.copyOf(values, newCapacity * byteWidth);
    }

    @Override
    final void appendEmpty() {
        writeNullSlot(appendValidSlot());
    }

    /** Zeros, so a batch's bytes do not depend on what the staging held before. */
    @Override
    final void writeNullSlot(int slot) {
        int at = slot * byteWidth;
        switch (byteWidth) {
            case 1 -> values[at] = 0;
            case 2 -> SHORTS.set(values, at, (short) 0);
            case 4 -> INTS.set(values, at, 0);
            case 8 -> LONGS.set(values, at, 0L);
            default -> Arrays.fill(values, at, at + byteWidth, (byte) 0);
        }
    }

    @Override
    final void resetContents() {
        // Nothing beyond the slots: the values are indexed by slot.
    }

    @Override
    final void truncateContents(int newLength) {
        // Likewise.
    }

    @Override
    final void copyBuffers(List<NativeBuffer> buffers) {
        buffers.add(copyValidity());
        int bytes = length * byteWidth;
        NativeBuffer out = allocator.allocate(bytes);
        buffers.add(out);
        MemorySegment.copy(values, 0, out.segment(), ValueLayout.JAVA_BYTE, 0, bytes);
    }

    @Override
    final void freeBuffers() {
        values = NO_VALUES;
    }
}
