package dev.isthmus.arrow.flink.vector;

import dev.isthmus.arrow.cdata.ArrowArrayView;
import dev.isthmus.arrow.cdata.CheckedBatches;
import dev.isthmus.arrow.cdata.ImportedArray;
import dev.isthmus.arrow.types.ArrowType;
import org.apache.flink.table.data.columnar.vector.ColumnVector;
import org.apache.flink.table.data.columnar.vector.VectorizedColumnBatch;

/**
 * An imported Arrow struct array seen as a Flink {@link VectorizedColumnBatch}: one column per
 * struct field, read in place. Rows handed out ({@link #row(int)}) read the batch's memory, so
 * they are valid until {@link #close()}, which releases the native memory. What a read after close
 * does depends on how the array was imported and on {@link CheckedBatches} (docs/ownership.md): it
 * throws {@link IllegalStateException} for an array imported on its own and, with checked batches
 * on, for every batch; a scan's batches read without checks may return a later batch's values.
 */
public final class ArrowColumnarBatch implements AutoCloseable {
    private final ImportedArray array;
    private final VectorizedColumnBatch batch;

    /**
     * @throws IllegalArgumentException if the array is not a struct (a batch of columns) or is
     *     longer than a Flink batch can address
     */
    public ArrowColumnarBatch(ImportedArray array) {
        ArrowArrayView view = array.view();
        if (!(view.field().type() instanceof ArrowType.Struct) || view.field().isDictionaryEncoded()) {
            throw new IllegalArgumentException("a columnar batch needs a struct array, got " + view.field());
        }
        if (view.length() > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("batch of " + view.length() + " rows is too long for Flink");
        }
        this.array = array;
        this.batch = withColumns(ArrowVectors.children(view, view.offset()));
    }

    /**
     * A Flink batch of this batch's rows over {@code columns}, which read this batch's memory
     * (its own columns, possibly with others beside them); with {@link CheckedBatches} on, reads
     * through it throw once this batch is closed.
     */
    public VectorizedColumnBatch withColumns(ColumnVector[] columns) {
        VectorizedColumnBatch columnBatch =
                CheckedBatches.ENABLED ? CheckedColumnBatch.of(array, columns) : new VectorizedColumnBatch(columns);
        columnBatch.setNumRows((int) array.length());
        return columnBatch;
    }

    public VectorizedColumnBatch batch() {
        return batch;
    }

    public int numRows() {
        return batch.getNumRows();
    }

    /** A row view of row {@code rowId}; reuse one with {@link ArrowRowData#setRowId(int)} in hot loops. */
    public ArrowRowData row(int rowId) {
        return new ArrowRowData(batch, rowId);
    }

    public ImportedArray array() {
        return array;
    }

    @Override
    public void close() {
        array.close();
    }
}
