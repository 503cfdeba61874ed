package dev.isthmus.arrow.flink.vector;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.apache.flink.table.data.columnar.vector.ColumnVector;

/**
 * The part every Arrow-backed vector shares: the validity bitmap and the offset of the vector's
 * first value in its buffers (the array's own offset plus any enclosing struct's).
 */
abstract class ValidityVector implements ColumnVector {
    /**
     * {@code null} when the array has no nulls. Kept for the readers that test many rows' nulls
     * in one pass ({@link ColumnReads}, for binary rows) or ask whether a column has nulls at all,
     * and for its scope, which says whether the batch is still open.
     */
    final MemorySegment validity;

    /**
     * The bitmap copied to the heap when the vector is built (an eighth of a byte a row), for
     * {@link #isNullAt}; {@code null} with {@link #validity}, so the common case costs one branch.
     * Read through FFM, each null test inlines some 800-1,100 C2 nodes of checks into its
     * caller, so a reader's method that tests a dozen fields' nulls reaches C2's inlining cutoff
     * and calls its later getters out of line; from the heap it costs a bounds check and the
     * batch's liveness check below.
     */
    private final byte[] nullBits;

    protected final long offset;

    ValidityVector(MemorySegment validity, long offset) {
        this.validity = validity;
        this.nullBits = validity == null ? null : validity.toArray(ValueLayout.JAVA_BYTE);
        this.offset = offset;
    }

    /** A vector over the same nulls as {@code nulls}, sharing its copy of them. */
    ValidityVector(ValidityVector nulls) {
        this.validity = nulls.validity;
        this.nullBits = nulls.nullBits;
        this.offset = nulls.offset;
    }

    @Override
    public boolean isNullAt(int i) {
        byte[] bits = nullBits;
        if (bits == null) {
            return false;
        }
        if (!validity.scope().isAlive()) {
            throw new IllegalStateException("Already closed: the batch was released");
        }
        long bit = offset + i;
        return (bits[(int) (bit >>> 3)] & (1 << (bit & 7))) == 0;
    }
}
