package dev.isthmus.iceberg.sink.parquet;

import dev.isthmus.arrow.flink.SchemaMetadata;
import dev.isthmus.arrow.flink.TypeMapping;
import dev.isthmus.arrow.memory.MemoryTracker;
import dev.isthmus.ffm.gen.ArrowSchema;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
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
 * lays them out, plus the metadata the encoder needs and Arrow fields cannot carry in Java: every
 * field's Iceberg id and the uuid extension name ({@link SchemaMetadata}), and the table schema
 * as JSON in the struct's metadata ({@value #ICEBERG_SCHEMA}), which becomes the file's footer
 * metadata exactly as Iceberg's writer puts it there.
 */
final class WriterSchema {
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
                    || type.isPrimitiveType()
                            && switch (type.typeId()) {
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
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment struct = ArrowSchema.allocate(arena);
            SchemaMetadata.exportLabelled(schema, struct, tracker, arena);
            try {
                // The exporter leaves metadata NULL; these strings outlive the borrow, so patching is safe.
                ArrowSchema.metadata(
                        struct, SchemaMetadata.encode(Map.of(ICEBERG_SCHEMA, SchemaParser.toJson(schema)), arena));
                use.accept(struct);
            } finally {
                ArrowSchema.release.invoke(ArrowSchema.release(struct), struct);
            }
        }
    }
}
