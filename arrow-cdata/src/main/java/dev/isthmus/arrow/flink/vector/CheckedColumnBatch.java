package dev.isthmus.arrow.flink.vector;

import dev.isthmus.arrow.cdata.CheckedBatches;
import dev.isthmus.arrow.cdata.ImportedArray;
import org.apache.flink.table.data.ArrayData;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.MapData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.data.columnar.vector.BytesColumnVector;
import org.apache.flink.table.data.columnar.vector.ColumnVector;
import org.apache.flink.table.data.columnar.vector.VectorizedColumnBatch;
import org.apache.flink.types.variant.BinaryVariant;

/**
 * With {@link CheckedBatches} on, the Flink batch that the rows of an imported batch read through
 * ({@link ArrowRowData} calls it for every value but strings and structs, which it reads from
 * their vectors after {@link #requireOpen()}): every read first checks that the batch is
 * not closed, so a row kept past its batch's recycle fails saying so instead of with the arena's
 * bare "Already closed". Only ever loaded in checked mode, so the unchecked path keeps a single
 * {@link VectorizedColumnBatch} class and its calls stay direct.
 */
final class CheckedColumnBatch extends VectorizedColumnBatch {
    private final ImportedArray array;

    private CheckedColumnBatch(ImportedArray array, ColumnVector[] columns) {
        super(columns);
        this.array = array;
    }

    /** Typed as its superclass, so that callers do not load this class unless they create one. */
    static VectorizedColumnBatch of(ImportedArray array, ColumnVector[] columns) {
        return new CheckedColumnBatch(array, columns);
    }

    void requireOpen() {
        if (array.isClosed()) {
            throw new IllegalStateException("read of a recycled batch: this row belongs to a batch of "
                    + array.length() + " rows that has been closed; copy rows kept"
                    + " past their batch (Flink object reuse hands out the source's rows in place). Caught because "
                    + CheckedBatches.PROPERTY + " is on; see docs/ownership.md");
        }
    }

    @Override
    public boolean isNullAt(int rowId, int colId) {
        requireOpen();
        return super.isNullAt(rowId, colId);
    }

    @Override
    public boolean getBoolean(int rowId, int colId) {
        requireOpen();
        return super.getBoolean(rowId, colId);
    }

    @Override
    public byte getByte(int rowId, int colId) {
        requireOpen();
        return super.getByte(rowId, colId);
    }

    @Override
    public short getShort(int rowId, int colId) {
        requireOpen();
        return super.getShort(rowId, colId);
    }

    @Override
    public int getInt(int rowId, int colId) {
        requireOpen();
        return super.getInt(rowId, colId);
    }

    @Override
    public long getLong(int rowId, int colId) {
        requireOpen();
        return super.getLong(rowId, colId);
    }

    @Override
    public float getFloat(int rowId, int colId) {
        requireOpen();
        return super.getFloat(rowId, colId);
    }

    @Override
    public double getDouble(int rowId, int colId) {
        requireOpen();
        return super.getDouble(rowId, colId);
    }

    @Override
    public BytesColumnVector.Bytes getByteArray(int rowId, int colId) {
        requireOpen();
        return super.getByteArray(rowId, colId);
    }

    @Override
    public String getString(int rowId, int colId) {
        requireOpen();
        return super.getString(rowId, colId);
    }

    @Override
    public DecimalData getDecimal(int rowId, int colId, int precision, int scale) {
        requireOpen();
        return super.getDecimal(rowId, colId, precision, scale);
    }

    @Override
    public TimestampData getTimestamp(int rowId, int colId, int precision) {
        requireOpen();
        return super.getTimestamp(rowId, colId, precision);
    }

    @Override
    public ArrayData getArray(int rowId, int colId) {
        requireOpen();
        return super.getArray(rowId, colId);
    }

    @Override
    public RowData getRow(int rowId, int colId) {
        requireOpen();
        return super.getRow(rowId, colId);
    }

    @Override
    public MapData getMap(int rowId, int colId) {
        requireOpen();
        return super.getMap(rowId, colId);
    }

    @Override
    public BinaryVariant getVariant(int rowId, int colId) {
        requireOpen();
        return super.getVariant(rowId, colId);
    }
}
