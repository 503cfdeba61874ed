package dev.isthmus.arrow.builder;

import dev.isthmus.arrow.types.ArrowField;
import java.util.List;

/**
 * Arrow's null type ({@code n}, Iceberg's {@code unknown}): every value is null and the array has
 * no buffers at all, only a length.
 */
public final class NullBuilder extends ArrowBuilder {
    NullBuilder(ArrowField field, String path, BufferAllocator allocator) {
        super(field, path, allocator);
    }

    /** Appends a null; a null-type field holds nothing else, whatever its nullable flag says. */
    @Override
    public void appendNull() {
        length++;
        nullCount++;
    }

    @Override
    void appendEmpty() {
        appendNull();
    }

    @Override
    void writeNullSlot(int slot) {
        // No buffers to fill.
    }

    @Override
    void growSlots(int newCapacity) {
        // No buffers to grow.
    }

    @Override
    void resetContents() {
        // Only the counts, which the base class resets.
    }

    @Override
    void truncateContents(int newLength) {
        // Every slot is null, so the null count is the length.
        nullCount = length;
    }

    @Override
    void copyBuffers(List<NativeBuffer> buffers) {
        // None.
    }

    @Override
    void freeBuffers() {
        // None.
    }
}
