package dev.isthmus.arrow;

import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import org.apache.flink.table.data.ArrayData;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.MapData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.types.logical.ArrayType;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.BinaryType;
import org.apache.flink.table.types.logical.BooleanType;
import org.apache.flink.table.types.logical.CharType;
import org.apache.flink.table.types.logical.DateType;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.DoubleType;
import org.apache.flink.table.types.logical.FloatType;
import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.table.types.logical.LocalZonedTimestampType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.MapType;
import org.apache.flink.table.types.logical.NullType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.SmallIntType;
import org.apache.flink.table.types.logical.TimeType;
import org.apache.flink.table.types.logical.TimestampType;
import org.apache.flink.table.types.logical.TinyIntType;
import org.apache.flink.table.types.logical.VarBinaryType;
import org.apache.flink.table.types.logical.VarCharType;

/**
 * The canonical checksum of docs/arrow-checksum.md, computed from Flink rows: the oracle that
 * exported (and imported) Arrow arrays are compared with. It reads values through Flink's own
 * field getters and converts them with java.time, sharing nothing with the builders; the rows
 * hash as the struct array a batch of them becomes (each row a valid struct slot).
 */
public final class ArrowChecksum {
    private ArrowChecksum() {}

    /** The checksum of the struct array that holds {@code rows}, a batch of {@code type}. */
    public static long of(List<? extends RowData> rows, RowType type) {
        Fnv1a hash = new Fnv1a();
        for (RowData row : rows) {
            hash.add(1);
            fields(hash, row, type);
        }
        return hash.value();
    }

    private static void fields(Fnv1a hash, RowData row, RowType type) {
        for (int i = 0; i < type.getFieldCount(); i++) {
            LogicalType fieldType = type.getTypeAt(i);
            // Flink has no getter for NULL: its values are all null.
            Object value = fieldType instanceof NullType
                    ? null
                    : RowData.createFieldGetter(fieldType, i).getFieldOrNull(row);
            value(hash, value, fieldType);
        }
    }

    private static void value(Fnv1a hash, Object value, LogicalType type) {
        if (value == null || type instanceof NullType) {
            hash.add(0);
            return;
        }
        hash.add(1);
        switch (type) {
            case BooleanType t -> hash.add((Boolean) value ? 1 : 0);
            case TinyIntType t -> hash.addLittleEndian((Byte) value, 1);
            case SmallIntType t -> hash.addLittleEndian((Short) value, 2);
            case IntType t -> hash.addLittleEndian((Integer) value, 4);
            case BigIntType t -> hash.addLittleEndian((Long) value, 8);
            case FloatType t -> hash.addLittleEndian(Float.floatToRawIntBits((Float) value), 4);
            case DoubleType t -> hash.addLittleEndian(Double.doubleToRawLongBits((Double) value), 8);
            case DecimalType t -> decimal(hash, (DecimalData) value, t);
            case DateType t -> hash.addLittleEndian((Integer) value, 4);
            case TimeType t -> hash.addLittleEndian((Integer) value * 1_000L, 8); // time64 in microseconds
            case TimestampType t -> timestamp(hash, (TimestampData) value, t.getPrecision());
            case LocalZonedTimestampType t -> timestamp(hash, (TimestampData) value, t.getPrecision());
            case VarCharType t -> bytes(hash, ((StringData) value).toString().getBytes(StandardCharsets.UTF_8));
            case CharType t -> bytes(hash, ((StringData) value).toString().getBytes(StandardCharsets.UTF_8));
            case VarBinaryType t -> bytes(hash, (byte[]) value);
            case BinaryType t -> hash.add((byte[]) value);
            case RowType t -> fields(hash, (RowData) value, t);
            case ArrayType t -> {
                ArrayData array = (ArrayData) value;
                ArrayData.ElementGetter element = ArrayData.createElementGetter(t.getElementType());
                hash.addLittleEndian(array.size(), 8);
                for (int i = 0; i < array.size(); i++) {
                    value(hash, element.getElementOrNull(array, i), t.getElementType());
                }
            }
            case MapType t -> {
                MapData map = (MapData) value;
                ArrayData.ElementGetter key = ArrayData.createElementGetter(t.getKeyType());
                ArrayData.ElementGetter val = ArrayData.createElementGetter(t.getValueType());
                hash.addLittleEndian(map.size(), 8);
                for (int i = 0; i < map.size(); i++) {
                    hash.add(1); // the entries struct slot is valid
                    value(hash, key.getElementOrNull(map.keyArray(), i), t.getKeyType());
                    value(hash, val.getElementOrNull(map.valueArray(), i), t.getValueType());
                }
            }
            default -> throw new UnsupportedOperationException("no checksum rule for " + type);
        }
    }

    private static void decimal(Fnv1a hash, DecimalData value, DecimalType type) {
        BigInteger unscaled = value.toBigDecimal().setScale(type.getScale()).unscaledValue();
        byte[] bigEndian = unscaled.toByteArray();
        for (int i = 0; i < 16; i++) {
            int from = bigEndian.length - 1 - i;
            hash.add(from >= 0 ? bigEndian[from] : (unscaled.signum() < 0 ? 0xFF : 0));
        }
    }

    /** Micros up to precision 6, nanos above, as TypeMapping picks the unit. */
    private static void timestamp(Fnv1a hash, TimestampData value, int precision) {
        Instant instant = value.toInstant();
        long units = precision <= 6
                ? Math.addExact(Math.multiplyExact(instant.getEpochSecond(), 1_000_000L), instant.getNano() / 1_000)
                : Math.addExact(Math.multiplyExact(instant.getEpochSecond(), 1_000_000_000L), instant.getNano());
        hash.addLittleEndian(units, 8);
    }

    private static void bytes(Fnv1a hash, byte[] bytes) {
        hash.addLittleEndian(bytes.length, 8);
        hash.add(bytes);
    }

    /** FNV-1a, 64 bits. */
    public static final class Fnv1a {
        private long h = 0xcbf29ce484222325L;

        public Fnv1a add(int unsignedByte) {
            h = (h ^ (unsignedByte & 0xFF)) * 0x100000001b3L;
            return this;
        }

        public Fnv1a add(byte[] bytes) {
            for (byte b : bytes) {
                add(b);
            }
            return this;
        }

        public Fnv1a addLittleEndian(long value, int width) {
            for (int i = 0; i < width; i++) {
                add((int) (value >>> (8 * i)));
            }
            return this;
        }

        public long value() {
            return h;
        }
    }
}
