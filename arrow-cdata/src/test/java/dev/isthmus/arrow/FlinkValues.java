package dev.isthmus.arrow;

import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.table.data.ArrayData;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.MapData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.types.logical.ArrayType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.MapType;
import org.apache.flink.table.types.logical.NullType;
import org.apache.flink.table.types.logical.RowType;

/**
 * Turns Flink's internal values into plain Java values with value equality, so rows from any
 * {@link RowData} implementation (columnar ones have no {@code equals}) can be compared.
 */
public final class FlinkValues {
    private FlinkValues() {}

    public static List<Object> row(RowData row, RowType type) {
        List<Object> values = new ArrayList<>();
        for (int i = 0; i < type.getFieldCount(); i++) {
            LogicalType field = type.getTypeAt(i);
            // Flink has no field getter for NULL; such a column can only be null.
            values.add(
                    field instanceof NullType
                            ? (row.isNullAt(i) ? null : "NOT NULL")
                            : plain(RowData.createFieldGetter(field, i).getFieldOrNull(row), field));
        }
        return values;
    }

    public static Object plain(Object value, LogicalType type) {
        return switch (value) {
            case null -> null;
            case StringData s -> s.toString();
            case byte[] b -> HexFormat.of().formatHex(b);
            case DecimalData d -> d.toBigDecimal();
            // Bits, so NaN equals NaN and -0.0 differs from 0.0.
            case Float f -> "f" + Integer.toHexString(Float.floatToRawIntBits(f));
            case Double d -> "d" + Long.toHexString(Double.doubleToRawLongBits(d));
            case RowData r -> row(r, (RowType) type);
            case ArrayData a -> array(a, ((ArrayType) type).getElementType());
            case MapData m -> map(m, (MapType) type);
            default -> value;
        };
    }

    private static List<Object> array(ArrayData array, LogicalType element) {
        ArrayData.ElementGetter getter = ArrayData.createElementGetter(element);
        List<Object> values = new ArrayList<>();
        for (int i = 0; i < array.size(); i++) {
            values.add(plain(getter.getElementOrNull(array, i), element));
        }
        return values;
    }

    private static Map<Object, Object> map(MapData map, MapType type) {
        List<Object> keys = array(map.keyArray(), type.getKeyType());
        List<Object> values = array(map.valueArray(), type.getValueType());
        Map<Object, Object> plain = new LinkedHashMap<>();
        for (int i = 0; i < keys.size(); i++) {
            plain.put(keys.get(i), values.get(i));
        }
        return plain;
    }
}
