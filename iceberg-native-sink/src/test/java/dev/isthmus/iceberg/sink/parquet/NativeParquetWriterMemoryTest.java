package dev.isthmus.iceberg.sink.parquet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.isthmus.arrow.LeakCheckExtension;
import dev.isthmus.arrow.builder.BufferAllocator;
import dev.isthmus.arrow.builder.FinishedArray;
import dev.isthmus.arrow.flink.builder.RowDataAppender;
import dev.isthmus.arrow.memory.MemoryLimitExceededException;
import dev.isthmus.arrow.memory.MemoryTracker;
import java.nio.file.Path;
import java.util.Arrays;
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
        return NativeParquet.write(Files.localOutput(file.toFile()))
                .schema(SCHEMA)
                .memoryTracker(owner)
                .build();
    }

    private static GenericRowData row(long i) {
        return GenericRowData.of(i, StringData.fromString("name-" + i));
    }

    /** Whether {@code e} was thrown from a method named {@code method}. */
    private static boolean thrownIn(Throwable e, String method) {
        return Arrays.stream(e.getStackTrace()).anyMatch(f -> f.getMethodName().equals(method));
    }

    /** {@code ROWS} rows as one Arrow batch of the writer's layout, counted in {@code owner}. */
    private static FinishedArray batch(MemoryTracker owner) {
        try (RowDataAppender appender =
                new RowDataAppender(NativeParquetWriter.flinkType(SCHEMA), new BufferAllocator(owner))) {
            for (long i = 0; i < ROWS; i++) {
                appender.append(row(i));
            }
            return appender.finish();
        }
    }

    @Test
    void theBatchAndTheBufferedPagesCountInTheWritersOwnTracker() throws Exception {
        Path file = dir.resolve("a.parquet");
        try (MemoryTracker writing = MemoryTracker.root().child("writing");
                MemoryTracker building = MemoryTracker.root().child("building");
                MemoryTracker idle = MemoryTracker.root().child("idle")) {
            long pages;
            try (NativeParquetWriter writer = writer(file, writing)) {
                // A batch built elsewhere and moved in leaves only its encoded pages in the library.
                writer.write(batch(building));
                assertEquals(0, building.liveBytes(), "the batch went into the library and was released");
                pages = writing.liveBytes();
                assertTrue(pages > 0, "the open row group's pages count in the writer's tracker");

                String name = "n".repeat(100);
                for (long i = 0; i < 1_000; i++) {
                    writer.add(GenericRowData.of(i, StringData.fromString(name)));
                }
                // The batch's longs wait on the heap until it is finished; its string bytes go
                // on to native memory past a 16 KiB staging array.
                assertTrue(
                        writing.liveBytes() - pages >= 1_000 * 100 - 16 * 1024,
                        "and so do the string bytes of the batch being built: " + writing);
                assertEquals(0, idle.liveBytes(), "a writer that wrote nothing holds nothing");
            }
            assertEquals(0, writing.liveBytes(), "the row group was written out and the writer's memory freed");
        }
    }

    @Test
    void aWriterWhoseBufferedPagesPassItsCapFailsAfterTheBatchWentIn() throws Exception {
        Path file = dir.resolve("pages.parquet");
        try (MemoryTracker building = MemoryTracker.root().child("building");
                MemoryTracker capped =
                        MemoryTracker.root().child("writer of db.t (subtask 1)", 16 * 1024, "test.cap")) {
            // The batch counts in its builder's tracker: the writer's cap sees only the pages.
            FinishedArray batch = batch(building);
            NativeParquetWriter writer = writer(file, capped);
            MemoryLimitExceededException e =
                    assertThrows(MemoryLimitExceededException.class, () -> writer.write(batch));
            assertTrue(thrownIn(e, "noteBuffered"), "refused when the pages were counted, not on an allocation");
            assertTrue(e.requested() > 16 * 1024, "the row group's pages: " + e.getMessage());
            assertEquals(0, capped.liveBytes(), "the failed writer gave everything back");
            assertEquals(0, building.liveBytes(), "the batch was taken and released");
            assertEquals(0, building.liveArrays());
            assertThrows(IllegalStateException.class, () -> writer.add(row(0)), "the writer failed for good");
            writer.close();
            assertFalse(java.nio.file.Files.exists(file), "no partial file");
        }
    }

    @Test
    void aBatchWhoseCopyPassesTheCapWhenTheWriterClosesFailsItAndLeavesNothing() throws Exception {
        Path file = dir.resolve("finish.parquet");
        try (MemoryTracker capped = MemoryTracker.root().child("writer of db.t (subtask 2)", 1536, "test.cap")) {
            NativeParquetWriter writer = writer(file, capped);
            for (long i = 0; i < 100; i++) {
                writer.add(row(i)); // staged on the heap: nothing native yet
            }
            assertEquals(0, capped.liveBytes());
            // Finishing copies the batch into native buffers: the longs (832 bytes), the offsets
            // (448) and the string bytes (704) take more than 1.5 KiB.
            MemoryLimitExceededException e = assertThrows(MemoryLimitExceededException.class, writer::close);
            assertTrue(thrownIn(e, "finish"), "refused while the batch was finished");
            assertEquals(0, capped.liveBytes(), "the failed writer gave everything back");
            assertThrows(IllegalStateException.class, () -> writer.add(row(0)), "the writer failed for good");
            writer.close();
            assertFalse(java.nio.file.Files.exists(file), "no partial file");
        }
    }

    @Test
    void aBatchMovedInAfterRowsWhoseCopyPassesTheCapIsFreedWithTheWriter() throws Exception {
        Path file = dir.resolve("moved.parquet");
        try (MemoryTracker building = MemoryTracker.root().child("building");
                MemoryTracker capped = MemoryTracker.root().child("writer of db.t (subtask 3)", 1536, "test.cap")) {
            NativeParquetWriter writer = writer(file, capped);
            for (long i = 0; i < 100; i++) {
                writer.add(row(i));
            }
            FinishedArray batch = batch(building);
            // The rows added first are finished before the batch goes in: their copy passes the cap.
            MemoryLimitExceededException e =
                    assertThrows(MemoryLimitExceededException.class, () -> writer.write(batch));
            assertTrue(thrownIn(e, "finish"), "refused while the rows were finished");
            assertEquals(0, building.liveBytes(), "the batch moved in was freed");
            assertEquals(0, capped.liveBytes(), "the failed writer gave everything back");
            writer.close();
            assertFalse(java.nio.file.Files.exists(file), "no partial file");
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
            assertTrue(
                    e.getMessage()
                            .startsWith("isthmus/writer of db.t (subtask 0) would exceed its native memory cap "
                                    + "of 262144 bytes (test.cap): asked for "),
                    e.getMessage());
            assertTrue(
                    e.getMessage().contains(", for isthmus/writer of db.t (subtask 0)/parquet-writer " + file),
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
