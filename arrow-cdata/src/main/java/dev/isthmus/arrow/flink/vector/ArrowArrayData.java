package dev.isthmus.arrow.flink.vector;

import java.util.Arrays;
import org.apache.flink.table.data.ArrayData;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.MapData;
import org.apache.flink.table.data.RawValueData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.data.columnar.vector.ArrayColumnVector;
import org.apache.flink.table.data.columnar.vector.BooleanColumnVector;
import org.apache.flink.table.data.columnar.vector.ByteColumnVector;
import org.apache.flink.table.data.columnar.vector.BytesColumnVector;
import org.apache.flink.table.data.columnar.vector.ColumnVector;
import org.apache.flink.table.data.columnar.vector.DecimalColumnVector;
import org.apache.flink.table.data.columnar.vector.DoubleColumnVector;
import org.apache.flink.table.data.columnar.vector.FloatColumnVector;
import org.apache.flink.table.data.columnar.vector.IntColumnVector;
import org.apache.flink.table.data.columnar.vector.LongColumnVector;
import org.apache.flink.table.data.columnar.vector.MapColumnVector;
import org.apache.flink.table.data.columnar.vector.RowColumnVector;
import org.apache.flink.table.data.columnar.vector.ShortColumnVector;
import org.apache.flink.table.data.columnar.vector.TimestampColumnVector;
import org.apache.flink.types.variant.Variant;

/**
 * One list of a list vector: elements {@code [offset, offset + size)} of its element vector,
 * read in place. What Flink's {@code ColumnarArrayData} is (mirrored as of Flink 2.1), but for
 * what it allocates, as {@link ArrowRowData} is to {@code ColumnarRowData}: a string element is
 * one {@code BinaryStringData} over the column's shared heap copy, a struct element an
 * {@link ArrowRowData}.
 */
final class ArrowArrayData implements ArrayData {
    private final ColumnVector elements;
    private final int offset;
    private final int size;

    ArrowArrayData(ColumnVector elements, int offset, int size) {
        this.elements = elements;
        this.offset = offset;
        this.size = size;
    }

    @Override
    public int size() {
        return size;
    }

    @Override
    public boolean isNullAt(int pos) {
        return elements.isNullAt(offset + pos);
    }

    @Override
    public boolean getBoolean(int pos) {
        return ((BooleanColumnVector) elements).getBoolean(offset + pos);
    }

    @Override
    public byte getByte(int pos) {
        return ((ByteColumnVector) elements).getByte(offset + pos);
    }

    @Override
    public short getShort(int pos) {
        return ((ShortColumnVector) elements).getShort(offset + pos);
    }

    @Override
    public int getInt(int pos) {
        return ((IntColumnVector) elements).getInt(offset + pos);
    }

    @Override
    public long getLong(int pos) {
        return ((LongColumnVector) elements).getLong(offset + pos);
    }

    @Override
    public float getFloat(int pos) {
        return ((FloatColumnVector) elements).getFloat(offset + pos);
    }

    @Override
    public double getDouble(int pos) {
        return ((DoubleColumnVector) elements).getDouble(offset + pos);
    }

    @Override
    public StringData getString(int pos) {
        if (elements instanceof StringVector strings) {
            return strings.getString(offset + pos);
        }
        BytesColumnVector.Bytes bytes = ((BytesColumnVector) elements).getBytes(offset + pos);
        return StringData.fromBytes(bytes.data, bytes.offset, bytes.len);
    }

    @Override
    public DecimalData getDecimal(int pos, int precision, int scale) {
        return ((DecimalColumnVector) elements).getDecimal(offset + pos, precision, scale);
    }

    @Override
    public TimestampData getTimestamp(int pos, int precision) {
        return ((TimestampColumnVector) elements).getTimestamp(offset + pos, precision);
    }

    @Override
    public <T> RawValueData<T> getRawValue(int pos) {
        throw new UnsupportedOperationException("RawValueData is not supported.");
    }

    @Override
    public Variant getVariant(int pos) {
        throw new UnsupportedOperationException("Variant is not supported yet.");
    }

    @Override
    public byte[] getBinary(int pos) {
        BytesColumnVector.Bytes bytes = ((BytesColumnVector) elements).getBytes(offset + pos);
        if (bytes.offset == 0 && bytes.len == bytes.data.length) {
            return bytes.data;
        }
        return Arrays.copyOfRange(bytes.data, bytes.offset, bytes.offset + bytes.len);
    }

    @Override
    public ArrayData getArray(int pos) {
        return ((ArrayColumnVector) elements).getArray(offset + pos);
    }

    @Override
    public MapData getMap(int pos) {
        return ((MapColumnVector) elements).getMap(offset + pos);
    }

    @Override
    public RowData getRow(int pos, int numFields) {
        if (elements instanceof NestedVectors.Rows rows) {
            return rows.row(offset + pos);
        }
        return ((RowColumnVector) elements).getRow(offset + pos);
    }

    @Override
    public boolean[] toBooleanArray() {
        boolean[] values = new boolean[size];
        for (int i = 0; i < size; i++) {
            values[i] = getBoolean(i);
        }
        return values;
    }

    @Override
    public byte[] toByteArray() {
        byte[] values = new byte[size];
        for (int i = 0; i < size; i++) {
            values[i] = getByte(i);
        }
        return values;
    }

    @Override
    public short[] toShortArray() {
        short[] values = new short[size];
        for (int i = 0; i < size; i++) {
            values[i] = getShort(i);
        }
        return values;
    }

    @Override
    public int[] toIntArray() {
        int[] values = new int[size];
        for (int i = 0; i < size; i++) {
            values[i] = getInt(i);
        }
        return values;
    }

    @Override
    public long[] toLongArray() {
        long[] values = new long[size];
        for (int i = 0; i < size; i++) {
            values[i] = getLong(i);
        }
        return values;
    }

    @Override
    public float[] toFloatArray() {
        float[] values = new float[size];
        for (int i = 0; i < size; i++) {
            values[i] = getFloat(i);
        }
        return values;
    }

    @Override
    public double[] toDoubleArray() {
        double[] values = new double[size];
        for (int i = 0; i < size; i++) {
            values[i] = getDouble(i);
        }
        return values;
    }
}
