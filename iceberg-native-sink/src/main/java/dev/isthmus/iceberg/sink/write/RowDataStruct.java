package dev.isthmus.iceberg.sink.write;

import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.flink.FlinkRowData;
import org.apache.iceberg.flink.RowDataWrapper;
import org.apache.iceberg.types.Types;

/**
 * A Flink row as an Iceberg {@link StructLike}, with the values Iceberg's {@link RowDataWrapper}
 * (1.11) gives: the sink's partition keys and equality keys read rows through it. Iceberg's
 * wrapper converts the types whose Java values differ between the two (strings, timestamps,
 * decimals, ...) through getters built once, but builds a new field getter on every read of the
 * others (booleans, ints, longs, floats, doubles, dates), which are most partition and key
 * sources; here those getters are built once too and the rest is Iceberg's wrapper.
 * {@code RowDataStructTest} pins every type's values to Iceberg's.
 */
public final class RowDataStruct implements StructLike {
    private final RowDataWrapper converted;
    /** Per field, its getter if Iceberg's value is Flink's as it is, else {@code null}. */
    private final RowData.FieldGetter[] direct;

    private RowData row;

    public RowDataStruct(RowType flinkType, Types.StructType struct) {
        this.converted = new RowDataWrapper(flinkType, struct);
        this.direct = new RowData.FieldGetter[flinkType.getFieldCount()];
        for (int i = 0; i < direct.length; i++) {
            LogicalType type = flinkType.getTypeAt(i);
            direct[i] = switch (type.getTypeRoot()) {
                case BOOLEAN, INTEGER, BIGINT, FLOAT, DOUBLE, DATE -> FlinkRowData.createFieldGetter(type, i);
                default -> null;
            };
        }
    }

    /** Points this struct at {@code row}, until the next call. */
    public RowDataStruct wrap(RowData row) {
        this.row = row;
        converted.wrap(row);
        return this;
    }

    @Override
    public int size() {
        return direct.length;
    }

    @Override
    public <T> T get(int pos, Class<T> javaClass) {
        RowData.FieldGetter getter = direct[pos];
        if (getter == null) {
            return converted.get(pos, javaClass);
        }
        return javaClass.cast(getter.getFieldOrNull(row));
    }

    @Override
    public <T> void set(int pos, T value) {
        throw new UnsupportedOperationException("a view of a Flink row cannot be written to");
    }
}
