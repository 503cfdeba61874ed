package dev.isthmus.arrow.builder;

import dev.isthmus.arrow.types.ArrowField;

/** Arrow 32-bit integers (signed or not: the bits are stored as given). */
public final class Int32Builder extends FixedWidthBuilder {
    Int32Builder(ArrowField field, String path, BufferAllocator allocator) {
        super(field, path, allocator, 4);
    }

    public void append(int value) {
        int slot = appendValidSlot();
        INTS.set(values, slot << 2, value);
    }
}
