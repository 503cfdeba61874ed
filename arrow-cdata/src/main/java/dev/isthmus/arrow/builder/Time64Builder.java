package dev.isthmus.arrow.builder;

import dev.isthmus.arrow.types.ArrowField;
import dev.isthmus.arrow.types.ArrowType;

/**
 * Arrow {@code time64} in micro- or nanoseconds of the day, from Flink's TIME values (an int of
 * milliseconds: Flink keeps no finer part).
 */
public final class Time64Builder extends FixedWidthBuilder {
    private final long unitsPerMilli;

    Time64Builder(ArrowField field, String path, BufferAllocator allocator) {
        super(field, path, allocator, 8);
        ArrowType.TimeUnit unit = ((ArrowType.Time) field.type()).unit();
        this.unitsPerMilli = unit == ArrowType.TimeUnit.MICROSECOND ? 1_000L : 1_000_000L;
    }

    public void appendMillisOfDay(int millisOfDay) {
        int slot = appendValidSlot();
        LONGS.set(values, slot << 3, millisOfDay * unitsPerMilli);
    }
}
