package dev.isthmus.arrow.builder;

import dev.isthmus.arrow.types.ArrowField;

/** Arrow 8-bit integers (signed or not: the bits are stored as given). */
public final class Int8Builder extends FixedWidthBuilder {
    Int8Builder(ArrowField field, String path, BufferAllocator allocator) {
        super(field, path, allocator, 1);
    }

    public void append(byte value) {
        int slot = appendValidSlot();
        values[slot] = value;
    }
}
