package dev.isthmus.iceberg.source;

import dev.isthmus.arrow.flink.vector.ArrowVectors;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.columnar.vector.ColumnVector;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.iceberg.Schema;
import org.apache.iceberg.flink.FlinkSchemaUtil;
import org.apache.iceberg.types.Types;

/**
 * Fields nested in structs read as columns of their own, as Flink's planner pushes a nested
 * projection down: for {@code SELECT info.city} it asks for the path {@code info.city} and
 * expects rows whose first field is the city. The decoder reads the table's columns pruned to
 * the fields asked for ({@link #readSchema()}), so only their leaves are decoded; each emitted
 * row's field {@code i} is the value at path {@code i}, null where a struct on the way is null.
 */
final class NestedProjection implements Serializable {
    private static final long serialVersionUID = 1L;

    private final Schema readSchema;
    /** Per emitted field: its column's position in {@link #readSchema}, then its position in each struct below. */
    private final int[][] positions;
    /** Per emitted field: the number of fields of each struct on its path. */
    private final int[][] arities;

    private final RowType rowType;
    private transient RowData.FieldGetter[] getters;

    private NestedProjection(Schema readSchema, int[][] positions, RowType rowType) {
        this.readSchema = readSchema;
        this.positions = positions;
        this.rowType = rowType;
        this.arities = new int[positions.length][];
        for (int i = 0; i < positions.length; i++) {
            int[] path = positions[i];
            arities[i] = new int[path.length - 1];
            List<Types.NestedField> level = readSchema.columns();
            for (int depth = 0; depth + 1 < path.length; depth++) {
                level = level.get(path[depth]).type().asStructType().fields();
                arities[i][depth] = level.size();
            }
        }
    }

    /**
     * The projection of {@code paths} of {@code table}, each a column's name followed by the names
     * of the struct fields below it.
     *
     * @throws IllegalArgumentException if a path names no field, or goes through a field that is
     *     not a struct
     */
    static NestedProjection of(Schema table, List<List<String>> paths) {
        if (paths.isEmpty()) {
            throw new IllegalArgumentException("a projection needs at least one field");
        }
        // The fields each path goes through, and the tree of what is kept, in the paths' order.
        List<List<Types.NestedField>> resolved = new ArrayList<>();
        Map<Integer, Kept> columns = new LinkedHashMap<>();
        for (List<String> path : paths) {
            List<Types.NestedField> fields = resolve(table, path);
            resolved.add(fields);
            Kept kept = columns.computeIfAbsent(fields.get(0).fieldId(), id -> new Kept());
            for (int depth = 1; depth < fields.size() && !kept.whole; depth++) {
                kept = kept.children.computeIfAbsent(fields.get(depth).fieldId(), id -> new Kept());
            }
            kept.whole = true;
        }
        List<Types.NestedField> pruned = new ArrayList<>();
        for (Map.Entry<Integer, Kept> column : columns.entrySet()) {
            pruned.add(prune(table.findField(column.getKey()), column.getValue()));
        }
        Schema readSchema = new Schema(pruned);
        int[][] positions = new int[paths.size()][];
        List<RowType.RowField> rowFields = new ArrayList<>();
        Set<String> names = new HashSet<>();
        for (int i = 0; i < positions.length; i++) {
            List<Types.NestedField> fields = resolved.get(i);
            positions[i] = positions(readSchema, fields);
            boolean nullable = fields.stream().anyMatch(Types.NestedField::isOptional);
            LogicalType type = FlinkSchemaUtil.convert(fields.getLast().type()).copy(nullable);
            rowFields.add(new RowType.RowField(uniqueName(String.join("_", paths.get(i)), names), type));
        }
        return new NestedProjection(readSchema, positions, new RowType(rowFields));
    }

    /** A struct field's subtree to keep: all of it, or the children listed. */
    private static final class Kept {
        boolean whole;
        final Map<Integer, Kept> children = new LinkedHashMap<>();
    }

