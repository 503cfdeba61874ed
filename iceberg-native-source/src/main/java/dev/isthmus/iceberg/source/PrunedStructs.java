package dev.isthmus.iceberg.source;

import dev.isthmus.arrow.flink.vector.ArrowVectors;
import java.util.List;
import org.apache.flink.table.data.columnar.vector.ColumnVector;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * The projection's part of a nested column decoded whole. The decoder matches the struct
 * fields of a file without field ids by position, so such a file's nested column is decoded as
 * the table has it and pruned here to the fields the projection keeps, matched by id.
 */
final class PrunedStructs {
    private PrunedStructs() {}

    /**
     * Whether {@code part}, a projection of {@code whole}, can be cut from a vector of it here.
     * Maps' keys are kept whole: they have no vector of their own here.
     */
    static boolean supports(Type whole, Type part) {
        return switch (part) {
            case Types.StructType struct ->
                struct.fields().stream()
                        .allMatch(f ->
                                supports(whole.asStructType().field(f.fieldId()).type(), f.type()));
            case Types.ListType list -> supports(whole.asListType().elementType(), list.elementType());
            case Types.MapType map ->
                map.keyType().equals(whole.asMapType().keyType())
                        && supports(whole.asMapType().valueType(), map.valueType());
            default -> true;
        };
    }

    /** The part of {@code vector}, of type {@code whole}, that {@code part} keeps; in place, no copy. */
    static ColumnVector prune(ColumnVector vector, Type whole, Type part) {
        if (whole.equals(part)) {
            return vector;
        }
        switch (part) {
            case Types.StructType struct -> {
                List<Types.NestedField> wholeFields = whole.asStructType().fields();
                List<Types.NestedField> kept = struct.fields();
                ColumnVector[] fields = new ColumnVector[kept.size()];
                for (int k = 0; k < fields.length; k++) {
                    int id = kept.get(k).fieldId();
                    int w = 0;
                    while (wholeFields.get(w).fieldId() != id) {
                        w++;
                    }
                    fields[k] = prune(
                            ArrowVectors.field(vector, w),
                            wholeFields.get(w).type(),
                            kept.get(k).type());
                }
                return ArrowVectors.withFields(vector, fields);
            }
            case Types.ListType list -> {
                return ArrowVectors.withElements(
                        vector,
                        prune(ArrowVectors.elements(vector), whole.asListType().elementType(), list.elementType()));
            }
            case Types.MapType map -> {
                return ArrowVectors.withElements(
                        vector,
                        prune(ArrowVectors.elements(vector), whole.asMapType().valueType(), map.valueType()));
            }
            default -> {
                return vector;
            }
        }
    }
}
