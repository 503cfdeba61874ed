package dev.isthmus.arrow.types;

import java.util.List;
import java.util.Objects;

/**
 * One node of an Arrow schema, as an {@code ArrowSchema} tree describes it.
 *
 * @param name the field name (may be empty, never null)
 * @param type the logical type of the values; for a dictionary-encoded field, the type of the
 *     dictionary's values
 * @param nullable whether the field may hold nulls ({@code ARROW_FLAG_NULLABLE})
 * @param children child fields: a struct's fields, a list's element, a map's entries struct
 * @param dictionaryIndex the index type when the field is dictionary-encoded, else {@code null}
 */
public record ArrowField(
        String name, ArrowType type, boolean nullable, List<ArrowField> children, ArrowType.Int dictionaryIndex) {

    public ArrowField {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(type, "type");
        children = List.copyOf(children);
        int expected = switch (type) {
            case ArrowType.List l -> 1;
            case ArrowType.Map m -> 1;
            case ArrowType.Struct s -> -1;
            default -> 0;
        };
        if (expected >= 0 && children.size() != expected) {
            throw new IllegalArgumentException("field '" + name + "' of type " + ArrowFormat.render(type) + " needs "
                    + expected + " child field(s), got " + children.size());
        }
        if (type instanceof ArrowType.Map
                && !(children.getFirst().type() instanceof ArrowType.Struct
                        && children.getFirst().children().size() == 2)) {
            throw new IllegalArgumentException("map field '" + name + "' needs an entries struct of key and value");
        }
    }

    public static ArrowField of(String name, ArrowType type, boolean nullable, ArrowField... children) {
        return new ArrowField(name, type, nullable, List.of(children), null);
    }

    public boolean isDictionaryEncoded() {
        return dictionaryIndex != null;
    }

    /** This field with values dictionary-encoded through {@code index}. */
    public ArrowField dictionaryEncoded(ArrowType.Int index) {
        return new ArrowField(name, type, nullable, children, index);
    }

    public ArrowField child(int i) {
        return children.get(i);
    }
}
