package dev.isthmus.iceberg.source;

import dev.isthmus.arrow.flink.vector.ArrowVectors;
import java.util.List;
import java.util.function.IntPredicate;
import org.apache.flink.table.data.columnar.vector.ColumnVector;
import org.apache.iceberg.flink.data.RowDataUtil;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * The initial defaults (format v3) of fields inside structs that a data file lacks, because they
 * were added to their struct after it was written, filled into each decoded batch as Iceberg's
 * readers fill them: the default wherever the struct holding the field is not null, in structs
 * at any depth, in list elements and in map values. The decoder reads such a field as nulls;
 * its vector is swapped for a constant one.
 */
final class NestedDefaults {
    private final List<Types.NestedField> columns;
    private final IntPredicate inFile;

    private NestedDefaults(List<Types.NestedField> columns, IntPredicate inFile) {
        this.columns = columns;
        this.inFile = inFile;
    }

    /**
     * The defaults to fill into the decoded {@code columns}, or {@code null} if the file holds
     * every field that has one.
     *
     * @param inFile whether the file holds the primitive field of an id
     * @throws UnsupportedOperationException if a field to fill is not primitive, sits in a map's
     *     key, or the file holds none of the other fields its struct is read with: then nothing
     *     tells where the struct is null (Iceberg's reader fills the default into every row)
     */
    static NestedDefaults of(List<Types.NestedField> columns, IntPredicate inFile) {
        boolean any = false;
        for (Types.NestedField column : columns) {
            any |= column.type().isNestedType() && needed(column.name(), column.type(), inFile);
        }
        return any ? new NestedDefaults(List.copyOf(columns), inFile) : null;
    }

    private static boolean needed(String path, Type type, IntPredicate inFile) {
        boolean any = false;
        switch (type) {
            case Types.StructType struct -> {
                boolean structInFile = holdsAny(struct, inFile);
                for (Types.NestedField field : struct.fields()) {
                    String name = path + "." + field.name();
                    if (missingWithDefault(field, inFile)) {
                        if (!field.type().isPrimitiveType()) {
                            throw new UnsupportedOperationException(
                                    "the nested field " + name + " has a default value and is not primitive");
                        }
                        if (!structInFile) {
                            throw new UnsupportedOperationException("the nested field " + name
                                    + " has a default value and the file holds nothing of its struct " + path);
                        }
                        any = true;
                    } else if (field.type().isNestedType()) {
                        any |= needed(name, field.type(), inFile);
                    }
                }
            }
            case Types.ListType list -> any = needed(path + ".element", list.elementType(), inFile);
            case Types.MapType map -> {
                if (map.keyType().isNestedType() && needed(path + ".key", map.keyType(), inFile)) {
                    throw new UnsupportedOperationException("a field in the keys of " + path + " has a default value");
                }
                any = needed(path + ".value", map.valueType(), inFile);
            }
            default -> {}
        }
        return any;
    }

    private static boolean missingWithDefault(Types.NestedField field, IntPredicate inFile) {
        return field.initialDefault() != null && (!field.type().isPrimitiveType() || !inFile.test(field.fieldId()));
    }

    /** Whether the file holds any primitive field below {@code type}. */
    private static boolean holdsAny(Type type, IntPredicate inFile) {
        for (Types.NestedField field : type.asNestedType().fields()) {
            if (field.type().isPrimitiveType() ? inFile.test(field.fieldId()) : holdsAny(field.type(), inFile)) {
                return true;
            }
        }
        return false;
    }

    /** The decoded columns with the defaults filled in; {@code decoded} itself is left as it is. */
    ColumnVector[] fill(ColumnVector[] decoded) {
        ColumnVector[] filled = decoded.clone();
        for (int i = 0; i < columns.size(); i++) {
            Type type = columns.get(i).type();
            if (type.isNestedType()) {
                filled[i] = fill(filled[i], type, inFile);
            }
        }
        return filled;
    }

    private static ColumnVector fill(ColumnVector vector, Type type, IntPredicate inFile) {
        switch (type) {
            case Types.StructType struct -> {
                List<Types.NestedField> fields = struct.fields();
                ColumnVector[] filled = new ColumnVector[fields.size()];
                boolean changed = false;
                for (int f = 0; f < filled.length; f++) {
                    Types.NestedField field = fields.get(f);
                    ColumnVector child = ArrowVectors.field(vector, f);
                    if (missingWithDefault(field, inFile)) {
                        filled[f] = new ConstantVector(
                                RowDataUtil.convertConstant(field.type(), field.initialDefault()), vector);
                    } else {
                        filled[f] = fill(child, field.type(), inFile);
                    }
                    changed |= filled[f] != child;
                }
                return changed ? ArrowVectors.withFields(vector, filled) : vector;
            }
            case Types.ListType list -> {
                return fillElements(vector, list.elementType(), inFile);
            }
            case Types.MapType map -> {
                return fillElements(vector, map.valueType(), inFile);
            }
            default -> {
                return vector;
            }
        }
    }

    private static ColumnVector fillElements(ColumnVector vector, Type elementType, IntPredicate inFile) {
        if (!elementType.isNestedType()) {
            return vector;
        }
        ColumnVector elements = ArrowVectors.elements(vector);
        ColumnVector filled = fill(elements, elementType, inFile);
        return filled == elements ? vector : ArrowVectors.withElements(vector, filled);
    }
}
