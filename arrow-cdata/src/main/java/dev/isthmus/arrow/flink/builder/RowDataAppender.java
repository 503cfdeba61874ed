package dev.isthmus.arrow.flink.builder;

import dev.isthmus.arrow.builder.ArrowBuilder;
import dev.isthmus.arrow.builder.BufferAllocator;
import dev.isthmus.arrow.builder.FinishedArray;
import dev.isthmus.arrow.builder.StructBuilder;
import dev.isthmus.arrow.flink.TypeMapping;
import dev.isthmus.arrow.memory.MemoryLimitExceededException;
import dev.isthmus.arrow.types.ArrowField;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;

/**
 * Appends Flink rows to a batch: one Arrow struct array with a child per field of a
 * {@link RowType}, laid out by {@link TypeMapping#toArrow(String, org.apache.flink.table.types.logical.LogicalType)}.
 * Works with every {@link RowData} implementation (binary, generic, columnar, joined), through the
 * typed getters of {@code RowData}, {@code ArrayData} and {@code MapData} only, chosen once per
 * field when the appender is made and called from one method generated per row type
 * ({@link AppendGenerator}). The row kind is not recorded.
 *
 * <p><b>Failure.</b> A row that cannot be appended (a null in a NOT NULL field, a
 * {@code BINARY(n)} value of another length, a decimal with too many digits, a timestamp out of
 * range, a batch past 2 GiB of strings in one field) fails with an
 * {@link IllegalArgumentException} naming the row's index in the batch and the field's path.
 * None of that row remains: the batch holds exactly the rows appended before it, and appending
 * (or finishing) can go on.
 *
 * <p>Not thread-safe.
 */
public final class RowDataAppender implements AutoCloseable {
    private final RowType rowType;
    private final ArrowField field;
    private final StructBuilder batch;
    private final FieldWriter[] writers;
    /** The writers' calls as one generated method, or null where there is none (then a loop calls them). */
    private final AppendGenerator.RowAppend generated;

    public RowDataAppender(RowType rowType, BufferAllocator allocator) {
        this.rowType = rowType;
        // The batch itself is never null: only its fields can be.
        this.field = TypeMapping.toArrow("", rowType.copy(false));
        this.batch = (StructBuilder) ArrowBuilder.forField(field, allocator);
        this.writers = FieldWriters.forFields(rowType, batch);
        this.generated = AppendGenerator.forWriters(writers);
    }

    /** The generated method rows go through, or null (see {@link AppendGenerator}). */
    AppendGenerator.RowAppend generated() {
        return generated;
    }

    /** The batch's Arrow field: a non-nullable struct named "" with one child per row field. */
    public ArrowField field() {
        return field;
    }

    /** Rows in the current batch. */
    public int rowCount() {
        return batch.length();
    }

    /**
     * Appends one row.
     *
     * @throws IllegalArgumentException if the row does not fit the schema; the batch is then as
     *     it was before this call
     */
    public void append(RowData row) {
        int rowIndex = batch.length();
        int fieldIndex = -1;
        try {
            if (row.getArity() != writers.length) {
                throw new IllegalArgumentException(
                        "the row has " + row.getArity() + " fields, the schema " + writers.length);
            }
            if (generated != null) {
                generated.append(row);
            } else {
                for (fieldIndex = 0; fieldIndex < writers.length; fieldIndex++) {
                    writers[fieldIndex].write(row, fieldIndex);
                }
            }
            batch.append();
        } catch (Error | MemoryLimitExceededException e) {
            // A refused allocation is the writer's cap, not a fault of the row: it travels as is.
            batch.truncate(rowIndex);
            throw e;
        } catch (IllegalArgumentException e) {
            batch.truncate(rowIndex);
            // The builders' own messages name the full path.
            throw new IllegalArgumentException("cannot append row " + rowIndex + " of the batch: " + e.getMessage(), e);
        } catch (RuntimeException e) {
            batch.truncate(rowIndex);
            if (fieldIndex < 0 && generated != null) {
                fieldIndex = failingField(row, rowIndex);
            }
            throw new IllegalArgumentException(
                    "cannot append row " + rowIndex + " of the batch: " + unreadable(row, fieldIndex, e), e);
        }
    }

    /**
     * The field whose writer fails on {@code row}, found by calling the writers one by one on a
     * row the generated method failed on (which does not say where), then rolled back; -1 if none
     * fails this time, or the writer's memory cap stops the search (which says nothing of the row).
     */
    private int failingField(RowData row, int rowIndex) {
        int fieldIndex = 0;
        try {
            for (; fieldIndex < writers.length; fieldIndex++) {
                writers[fieldIndex].write(row, fieldIndex);
            }
            return -1;
        } catch (MemoryLimitExceededException capped) {
            return -1;
        } catch (RuntimeException again) {
            return fieldIndex;
        } finally {
            batch.truncate(rowIndex);
        }
    }

    /**
     * Says why a field could not be read (a generic row holding the wrong class, say) from what the
     * appender knows, never from the exception's message alone: the JIT may throw a hot
     * {@code ClassCastException} without one.
     */
    private String unreadable(RowData row, int fieldIndex, RuntimeException e) {
        String cause = e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage());
        if (fieldIndex < 0 || fieldIndex >= writers.length) {
            return cause;
        }
        String expected = "field '" + field.child(fieldIndex).name() + "' of type " + rowType.getTypeAt(fieldIndex)
                + " could not be read";
        if (row instanceof GenericRowData generic) {
            Object value = generic.getField(fieldIndex);
            return expected + ": the row holds "
                    + (value == null ? "null" : "a " + value.getClass().getName()) + " there (" + cause + ")";
        }
        return expected + " from a " + row.getClass().getName() + " (" + cause + ")";
    }

    /**
     * Hands the batch over (see {@link ArrowBuilder#finish()}) and starts the next one in the
     * same staging.
     */
    public FinishedArray finish() {
        return batch.finish();
    }

    /** Discards the batch, keeping the staging for the next one. */
    public void reset() {
        batch.reset();
    }

    /** Frees the buffers of the current batch; finished batches are not affected. */
    @Override
    public void close() {
        batch.close();
    }
}
