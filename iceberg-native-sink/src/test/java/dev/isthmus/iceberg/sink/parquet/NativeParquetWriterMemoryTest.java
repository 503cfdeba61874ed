package dev.isthmus.iceberg.sink.parquet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.isthmus.arrow.LeakCheckExtension;
import dev.isthmus.arrow.memory.MemoryLimitExceededException;
import dev.isthmus.arrow.memory.MemoryTracker;
import java.nio.file.Path;
import java.util.List;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.StringData;
import org.apache.iceberg.Files;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** A writer's native memory counts in its owner's tracker, and a capped tracker fails the writer. */
@ExtendWith(LeakCheckExtension.class)
class NativeParquetWriterMemoryTest {
    private static final Schema SCHEMA = new Schema(List.of(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.optional(2, "name", Types.StringType.get())));
    private static final int ROWS = 50_000;

    @TempDir
    Path dir;

    private NativeParquetWriter writer(Path file, MemoryTracker owner) {
        return NativeParquet.write(Files.localOutput(file.toFile())).schema(SCHEMA).memoryTracker(owner).build();
    }

    private static GenericRowData row(long i) {
        return GenericRowData.of(i, StringData.fromString("name-" + i));
    }

    @Test
    void theBatchAndTheBufferedPagesCountInTheWritersOwnTracker() throws Exception {
        try (MemoryTracker writing = MemoryTracker.root().child("writing");
                MemoryTracker idle = MemoryTracker.root().child("idle")) {
            try (NativeParquetWriter writer = writer(dir.resolve("a.parquet"), writing)) {
                for (long i = 0; i < ROWS; i++) {
                    writer.add(row(i));
                }
                assertTrue(writing.liveBytes() > NativeParquetWriter.bufferedBytes() / 2,
                        "the open row group's pages and the batch: " + writing);
                assertTrue(NativeParquetWriter.bufferedBytes() > 0, "pages are buffered in the library");
                assertEquals(0, idle.liveBytes(), "a writer that wrote nothing holds nothing");
            }
            assertEquals(0, writing.liveBytes());
        }
    }

    @Test
    void aWriterPastItsCapFailsNamingTheCapAndTheFileAndLeavesNothing() throws Exception {
        Path file = dir.resolve("capped.parquet");
        try (MemoryTracker capped = MemoryTracker.root().child("writer of db.t (subtask 0)", 256 * 1024, "test.cap")) {
            NativeParquetWriter writer = writer(file, capped);
            MemoryLimitExceededException e = assertThrows(MemoryLimitExceededException.class, () -> {
                for (long i = 0; i < ROWS; i++) {
                    writer.add(row(i));
                }
            });
            assertTrue(e.getMessage().startsWith("isthmus/writer of db.t (subtask 0) would exceed its native memory cap "
                    + "of 262144 bytes (test.cap): asked for "), e.getMessage());
            assertTrue(e.getMessage().contains(", for isthmus/writer of db.t (subtask 0)/parquet-writer " + file),
                    e.getMessage());
            assertEquals(0, capped.liveBytes(), "the failed writer gave everything back");
            assertThrows(IllegalStateException.class, () -> writer.add(row(0)), "the writer failed for good");
            writer.close();
            assertFalse(java.nio.file.Files.exists(file), "no partial file");
        }

        Path roomy = dir.resolve("roomy.parquet");
        try (MemoryTracker enough = MemoryTracker.root().child("enough", 64L << 20, "test.cap")) {
            NativeParquetWriter writer = writer(roomy, enough);
            try (writer) {
                for (long i = 0; i < ROWS; i++) {
                    writer.add(row(i));
                }
            }
            assertEquals(ROWS, writer.metrics().recordCount());
        }
    }
}
