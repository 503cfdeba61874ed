package dev.isthmus.arrow.flink.vector;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.apache.flink.table.data.columnar.vector.ColumnVector;

/**
 * The part every Arrow-backed vector shares: the validity bitmap and the offset of the vector's
 * first value in its buffers (the array's own offset plus any enclosing struct's).
 */
abstract class ValidityVector implements ColumnVector {
    /** {@code null} when the array has no nulls, so the common case costs one branch. */
    final MemorySegment validity;

    protected final long offset;

    ValidityVector(MemorySegment validity, long offset) {
        this.validity = validity;
        this.offset = offset;
    }

    @Override
    public boolean isNullAt(int i) {
        if (validity == null) {
            return false;
        }
        long bit = offset + i;
        return (validity.get(ValueLayout.JAVA_BYTE, bit >>> 3) & (1 << (bit & 7))) == 0;
    }
}
