package dev.isthmus.arrow.builder;

import dev.isthmus.arrow.types.ArrowField;

/** Arrow 64-bit IEEE floats, bits kept as given (NaN payloads, -0.0). */
public final class Float64Builder extends FixedWidthBuilder {
    Float64Builder(ArrowField field, String path, BufferAllocator allocator) {
        super(field, path, allocator, 8);
    }

    public void append(double value) {
        int slot = appendValidSlot();
        DOUBLES.set(values, slot << 3, value);
    }
}
