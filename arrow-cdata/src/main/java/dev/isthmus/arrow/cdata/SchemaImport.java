package dev.isthmus.arrow.cdata;

import dev.isthmus.arrow.types.ArrowField;
import dev.isthmus.arrow.types.ArrowFormat;
import dev.isthmus.arrow.types.ArrowType;
import dev.isthmus.ffm.gen.ArrowSchema;
import dev.isthmus.ffm.gen.isthmus_h;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/** Reads {@code ArrowSchema} trees into {@link ArrowField}s. */
public final class SchemaImport {
    /** Deeper trees are not produced by Iceberg schemas and would only come from corrupt input. */
    private static final int MAX_DEPTH = 64;

    private SchemaImport() {}

    /**
     * Lets {@code producer} fill an {@code ArrowSchema} (typically a native call with it as an
     * out-parameter), reads it, and releases it: schemas are small, so Java keeps the parsed
     * {@link ArrowField} rather than the producer's memory.
     */
    public static ArrowField receive(Consumer<MemorySegment> producer) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment schema = ArrowSchema.allocate(arena);
            try {
                producer.accept(schema);
                return read(schema);
            } finally {
                MemorySegment release = ArrowSchema.release(schema);
                if (!release.equals(MemorySegment.NULL)) {
                    ArrowSchema.release.invoke(release, schema);
                }
            }
        }
    }

    /** Reads without taking ownership. */
    static ArrowField read(MemorySegment schema) {
        return read(schema, "", 0);
    }

    @SuppressWarnings("restricted")
    private static ArrowField read(MemorySegment schema, String parentPath, int depth) {
        if (depth > MAX_DEPTH) {
            throw new IllegalArgumentException("Arrow schema nested deeper than " + MAX_DEPTH + " at " + parentPath);
        }
        if (ArrowSchema.release(schema).equals(MemorySegment.NULL)) {
            throw new IllegalArgumentException("Arrow schema at '" + parentPath + "' is already released");
        }
        String name = string(ArrowSchema.name(schema));
        String path = parentPath.isEmpty() ? name : parentPath + "." + name;
        String format = string(ArrowSchema.format(schema));
        if (format == null) {
            throw new IllegalArgumentException("Arrow schema field '" + path + "' has a NULL format");
        }
        long flags = ArrowSchema.flags(schema);
        boolean nullable = (flags & isthmus_h.ARROW_FLAG_NULLABLE()) != 0;

        long nChildren = ArrowSchema.n_children(schema);
        if (nChildren < 0 || nChildren > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("Arrow schema field '" + path + "' has n_children " + nChildren);
        }
        List<ArrowField> children = new ArrayList<>((int) nChildren);
        if (nChildren > 0) {
            MemorySegment pointers =
                    ArrowSchema.children(schema).reinterpret(nChildren * ValueLayout.ADDRESS.byteSize());
            for (int i = 0; i < nChildren; i++) {
                MemorySegment child =
                        pointers.getAtIndex(ValueLayout.ADDRESS, i).reinterpret(ArrowSchema.sizeof());
                children.add(read(child, path, depth + 1));
            }
        }

        ArrowType type = parseFormat(format, path);
        MemorySegment dictionary = ArrowSchema.dictionary(schema);
        if (dictionary.equals(MemorySegment.NULL)) {
            if (type instanceof ArrowType.Map && (flags & isthmus_h.ARROW_FLAG_MAP_KEYS_SORTED()) != 0) {
                type = new ArrowType.Map(true);
            }
            return field(path, name, type, nullable, children, null);
        }
        if (!(type instanceof ArrowType.Int index)) {
            throw new IllegalArgumentException("Arrow schema field '" + path
                    + "' is dictionary-encoded but its index format '" + format + "' is not an integer");
        }
        ArrowField values = read(dictionary.reinterpret(ArrowSchema.sizeof()), path + "<dictionary>", depth + 1);
        return field(path, name, values.type(), nullable, values.children(), index);
    }

    private static ArrowType parseFormat(String format, String path) {
        try {
            return ArrowFormat.parse(format);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("Arrow schema field '" + path + "': " + e.getMessage(), e);
        }
    }

    private static ArrowField field(
            String path,
            String name,
            ArrowType type,
            boolean nullable,
            List<ArrowField> children,
            ArrowType.Int index) {
        try {
            return new ArrowField(name, type, nullable, children, index);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("Arrow schema field '" + path + "': " + e.getMessage(), e);
        }
    }

    @SuppressWarnings("restricted")
    private static String string(MemorySegment cString) {
        return cString.equals(MemorySegment.NULL)
                ? null
                : cString.reinterpret(Long.MAX_VALUE).getString(0);
    }
}
