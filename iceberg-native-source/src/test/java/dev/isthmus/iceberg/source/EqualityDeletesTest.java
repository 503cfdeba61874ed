package dev.isthmus.iceberg.source;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.List;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileMetadata;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

class EqualityDeletesTest {
    private static final Schema SCHEMA = new Schema(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.optional(2, "at", Types.TimeType.get()),
            Types.NestedField.optional(
                    3, "point", Types.StructType.of(Types.NestedField.optional(4, "x", Types.IntegerType.get()))),
            Types.NestedField.optional(5, "name", Types.StringType.get()),
            Types.NestedField.optional(6, "when", Types.TimestampNanoType.withoutZone()));

    @Test
    void keysOnFlatColumnsOfExactTypesAreApplied() {
        assertNull(EqualityDeletes.refusal(List.of(), SCHEMA));
        assertNull(EqualityDeletes.refusal(List.of(on(1, 5)), SCHEMA));
    }

    @Test
    void keysTheDecodedBuffersCannotHoldExactlyAreRefused() {
        assertEquals("its equality deletes are on at of type time", EqualityDeletes.refusal(List.of(on(1, 2)), SCHEMA));
        assertEquals(
                "its equality deletes are on when of type timestamp_ns",
                EqualityDeletes.refusal(List.of(on(6)), SCHEMA));
        assertEquals(
                "its equality deletes are on field 4, not a top-level column of the table",
                EqualityDeletes.refusal(List.of(on(1), on(4)), SCHEMA));
        assertEquals(
                "its equality deletes are on field 9, not a top-level column of the table",
                EqualityDeletes.refusal(List.of(on(9)), SCHEMA));
    }

    private static DeleteFile on(int... ids) {
        return FileMetadata.deleteFileBuilder(PartitionSpec.unpartitioned())
                .ofEqualityDeletes(ids)
                .withPath("/t/eq-" + java.util.Arrays.toString(ids) + ".parquet")
                .withFormat(FileFormat.PARQUET)
                .withFileSizeInBytes(100)
                .withRecordCount(3)
                .build();
    }
}
