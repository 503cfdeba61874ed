package dev.isthmus.arrow.builder;

import dev.isthmus.arrow.types.ArrowField;

/** Arrow 16-bit integers (signed or not: the bits are stored as given). */
public final class Int16Builder extends FixedWidthBuilder {
    Int16Builder(ArrowField field, String path, BufferAllocator allocator) {
        super(field, path, allocator, 2);
    }

    public void append(short value) {
        int slot = appendValidSlot();
        SHORTS.set(values, slot << 1, value);
    }
}
