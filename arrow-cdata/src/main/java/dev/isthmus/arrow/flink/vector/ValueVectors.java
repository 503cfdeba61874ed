package dev.isthmus.arrow.flink.vector;

import dev.isthmus.arrow.types.ArrowType.TimeUnit;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.math.BigDecimal;
import java.math.BigInteger;
import org.apache.flink.core.memory.MemorySegmentFactory;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.data.binary.BinaryStringData;
import org.apache.flink.table.data.columnar.vector.BytesColumnVector;
import org.apache.flink.table.data.columnar.vector.DecimalColumnVector;
import org.apache.flink.table.data.columnar.vector.TimestampColumnVector;

/**
 * Flink vectors whose values Flink wants as objects: decimals, timestamps and byte strings. The
 * buffers are package-visible for {@link BinaryRowTransposer}, which reads them a column at a time.
 */
final class ValueVectors {
    private ValueVectors() {}

    /** Arrow decimal128 (16 bytes, little-endian two's complement) as Flink DecimalData. */
    static final class Decimals extends ValidityVector implements DecimalColumnVector {
        final MemorySegment values;

        Decimals(MemorySegment validity, MemorySegment values, long offset) {
            super(validity, offset);
            this.values = values;
        }

        @Override
        public DecimalData getDecimal(int i, int precision, int scale) {
            long at = (offset + i) * 16;
            long low = values.get(ValueLayout.JAVA_LONG_UNALIGNED, at);
            long high = values.get(ValueLayout.JAVA_LONG_UNALIGNED, at + 8);
            if (high == (low >> 63) && DecimalData.isCompact(precision)) {
                return DecimalData.fromUnscaledLong(low, precision, scale);
            }
            byte[] bigEndian = new byte[16];
            for (int b = 0; b < 8; b++) {
                bigEndian[15 - b] = (byte) (low >>> (8 * b));
                bigEndian[7 - b] = (byte) (high >>> (8 * b));
            }
            return DecimalData.fromBigDecimal(new BigDecimal(new BigInteger(bigEndian), scale), precision, scale);
        }
    }

    /** Arrow timestamps of any unit, with or without zone, as Flink TimestampData (UTC epoch based). */
    static final class Timestamps extends ValidityVector implements TimestampColumnVector {
        final MemorySegment values;
        final TimeUnit unit;

        Timestamps(MemorySegment validity, MemorySegment values, long offset, TimeUnit unit) {
            super(validity, offset);
            this.values = values;
            this.unit = unit;
        }

        @Override
        public TimestampData getTimestamp(int i, int precision) {
            long v = values.getAtIndex(ValueLayout.JAVA_LONG_UNALIGNED, offset + i);
            return switch (unit) {
                case SECOND -> TimestampData.fromEpochMillis(Math.multiplyExact(v, 1000L));
                case MILLISECOND -> TimestampData.fromEpochMillis(v);
                case MICROSECOND ->
                    TimestampData.fromEpochMillis(Math.floorDiv(v, 1000L), (int) Math.floorMod(v, 1000L) * 1000);
                case NANOSECOND ->
                    TimestampData.fromEpochMillis(Math.floorDiv(v, 1_000_000L), (int) Math.floorMod(v, 1_000_000L));
            };
        }
    }

    /**
     * Arrow utf8/binary (32- or 64-bit offsets). Flink's {@code Bytes} must point into a
     * {@code byte[]}, so the first read copies the batch's whole data buffer to the heap once
     * (one bulk copy instead of one allocation and copy per value), and with 32-bit offsets the
     * offsets too; later reads are views, their offsets read from the heap, and each checks once
     * that the batch is open, so a read after its close still throws. With {@code eachValue},
     * every read copies just its value instead (see {@code ArrowVectors}: binary array elements
     * must start at offset 0).
     */
    static final class VariableBytes extends ValidityVector implements BytesColumnVector, StringVector {
        final MemorySegment offsets;
        final MemorySegment data;
        final boolean large;
        private final boolean eachValue;
        /**
         * The heap copy, published whole (final fields) for readers on other threads; with 64-bit
         * offsets only the data. Saves two session-checked native reads per value.
         */
        private HeapCopy heap;

        /** {@code segments} wraps {@code data} once for every string read as {@link StringData}. */
        private record HeapCopy(byte[] data, int[] offsets, org.apache.flink.core.memory.MemorySegment[] segments) {
            HeapCopy(byte[] data, int[] offsets) {
                this(data, offsets, new org.apache.flink.core.memory.MemorySegment[] {MemorySegmentFactory.wrap(data)});
            }
        }

