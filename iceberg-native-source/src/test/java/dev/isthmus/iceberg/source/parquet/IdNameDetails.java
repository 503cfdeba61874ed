package dev.isthmus.iceberg.source.parquet;

import org.apache.iceberg.Schema;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Types;

/**
 * A table of a flat and a nested column for projection tests: {@code id}, {@code name} and a
 * struct {@code details} of {@code city} and {@code zip}, and the projection that prunes a leaf
 * from each.
 */
public final class IdNameDetails {
    public static final Schema SCHEMA = new Schema(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.optional(2, "name", Types.StringType.get()),
            Types.NestedField.optional(
                    3,
                    "details",
                    Types.StructType.of(
                            Types.NestedField.optional(4, "city", Types.StringType.get()),
                            Types.NestedField.optional(5, "zip", Types.IntegerType.get()))));

    /** {@code name} and {@code details.zip}: two of the four leaves. */
    public static final Schema NAME_AND_ZIP = new Schema(
            SCHEMA.findField("name"),
            Types.NestedField.optional(
                    3, "details", Types.StructType.of(Types.NestedField.optional(5, "zip", Types.IntegerType.get()))));

    private static final Types.StructType DETAILS =
            SCHEMA.findField("details").type().asStructType();

    private IdNameDetails() {}

    /** A row of {@link #SCHEMA}; {@code city == null} leaves its details null. */
    public static Record record(long id, String name, String city, int zip) {
        GenericRecord record = GenericRecord.create(SCHEMA);
        record.setField("id", id);
        record.setField("name", name);
        if (city != null) {
            GenericRecord details = GenericRecord.create(DETAILS);
            details.setField("city", city);
            details.setField("zip", zip);
            record.setField("details", details);
        }
        return record;
    }
}
