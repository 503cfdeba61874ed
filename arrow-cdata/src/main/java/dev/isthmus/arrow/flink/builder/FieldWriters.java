package dev.isthmus.arrow.flink.builder;

import dev.isthmus.arrow.builder.ArrowBuilder;
import dev.isthmus.arrow.builder.BoolBuilder;
import dev.isthmus.arrow.builder.Date32Builder;
import dev.isthmus.arrow.builder.Decimal128Builder;
import dev.isthmus.arrow.builder.FixedSizeBinaryBuilder;
import dev.isthmus.arrow.builder.Float32Builder;
import dev.isthmus.arrow.builder.Float64Builder;
import dev.isthmus.arrow.builder.Int16Builder;
import dev.isthmus.arrow.builder.Int32Builder;
import dev.isthmus.arrow.builder.Int64Builder;
import dev.isthmus.arrow.builder.Int8Builder;
import dev.isthmus.arrow.builder.ListBuilder;
import dev.isthmus.arrow.builder.MapBuilder;
import dev.isthmus.arrow.builder.NullBuilder;
import dev.isthmus.arrow.builder.StructBuilder;
import dev.isthmus.arrow.builder.Time64Builder;
import dev.isthmus.arrow.builder.TimestampBuilder;
import dev.isthmus.arrow.builder.VarBinaryBuilder;
import java.lang.foreign.MemorySegment;
import org.apache.flink.table.data.ArrayData;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.MapData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.data.binary.BinarySegmentUtils;
import org.apache.flink.table.data.binary.BinaryStringData;
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
 * The {@link FieldWriter} for each Flink type. The builders come from
 * {@link dev.isthmus.arrow.flink.TypeMapping#toArrow(String, LogicalType)} of the same type, so
 * each writer's builder has the class its type maps to. A null goes to the builder's
 * {@code appendNull()}, which refuses it, naming the field, if the field is NOT NULL.
 */
final class FieldWriters {
    private FieldWriters() {}

    /** One writer per field of {@code type}, appending into the children of {@code struct}. */
    static FieldWriter[] forFields(RowType type, StructBuilder struct) {
        FieldWriter[] writers = new FieldWriter[type.getFieldCount()];
        for (int i = 0; i < writers.length; i++) {
            writers[i] = forType(type.getTypeAt(i), struct.child(i));
        }
        return writers;
    }

    static FieldWriter forType(LogicalType type, ArrowBuilder builder) {
        return switch (type) {
            case BooleanType t -> new BoolWriter((BoolBuilder) builder);
            case TinyIntType t -> new TinyIntWriter((Int8Builder) builder);
            case SmallIntType t -> new SmallIntWriter((Int16Builder) builder);
            case IntType t -> new IntWriter((Int32Builder) builder);
            case BigIntType t -> new BigIntWriter((Int64Builder) builder);
            case FloatType t -> new FloatWriter((Float32Builder) builder);
            case DoubleType t -> new DoubleWriter((Float64Builder) builder);
            case DecimalType t -> new DecimalWriter((Decimal128Builder) builder, t.getPrecision(), t.getScale());
            case DateType t -> new DateWriter((Date32Builder) builder);
            case TimeType t -> new TimeWriter((Time64Builder) builder);
            case TimestampType t -> new TimestampWriter((TimestampBuilder) builder, t.getPrecision());
            case LocalZonedTimestampType t -> new TimestampWriter((TimestampBuilder) builder, t.getPrecision());
            case VarCharType t -> new StringWriter((VarBinaryBuilder) builder);
            case CharType t -> new StringWriter((VarBinaryBuilder) builder);
            case VarBinaryType t -> new BytesWriter((VarBinaryBuilder) builder);
            case BinaryType t -> new FixedBytesWriter((FixedSizeBinaryBuilder) builder);
            case NullType t -> new NullWriter((NullBuilder) builder);
            case RowType t -> new RowWriter((StructBuilder) builder, forFields(t, (StructBuilder) builder));
            case ArrayType t -> {
                ListBuilder list = (ListBuilder) builder;
                yield new ArrayWriter(list, forType(t.getElementType(), list.elements()));
            }
            case MapType t -> {
                MapBuilder map = (MapBuilder) builder;
                yield new MapWriter(map, forType(t.getKeyType(), map.keys()), forType(t.getValueType(), map.values()));
            }
            default ->
                throw new UnsupportedOperationException(
                        "cannot append Flink type " + type + " to field '" + builder.displayPath() + "'");
        };
    }

    record BoolWriter(BoolBuilder out) implements FieldWriter {
        @Override
        public void write(RowData row, int pos) {
            if (row.isNullAt(pos)) {
                out.appendNull();
            } else {
                out.append(row.getBoolean(pos));
            }
        }

        @Override
        public void write(ArrayData array, int index) {
            if (array.isNullAt(index)) {
                out.appendNull();
            } else {
                out.append(array.getBoolean(index));
            }
        }
    }

    record TinyIntWriter(Int8Builder out) implements FieldWriter {
        @Override
        public void write(RowData row, int pos) {
            if (row.isNullAt(pos)) {
                out.appendNull();
            } else {
                out.append(row.getByte(pos));
            }
        }

        @Override
        public void write(ArrayData array, int index) {
            if (array.isNullAt(index)) {
                out.appendNull();
            } else {
                out.append(array.getByte(index));
            }
        }
    }

    record SmallIntWriter(Int16Builder out) implements FieldWriter {
        @Override
        public void write(RowData row, int pos) {
            if (row.isNullAt(pos)) {
                out.appendNull();
            } else {
                out.append(row.getShort(pos));
            }
        }

        @Override
        public void write(ArrayData array, int index) {
            if (array.isNullAt(index)) {
                out.appendNull();
            } else {
                out.append(array.getShort(index));
            }
        }
    }

    record IntWriter(Int32Builder out) implements FieldWriter {
        @Override
        public void write(RowData row, int pos) {
            if (row.isNullAt(pos)) {
                out.appendNull();
            } else {
                out.append(row.getInt(pos));
            }
        }

        @Override
        public void write(ArrayData array, int index) {
            if (array.isNullAt(index)) {
                out.appendNull();
            } else {
                out.append(array.getInt(index));
            }
        }
    }

    record BigIntWriter(Int64Builder out) implements FieldWriter {
        @Override
        public void write(RowData row, int pos) {
            if (row.isNullAt(pos)) {
                out.appendNull();
            } else {
                out.append(row.getLong(pos));
            }
        }

        @Override
        public void write(ArrayData array, int index) {
            if (array.isNullAt(index)) {
                out.appendNull();
            } else {
                out.append(array.getLong(index));
            }
        }
    }

    record FloatWriter(Float32Builder out) implements FieldWriter {
        @Override
        public void write(RowData row, int pos) {
            if (row.isNullAt(pos)) {
                out.appendNull();
            } else {
                out.append(row.getFloat(pos));
            }
        }

        @Override
        public void write(ArrayData array, int index) {
            if (array.isNullAt(index)) {
                out.appendNull();
            } else {
                out.append(array.getFloat(index));
            }
        }
    }

    record DoubleWriter(Float64Builder out) implements FieldWriter {
        @Override
        public void write(RowData row, int pos) {
            if (row.isNullAt(pos)) {
                out.appendNull();
            } else {
                out.append(row.getDouble(pos));
            }
        }

        @Override
        public void write(ArrayData array, int index) {
            if (array.isNullAt(index)) {
                out.appendNull();
            } else {
                out.append(array.getDouble(index));
            }
        }
    }

    /** Compact decimals go in without touching {@link java.math.BigDecimal}. */
    private static void appendDecimal(Decimal128Builder out, DecimalData value) {
        if (value.isCompact()) {
            out.appendUnscaled(value.toUnscaledLong(), value.scale());
        } else {
            out.appendUnscaled(value.toBigDecimal().unscaledValue(), value.scale());
        }
    }

    private static void appendTimestamp(TimestampBuilder out, TimestampData value) {
        out.append(value.getMillisecond(), value.getNanoOfMillisecond());
    }

    /**
     * The precision and scale tell a binary row how its decimal is stored (compact or not). A wide
     * decimal of a {@link BinaryRowData} is read from the row's bytes: {@code getDecimal} would
     * build a {@code BigInteger} and a {@code BigDecimal} for each value, Flink's decimal
     * arithmetic widens results past 18 digits, and the sink's rows arrive as binary rows.
     */
    record DecimalWriter(Decimal128Builder out, int precision, int scale, byte[] scratch) implements FieldWriter {
        DecimalWriter(Decimal128Builder out, int precision, int scale) {
            this(out, precision, scale, new byte[16]);
        }

        @Override
        public void write(RowData row, int pos) {
            if (row.isNullAt(pos)) {
                out.appendNull();
            } else if (!DecimalData.isCompact(precision) && row instanceof BinaryRowData binary) {
                appendWide(binary, pos);
            } else {
                appendDecimal(out, row.getDecimal(pos, precision, scale));
            }
        }

        /**
         * The unscaled value's big-endian two's complement in the row's variable part, as
         * {@code BinaryRowWriter.writeDecimal} puts it: the slot holds its offset from the row's
         * start in the high word and its length (1 to 16 bytes) in the low one.
         */
        private void appendWide(BinaryRowData row, int pos) {
            long offsetAndLength = row.getLong(pos);
            int length = (int) offsetAndLength;
            if (length < 1 || length > 16) {
                throw new IllegalArgumentException("a DECIMAL(" + precision + ", " + scale + ") value of " + length
                        + " bytes in a binary row; expected 1 to 16");
            }
            BinarySegmentUtils.copyToBytes(
                    row.getSegments(), row.getOffset() + (int) (offsetAndLength >>> 32), scratch, 0, length);
            // Sign-extended from the first byte, then shifted in a byte at a time.
            long high = scratch[0] < 0 ? -1L : 0L;
            long low = high;
            for (int i = 0; i < length; i++) {
                high = high << 8 | low >>> 56;
                low = low << 8 | (scratch[i] & 0xFFL);
            }
            out.appendUnscaled128(low, high);
        }

        @Override
        public void write(ArrayData array, int index) {
            if (array.isNullAt(index)) {
                out.appendNull();
            } else {
                appendDecimal(out, array.getDecimal(index, precision, scale));
            }
        }
    }

    record DateWriter(Date32Builder out) implements FieldWriter {
        @Override
        public void write(RowData row, int pos) {
            if (row.isNullAt(pos)) {
                out.appendNull();
            } else {
                out.appendDays(row.getInt(pos));
            }
        }

        @Override
        public void write(ArrayData array, int index) {
            if (array.isNullAt(index)) {
                out.appendNull();
            } else {
                out.appendDays(array.getInt(index));
            }
        }
    }

    record TimeWriter(Time64Builder out) implements FieldWriter {
        @Override
        public void write(RowData row, int pos) {
            if (row.isNullAt(pos)) {
                out.appendNull();
            } else {
                out.appendMillisOfDay(row.getInt(pos));
            }
        }

        @Override
        public void write(ArrayData array, int index) {
            if (array.isNullAt(index)) {
                out.appendNull();
            } else {
                out.appendMillisOfDay(array.getInt(index));
            }
        }
    }

    /** The precision tells a binary row how its timestamp is stored (compact millis or not). */
    record TimestampWriter(TimestampBuilder out, int precision) implements FieldWriter {
        @Override
        public void write(RowData row, int pos) {
            if (row.isNullAt(pos)) {
                out.appendNull();
            } else {
                appendTimestamp(out, row.getTimestamp(pos, precision));
            }
        }

        @Override
        public void write(ArrayData array, int index) {
            if (array.isNullAt(index)) {
                out.appendNull();
            } else {
                appendTimestamp(out, array.getTimestamp(index, precision));
            }
        }
    }

    record StringWriter(VarBinaryBuilder out) implements FieldWriter {
        @Override
        public void write(RowData row, int pos) {
            if (row.isNullAt(pos)) {
                out.appendNull();
            } else {
                appendUtf8(out, row.getString(pos));
            }
        }

        @Override
        public void write(ArrayData array, int index) {
            if (array.isNullAt(index)) {
                out.appendNull();
            } else {
                appendUtf8(out, array.getString(index));
            }
        }
    }

    /**
     * Copies a string's UTF-8 bytes straight from where Flink keeps them (a binary row's memory,
     * or a generic string's cached encoding), without the intermediate array {@code toBytes()}
     * makes; only a string spread over several memory segments takes that path. A string Flink
     * holds only as a Java {@code String} (as {@code StringData.fromString} makes them) is encoded
     * by the JDK, which gives the same bytes as Flink's own encoder (unpaired surrogates become
     * {@code '?'} in both) at a fraction of its cost: an intrinsic against a loop over the chars. The string is left as it was.
     */
    @SuppressWarnings("restricted") // an off-heap Flink segment's address is live memory of its size
    static void appendUtf8(VarBinaryBuilder out, StringData value) {
        if (value instanceof BinaryStringData binary) {
            if (binary.getBinarySection() == null) {
                out.append(binary.getJavaObject());
                return;
            }
            org.apache.flink.core.memory.MemorySegment[] segments = binary.getSegments();
            int offset = binary.getOffset();
            int size = binary.getSizeInBytes();
            if (segments.length == 1 || offset + size <= segments[0].size()) {
                org.apache.flink.core.memory.MemorySegment segment = segments[0];
                byte[] heap = segment.getHeapMemory();
                if (heap != null) {
                    out.append(heap, offset, size);
                } else {
                    out.append(MemorySegment.ofAddress(segment.getAddress() + offset)
                            .reinterpret(size));
                }
                return;
            }
        }
        out.append(value.toBytes());
    }

    record BytesWriter(VarBinaryBuilder out) implements FieldWriter {
        @Override
        public void write(RowData row, int pos) {
            if (row.isNullAt(pos)) {
                out.appendNull();
            } else {
                out.append(row.getBinary(pos));
            }
        }

        @Override
        public void write(ArrayData array, int index) {
            if (array.isNullAt(index)) {
                out.appendNull();
            } else {
                out.append(array.getBinary(index));
            }
        }
    }

    record FixedBytesWriter(FixedSizeBinaryBuilder out) implements FieldWriter {
        @Override
        public void write(RowData row, int pos) {
            if (row.isNullAt(pos)) {
                out.appendNull();
            } else {
                out.append(row.getBinary(pos));
            }
        }

        @Override
        public void write(ArrayData array, int index) {
            if (array.isNullAt(index)) {
                out.appendNull();
            } else {
                out.append(array.getBinary(index));
            }
        }
    }

    record NullWriter(NullBuilder out) implements FieldWriter {
        @Override
        public void write(RowData row, int pos) {
            out.appendNull();
        }

        @Override
        public void write(ArrayData array, int index) {
            out.appendNull();
        }
    }

    record RowWriter(StructBuilder out, FieldWriter[] fields) implements FieldWriter {
        @Override
        public void write(RowData row, int pos) {
            if (row.isNullAt(pos)) {
                out.appendNull();
            } else {
                writeFields(row.getRow(pos, fields.length));
            }
        }

        @Override
        public void write(ArrayData array, int index) {
            if (array.isNullAt(index)) {
                out.appendNull();
            } else {
                writeFields(array.getRow(index, fields.length));
            }
        }

        private void writeFields(RowData nested) {
            for (int i = 0; i < fields.length; i++) {
                fields[i].write(nested, i);
            }
            out.append();
        }
    }

    record ArrayWriter(ListBuilder out, FieldWriter element) implements FieldWriter {
        @Override
        public void write(RowData row, int pos) {
            if (row.isNullAt(pos)) {
                out.appendNull();
            } else {
                writeElements(row.getArray(pos));
            }
        }

        @Override
        public void write(ArrayData array, int index) {
            if (array.isNullAt(index)) {
                out.appendNull();
            } else {
                writeElements(array.getArray(index));
            }
        }

        private void writeElements(ArrayData elements) {
            int size = elements.size();
            for (int i = 0; i < size; i++) {
                element.write(elements, i);
            }
            out.endList();
        }
    }

    record MapWriter(MapBuilder out, FieldWriter key, FieldWriter value) implements FieldWriter {
        @Override
        public void write(RowData row, int pos) {
            if (row.isNullAt(pos)) {
                out.appendNull();
            } else {
                writeEntries(row.getMap(pos));
            }
        }

        @Override
        public void write(ArrayData array, int index) {
            if (array.isNullAt(index)) {
                out.appendNull();
            } else {
                writeEntries(array.getMap(index));
            }
        }

        private void writeEntries(MapData map) {
            ArrayData keys = map.keyArray();
            ArrayData values = map.valueArray();
            int size = map.size();
            for (int i = 0; i < size; i++) {
                key.write(keys, i);
                value.write(values, i);
            }
            out.endMap();
        }
    }
}