        VariableBytes(
                MemorySegment validity,
                MemorySegment offsets,
                MemorySegment data,
                long offset,
                boolean large,
                boolean eachValue) {
            super(validity, offset);
            this.offsets = offsets;
            this.data = data;
            this.large = large;
            this.eachValue = eachValue;
        }

        @Override
        public Bytes getBytes(int i) {
            HeapCopy copy = copyWithOffsets();
            if (copy == null) {
                return readBytes(i);
            }
            int[] heapOffsets = copy.offsets();
            int index = (int) offset + i;
            int start = heapOffsets[index];
            return new Bytes(copy.data(), start, heapOffsets[index + 1] - start);
        }

        /**
         * One allocation site for the string, after the branches: a string returned from two
         * sites is one the JIT cannot drop where the caller only reads it, as it drops Flink's
         * own (`DecodeBenchmark.isthmusFlinkColumnarRowData` against {@code isthmusFlinkRows}).
         */
        @Override
        public StringData getString(int i) {
            HeapCopy copy = copyWithOffsets();
            org.apache.flink.core.memory.MemorySegment[] segments;
            int start;
            int length;
            if (copy != null) {
                int[] heapOffsets = copy.offsets();
                int index = (int) offset + i;
                start = heapOffsets[index];
                length = heapOffsets[index + 1] - start;
                segments = copy.segments();
            } else {
                Bytes bytes = readBytes(i);
                copy = heap;
                segments = copy != null && bytes.data == copy.data()
                        ? copy.segments()
                        : new org.apache.flink.core.memory.MemorySegment[] {MemorySegmentFactory.wrap(bytes.data)};
                start = bytes.offset;
                length = bytes.len;
            }
            return BinaryStringData.fromAddress(segments, start, length);
        }

        /** The heap copy once made with its offsets, after checking that the batch is open. */
        private HeapCopy copyWithOffsets() {
            HeapCopy copy = heap;
            if (copy == null || copy.offsets() == null) {
                return null;
            }
            if (!offsets.scope().isAlive()) {
                throw new IllegalStateException("Already closed: the batch was released");
            }
            return copy;
        }

        /** Value {@code i} through the native offsets, making the heap copy on the first read. */
        private Bytes readBytes(int i) {
            long index = offset + i;
            long start;
            long end;
            if (large) {
                start = offsets.getAtIndex(ValueLayout.JAVA_LONG_UNALIGNED, index);
                end = offsets.getAtIndex(ValueLayout.JAVA_LONG_UNALIGNED, index + 1);
            } else {
                start = offsets.getAtIndex(ValueLayout.JAVA_INT_UNALIGNED, index);
                end = offsets.getAtIndex(ValueLayout.JAVA_INT_UNALIGNED, index + 1);
            }
            HeapCopy copy = heap;
            if (copy == null) {
                if (eachValue || data.byteSize() > Integer.MAX_VALUE - 16) {
                    return new Bytes(
                            data.asSlice(start, end - start).toArray(ValueLayout.JAVA_BYTE), 0, (int) (end - start));
                }
                copy = new HeapCopy(
                        data.toArray(ValueLayout.JAVA_BYTE),
                        large ? null : offsets.toArray(ValueLayout.JAVA_INT_UNALIGNED));
                heap = copy;
            }
            return new Bytes(copy.data(), (int) start, Math.toIntExact(end - start));
        }
    }

    /** Arrow fixed-size binary as Flink bytes; copied to the heap like {@link VariableBytes}. */
    static final class FixedBytes extends ValidityVector implements BytesColumnVector {
        final MemorySegment data;
        final int width;
        private final boolean eachValue;
        /** Volatile: readers on other threads must see the copy whole. */
        private volatile byte[] heapData;

        FixedBytes(MemorySegment validity, MemorySegment data, long offset, int width, boolean eachValue) {
            super(validity, offset);
            this.data = data;
            this.width = width;
            this.eachValue = eachValue;
        }

        @Override
        public Bytes getBytes(int i) {
            long start = (offset + i) * width;
            byte[] heap = heapData;
            if (heap != null && !data.scope().isAlive()) {
                throw new IllegalStateException("Already closed: the batch was released");
            }
            if (heap == null) {
                if (eachValue || data.byteSize() > Integer.MAX_VALUE - 16) {
                    return new Bytes(data.asSlice(start, width).toArray(ValueLayout.JAVA_BYTE), 0, width);
                }
                heap = data.toArray(ValueLayout.JAVA_BYTE);
                heapData = heap;
            }
            return new Bytes(heap, (int) start, width);
        }
    }
}
