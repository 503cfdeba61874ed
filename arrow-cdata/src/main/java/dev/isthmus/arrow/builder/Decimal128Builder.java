package dev.isthmus.arrow.builder;

import dev.isthmus.arrow.types.ArrowField;
import dev.isthmus.arrow.types.ArrowType;
import java.math.BigInteger;

/**
 * Arrow {@code decimal128(P, S)}: the unscaled value as 16 bytes of little-endian two's
 * complement. Values must have the field's scale and at most its precision in digits; anything
 * else fails naming the field, because rounding silently would change the data.
 */
public final class Decimal128Builder extends FixedWidthBuilder {
    private static final BigInteger LOW_64 = BigInteger.ONE.shiftLeft(64).subtract(BigInteger.ONE);

    private final int precision;
    private final int scale;
    /** 10^precision, when it fits a long (precision up to 18); else unused. */
    private final long compactBound;

    private final BigInteger bound;
    /** {@link #bound}'s low and high 64 bits. */
    private final long boundLow;

    private final long boundHigh;

    Decimal128Builder(ArrowField field, String path, BufferAllocator allocator) {
        super(field, path, allocator, 16);
        ArrowType.Decimal type = (ArrowType.Decimal) field.type();
        this.precision = type.precision();
        this.scale = type.scale();
        this.bound = BigInteger.TEN.pow(precision);
        this.compactBound = precision <= 18 ? bound.longValueExact() : Long.MAX_VALUE;
        this.boundLow = bound.longValue();
        this.boundHigh = bound.shiftRight(64).longValue();
    }

    /**
     * Appends the decimal {@code unscaled / 10^valueScale}, failing naming the field unless
     * {@code valueScale} is the field's scale: rescaling silently would change the data.
     */
    public void appendUnscaled(long unscaled, int valueScale) {
        requireScale(valueScale, unscaled);
        appendUnscaled(unscaled);
    }

    /** {@link #appendUnscaled(long, int)} for values wider than a long. */
    public void appendUnscaled(BigInteger unscaled, int valueScale) {
        requireScale(valueScale, unscaled);
        appendUnscaled(unscaled);
    }

    /** Appends the decimal whose unscaled value is {@code unscaled} (its value is unscaled / 10^scale). */
    public void appendUnscaled(long unscaled) {
        // Every long has at most 19 digits, so only precisions up to 18 can overflow here.
        if (precision <= 18 && (unscaled >= compactBound || unscaled <= -compactBound)) {
            throw tooManyDigits(BigInteger.valueOf(unscaled));
        }
        write(unscaled, unscaled >> 63);
    }

    public void appendUnscaled(BigInteger unscaled) {
        if (unscaled.abs().compareTo(bound) >= 0) {
            throw tooManyDigits(unscaled);
        }
        // Below 10^38 < 2^127, so the low and high longs are exact.
        write(unscaled.longValue(), unscaled.shiftRight(64).longValue());
    }

    /**
     * Appends the decimal whose unscaled value is the 128-bit two's complement {@code high:low},
     * without a {@link BigInteger} on the way.
     */
    public void appendUnscaled128(long low, long high) {
        // The magnitude, negated in 128 bits when negative: -2^127 stays 2^127, past every bound.
        long magnitudeLow = high < 0 ? -low : low;
        long magnitudeHigh = high < 0 ? ~high + (low == 0 ? 1 : 0) : high;
        int againstHigh = Long.compareUnsigned(magnitudeHigh, boundHigh);
        if (againstHigh > 0 || (againstHigh == 0 && Long.compareUnsigned(magnitudeLow, boundLow) >= 0)) {
            throw tooManyDigits(BigInteger.valueOf(high)
                    .shiftLeft(64)
                    .or(BigInteger.valueOf(low).and(LOW_64)));
        }
        write(low, high);
    }

    private void write(long low, long high) {
        int slot = appendValidSlot();
        int at = slot << 4;
        LONGS.set(values, at, low);
        LONGS.set(values, at + 8, high);
    }

    private void requireScale(int valueScale, Object unscaled) {
        if (valueScale != scale) {
            throw new IllegalArgumentException("field '" + displayPath() + "' is DECIMAL(" + precision + ", " + scale
                    + ") but got unscaled value " + unscaled + " with scale " + valueScale);
        }
    }

    private IllegalArgumentException tooManyDigits(BigInteger unscaled) {
        return new IllegalArgumentException("field '" + displayPath() + "' is DECIMAL(" + precision + ", " + scale
                + ") but unscaled value " + unscaled + " has more than " + precision + " digits");
    }
}
