package dev.isthmus.iceberg.source;

import org.apache.flink.table.data.columnar.vector.LongColumnVector;

/**
 * The {@code _pos} metadata column of one batch: the file position of each row, which is the
 * batch's first row's position plus the row's index, since a batch never spans row groups.
 */
final class PositionVector implements LongColumnVector {
    private final long first;

    PositionVector(long first) {
        this.first = first;
    }

    @Override
    public boolean isNullAt(int i) {
        return false;
    }

    @Override
    public long getLong(int i) {
        return first + i;
    }
}
