package dev.isthmus.arrow.flink.builder;

import org.apache.flink.table.data.ArrayData;
import org.apache.flink.table.data.RowData;

/**
 * Appends one Flink value to one builder: the typed getter for a field, chosen once per schema
 * (see {@link FieldWriters}). A value comes from a row's field or, inside an ARRAY or MAP, from an
 * array element. {@link AppendGenerator} calls each through its own class; only rows it makes no
 * method for call them through this interface.
 */
interface FieldWriter {
    void write(RowData row, int pos);

    void write(ArrayData array, int index);
}
