package dev.isthmus.arrow.flink.vector;

import org.apache.flink.table.data.columnar.vector.ColumnVector;

/** Arrow's null type (and Iceberg's unknown): every value is null. */
final class NullVector implements ColumnVector {
    static final NullVector INSTANCE = new NullVector();

    private NullVector() {}

    @Override
    public boolean isNullAt(int i) {
        return true;
    }
}
