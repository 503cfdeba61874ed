package dev.isthmus.arrow.flink.vector;

import java.util.List;
import org.apache.flink.table.data.ArrayData;
import org.apache.flink.table.data.MapData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.data.columnar.vector.ColumnVector;
import org.apache.flink.table.data.columnar.vector.VectorizedColumnBatch;
import org.apache.flink.table.data.columnar.vector.heap.AbstractHeapVector;
import org.apache.flink.table.data.columnar.vector.heap.HeapArrayVector;
import org.apache.flink.table.data.columnar.vector.heap.HeapBooleanVector;
import org.apache.flink.table.data.columnar.vector.heap.HeapByteVector;
import org.apache.flink.table.data.columnar.vector.heap.HeapBytesVector;
import org.apache.flink.table.data.columnar.vector.heap.HeapDoubleVector;
import org.apache.flink.table.data.columnar.vector.heap.HeapFloatVector;
import org.apache.flink.table.data.columnar.vector.heap.HeapIntVector;
import org.apache.flink.table.data.columnar.vector.heap.HeapLongVector;
import org.apache.flink.table.data.columnar.vector.heap.HeapMapVector;
import org.apache.flink.table.data.columnar.vector.heap.HeapRowVector;
import org.apache.flink.table.data.columnar.vector.heap.HeapShortVector;
import org.apache.flink.table.data.columnar.vector.heap.HeapTimestampVector;
import org.apache.flink.table.data.columnar.vector.writable.WritableColumnVector;
import org.apache.flink.table.types.logical.ArrayType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.MapType;
import org.apache.flink.table.types.logical.RowType;

/**
 * Flink's own heap vectors filled with the same values, the reference the Arrow-backed vectors
 * are compared with. Covers the types Flink has heap vectors for (no decimals: Flink keeps those
 * in format-specific wrappers).
 */
final class HeapVectors {
    private HeapVectors() {}

    static VectorizedColumnBatch batch(List<? extends RowData> rows, RowType type) {
        ColumnVector[] columns = new ColumnVector[type.getFieldCount()];
        for (int c = 0; c < columns.length; c++) {
            LogicalType field = type.getTypeAt(c);
            RowData.FieldGetter getter = RowData.createFieldGetter(field, c);
            Object[] values = rows.stream().map(getter::getFieldOrNull).toArray();
            columns[c] = vector(values, field);
        }
        VectorizedColumnBatch batch = new VectorizedColumnBatch(columns);
        batch.setNumRows(rows.size());
        return batch;
    }

    private static WritableColumnVector vector(Object[] values, LogicalType type) {
        int n = values.length;
        AbstractHeapVector vector = switch (type.getTypeRoot()) {
            case BOOLEAN -> new HeapBooleanVector(n);
            case TINYINT -> new HeapByteVector(n);
            case SMALLINT -> new HeapShortVector(n);
            case INTEGER, DATE, TIME_WITHOUT_TIME_ZONE -> new HeapIntVector(n);
            case BIGINT -> new HeapLongVector(n);
            case FLOAT -> new HeapFloatVector(n);
            case DOUBLE -> new HeapDoubleVector(n);
            case CHAR, VARCHAR, BINARY, VARBINARY -> new HeapBytesVector(n);
            case TIMESTAMP_WITHOUT_TIME_ZONE, TIMESTAMP_WITH_LOCAL_TIME_ZONE -> new HeapTimestampVector(n);
            case ROW -> rowVector(values, (RowType) type);
            case ARRAY -> arrayVector(values, ((ArrayType) type).getElementType());
            case MAP -> mapVector(values, (MapType) type);
            default -> throw new IllegalArgumentException("no Flink heap vector for " + type);
        };
        for (int i = 0; i < n; i++) {
            Object v = values[i];
            if (v == null) {
                vector.setNullAt(i);
                continue;
            }
            switch (vector) {
                case HeapBooleanVector h -> h.vector[i] = (Boolean) v;
                case HeapByteVector h -> h.vector[i] = (Byte) v;
                case HeapShortVector h -> h.vector[i] = (Short) v;
                case HeapIntVector h -> h.vector[i] = (Integer) v;
                case HeapLongVector h -> h.vector[i] = (Long) v;
                case HeapFloatVector h -> h.vector[i] = (Float) v;
                case HeapDoubleVector h -> h.vector[i] = (Double) v;
                case HeapBytesVector h -> {
                    byte[] bytes = v instanceof StringData s ? s.toBytes() : (byte[]) v;
                    h.appendBytes(i, bytes, 0, bytes.length);
                }
                case HeapTimestampVector h -> h.setTimestamp(i, (TimestampData) v);
                default -> {}
            }
        }
        return (WritableColumnVector) vector;
    }

    private static HeapRowVector rowVector(Object[] values, RowType type) {
        WritableColumnVector[] fields = new WritableColumnVector[type.getFieldCount()];
        for (int f = 0; f < fields.length; f++) {
            RowData.FieldGetter getter = RowData.createFieldGetter(type.getTypeAt(f), f);
            Object[] column = new Object[values.length];
            for (int i = 0; i < values.length; i++) {
                column[i] = values[i] == null ? null : getter.getFieldOrNull((RowData) values[i]);
            }
            fields[f] = vector(column, type.getTypeAt(f));
        }
        return new HeapRowVector(values.length, fields);
    }

    private static HeapArrayVector arrayVector(Object[] values, LogicalType element) {
        long[] offsets = new long[values.length];
        long[] lengths = new long[values.length];
        Object[] elements = flatten(values, element, offsets, lengths, a -> (ArrayData) a);
        HeapArrayVector vector = new HeapArrayVector(values.length, vector(elements, element));
        vector.setOffsets(offsets);
        vector.setLengths(lengths);
        return vector;
    }

    private static HeapMapVector mapVector(Object[] values, MapType type) {
        long[] offsets = new long[values.length];
        long[] lengths = new long[values.length];
        Object[] keys = flatten(values, type.getKeyType(), offsets, lengths, m -> ((MapData) m).keyArray());
        Object[] items = flatten(
                values,
                type.getValueType(),
                new long[values.length],
                new long[values.length],
                m -> ((MapData) m).valueArray());
        HeapMapVector vector =
                new HeapMapVector(values.length, vector(keys, type.getKeyType()), vector(items, type.getValueType()));
        vector.setOffsets(offsets);
        vector.setLengths(lengths);
        return vector;
    }

    private static Object[] flatten(
            Object[] values,
            LogicalType element,
            long[] offsets,
            long[] lengths,
            java.util.function.Function<Object, ArrayData> arrays) {
        ArrayData.ElementGetter getter = ArrayData.createElementGetter(element);
        java.util.ArrayList<Object> flat = new java.util.ArrayList<>();
        for (int i = 0; i < values.length; i++) {
            offsets[i] = flat.size();
            if (values[i] != null) {
                ArrayData a = arrays.apply(values[i]);
                for (int j = 0; j < a.size(); j++) {
                    flat.add(getter.getElementOrNull(a, j));
                }
                lengths[i] = a.size();
            }
        }
        return flat.toArray();
    }
}
