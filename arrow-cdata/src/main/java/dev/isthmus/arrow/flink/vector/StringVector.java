package dev.isthmus.arrow.flink.vector;

import org.apache.flink.table.data.StringData;

/**
 * A vector of this package that reads a string as one Flink object ({@link ArrowRowData},
 * {@link ArrowArrayData}), where Flink's columnar rows build one from a {@code Bytes} view.
 */
interface StringVector {
    StringData getString(int i);
}
