package dev.isthmus.arrow.builder;

import dev.isthmus.arrow.types.ArrowField;

/** Arrow 64-bit integers (signed or not: the bits are stored as given). */
public final class Int64Builder extends FixedWidthBuilder {
    Int64Builder(ArrowField field, String path, BufferAllocator allocator) {
        super(field, path, allocator, 8);
    }

    public void append(long value) {
        int slot = appendValidSlot();
        LONGS.set(values, slot << 3, value);
    }
}
