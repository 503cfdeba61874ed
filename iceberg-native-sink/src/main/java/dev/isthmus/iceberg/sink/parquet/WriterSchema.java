package dev.isthmus.iceberg.sink.parquet;

import dev.isthmus.arrow.cdata.ArrowExporter;
import dev.isthmus.arrow.memory.MemoryTracker;
import dev.isthmus.arrow.types.ArrowField;
import dev.isthmus.arrow.types.TypeMapping;
import dev.isthmus.ffm.gen.ArrowSchema;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SchemaParser;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.TypeUtil;
import org.apache.iceberg.types.Types;

/**
 * The Arrow schema a native writer is opened with: the table's columns as {@link TypeMapping}
 * lays them out, plus the metadata the encoder needs and Arrow fields cannot carry in Java: each
 * column's Iceberg field id ({@value #FIELD_ID}), the uuid extension name, and the table schema
 * as JSON in the struct's metadata ({@value #ICEBERG_SCHEMA}), which becomes the file's footer
 * metadata exactly as Iceberg's writer puts it there.
 */
final class WriterSchema {
    static final String FIELD_ID = "PARQUET:field_id";
    static final String EXTENSION_NAME = "ARROW:extension:name";
    static final String UUID_EXTENSION = "arrow.uuid";
    static final String ICEBERG_SCHEMA = "iceberg.schema";

    private WriterSchema() {}

    /**
     * Refuses what the encoder cannot write before anything is opened, naming the column: the
     * native writer would refuse it too, but only with the Arrow view of the schema.
     */
    static void requireWritable(Schema schema) {
        unsupported(schema).ifPresent(reason -> {
            throw new UnsupportedOperationException(reason);
        });
    }

    /** Why the encoder cannot write {@code schema}, or empty if it can. */
    static Optional<String> unsupported(Schema schema) {
        for (Types.NestedField field : TypeUtil.indexById(schema.asStruct()).values()) {
            Type type = field.type();
            boolean writable = type.isNestedType()
                    || type.isPrimitiveType() && switch (type.typeId()) {
                        case UNKNOWN, GEOMETRY, GEOGRAPHY -> false;
                        default -> true;
                    };
            if (!writable) {
                return Optional.of("the native Parquet writer cannot write column '"
                        + schema.findColumnName(field.fieldId()) + "' (id " + field.fieldId() + ") of type " + type
                        + ": unknown, variant, geometry and geography columns are not implemented"
                        + " (docs/encoder.md, Deferred)");
            }
        }
        return Optional.empty();
    }

    /**
     * Calls {@code use} with an {@code ArrowSchema} for {@code schema} that is valid only during
     * the call (the native writer borrows it), then releases it and frees its metadata.
     */
    static void withSchema(Schema schema, MemoryTracker tracker, Consumer<MemorySegment> use) {
        ArrowField field = TypeMapping.toArrow(schema);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment struct = ArrowSchema.allocate(arena);
            ArrowExporter.exportSchema(field, struct, tracker);
            try {
                // The exporter leaves metadata NULL; these strings outlive the borrow, so patching is safe.
                ArrowSchema.metadata(struct, encode(Map.of(ICEBERG_SCHEMA, SchemaParser.toJson(schema)), arena));
                List<Types.NestedField> columns = schema.columns();
                for (int i = 0; i < columns.size(); i++) {
                    Types.NestedField column = columns.get(i);
                    label(child(struct, i), column.fieldId(), column.type(), arena);
                }
                use.accept(struct);
            } finally {
                ArrowSchema.release.invoke(ArrowSchema.release(struct), struct);
            }
        }
    }

    /**
     * Gives the exported field of {@code type} its Iceberg field id (and a uuid its extension
     * name), and the fields under it theirs: a struct's fields, a list's element, a map's key
     * and value (its entries struct has no id).
     */
    private static void label(MemorySegment field, int fieldId, Type type, Arena arena) {
        Map<String, String> metadata = new LinkedHashMap<>();
        metadata.put(FIELD_ID, Integer.toString(fieldId));
        if (type.typeId() == Type.TypeID.UUID) {
            metadata.put(EXTENSION_NAME, UUID_EXTENSION);
        }
        ArrowSchema.metadata(field, encode(metadata, arena));
        switch (type) {
            case Types.StructType struct -> {
                List<Types.NestedField> fields = struct.fields();
                for (int i = 0; i < fields.size(); i++) {
                    label(child(field, i), fields.get(i).fieldId(), fields.get(i).type(), arena);
                }
            }
            case Types.ListType list -> label(child(field, 0), list.elementId(), list.elementType(), arena);
            case Types.MapType map -> {
                MemorySegment entries = child(field, 0);
                label(child(entries, 0), map.keyId(), map.keyType(), arena);
                label(child(entries, 1), map.valueId(), map.valueType(), arena);
            }
            default -> {}
        }
    }

    /** Child {@code i} of an exported schema, which has at least {@code i + 1} children. */
    @SuppressWarnings("restricted")
    private static MemorySegment child(MemorySegment schema, int i) {
        MemorySegment children = ArrowSchema.children(schema).reinterpret((i + 1) * ValueLayout.ADDRESS.byteSize());
        return children.getAtIndex(ValueLayout.ADDRESS, i).reinterpret(ArrowSchema.sizeof());
    }

    /** The C Data Interface's metadata encoding: int32 count, then length-prefixed keys and values. */
    static MemorySegment encode(Map<String, String> metadata, Arena arena) {
        long size = Integer.BYTES;
        for (Map.Entry<String, String> e : metadata.entrySet()) {
            size += 2L * Integer.BYTES + utf8(e.getKey()).length + utf8(e.getValue()).length;
        }
        MemorySegment out = arena.allocate(size, Integer.BYTES);
        long at = 0;
        out.set(ValueLayout.JAVA_INT_UNALIGNED, at, metadata.size());
        at += Integer.BYTES;
        for (Map.Entry<String, String> e : metadata.entrySet()) {
            at = put(out, at, utf8(e.getKey()));
            at = put(out, at, utf8(e.getValue()));
        }
        return out;
    }

    private static long put(MemorySegment out, long at, byte[] bytes) {
        out.set(ValueLayout.JAVA_INT_UNALIGNED, at, bytes.length);
        MemorySegment.copy(bytes, 0, out, ValueLayout.JAVA_BYTE, at + Integer.BYTES, bytes.length);
        return at + Integer.BYTES + bytes.length;
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
