package dev.isthmus.iceberg.source.parquet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.isthmus.arrow.LeakCheckExtension;
import dev.isthmus.arrow.cdata.CheckedBatches;
import dev.isthmus.arrow.flink.vector.ArrowColumnarBatch;
import dev.isthmus.arrow.flink.vector.ArrowRowData;
import dev.isthmus.arrow.memory.MemoryTracker;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.flink.table.data.columnar.vector.LongColumnVector;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * With checked batches on (as in every test of the project), a row or column kept past its scan
 * batch's close throws instead of reading what the scan decoded into that memory next.
 */
@ExtendWith(LeakCheckExtension.class)
class RecycledBatchTest {
    private static final Schema SCHEMA = new Schema(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.optional(2, "name", Types.StringType.get()));

    @TempDir
    Path dir;

    private final MemoryTracker tracker = MemoryTracker.root().child("RecycledBatchTest");

    @AfterEach
    void closeTracker() {
        tracker.close();
    }

    @Test
    void aRowKeptPastItsBatchThrowsSayingItsBatchWasRecycled() {
        assertTrue(CheckedBatches.ENABLED, "the build runs tests with -D" + CheckedBatches.PROPERTY + "=true");
        Path path = dir.resolve("ids.parquet");
        List<Record> records = new ArrayList<>();
        for (long id = 0; id < 1_000; id++) {
            GenericRecord record = GenericRecord.create(SCHEMA);
            record.setField("id", id);
            record.setField("name", "name " + id);
            records.add(record);
        }
        IcebergParquetFiles.write(path, SCHEMA, records, Map.of());
        try (NativeParquetFile file = NativeParquetFile.open(path);
                NativeParquetScan scan = file.scan(ScanOptions.of(SCHEMA).withBatchSize(100), tracker)) {
            ArrowColumnarBatch first = scan.next();
            ArrowRowData kept = first.row(7);
            LongColumnVector keptColumn = (LongColumnVector) first.batch().columns[0];
            assertEquals(7, kept.getLong(0));
            assertEquals("name 7", kept.getString(1).toString());
            first.close();
            // The scan's next batches take the buffers the first one gave back.
            for (int i = 0; i < 3; i++) {
                try (ArrowColumnarBatch next = scan.next()) {
                    assertEquals(100L * (i + 1), next.row(0).getLong(0));
                }
            }
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> kept.getLong(0));
            assertTrue(
                    e.getMessage()
                            .startsWith("read of a recycled batch: this row belongs to a batch of 100 rows"
                                    + " that has been closed"),
                    e.getMessage());
            assertThrows(IllegalStateException.class, () -> kept.getString(1));
            assertThrows(IllegalStateException.class, () -> kept.isNullAt(1));
            // A column vector kept on its own reads the closed arena.
            assertThrows(IllegalStateException.class, () -> keptColumn.getLong(7));
        }
    }
}
