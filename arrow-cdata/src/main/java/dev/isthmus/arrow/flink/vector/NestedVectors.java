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
            return new Rows(validity, offset, fields.clone());
        }
    }

    /**
     * Reads list offsets; shared by lists and maps (a map is a list of entries). The offsets are
     * copied to the heap when the vector is built, as a string vector's are on its first read: a
     * list read through FFM costs two checked native reads, each some 900 C2 nodes inlined into
     * the reader's method (see {@link ValidityVector#isNullAt}).
     */
    private abstract static class OffsetsVector extends ValidityVector {
        private final MemorySegment offsets;
        private final boolean large;
        /** Entry {@code i} is where list {@code i - offset} starts; Flink's arrays index by int. */
        private final int[] starts;

        OffsetsVector(MemorySegment validity, MemorySegment offsets, long offset, boolean large) {
            super(validity, offset);
            this.offsets = offsets;
            this.large = large;
            this.starts = large ? narrow(offsets) : offsets.toArray(ValueLayout.JAVA_INT_UNALIGNED);
        }

        private static int[] narrow(MemorySegment offsets) {
            long[] wide = offsets.toArray(ValueLayout.JAVA_LONG_UNALIGNED);
            int[] starts = new int[wide.length];
            for (int i = 0; i < wide.length; i++) {
                if (wide[i] != (int) wide[i]) {
                    throw new IllegalArgumentException("A large list's offset " + wide[i]
                            + " is beyond what Flink's arrays can index (" + Integer.MAX_VALUE + ")");
                }
                starts[i] = (int) wide[i];
            }
            return starts;
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

        final MemorySegment offsets() {
            return offsets;
        }

        final boolean large() {
            return large;
        }
    }

    static final class Lists extends OffsetsVector implements ArrayColumnVector {
        private final ColumnVector elements;

        Lists(MemorySegment validity, MemorySegment offsets, long offset, boolean large, ColumnVector elements) {
            super(validity, offsets, offset, large);
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
            return new Lists(validity, offsets(), offset, large(), newElements);
        }
    }

    static final class Maps extends OffsetsVector implements MapColumnVector {
        private final ColumnVector keys;
        private final ColumnVector values;

        Maps(MemorySegment validity, MemorySegment offsets, long offset, ColumnVector keys, ColumnVector values) {
            super(validity, offsets, offset, false);
            this.keys = keys;
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
            return new Maps(validity, offsets(), offset, keys, newValues);
        }
    }
}
