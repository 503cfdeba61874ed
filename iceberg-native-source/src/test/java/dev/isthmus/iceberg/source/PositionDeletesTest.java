package dev.isthmus.iceberg.source;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.nio.ByteBuffer;
import java.util.List;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileMetadata;
import org.apache.iceberg.PartitionSpec;
import org.junit.jupiter.api.Test;

/** Which delete files the native reader applies, and why it leaves the others to Iceberg's reader. */
class PositionDeletesTest {
    private static FileMetadata.Builder positions(FileFormat format) {
        return FileMetadata.deleteFileBuilder(PartitionSpec.unpartitioned())
                .ofPositionDeletes()
                .withPath("/t/deletes." + format.name().toLowerCase(java.util.Locale.ROOT))
                .withFormat(format)
                .withFileSizeInBytes(100)
                .withRecordCount(3);
    }

    @Test
    void onlyPlainParquetDeletesAreApplied() {
        DeleteFile parquet = positions(FileFormat.PARQUET).build();
        DeleteFile equality = FileMetadata.deleteFileBuilder(PartitionSpec.unpartitioned())
                .ofEqualityDeletes(1)
                .withPath("/t/eq.parquet")
                .withFormat(FileFormat.PARQUET)
                .withFileSizeInBytes(100)
                .withRecordCount(3)
                .build();
        DeleteFile encrypted = positions(FileFormat.PARQUET)
                .withEncryptionKeyMetadata(ByteBuffer.wrap(new byte[] {1, 2, 3}))
                .build();

        assertNull(PositionDeletes.refusal(List.of()));
        assertNull(PositionDeletes.refusal(List.of(parquet)));
        assertNull(PositionDeletes.refusal(List.of(parquet, equality)));
        assertEquals(
                "it has AVRO delete files",
                PositionDeletes.refusal(List.of(positions(FileFormat.AVRO).build())));
        assertEquals("it has encrypted delete files", PositionDeletes.refusal(List.of(encrypted)));
    }
}
