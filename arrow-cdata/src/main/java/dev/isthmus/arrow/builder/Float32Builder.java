package dev.isthmus.arrow.builder;

import dev.isthmus.arrow.types.ArrowField;

/** Arrow 32-bit IEEE floats, bits kept as given (NaN payloads, -0.0). */
public final class Float32Builder extends FixedWidthBuilder {
    Float32Builder(ArrowField field, String path, BufferAllocator allocator) {
        super(field, path, allocator, 4);
    }

    public void append(float value) {
        int slot = appendValidSlot();
        FLOATS.set(values, slot << 2, value);
    }
}
