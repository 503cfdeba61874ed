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
 * its vector is swapped for a constant one. A top-level struct the file holds none of the
 * projected fields of is not decoded at all ({@link #structWithoutFileFields}).
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
     * @param structInFile whether the file holds any field the table's struct of an id has, projected or not
     * @throws UnsupportedOperationException if a field to fill is not primitive, sits in a map's
     *     key, or sits in a nested struct the file holds but none of whose projected fields it
     *     holds (a top-level one is {@link #structWithoutFileFields})
     */
    static NestedDefaults of(List<Types.NestedField> columns, IntPredicate inFile, IntPredicate structInFile) {
        boolean any = false;
        for (Types.NestedField column : columns) {
            any |= column.type().isNestedType()
                    && needed(column.name(), column.type(), column.fieldId(), inFile, structInFile);
        }
        return any ? new NestedDefaults(List.copyOf(columns), inFile) : null;
    }

    /** Whether a default is to be filled in below {@code type}, the type of the field {@code id}. */
    private static boolean needed(String path, Type type, int id, IntPredicate inFile, IntPredicate structInFile) {
        boolean any = false;
        switch (type) {
            case Types.StructType struct -> {
                boolean holdsProjected = holdsAny(struct, inFile);
                if (!holdsProjected && !structInFile.test(id)) {
                    // A struct the file lacks altogether is decoded as nulls, as Iceberg's reader reads it.
                    return false;
                }
                for (Types.NestedField field : struct.fields()) {
                    String name = path + "." + field.name();
                    if (missingWithDefault(field, inFile)) {
                        if (!field.type().isPrimitiveType()) {
                            throw new UnsupportedOperationException(
                                    "the nested field " + name + " has a default value and is not primitive");
                        }
                        if (!holdsProjected) {
                            throw new UnsupportedOperationException("the nested field " + name
                                    + " has a default value and the file holds none of the projected fields of its"
                                    + " struct " + path);
                        }
                        any = true;
                    } else if (field.type().isNestedType()) {
                        any |= needed(name, field.type(), field.fieldId(), inFile, structInFile);
                    }
                }
            }
            case Types.ListType list ->
                any = needed(path + ".element", list.elementType(), list.elementId(), inFile, structInFile);
            case Types.MapType map -> {
                if (map.keyType().isNestedType()
                        && needed(path + ".key", map.keyType(), map.keyId(), inFile, structInFile)) {
                    throw new UnsupportedOperationException("a field in the keys of " + path + " has a default value");
                }
                any = needed(path + ".value", map.valueType(), map.valueId(), inFile, structInFile);
            }
            default -> {}
        }
        return any;
    }

    private static boolean missingWithDefault(Types.NestedField field, IntPredicate inFile) {
        return field.initialDefault() != null && (!field.type().isPrimitiveType() || !inFile.test(field.fieldId()));
    }

    /** Whether the file holds any primitive field below {@code type} (a nested type). */
    static boolean holdsAny(Type type, IntPredicate inFile) {
        for (Types.NestedField field : type.asNestedType().fields()) {
            if (field.type().isPrimitiveType() ? inFile.test(field.fieldId()) : holdsAny(field.type(), inFile)) {
                return true;
            }
        }
        return false;
    }

    /**
     * A top-level struct column the file holds but none of whose projected fields it holds (say
     * {@code info.country} alone, added with a default), which the decoder does not read: nothing
     * in the file tells where it is null, and Iceberg's reader, which reads such a struct from
     * constant readers alone, gives every row the struct when one of its fields has a default,
     * and null in every row otherwise.
     *
     * @throws UnsupportedOperationException if a field of it is not primitive
     */
    static ColumnVector structWithoutFileFields(String path, Types.StructType struct) {
        boolean defaults = false;
        List<Types.NestedField> fields = struct.fields();
        Object[] values = new Object[fields.size()];
        for (int f = 0; f < values.length; f++) {
            Types.NestedField field = fields.get(f);
            if (!field.type().isPrimitiveType()) {
                throw new UnsupportedOperationException("the nested field " + path + "." + field.name()
                        + " is not primitive, in a struct of which the file holds none of the projected fields");
            }
            if (field.initialDefault() != null) {
                values[f] = RowDataUtil.convertConstant(field.type(), field.initialDefault());
                defaults = true;
            } else if (field.isRequired()) {
                // Iceberg's reader fails on it ("Missing required field"); leave the file to it.
                throw new UnsupportedOperationException("the required field " + path + "." + field.name()
                        + " is missing from the file and has no default");
            }
        }
        ColumnVector[] vectors = new ColumnVector[values.length];
        for (int f = 0; f < values.length; f++) {
            vectors[f] = new ConstantVector(values[f]);
        }
        return new DefaultedStructVector(vectors, defaults);
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
