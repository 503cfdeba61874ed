package dev.isthmus.arrow.flink.vector;

import dev.isthmus.arrow.cdata.CheckedBatches;
import org.apache.flink.table.data.ArrayData;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.MapData;
import org.apache.flink.table.data.RawValueData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.data.columnar.vector.BytesColumnVector.Bytes;
import org.apache.flink.table.data.columnar.vector.VectorizedColumnBatch;
import org.apache.flink.types.RowKind;
import org.apache.flink.types.variant.Variant;

/**
 * A row of a column batch, read in place: what Flink's {@code ColumnarRowData} is (and mirrors,
 * as of Flink 2.1, equality and hashing refused included), but for what it allocates. A string
 * read from a vector of this package is one {@code BinaryStringData} over the column's heap
 * copy, whose segment array every string of the column shares, as a {@code BinaryRowData}'s
 * strings share the row's; {@code ColumnarRowData} builds four more objects for each (a
 * {@code Bytes}, a {@code MemorySegment} wrapping the copy anew, its {@code AtomicBoolean}, and
 * the array holding it). A struct field read from a vector of this package is a row of this
 * class too. Every other getter reads through the batch, as {@code ColumnarRowData} does.
 *
 * <p>Valid while the batch is: a read after the batch's close throws or, for a scan's batches
 * read without checks, may see a later batch's values (docs/ownership.md); strings already read
 * stay valid, as they do from {@code ColumnarRowData}.
 */
public final class ArrowRowData implements RowData {
    private final VectorizedColumnBatch batch;
    private RowKind rowKind = RowKind.INSERT;
    private int rowId;

    public ArrowRowData(VectorizedColumnBatch batch) {
        this(batch, 0);
    }

    public ArrowRowData(VectorizedColumnBatch batch, int rowId) {
        this.batch = batch;
        this.rowId = rowId;
    }

    /** Moves this view to row {@code rowId} of its batch. */
    public void setRowId(int rowId) {
        this.rowId = rowId;
    }

    @Override
    public int getArity() {
        return batch.getArity();
    }

    @Override
    public RowKind getRowKind() {
        return rowKind;
    }

    @Override
    public void setRowKind(RowKind kind) {
        this.rowKind = kind;
    }

    @Override
    public boolean isNullAt(int pos) {
        return batch.isNullAt(rowId, pos);
    }

    @Override
    public boolean getBoolean(int pos) {
        return batch.getBoolean(rowId, pos);
    }

    @Override
    public byte getByte(int pos) {
        return batch.getByte(rowId, pos);
    }

    @Override
    public short getShort(int pos) {
        return batch.getShort(rowId, pos);
    }

    @Override
    public int getInt(int pos) {
        return batch.getInt(rowId, pos);
    }

    @Override
    public long getLong(int pos) {
        return batch.getLong(rowId, pos);
    }

    @Override
    public float getFloat(int pos) {
        return batch.getFloat(rowId, pos);
    }

    @Override
    public double getDouble(int pos) {
        return batch.getDouble(rowId, pos);
    }

    @Override
    public StringData getString(int pos) {
        if (batch.columns[pos] instanceof StringVector strings) {
            requireOpen();
            return strings.getString(rowId);
        }
        Bytes bytes = batch.getByteArray(rowId, pos);
        return StringData.fromBytes(bytes.data, bytes.offset, bytes.len);
    }

    @Override
    public DecimalData getDecimal(int pos, int precision, int scale) {
        return batch.getDecimal(rowId, pos, precision, scale);
    }

    @Override
    public TimestampData getTimestamp(int pos, int precision) {
        return batch.getTimestamp(rowId, pos, precision);
    }

    @Override
    public <T> RawValueData<T> getRawValue(int pos) {
        throw new UnsupportedOperationException("RawValueData is not supported.");
    }

    @Override
    public byte[] getBinary(int pos) {
        Bytes bytes = batch.getByteArray(rowId, pos);
        if (bytes.offset == 0 && bytes.len == bytes.data.length) {
            return bytes.data;
        }
        byte[] copy = new byte[bytes.len];
        System.arraycopy(bytes.data, bytes.offset, copy, 0, bytes.len);
        return copy;
    }

    @Override
    public ArrayData getArray(int pos) {
        return batch.getArray(rowId, pos);
    }

    @Override
    public MapData getMap(int pos) {
        return batch.getMap(rowId, pos);
    }

    @Override
    public RowData getRow(int pos, int numFields) {
        if (batch.columns[pos] instanceof NestedVectors.Rows rows) {
            requireOpen();
            return rows.row(rowId);
        }
        return batch.getRow(rowId, pos);
    }

    @Override
    public Variant getVariant(int pos) {
        return batch.getVariant(rowId, pos);
    }

    /** What a checked batch's own getters do first, for the reads that go around them. */
    private void requireOpen() {
        if (CheckedBatches.ENABLED && batch instanceof CheckedColumnBatch checked) {
            checked.requireOpen();
        }
    }

    @Override
    public boolean equals(Object o) {
        throw new UnsupportedOperationException("ArrowRowData does not support equals, compare its fields one by one");
    }

    @Override
    public int hashCode() {
        throw new UnsupportedOperationException("ArrowRowData does not support hashCode, hash its fields one by one");
    }
}
