package dev.isthmus.iceberg.source;

import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.data.columnar.vector.BooleanColumnVector;
import org.apache.flink.table.data.columnar.vector.ByteColumnVector;
import org.apache.flink.table.data.columnar.vector.BytesColumnVector;
import org.apache.flink.table.data.columnar.vector.ColumnVector;
import org.apache.flink.table.data.columnar.vector.DecimalColumnVector;
import org.apache.flink.table.data.columnar.vector.DoubleColumnVector;
import org.apache.flink.table.data.columnar.vector.FloatColumnVector;
import org.apache.flink.table.data.columnar.vector.IntColumnVector;
import org.apache.flink.table.data.columnar.vector.LongColumnVector;
import org.apache.flink.table.data.columnar.vector.ShortColumnVector;
import org.apache.flink.table.data.columnar.vector.TimestampColumnVector;

/**
 * A column with one value in every row: an identity-partition value or a metadata constant
 * ({@code _file}, {@code _spec_id}) the stock reader takes from the task instead of the file,
 * or the default of a column the file lacks; below a struct, null where the struct is.
 * The value is in Flink's internal representation, as Iceberg's {@code RowDataUtil.convertConstant}
 * gives it; the getter matching the column's type is the one Flink calls.
 */
final class ConstantVector
        implements BooleanColumnVector,
                ByteColumnVector,
                ShortColumnVector,
                IntColumnVector,
                LongColumnVector,
                FloatColumnVector,
                DoubleColumnVector,
                DecimalColumnVector,
                TimestampColumnVector,
                BytesColumnVector {
    private final Object value;
    private final Bytes bytes;
    /** The struct holding the column, or {@code null} for a top-level column. */
    private final ColumnVector struct;

    ConstantVector(Object value) {
        this(value, null);
    }

    /** A field of {@code struct} holding {@code value} wherever the struct is not null. */
    ConstantVector(Object value, ColumnVector struct) {
        this.value = value;
        this.struct = struct;
        byte[] b = switch (value) {
            case StringData s -> s.toBytes();
            case byte[] array -> array;
            case null, default -> null;
        };
        this.bytes = b == null ? null : new Bytes(b, 0, b.length);
    }

    @Override
    public boolean isNullAt(int i) {
        return value == null || struct != null && struct.isNullAt(i);
    }

    @Override
    public boolean getBoolean(int i) {
        return (Boolean) value;
    }

    @Override
    public byte getByte(int i) {
        return ((Number) value).byteValue();
    }

    @Override
    public short getShort(int i) {
        return ((Number) value).shortValue();
    }

    @Override
    public int getInt(int i) {
        return (Integer) value;
    }

    @Override
    public long getLong(int i) {
        return (Long) value;
    }

    @Override
    public float getFloat(int i) {
        return (Float) value;
    }

    @Override
    public double getDouble(int i) {
        return (Double) value;
    }

    @Override
    public DecimalData getDecimal(int i, int precision, int scale) {
        return (DecimalData) value;
    }

    @Override
    public TimestampData getTimestamp(int i, int precision) {
        return (TimestampData) value;
    }

    @Override
    public Bytes getBytes(int i) {
        return bytes;
    }
}
