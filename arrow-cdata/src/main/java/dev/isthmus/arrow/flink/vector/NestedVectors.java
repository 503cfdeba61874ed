package dev.isthmus.arrow.flink.vector;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.apache.flink.table.data.ArrayData;
import org.apache.flink.table.data.MapData;
import org.apache.flink.table.data.columnar.ColumnarMapData;
import org.apache.flink.table.data.columnar.ColumnarRowData;
import org.apache.flink.table.data.columnar.vector.ArrayColumnVector;
import org.apache.flink.table.data.columnar.vector.ColumnVector;
import org.apache.flink.table.data.columnar.vector.MapColumnVector;
import org.apache.flink.table.data.columnar.vector.RowColumnVector;
import org.apache.flink.table.data.columnar.vector.VectorizedColumnBatch;

/** Flink vectors over Arrow struct, list and map arrays; children are vectors themselves. */
final class NestedVectors {
    private NestedVectors() {}

    /** Children were built with this struct's offset added, so row {@code i} is child index {@code i}. */
    static final class Rows extends ValidityVector implements RowColumnVector {
        private final VectorizedColumnBatch children;

        Rows(MemorySegment validity, long offset, ColumnVector[] children) {
            super(validity, offset);
            this.children = new VectorizedColumnBatch(children);
        }

        private Rows(Rows nulls, ColumnVector[] children) {
            super(nulls);
            this.children = new VectorizedColumnBatch(children);
        }

        @Override
        public ColumnarRowData getRow(int i) {
            return new ColumnarRowData(children, i);
        }

        /** Row {@code i} as {@link ArrowRowData}, for readers that need not be Flink's class. */
        ArrowRowData row(int i) {
            return new ArrowRowData(children, i);
        }

        ColumnVector field(int index) {
            return children.columns[index];
        }

        /** These rows with {@code fields} for fields. */
        Rows withFields(ColumnVector[] fields) {
            return new Rows(this, fields.clone());
        }
    }

    /**
     * Reads list offsets; shared by lists and maps (a map is a list of entries). The offsets are
     * copied to the heap when the vector is built, as a string vector's are on its first read:
     * read through FFM, a list's two offsets inlined some 1,400 C2 nodes of checks into the
     * reader's method (see {@link ValidityVector#isNullAt}).
     */
    private abstract static class OffsetsVector extends ValidityVector {
        /** Kept for its scope, which says whether the batch is still open. */
        private final MemorySegment offsets;
        /** Entry {@code i} is where list {@code i - offset} starts; Flink's arrays index by int. */
        private final int[] starts;

        OffsetsVector(MemorySegment validity, MemorySegment offsets, long offset, int[] starts) {
            super(validity, offset);
            this.offsets = offsets;
            this.starts = starts;
        }

        /** A vector over the same nulls and offsets as {@code other}, sharing their copies. */
        OffsetsVector(OffsetsVector other) {
            super(other);
            this.offsets = other.offsets;
            this.starts = other.starts;
        }

        /** Where list {@code i} starts, after checking that the batch is open. */
        final int start(int i) {
            if (!offsets.scope().isAlive()) {
                throw new IllegalStateException("Already closed: the batch was released");
            }
            return starts[(int) offset + i];
        }

        /** Where list {@code i} ends: read after {@link #start}, which checked the batch. */
        final int end(int i) {
            return starts[(int) offset + i + 1];
        }
    }

    /**
     * The heap copy of a list or map array's offsets. 64-bit offsets are narrowed: Flink's
     * arrays index their elements by int.
     *
     * @throws IllegalArgumentException naming {@code path} if an offset is beyond an int
     */
    static int[] starts(MemorySegment offsets, boolean large, String path) {
        if (!large) {
            return offsets.toArray(ValueLayout.JAVA_INT_UNALIGNED);
        }
        int[] starts = new int[Math.toIntExact(offsets.byteSize() / Long.BYTES)];
        for (int i = 0; i < starts.length; i++) {
            long start = offsets.getAtIndex(ValueLayout.JAVA_LONG_UNALIGNED, i);
            if (start != (int) start) {
                throw new IllegalArgumentException("'" + path + "': offset " + start + " of a large list is beyond "
                        + Integer.MAX_VALUE + ", the most elements Flink's arrays can index");
            }
            starts[i] = (int) start;
        }
        return starts;
    }

    static final class Lists extends OffsetsVector implements ArrayColumnVector {
        private final ColumnVector elements;

        Lists(MemorySegment validity, MemorySegment offsets, long offset, int[] starts, ColumnVector elements) {
            super(validity, offsets, offset, starts);
            this.elements = elements;
        }

        private Lists(Lists lists, ColumnVector elements) {
            super(lists);
            this.elements = elements;
        }

        @Override
        public ArrayData getArray(int i) {
            int start = start(i);
            return new ArrowArrayData(elements, start, end(i) - start);
        }

        ColumnVector elements() {
            return elements;
        }

        /** These lists with their elements read from {@code newElements} instead. */
        Lists withElements(ColumnVector newElements) {
            return new Lists(this, newElements);
        }
    }

    static final class Maps extends OffsetsVector implements MapColumnVector {
        private final ColumnVector keys;
        private final ColumnVector values;

        Maps(
                MemorySegment validity,
                MemorySegment offsets,
                long offset,
                int[] starts,
                ColumnVector keys,
                ColumnVector values) {
            super(validity, offsets, offset, starts);
            this.keys = keys;
            this.values = values;
        }

        private Maps(Maps maps, ColumnVector values) {
            super(maps);
            this.keys = maps.keys;
            this.values = values;
        }

        @Override
        public MapData getMap(int i) {
            int start = start(i);
            return new ColumnarMapData(keys, values, start, end(i) - start);
        }

        ColumnVector values() {
            return values;
        }

        /** These maps with their values read from {@code newValues} instead. */
        Maps withValues(ColumnVector newValues) {
            return new Maps(this, newValues);
        }
    }
}
