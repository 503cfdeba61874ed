package dev.isthmus.arrow.builder;

import dev.isthmus.arrow.types.ArrowField;
import dev.isthmus.arrow.types.ArrowType;

/**
 * Arrow {@code timestamp} (any unit, with or without a zone) from epoch milliseconds plus
 * nanoseconds within the millisecond, as Flink's {@code TimestampData} holds an instant. Units
 * coarser than the value round towards negative infinity, as Arrow's epoch-based values do
 * (-1 ns is -1 µs, not 0).
 */
public final class TimestampBuilder extends FixedWidthBuilder {
    private final ArrowType.TimeUnit unit;

    TimestampBuilder(ArrowField field, String path, BufferAllocator allocator) {
        super(field, path, allocator, 8);
        this.unit = ((ArrowType.Timestamp) field.type()).unit();
    }

    /**
     * @param nanoOfMillisecond 0 to 999,999, as Flink's {@code TimestampData} holds it
     * @throws IllegalArgumentException naming the field when the instant does not fit the unit
     *     in 64 bits (nanoseconds cover only the years 1677 to 2262)
     */
    public void append(long epochMillis, int nanoOfMillisecond) {
        long value = toUnit(epochMillis, nanoOfMillisecond);
        int slot = appendValidSlot();
        LONGS.set(values, slot << 3, value);
    }

    private long toUnit(long epochMillis, int nanoOfMillisecond) {
        try {
            // nanoOfMillisecond is never negative, so dividing it rounds down like floorDiv.
            return switch (unit) {
                case SECOND -> Math.floorDiv(epochMillis, 1000L);
                case MILLISECOND -> epochMillis;
                case MICROSECOND -> Math.addExact(Math.multiplyExact(epochMillis, 1_000L), nanoOfMillisecond / 1_000);
                case NANOSECOND -> Math.addExact(Math.multiplyExact(epochMillis, 1_000_000L), nanoOfMillisecond);
            };
        } catch (ArithmeticException e) {
            throw new IllegalArgumentException(
                    "field '" + displayPath() + "': timestamp of " + epochMillis + " ms + " + nanoOfMillisecond
                            + " ns since the epoch does not fit 64-bit " + unit,
                    e);
        }
    }
}
