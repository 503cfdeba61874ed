package dev.isthmus.arrow.flink.vector;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.apache.flink.table.data.ArrayData;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.MapData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.data.columnar.ColumnarRowData;
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

/**
 * A dictionary-encoded Arrow array read without materialising it: each getter reads the
 * index in place and asks the dictionary's own vector for that entry. It answers every
 * typed interface; the caller only uses the one matching the field's type.
 */
final class DictionaryVector extends ValidityVector
        implements BooleanColumnVector,
                ByteColumnVector,
                ShortColumnVector,
                IntColumnVector,
                LongColumnVector,
                FloatColumnVector,
                DoubleColumnVector,
                DecimalColumnVector,
                TimestampColumnVector,
                BytesColumnVector,
                RowColumnVector,
                ArrayColumnVector,
                MapColumnVector,
                StringVector {
    private final MemorySegment indices;
    private final int indexBytes;
    private final boolean signed;
    final ColumnVector dictionary;

    DictionaryVector(
            MemorySegment validity,
            MemorySegment indices,
            long offset,
            int indexBits,
            boolean signed,
            ColumnVector dictionary) {
        super(validity, offset);
        this.indices = indices;
        this.indexBytes = indexBits / 8;
        this.signed = signed;
        this.dictionary = dictionary;
    }

    /** The dictionary entry of row {@code i}; Arrow allows any integer index type. */
    int entry(int i) {
        long at = offset + i;
        long index = switch (indexBytes) {
            case 1 ->
                signed
                        ? indices.get(ValueLayout.JAVA_BYTE, at)
                        : Byte.toUnsignedLong(indices.get(ValueLayout.JAVA_BYTE, at));
            case 2 ->
                signed
                        ? indices.getAtIndex(ValueLayout.JAVA_SHORT_UNALIGNED, at)
                        : Short.toUnsignedLong(indices.getAtIndex(ValueLayout.JAVA_SHORT_UNALIGNED, at));
            case 4 ->
                signed
                        ? indices.getAtIndex(ValueLayout.JAVA_INT_UNALIGNED, at)
                        : Integer.toUnsignedLong(indices.getAtIndex(ValueLayout.JAVA_INT_UNALIGNED, at));
            default -> indices.getAtIndex(ValueLayout.JAVA_LONG_UNALIGNED, at);
        };
        if (index < 0 || index > Integer.MAX_VALUE) {
            throw new IndexOutOfBoundsException("dictionary index " + index + " at row " + i);
        }
        return (int) index;
    }

    /** A row is null when its index is null or the dictionary entry it points at is. */
    @Override
    public boolean isNullAt(int i) {
        return super.isNullAt(i) || dictionary.isNullAt(entry(i));
    }

    @Override
    public boolean getBoolean(int i) {
        return ((BooleanColumnVector) dictionary).getBoolean(entry(i));
    }

    @Override
    public byte getByte(int i) {
        return ((ByteColumnVector) dictionary).getByte(entry(i));
    }

    @Override
    public short getShort(int i) {
        return ((ShortColumnVector) dictionary).getShort(entry(i));
    }

    @Override
    public int getInt(int i) {
        return ((IntColumnVector) dictionary).getInt(entry(i));
    }

    @Override
    public long getLong(int i) {
        return ((LongColumnVector) dictionary).getLong(entry(i));
    }

    @Override
    public float getFloat(int i) {
        return ((FloatColumnVector) dictionary).getFloat(entry(i));
    }

    @Override
    public double getDouble(int i) {
        return ((DoubleColumnVector) dictionary).getDouble(entry(i));
    }

    @Override
    public DecimalData getDecimal(int i, int precision, int scale) {
        return ((DecimalColumnVector) dictionary).getDecimal(entry(i), precision, scale);
    }

    @Override
    public TimestampData getTimestamp(int i, int precision) {
        return ((TimestampColumnVector) dictionary).getTimestamp(entry(i), precision);
    }

    @Override
    public Bytes getBytes(int i) {
        return ((BytesColumnVector) dictionary).getBytes(entry(i));
    }

    @Override
    public StringData getString(int i) {
        if (dictionary instanceof StringVector strings) {
            return strings.getString(entry(i));
        }
        Bytes bytes = getBytes(i);
        return StringData.fromBytes(bytes.data, bytes.offset, bytes.len);
    }

    @Override
    public ColumnarRowData getRow(int i) {
        return ((RowColumnVector) dictionary).getRow(entry(i));
    }

    @Override
    public ArrayData getArray(int i) {
        return ((ArrayColumnVector) dictionary).getArray(entry(i));
    }

    @Override
    public MapData getMap(int i) {
        return ((MapColumnVector) dictionary).getMap(entry(i));
    }
}
