package dev.isthmus.arrow.builder;

import dev.isthmus.arrow.types.ArrowField;

/** Arrow {@code date32}: days since 1970-01-01, as Flink's DATE holds them. */
public final class Date32Builder extends FixedWidthBuilder {
    Date32Builder(ArrowField field, String path, BufferAllocator allocator) {
        super(field, path, allocator, 4);
    }

    public void appendDays(int daysSinceEpoch) {
        int slot = appendValidSlot();
        INTS.set(values, slot << 2, daysSinceEpoch);
    }
}
