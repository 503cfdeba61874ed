package dev.isthmus.arrow.flink.vector;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.apache.flink.table.data.columnar.vector.BooleanColumnVector;
import org.apache.flink.table.data.columnar.vector.ByteColumnVector;
import org.apache.flink.table.data.columnar.vector.DoubleColumnVector;
import org.apache.flink.table.data.columnar.vector.FloatColumnVector;
import org.apache.flink.table.data.columnar.vector.IntColumnVector;
import org.apache.flink.table.data.columnar.vector.LongColumnVector;
import org.apache.flink.table.data.columnar.vector.ShortColumnVector;

/**
 * Flink vectors over Arrow's fixed-width buffers, read in place. Each class reads only native
 * segments, so the JIT sees one segment kind per call site (mixing heap and native segments in
 * one hot method costs several times the throughput). The buffers are package-visible for
 * {@link BinaryRowTransposer}, which reads them a column at a time.
 */
final class PrimitiveVectors {
    private PrimitiveVectors() {}

    static final class Booleans extends ValidityVector implements BooleanColumnVector {
        final MemorySegment bits;

        Booleans(MemorySegment validity, MemorySegment bits, long offset) {
            super(validity, offset);
            this.bits = bits;
        }

        @Override
        public boolean getBoolean(int i) {
            long bit = offset + i;
            return (bits.get(ValueLayout.JAVA_BYTE, bit >>> 3) & (1 << (bit & 7))) != 0;
        }
    }

    static final class Bytes extends ValidityVector implements ByteColumnVector {
        final MemorySegment values;

        Bytes(MemorySegment validity, MemorySegment values, long offset) {
            super(validity, offset);
            this.values = values;
        }

        @Override
        public byte getByte(int i) {
            return values.get(ValueLayout.JAVA_BYTE, offset + i);
        }
    }

    static final class Shorts extends ValidityVector implements ShortColumnVector {
        final MemorySegment values;

        Shorts(MemorySegment validity, MemorySegment values, long offset) {
            super(validity, offset);
            this.values = values;
        }

        @Override
        public short getShort(int i) {
            return values.getAtIndex(ValueLayout.JAVA_SHORT_UNALIGNED, offset + i);
        }
    }

    static final class Ints extends ValidityVector implements IntColumnVector {
        final MemorySegment values;

        Ints(MemorySegment validity, MemorySegment values, long offset) {
            super(validity, offset);
            this.values = values;
        }

        @Override
        public int getInt(int i) {
            return values.getAtIndex(ValueLayout.JAVA_INT_UNALIGNED, offset + i);
        }
    }

    static final class Longs extends ValidityVector implements LongColumnVector {
        final MemorySegment values;

        Longs(MemorySegment validity, MemorySegment values, long offset) {
            super(validity, offset);
            this.values = values;
        }

        @Override
        public long getLong(int i) {
            return values.getAtIndex(ValueLayout.JAVA_LONG_UNALIGNED, offset + i);
        }
    }

    static final class Floats extends ValidityVector implements FloatColumnVector {
        final MemorySegment values;

        Floats(MemorySegment validity, MemorySegment values, long offset) {
            super(validity, offset);
            this.values = values;
        }

        @Override
        public float getFloat(int i) {
            return values.getAtIndex(ValueLayout.JAVA_FLOAT_UNALIGNED, offset + i);
        }
    }

    static final class Doubles extends ValidityVector implements DoubleColumnVector {
        final MemorySegment values;

        Doubles(MemorySegment validity, MemorySegment values, long offset) {
            super(validity, offset);
            this.values = values;
        }

        @Override
        public double getDouble(int i) {
            return values.getAtIndex(ValueLayout.JAVA_DOUBLE_UNALIGNED, offset + i);
        }
    }

    /**
     * A 64-bit value Flink wants as an int in another unit: Arrow's time64 (micro- or
     * nanoseconds) as Flink's TIME millis, date64 millis as Flink's DATE days.
     */
    static final class ScaledLongsAsInts extends ValidityVector implements IntColumnVector {
        final MemorySegment values;
        final long divisor;

        ScaledLongsAsInts(MemorySegment validity, MemorySegment values, long offset, long divisor) {
            super(validity, offset);
            this.values = values;
            this.divisor = divisor;
        }

        @Override
        public int getInt(int i) {
            return (int) Math.floorDiv(values.getAtIndex(ValueLayout.JAVA_LONG_UNALIGNED, offset + i), divisor);
        }
    }

    /** Arrow's time32 seconds as Flink's TIME millis. */
    static final class SecondsAsMillis extends ValidityVector implements IntColumnVector {
        final MemorySegment values;

        SecondsAsMillis(MemorySegment validity, MemorySegment values, long offset) {
            super(validity, offset);
            this.values = values;
        }

        @Override
        public int getInt(int i) {
            return values.getAtIndex(ValueLayout.JAVA_INT_UNALIGNED, offset + i) * 1000;
        }
    }
}