    private static List<Types.NestedField> resolve(Schema table, List<String> path) {
        if (path.isEmpty()) {
            throw new IllegalArgumentException("an empty path in a nested projection");
        }
        List<Types.NestedField> fields = new ArrayList<>();
        Types.StructType struct = table.asStruct();
        for (int depth = 0; depth < path.size(); depth++) {
            if (struct == null) {
                throw new IllegalArgumentException("cannot project " + String.join(".", path) + ": "
                        + String.join(".", path.subList(0, depth)) + " is not a struct");
            }
            Types.NestedField field = struct.field(path.get(depth));
            if (field == null) {
                throw new IllegalArgumentException("cannot project " + String.join(".", path) + ": the table has no "
                        + "field " + String.join(".", path.subList(0, depth + 1)));
            }
            fields.add(field);
            struct = field.type().isStructType() ? field.type().asStructType() : null;
        }
        return fields;
    }

    /** {@code field} with only what {@code kept} keeps of it, its struct's fields in the table's order. */
    private static Types.NestedField prune(Types.NestedField field, Kept kept) {
        if (kept.whole) {
            return field;
        }
        List<Types.NestedField> children = new ArrayList<>();
        for (Types.NestedField child : field.type().asStructType().fields()) {
            Kept keptChild = kept.children.get(child.fieldId());
            if (keptChild != null) {
                children.add(prune(child, keptChild));
            }
        }
        return Types.NestedField.from(field)
                .ofType(Types.StructType.of(children))
                .build();
    }

    private static int[] positions(Schema readSchema, List<Types.NestedField> fields) {
        int[] positions = new int[fields.size()];
        List<Types.NestedField> level = readSchema.columns();
        for (int depth = 0; depth < positions.length; depth++) {
            int id = fields.get(depth).fieldId();
            int position = 0;
            while (level.get(position).fieldId() != id) {
                position++;
            }
            positions[depth] = position;
            if (depth + 1 < positions.length) {
                level = level.get(position).type().asStructType().fields();
            }
        }
        return positions;
    }

    /** A flattened field's name: its path joined with {@code _}, made unique with a suffix. */
    private static String uniqueName(String name, Set<String> taken) {
        String unique = name;
        for (int n = 0; !taken.add(unique); n++) {
            unique = name + "$" + n;
        }
        return unique;
    }

    /** The columns to decode: the paths' columns, their structs pruned to the fields on the paths. */
    Schema readSchema() {
        return readSchema;
    }

    /** The emitted rows' type: one field per path. */
    RowType rowType() {
        return rowType;
    }

    /** The emitted columns, from the decoded columns of {@link #readSchema()} (in place, no copy). */
    ColumnVector[] columns(ColumnVector[] decoded) {
        ColumnVector[] columns = new ColumnVector[positions.length];
        for (int i = 0; i < columns.length; i++) {
            int[] path = positions[i];
            ColumnVector column = decoded[path[0]];
            for (int depth = 1; depth < path.length; depth++) {
                column = column instanceof DefaultedStructVector defaulted
                        ? defaulted.field(path[depth])
                        : ArrowVectors.field(column, path[depth]);
            }
            columns[i] = column;
        }
        return columns;
    }

    /** The emitted row of a row of {@link #readSchema()}; it shares {@code row}'s values. */
    RowData row(RowData row) {
        if (getters == null) {
            getters = new RowData.FieldGetter[positions.length];
            for (int i = 0; i < getters.length; i++) {
                int[] path = positions[i];
                getters[i] = RowData.createFieldGetter(rowType.getTypeAt(i), path[path.length - 1]);
            }
        }
        GenericRowData out = new GenericRowData(row.getRowKind(), positions.length);
        for (int i = 0; i < positions.length; i++) {
            int[] path = positions[i];
            RowData struct = row;
            for (int depth = 0; depth + 1 < path.length && struct != null; depth++) {
                struct = struct.isNullAt(path[depth]) ? null : struct.getRow(path[depth], arities[i][depth]);
            }
            out.setField(i, struct == null ? null : getters[i].getFieldOrNull(struct));
        }
        return out;
    }
}
