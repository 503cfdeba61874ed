package dev.isthmus.arrow.flink;

import dev.isthmus.arrow.types.ArrowField;
import dev.isthmus.arrow.types.ArrowType;
import dev.isthmus.arrow.types.ArrowType.TimeUnit;
import java.util.ArrayList;
import java.util.List;
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
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * The one place that says how an Iceberg type is represented in Flink and in Arrow.
 *
 * <table>
 * <caption>Primitive types</caption>
 * <tr><th>Iceberg</th><th>Flink</th><th>Arrow (format)</th></tr>
 * <tr><td>boolean</td><td>BOOLEAN</td><td>{@code b}</td></tr>
 * <tr><td>int</td><td>INT</td><td>{@code i}</td></tr>
 * <tr><td>long</td><td>BIGINT</td><td>{@code l}</td></tr>
 * <tr><td>float</td><td>FLOAT</td><td>{@code f}</td></tr>
 * <tr><td>double</td><td>DOUBLE</td><td>{@code g}</td></tr>
 * <tr><td>decimal(P,S)</td><td>DECIMAL(P,S)</td><td>{@code d:P,S}</td></tr>
 * <tr><td>date</td><td>DATE (int days)</td><td>{@code tdD}</td></tr>
 * <tr><td>time</td><td>TIME (int millis)</td><td>{@code ttu} (micros, as Parquet stores it)</td></tr>
 * <tr><td>timestamp</td><td>TIMESTAMP(6)</td><td>{@code tsu:}</td></tr>
 * <tr><td>timestamptz</td><td>TIMESTAMP_LTZ(6)</td><td>{@code tsu:UTC}</td></tr>
 * <tr><td>timestamp_ns</td><td>TIMESTAMP(9)</td><td>{@code tsn:}</td></tr>
 * <tr><td>timestamptz_ns</td><td>TIMESTAMP_LTZ(9)</td><td>{@code tsn:UTC}</td></tr>
 * <tr><td>string</td><td>STRING</td><td>{@code u}</td></tr>
 * <tr><td>uuid</td><td>BINARY(16)</td><td>{@code w:16}</td></tr>
 * <tr><td>fixed(L)</td><td>BINARY(L)</td><td>{@code w:L}</td></tr>
 * <tr><td>binary</td><td>BYTES</td><td>{@code z}</td></tr>
 * <tr><td>unknown</td><td>NULL</td><td>{@code n}</td></tr>
 * </table>
 *
 * <p>Structs, lists and maps become ROW/{@code +s}, ARRAY/{@code +l} (child {@value #LIST_ELEMENT})
 * and MAP/{@code +m} (entries struct {@value #MAP_ENTRIES} of {@value #MAP_KEY} and
 * {@value #MAP_VALUE}). The Flink side is the one Iceberg's own Flink connector uses
 * ({@code FlinkSchemaUtil}), so rows read natively compare equal to rows read by the stock path.
 */
public final class TypeMapping {
    public static final String LIST_ELEMENT = "element";
    public static final String MAP_ENTRIES = "entries";
    public static final String MAP_KEY = "key";
    public static final String MAP_VALUE = "value";
    public static final String UTC = "UTC";

    private TypeMapping() {}

    /** The Arrow struct field for a whole Iceberg schema (one child per top-level column). */
    public static ArrowField toArrow(Schema schema) {
        List<ArrowField> columns = new ArrayList<>();
        for (Types.NestedField field : schema.columns()) {
            columns.add(toArrow(field));
        }
        return new ArrowField("", new ArrowType.Struct(), false, columns, null);
    }

    public static ArrowField toArrow(Types.NestedField field) {
        return toArrow(field.name(), field.type(), field.isOptional());
    }

    public static ArrowField toArrow(String name, Type type, boolean nullable) {
        return switch (type) {
            case Types.StructType struct -> {
                List<ArrowField> children = new ArrayList<>();
                for (Types.NestedField f : struct.fields()) {
                    children.add(toArrow(f));
                }
                yield new ArrowField(name, new ArrowType.Struct(), nullable, children, null);
            }
            case Types.ListType list ->
                ArrowField.of(
                        name,
                        new ArrowType.List(false),
                        nullable,
                        toArrow(LIST_ELEMENT, list.elementType(), list.isElementOptional()));
            case Types.MapType map ->
                ArrowField.of(
                        name,
                        new ArrowType.Map(false),
                        nullable,
                        ArrowField.of(
                                MAP_ENTRIES,
                                new ArrowType.Struct(),
                                false,
                                toArrow(MAP_KEY, map.keyType(), false),
                                toArrow(MAP_VALUE, map.valueType(), map.isValueOptional())));
            default -> new ArrowField(name, primitive(type), nullable, List.of(), null);
        };
    }

    private static ArrowType primitive(Type type) {
        return switch (type.typeId()) {
            case BOOLEAN -> new ArrowType.Bool();
            case INTEGER -> new ArrowType.Int(32, true);
            case LONG -> new ArrowType.Int(64, true);
            case FLOAT -> new ArrowType.Float32();
            case DOUBLE -> new ArrowType.Float64();
            case DECIMAL -> {
                Types.DecimalType d = (Types.DecimalType) type;
                yield new ArrowType.Decimal(d.precision(), d.scale());
            }
            case DATE -> new ArrowType.Date(true);
            case TIME -> new ArrowType.Time(TimeUnit.MICROSECOND);
            case TIMESTAMP ->
                new ArrowType.Timestamp(
                        TimeUnit.MICROSECOND, ((Types.TimestampType) type).shouldAdjustToUTC() ? UTC : null);
            case TIMESTAMP_NANO ->
                new ArrowType.Timestamp(
                        TimeUnit.NANOSECOND, ((Types.TimestampNanoType) type).shouldAdjustToUTC() ? UTC : null);
            case STRING -> new ArrowType.Utf8(false);
            case UUID -> new ArrowType.FixedSizeBinary(16);
            case FIXED -> new ArrowType.FixedSizeBinary(((Types.FixedType) type).length());
            case BINARY -> new ArrowType.Binary(false);
            case UNKNOWN -> new ArrowType.Null();
            default -> throw new UnsupportedOperationException("Isthmus has no Arrow mapping for Iceberg type " + type);
        };
    }

    /** The Flink type Iceberg's Flink connector uses for {@code type}, nullable or not. */
    public static LogicalType toFlink(Type type, boolean nullable) {
        LogicalType flink = switch (type) {
            case Types.StructType struct -> {
                List<RowType.RowField> fields = new ArrayList<>();
                for (Types.NestedField f : struct.fields()) {
                    fields.add(new RowType.RowField(f.name(), toFlink(f.type(), f.isOptional()), f.doc()));
                }
                yield new RowType(fields);
            }
            case Types.ListType list -> new ArrayType(toFlink(list.elementType(), list.isElementOptional()));
            case Types.MapType map ->
                new MapType(toFlink(map.keyType(), false), toFlink(map.valueType(), map.isValueOptional()));
            default ->
                switch (type.typeId()) {
                    case BOOLEAN -> new BooleanType();
                    case INTEGER -> new IntType();
                    case LONG -> new BigIntType();
                    case FLOAT -> new FloatType();
                    case DOUBLE -> new DoubleType();
                    case DECIMAL ->
                        new DecimalType(((Types.DecimalType) type).precision(), ((Types.DecimalType) type).scale());
                    case DATE -> new DateType();
                    case TIME -> new TimeType();
                    case TIMESTAMP ->
                        ((Types.TimestampType) type).shouldAdjustToUTC()
                                ? new LocalZonedTimestampType(6)
                                : new TimestampType(6);
                    case TIMESTAMP_NANO ->
                        ((Types.TimestampNanoType) type).shouldAdjustToUTC()
                                ? new LocalZonedTimestampType(9)
                                : new TimestampType(9);
                    case STRING -> new VarCharType(VarCharType.MAX_LENGTH);
                    case UUID -> new BinaryType(16);
                    case FIXED -> new BinaryType(((Types.FixedType) type).length());
                    case BINARY -> new VarBinaryType(VarBinaryType.MAX_LENGTH);
                    case UNKNOWN -> new NullType();
                    default ->
                        throw new UnsupportedOperationException(
                                "Isthmus has no Flink mapping for Iceberg type " + type);
                };
        };
        return flink.copy(nullable);
    }

    /** The Arrow field for a Flink type: how the sink lays out rows it receives. */
    public static ArrowField toArrow(String name, LogicalType type) {
        boolean nullable = type.isNullable();
        return switch (type) {
            case RowType row -> {
                List<ArrowField> children = new ArrayList<>();
                for (RowType.RowField f : row.getFields()) {
                    children.add(toArrow(f.getName(), f.getType()));
                }
                yield new ArrowField(name, new ArrowType.Struct(), nullable, children, null);
            }
            case ArrayType array ->
                ArrowField.of(name, new ArrowType.List(false), nullable, toArrow(LIST_ELEMENT, array.getElementType()));
            case MapType map ->
                ArrowField.of(
                        name,
                        new ArrowType.Map(false),
                        nullable,
                        ArrowField.of(
                                MAP_ENTRIES,
                                new ArrowType.Struct(),
                                false,
                                toArrow(MAP_KEY, map.getKeyType().copy(false)),
                                toArrow(MAP_VALUE, map.getValueType())));
            case BooleanType t -> leaf(name, new ArrowType.Bool(), nullable);
            case TinyIntType t -> leaf(name, new ArrowType.Int(8, true), nullable);
            case SmallIntType t -> leaf(name, new ArrowType.Int(16, true), nullable);
            case IntType t -> leaf(name, new ArrowType.Int(32, true), nullable);
            case BigIntType t -> leaf(name, new ArrowType.Int(64, true), nullable);
            case FloatType t -> leaf(name, new ArrowType.Float32(), nullable);
            case DoubleType t -> leaf(name, new ArrowType.Float64(), nullable);
            case DecimalType t -> leaf(name, new ArrowType.Decimal(t.getPrecision(), t.getScale()), nullable);
            case DateType t -> leaf(name, new ArrowType.Date(true), nullable);
            case TimeType t -> leaf(name, new ArrowType.Time(TimeUnit.MICROSECOND), nullable);
            case TimestampType t ->
                leaf(name, new ArrowType.Timestamp(timestampUnit(t.getPrecision()), null), nullable);
            case LocalZonedTimestampType t ->
                leaf(name, new ArrowType.Timestamp(timestampUnit(t.getPrecision()), UTC), nullable);
            case VarCharType t -> leaf(name, new ArrowType.Utf8(false), nullable);
            case CharType t -> leaf(name, new ArrowType.Utf8(false), nullable);
            case VarBinaryType t -> leaf(name, new ArrowType.Binary(false), nullable);
            case BinaryType t -> leaf(name, new ArrowType.FixedSizeBinary(t.getLength()), nullable);
            case NullType t -> leaf(name, new ArrowType.Null(), true);
            default ->
                throw new UnsupportedOperationException(
                        "Isthmus has no Arrow mapping for Flink type " + type + " (field '" + name + "')");
        };
    }

    /** Micros up to precision 6 (Iceberg's timestamp), nanos above (timestamp_ns). */
    private static TimeUnit timestampUnit(int precision) {
        return precision <= 6 ? TimeUnit.MICROSECOND : TimeUnit.NANOSECOND;
    }

    private static ArrowField leaf(String name, ArrowType type, boolean nullable) {
        return new ArrowField(name, type, nullable, List.of(), null);
    }
}
