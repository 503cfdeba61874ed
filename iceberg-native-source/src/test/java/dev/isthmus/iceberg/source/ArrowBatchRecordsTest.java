package dev.isthmus.iceberg.source;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.isthmus.arrow.LeakCheckExtension;
import dev.isthmus.arrow.NativeRoundTrip;
import dev.isthmus.arrow.flink.vector.ArrowColumnarBatch;
import dev.isthmus.arrow.memory.MemoryTracker;
import java.util.List;
import java.util.Set;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarCharType;
import org.apache.iceberg.flink.source.reader.RecordAndPosition;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(LeakCheckExtension.class)
class ArrowBatchRecordsTest {
    private static final RowType TYPE =
            RowType.of(new LogicalType[] {new BigIntType(), new VarCharType(100)}, new String[] {"id", "name"});
    private final MemoryTracker tracker = MemoryTracker.root().child("ArrowBatchRecordsTest");

    @AfterEach
    void close() {
        tracker.close();
    }

    @Test
    void emitsEveryRowInPlaceWithThePositionAfterIt() {
        List<GenericRowData> rows = List.of(
                GenericRowData.of(1L, StringData.fromString("a")),
                GenericRowData.of(null, StringData.fromString("b")),
                GenericRowData.of(3L, null));
        ArrowColumnarBatch batch = NativeRoundTrip.batch(rows, TYPE, tracker);
        ArrowBatchRecords records =
                ArrowBatchRecords.of("split-7", batch, batch.batch(), null, batch.numRows(), 2, 100);

        assertEquals("split-7", records.nextSplit());
        assertNull(records.nextSplit(), "one split per batch");
        RecordAndPosition<RowData> first = records.nextRecordFromSplit();
        assertEquals(1L, first.record().getLong(0));
        assertEquals(2, first.fileOffset());
        assertEquals(101, first.recordOffset(), "the position points after the record");
        RecordAndPosition<RowData> second = records.nextRecordFromSplit();
        assertTrue(second.record().isNullAt(0));
        assertEquals("b", second.record().getString(1).toString());
        assertEquals(102, second.recordOffset());
        assertEquals(103, records.nextRecordFromSplit().recordOffset());
        assertNull(records.nextRecordFromSplit());
        assertEquals(Set.of(), records.finishedSplits());

        RowData kept = first.record();
        records.recycle();
        assertEquals(0, tracker.liveArrays(), "recycle released the native batch");
        assertThrows(IllegalStateException.class, () -> kept.getLong(0), "rows are not readable after recycle");
    }

    @Test
    void aBatchDroppedWithoutRecycleIsReleasedOnceUnreachable() throws InterruptedException {
        List<GenericRowData> rows = List.of(GenericRowData.of(1L, StringData.fromString("a")));
        ArrowColumnarBatch batch = NativeRoundTrip.batch(rows, TYPE, tracker);
        ArrowBatchRecords records = ArrowBatchRecords.of("split-8", batch, batch.batch(), null, 1, 0, 0);
        batch = null;
        assertEquals(1, tracker.liveArrays());
        records = null;
        for (int i = 0; i < 100 && tracker.liveArrays() > 0; i++) {
            System.gc();
            Thread.sleep(20);
        }
        assertEquals(0, tracker.liveArrays(), "the cleaner released the batch a cancelled reader dropped");
    }

    @Test
    void aSelectionEmitsOnlyItsRowsWithConsecutivePositions() {
        List<GenericRowData> rows = List.of(
                GenericRowData.of(1L, StringData.fromString("a")),
                GenericRowData.of(2L, StringData.fromString("b")),
                GenericRowData.of(3L, StringData.fromString("c")));
        ArrowColumnarBatch batch = NativeRoundTrip.batch(rows, TYPE, tracker);
        ArrowBatchRecords records =
                ArrowBatchRecords.of("split-3", batch, batch.batch(), new int[] {0, 2, 1}, 2, 0, 40);
        assertEquals("split-3", records.nextSplit());
        RecordAndPosition<RowData> first = records.nextRecordFromSplit();
        assertEquals(1L, first.record().getLong(0));
        assertEquals(41, first.recordOffset());
        RecordAndPosition<RowData> second = records.nextRecordFromSplit();
        assertEquals(3L, second.record().getLong(0));
        assertEquals(42, second.recordOffset(), "positions count emitted records, not rows of the batch");
        assertNull(records.nextRecordFromSplit(), "only the first two entries of the selection");
        records.recycle();
    }
}
