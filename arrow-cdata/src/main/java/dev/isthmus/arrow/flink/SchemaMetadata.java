package dev.isthmus.arrow.flink;

import dev.isthmus.arrow.cdata.ArrowExporter;
import dev.isthmus.arrow.memory.MemoryTracker;
import dev.isthmus.ffm.gen.ArrowSchema;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * Metadata the library reads from an exported {@code ArrowSchema} and Java's {@code ArrowField}
 * has no place for: each field's Iceberg id ({@value #FIELD_ID}) and a uuid's extension name,
 * patched into a schema {@link dev.isthmus.arrow.cdata.ArrowExporter#exportSchema exported} from
 * {@code TypeMapping.toArrow(schema)}. The strings live in the caller's arena, which must outlive
 * the library's borrow of the schema; the exporter frees the schema's own strings, never these.
 */
public final class SchemaMetadata {
    public static final String FIELD_ID = "PARQUET:field_id";
    public static final String EXTENSION_NAME = "ARROW:extension:name";
    public static final String UUID_EXTENSION = "arrow.uuid";

    private SchemaMetadata() {}

    /**
     * Exports {@code schema}'s Arrow form ({@link TypeMapping#toArrow(Schema)}) into {@code out},
     * its memory counted in {@code tracker}, and labels every field with its id (the labels in
     * {@code arena}): what the library reads as an Iceberg schema. The caller releases {@code out}
     * through its release callback; if labelling fails, it is released here.
     */
    public static void exportLabelled(Schema schema, MemorySegment out, MemoryTracker tracker, Arena arena) {
        ArrowExporter.exportSchema(TypeMapping.toArrow(schema), out, tracker);
        try {
            labelFieldIds(out, schema, arena);
        } catch (RuntimeException | Error e) {
            ArrowSchema.release.invoke(ArrowSchema.release(out), out);
            throw e;
        }
    }

    /**
     * Labels the exported struct of {@code schema}'s columns with their field ids, and every
     * field under them with its own: a struct's fields, a list's element, a map's key and value
     * (its entries struct has none).
     */
    public static void labelFieldIds(MemorySegment struct, Schema schema, Arena arena) {
        List<Types.NestedField> columns = schema.columns();
        for (int i = 0; i < columns.size(); i++) {
            label(child(struct, i), columns.get(i).fieldId(), columns.get(i).type(), arena);
        }
    }

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
                    label(
                            child(field, i),
                            fields.get(i).fieldId(),
                            fields.get(i).type(),
                            arena);
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
    public static MemorySegment encode(Map<String, String> metadata, Arena arena) {
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
