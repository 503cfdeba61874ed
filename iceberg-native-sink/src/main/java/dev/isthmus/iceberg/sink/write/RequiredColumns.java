package dev.isthmus.iceberg.sink.write;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.table.data.RowData;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Types;

/**
 * Refuses a row with a null in a column the Iceberg schema declares required, naming the column.
 * Checked before any writer sees the row: Iceberg's Parquet writer fails on such a row with a
 * NullPointerException that names no column, and an encoder must not be trusted to do better.
 * Top-level columns only; required fields nested in structs, lists and maps are the encoder's to
 * check.
 */
final class RequiredColumns implements Serializable {
    private static final long serialVersionUID = 1L;

    private final int[] positions;
    private final String[] names;

    private RequiredColumns(int[] positions, String[] names) {
        this.positions = positions;
        this.names = names;
    }

    /** The required columns of {@code schema}, or only those among {@code restrictTo} if not null. */
    static RequiredColumns of(Schema schema, java.util.Set<Integer> restrictTo) {
        List<Types.NestedField> columns = schema.columns();
        List<Integer> positions = new ArrayList<>();
        List<String> names = new ArrayList<>();
        for (int i = 0; i < columns.size(); i++) {
            Types.NestedField column = columns.get(i);
            if (column.isRequired() && (restrictTo == null || restrictTo.contains(column.fieldId()))) {
                positions.add(i);
                names.add(column.name());
            }
        }
        return new RequiredColumns(
                positions.stream().mapToInt(Integer::intValue).toArray(), names.toArray(String[]::new));
    }

    void check(RowData row) {
        for (int i = 0; i < positions.length; i++) {
            if (row.isNullAt(positions[i])) {
                throw new IllegalArgumentException("Null value in required column '" + names[i] + "' of a "
                        + row.getRowKind().shortString() + " row: the Iceberg schema declares the column required");
            }
        }
    }
}
