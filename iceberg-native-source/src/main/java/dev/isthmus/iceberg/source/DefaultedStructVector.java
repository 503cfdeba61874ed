package dev.isthmus.iceberg.source;

import org.apache.flink.table.data.columnar.ColumnarRowData;
import org.apache.flink.table.data.columnar.vector.ColumnVector;
import org.apache.flink.table.data.columnar.vector.RowColumnVector;
import org.apache.flink.table.data.columnar.vector.VectorizedColumnBatch;

/**
 * A top-level struct the file holds none of the projected fields of, built from its fields'
 * initial defaults ({@link NestedDefaults#structWithoutFileFields}): Iceberg's reader has no
 * column to learn where such a struct is null from, so it gives every row the struct, or, when
 * no field has a default, none.
 */
final class DefaultedStructVector implements RowColumnVector {
    private final VectorizedColumnBatch fields;
    private final boolean present;

    /**
     * @param fields one vector per field, null in every row unless {@code present}
     * @param present whether the struct is there in every row, else in none
     */
    DefaultedStructVector(ColumnVector[] fields, boolean present) {
        this.fields = new VectorizedColumnBatch(fields);
        this.present = present;
    }

    @Override
    public boolean isNullAt(int i) {
        return !present;
    }

    @Override
    public ColumnarRowData getRow(int i) {
        return new ColumnarRowData(fields, i);
    }

    /** Field {@code f}, for a projection that emits it as a column of its own; null where the struct is. */
    ColumnVector field(int f) {
        return fields.columns[f];
    }
}
