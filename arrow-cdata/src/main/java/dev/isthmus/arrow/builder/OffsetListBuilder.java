package dev.isthmus.arrow.builder;

import dev.isthmus.arrow.types.ArrowField;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.List;

/**
 * What lists and maps share: int32 offsets (one more than the values) into one child builder
 * that holds every element of the batch. An entry is the child's values appended since the
 * previous entry ended.
 */
public abstract class OffsetListBuilder extends ArrowBuilder {
    final ArrowBuilder child;
    /** The staged offsets, one more than the slots; the first is always 0. */
    private int[] offsets = new int[1];

    OffsetListBuilder(ArrowField field, String path, BufferAllocator allocator) {
        super(field, path, allocator);
        ArrowField childField = field.child(0);
        this.child = ArrowBuilder.create(childField, childPath(path, childField), allocator);
    }

    /** Ends a non-null entry made of the child values appended since the previous entry. */
    final void endEntry() {
        int end = child.length();
        int slot = appendValidSlot();
        offsets[slot + 1] = end;
    }

    @Override
    final void appendEmpty() {
        endEntry();
    }

    @Override
    final void writeNullSlot(int slot) {
        offsets[slot + 1] = offsets[slot];
    }

    @Override
    final void growSlots(int newCapacity) {
        offsets = Arrays.copyOf(offsets, newCapacity + 1);
    }

    @Override
    final void resetContents() {
        child.reset();
    }

    @Override
    final void truncateContents(int newLength) {
        child.truncate(offsets[newLength]);
    }

    @Override
    final void prepareFinish() {
        super.prepareFinish();
        if (child.length() != offsets[length]) {
            throw new IllegalStateException("'" + displayPath() + "' has " + (child.length() - offsets[length])
                    + " element(s) appended after its last entry; end the entry before finishing");
        }
        child.prepareFinish();
    }

    @Override
    final void copyBuffers(List<NativeBuffer> buffers) {
        buffers.add(copyValidity());
        buffers.add(copyOffsets(allocator, offsets, length));
    }

    /** The first {@code length + 1} staged offsets in a new native buffer. */
    static NativeBuffer copyOffsets(BufferAllocator allocator, int[] offsets, int length) {
        NativeBuffer out = allocator.allocate(((long) length + 1) << 2);
        MemorySegment.copy(offsets, 0, out.segment(), ValueLayout.JAVA_INT, 0, length + 1);
        return out;
    }

    @Override
    final void copyChildren(List<FinishedArray> children) {
        children.add(child.copyOut());
    }

    @Override
    final void freeBuffers() {
        offsets = new int[1];
        child.close();
    }
}
