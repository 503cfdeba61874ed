package dev.isthmus.arrow.builder;

import dev.isthmus.arrow.types.ArrowField;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;

/**
 * What lists and maps share: int32 offsets (one more than the values) into one child builder
 * that holds every element of the batch. An entry is the child's values appended since the
 * previous entry ended.
 */
public abstract class OffsetListBuilder extends ArrowBuilder {
    final ArrowBuilder child;
    private NativeBuffer offsetsBuffer;
    private MemorySegment offsets;

    OffsetListBuilder(ArrowField field, String path, BufferAllocator allocator) {
        super(field, path, allocator);
        ArrowField childField = field.child(0);
        this.child = ArrowBuilder.create(childField, childPath(path, childField), allocator);
    }

    /** Ends a non-null entry made of the child values appended since the previous entry. */
    final void endEntry() {
        int end = child.length();
        int slot = appendValidSlot();
        offsets.set(ValueLayout.JAVA_INT, (long) (slot + 1) << 2, end);
    }

    private int offset(int slot) {
        return offsets.get(ValueLayout.JAVA_INT, (long) slot << 2);
    }

    @Override
    final void appendEmpty() {
        endEntry();
    }

    @Override
    final void writeNullSlot(int slot) {
        offsets.set(ValueLayout.JAVA_INT, (long) (slot + 1) << 2, offset(slot));
    }

    @Override
    final void growSlots(int newCapacity) {
        long bytes = ((long) newCapacity + 1) << 2;
        if (offsetsBuffer == null) {
            offsetsBuffer = allocator.allocate(bytes);
            offsetsBuffer.segment().set(ValueLayout.JAVA_INT, 0, 0);
        } else {
            offsetsBuffer.grow(bytes, ((long) length + 1) << 2);
        }
        offsets = offsetsBuffer.segment();
    }

    @Override
    final void resetContents() {
        child.reset();
    }

    @Override
    final void truncateContents(int newLength) {
        child.truncate(offsets == null ? 0 : offset(newLength));
    }

    @Override
    final void prepareFinish() {
        super.prepareFinish();
        if (child.length() != offset(length)) {
            throw new IllegalStateException("'" + displayPath() + "' has " + (child.length() - offset(length))
                    + " element(s) appended after its last entry; end the entry before finishing");
        }
        child.prepareFinish();
    }

    @Override
    final void takeBuffers(List<NativeBuffer> buffers) {
        buffers.add(takeValidity());
        buffers.add(offsetsBuffer);
        offsetsBuffer = null;
        offsets = null;
    }

    @Override
    final List<FinishedArray> detachChildren() {
        return List.of(child.detach());
    }

    @Override
    final void freeBuffers() {
        if (offsetsBuffer != null) {
            offsetsBuffer.free();
            offsetsBuffer = null;
            offsets = null;
        }
        child.close();
    }
}
