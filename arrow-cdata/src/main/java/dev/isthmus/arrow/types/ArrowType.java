package dev.isthmus.arrow.types;

/**
 * The Arrow logical types Isthmus exchanges: every type an Iceberg column maps to, plus the few
 * neighbours (small integers, other time units, 64-bit dates) that other writers produce. The
 * C Data Interface format string of each is {@link ArrowFormat#render(ArrowType)}.
 */
public sealed interface ArrowType {

    /** A type whose values sit in one fixed-width buffer (or the validity-style boolean bitmap). */
    sealed interface FixedWidth extends ArrowType {
        /** Bits per value; 1 for boolean. */
        int bitWidth();
    }

    /** Units of time types, with their format letters. */
    enum TimeUnit {
        SECOND('s'),
        MILLISECOND('m'),
        MICROSECOND('u'),
        NANOSECOND('n');

        private final char letter;

        TimeUnit(char letter) {
            this.letter = letter;
        }

        char letter() {
            return letter;
        }
    }

    record Null() implements ArrowType {}

    record Bool() implements FixedWidth {
        @Override
        public int bitWidth() {
            return 1;
        }
    }

    record Int(int bitWidth, boolean signed) implements FixedWidth {
        public Int {
            if (bitWidth != 8 && bitWidth != 16 && bitWidth != 32 && bitWidth != 64) {
                throw new IllegalArgumentException("integer bit width must be 8, 16, 32 or 64, got " + bitWidth);
            }
        }
    }

    record Float32() implements FixedWidth {
        @Override
        public int bitWidth() {
            return 32;
        }
    }

    record Float64() implements FixedWidth {
        @Override
        public int bitWidth() {
            return 64;
        }
    }

    /** A 128-bit decimal, the only width Isthmus produces or accepts. */
    record Decimal(int precision, int scale) implements FixedWidth {
        public Decimal {
            if (precision < 1 || precision > 38) {
                throw new IllegalArgumentException("decimal precision must be 1..38, got " + precision);
            }
            if (scale < 0 || scale > precision) {
                throw new IllegalArgumentException("decimal scale must be 0.." + precision + ", got " + scale);
            }
        }

        @Override
        public int bitWidth() {
            return 128;
        }
    }

    /** Days ({@code tdD}, 32-bit) or milliseconds ({@code tdm}, 64-bit) since the epoch. */
    record Date(boolean days) implements FixedWidth {
        @Override
        public int bitWidth() {
            return days ? 32 : 64;
        }
    }

    /** Time of day; seconds and milliseconds are 32-bit, micro- and nanoseconds 64-bit. */
    record Time(TimeUnit unit) implements FixedWidth {
        @Override
        public int bitWidth() {
            return unit == TimeUnit.SECOND || unit == TimeUnit.MILLISECOND ? 32 : 64;
        }
    }

    /**
     * A 64-bit timestamp. {@code timezone} is {@code null} for a local (zone-less) timestamp;
     * otherwise values are instants since the UTC epoch.
     */
    record Timestamp(TimeUnit unit, String timezone) implements FixedWidth {
        @Override
        public int bitWidth() {
            return 64;
        }
    }

    record Utf8(boolean large) implements ArrowType {}

    record Binary(boolean large) implements ArrowType {}

    record FixedSizeBinary(int byteWidth) implements FixedWidth {
        public FixedSizeBinary {
            if (byteWidth < 1) {
                throw new IllegalArgumentException("fixed-size binary width must be positive, got " + byteWidth);
            }
        }

        @Override
        public int bitWidth() {
            return byteWidth * 8;
        }
    }

    record Struct() implements ArrowType {}

    record List(boolean large) implements ArrowType {}

    record Map(boolean keysSorted) implements ArrowType {}
}
