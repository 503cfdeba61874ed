package dev.isthmus.arrow.builder;

import dev.isthmus.arrow.types.ArrowField;
import java.util.List;

/** Arrow booleans: one bit per value, LSB first, like the validity bitmap. */
public final class BoolBuilder extends ArrowBuilder {
    private BitBuffer bits;

    BoolBuilder(ArrowField field, String path, BufferAllocator allocator) {
        super(field, path, allocator);
    }

    public void append(boolean value) {
        int slot = appendValidSlot();
        bits.put(slot, value);
    }

    @Override
    void appendEmpty() {
        append(false);
    }

    @Override
    void writeNullSlot(int slot) {
        bits.clear(slot);
    }

    @Override
    void growSlots(int newCapacity) {
        if (bits == null) {
            bits = BitBuffer.allocate(newCapacity);
        } else {
            bits.grow(newCapacity);
        }
    }

    @Override
    void resetContents() {
        // The bits are indexed by slot; nothing else to reset.
    }

    @Override
    void truncateContents(int newLength) {
        // Likewise.
    }

    @Override
    void copyBuffers(List<NativeBuffer> buffers) {
        buffers.add(copyValidity());
        buffers.add(bits.copyOut(allocator, length));
    }

    @Override
    void freeBuffers() {
        bits = null;
    }
}
