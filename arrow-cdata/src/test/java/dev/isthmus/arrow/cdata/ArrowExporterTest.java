package dev.isthmus.arrow.cdata;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.isthmus.arrow.ArrowChecksum;
import dev.isthmus.arrow.CDataChecksum;
import dev.isthmus.arrow.LeakCheckExtension;
import dev.isthmus.arrow.builder.BufferAllocator;
import dev.isthmus.arrow.builder.FinishedArray;
import dev.isthmus.arrow.flink.builder.RowDataAppender;
import dev.isthmus.arrow.memory.LeakCheck;
import dev.isthmus.arrow.memory.MemoryLimitExceededException;
import dev.isthmus.arrow.memory.MemoryTracker;
import dev.isthmus.arrow.types.ArrowField;
import dev.isthmus.arrow.types.ArrowType;
import dev.isthmus.ffm.gen.ArrowArray;
import dev.isthmus.ffm.gen.ArrowSchema;
import dev.isthmus.ffm.gen.isthmus_h;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import org.apache.flink.table.data.GenericArrayData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.types.logical.ArrayType;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarCharType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(LeakCheckExtension.class)
@SuppressWarnings("restricted") // reads the schema structs it exported through raw pointers
class ArrowExporterTest {
    private static final RowType TYPE = RowType.of(
            new LogicalType[] {
                new IntType(false), new VarCharType(VarCharType.MAX_LENGTH), new ArrayType(new BigIntType()),
            },
            new String[] {"id", "name", "scores"});
    private static final List<GenericRowData> ROWS = List.of(
            GenericRowData.of(1, StringData.fromString("ab"), new GenericArrayData(new long[] {10, 20})),
            GenericRowData.of(2, null, null),
            GenericRowData.of(3, StringData.fromString("cde"), new GenericArrayData(new Object[] {null, 30L})));

    private final MemoryTracker tracker = MemoryTracker.root().child("ArrowExporterTest");
    private final BufferAllocator allocator = new BufferAllocator(tracker);
    private final Arena arena = Arena.ofConfined();
    private final long failuresBefore = ArrowExporter.releaseFailures();

    @AfterEach
    void cleanUp() {
        arena.close();
        assertEquals(0, ArrowExporter.liveStructs(), "every exported struct was released");
        tracker.close();
    }

    private FinishedArray batch() {
        try (RowDataAppender appender = new RowDataAppender(TYPE, allocator)) {
            ROWS.forEach(appender::append);
            return appender.finish();
        }
    }

    private static void release(MemorySegment array) {
        ArrowArray.release.invoke(ArrowArray.release(array), array);
    }

    @Test
    void theExportedStructsDescribeTheBatch() {
        MemorySegment array = ArrowArray.allocate(arena);
        FinishedArray batch = batch();
        ArrowField field = batch.field();
        ArrowExporter.exportArray(batch, array);
        assertEquals(1, tracker.liveArrays());

        assertEquals(3, ArrowArray.length(array));
        assertEquals(0, ArrowArray.null_count(array));
        assertEquals(0, ArrowArray.offset(array));
        assertEquals(1, ArrowArray.n_buffers(array));
        assertEquals(3, ArrowArray.n_children(array));
        assertEquals(MemorySegment.NULL, CDataChecksum.buffer(array, 0, 1), "no validity bitmap without nulls");
        assertEquals(MemorySegment.NULL, ArrowArray.dictionary(array));
        assertNotEquals(MemorySegment.NULL, ArrowArray.private_data(array));

        MemorySegment id = CDataChecksum.child(array, 0);
        assertEquals(3, ArrowArray.length(id));
        assertEquals(2, ArrowArray.n_buffers(id));
        assertEquals(3, CDataChecksum.buffer(id, 1, 12).getAtIndex(ValueLayout.JAVA_INT, 2));
        assertEquals(0, CDataChecksum.buffer(id, 1, 12).address() % 64, "buffers are 64-byte aligned");

        MemorySegment name = CDataChecksum.child(array, 1);
        assertEquals(1, ArrowArray.null_count(name));
        assertEquals(3, ArrowArray.n_buffers(name));
        assertFalse(CDataChecksum.isValid(name, 1));
        assertEquals(
                List.of(0, 2, 2, 5),
                List.of(
                        CDataChecksum.offset(name, 0),
                        CDataChecksum.offset(name, 1),
                        CDataChecksum.offset(name, 2),
                        CDataChecksum.offset(name, 3)));
        assertEquals("abcde", new String(CDataChecksum.buffer(name, 2, 5).toArray(ValueLayout.JAVA_BYTE)));

        MemorySegment scores = CDataChecksum.child(array, 2);
        assertEquals(1, ArrowArray.null_count(scores));
        assertEquals(1, ArrowArray.n_children(scores));
        assertEquals(4, CDataChecksum.offset(scores, 3));
        MemorySegment elements = CDataChecksum.child(scores, 0);
        assertEquals(4, ArrowArray.length(elements));
        assertEquals(1, ArrowArray.null_count(elements));
        assertFalse(CDataChecksum.isValid(elements, 2));
        assertEquals(30L, CDataChecksum.buffer(elements, 1, 32).getAtIndex(ValueLayout.JAVA_LONG, 3));

        assertEquals(ArrowChecksum.of(ROWS, TYPE), CDataChecksum.of(array, field));
        release(array);
        assertEquals(MemorySegment.NULL, ArrowArray.release(array), "release sets release to NULL");
        assertEquals(0, tracker.liveArrays());
        assertEquals(0, tracker.liveBytes());
    }

    @Test
    void theSchemaCarriesFormatsNamesAndFlags() {
        ArrowField field = ArrowField.of(
                "",
                new ArrowType.Struct(),
                false,
                ArrowField.of("when", new ArrowType.Timestamp(ArrowType.TimeUnit.MICROSECOND, "UTC"), true),
                ArrowField.of(
                        "tags",
                        new ArrowType.Map(true),
                        false,
                        ArrowField.of(
                                "entries",
                                new ArrowType.Struct(),
                                false,
                                ArrowField.of("key", new ArrowType.Utf8(false), false),
                                ArrowField.of("value", new ArrowType.Decimal(10, 3), true))),
                ArrowField.of("color", new ArrowType.Utf8(false), true).dictionaryEncoded(new ArrowType.Int(16, true)));
        MemorySegment schema = ArrowSchema.allocate(arena);
        ArrowExporter.exportSchema(field, schema, tracker);
        assertTrue(tracker.liveBytes() > 0, "the schema's arena is counted");

        assertEquals("+s", string(ArrowSchema.format(schema)));
        assertEquals("", string(ArrowSchema.name(schema)));
        assertEquals(0, ArrowSchema.flags(schema));
        assertEquals(MemorySegment.NULL, ArrowSchema.metadata(schema));
        assertEquals(3, ArrowSchema.n_children(schema));
        MemorySegment when = schemaChild(schema, 0);
        assertEquals("tsu:UTC", string(ArrowSchema.format(when)));
        assertEquals("when", string(ArrowSchema.name(when)));
        assertEquals(isthmus_h.ARROW_FLAG_NULLABLE(), ArrowSchema.flags(when));
        MemorySegment tags = schemaChild(schema, 1);
        assertEquals("+m", string(ArrowSchema.format(tags)));
        assertEquals(isthmus_h.ARROW_FLAG_MAP_KEYS_SORTED(), ArrowSchema.flags(tags));
        MemorySegment value = schemaChild(schemaChild(tags, 0), 1);
        assertEquals("d:10,3", string(ArrowSchema.format(value)));
        MemorySegment color = schemaChild(schema, 2);
        assertEquals("s", string(ArrowSchema.format(color)), "a dictionary-encoded field's format is its index type");
        assertEquals(0, ArrowSchema.n_children(color));
        MemorySegment dictionary = ArrowSchema.dictionary(color).reinterpret(ArrowSchema.sizeof());
        assertEquals("u", string(ArrowSchema.format(dictionary)));

        ArrowSchema.release.invoke(ArrowSchema.release(schema), schema);
        assertEquals(MemorySegment.NULL, ArrowSchema.release(schema));
        assertEquals(0, tracker.liveBytes());
    }

    private static MemorySegment schemaChild(MemorySegment schema, int i) {
        MemorySegment pointers = ArrowSchema.children(schema).reinterpret(ArrowSchema.n_children(schema) * 8);
        return pointers.getAtIndex(ValueLayout.ADDRESS, i).reinterpret(ArrowSchema.sizeof());
    }

    private static String string(MemorySegment pointer) {
        return pointer.reinterpret(Long.MAX_VALUE).getString(0);
    }

    @Test
    void releasingTheParentReleasesTheChildrenInPlace() {
        MemorySegment array = ArrowArray.allocate(arena);
        ArrowExporter.exportArray(batch(), array);
        assertEquals(5, ArrowExporter.liveStructs(), "the parent, three children, the list's elements");
        release(array);
        assertEquals(0, ArrowExporter.liveStructs());
        assertEquals(0, tracker.liveArrays());
        assertEquals(0, tracker.liveBytes(), "buffers, structs and pointer arrays are all freed");
    }

    @Test
    void aChildMovedOutOutlivesItsParentUntilItIsReleased() {
        MemorySegment array = ArrowArray.allocate(arena);
        ArrowExporter.exportArray(batch(), array);
        // The consumer moves the "name" child out: copies the struct, marks the original released.
        MemorySegment moved = ArrowArray.allocate(arena);
        MemorySegment original = CDataChecksum.child(array, 1);
        moved.copyFrom(original);
        ArrowArray.release(original, MemorySegment.NULL);

        release(array);
        assertEquals(1, tracker.liveArrays(), "the moved child keeps the batch alive");
        assertEquals(1, ArrowExporter.liveStructs());
        assertTrue(tracker.liveBytes() > 0);
        assertEquals(2, CDataChecksum.offset(moved, 1), "its buffers are still readable");
        assertEquals(
                "cde",
                new String(CDataChecksum.buffer(moved, 2, 5).asSlice(2, 3).toArray(ValueLayout.JAVA_BYTE)));

        release(moved);
        assertEquals(MemorySegment.NULL, ArrowArray.release(moved));
        assertEquals(0, tracker.liveArrays());
        assertEquals(0, tracker.liveBytes());
    }

    @Test
    void aMovedParentIsReleasedThroughItsCopy() {
        MemorySegment array = ArrowArray.allocate(arena);
        ArrowExporter.exportArray(batch(), array);
        MemorySegment elsewhere = ArrowArray.allocate(arena);
        elsewhere.copyFrom(array);
        ArrowArray.release(array, MemorySegment.NULL);
        release(elsewhere);
        assertEquals(0, tracker.liveArrays());
        assertEquals(0, tracker.liveBytes());
    }

    @Test
    void childrenReleasedFirstAreSkippedByTheParent() {
        MemorySegment array = ArrowArray.allocate(arena);
        ArrowExporter.exportArray(batch(), array);
        MemorySegment scores = CDataChecksum.child(array, 2);
        release(scores);
        assertEquals(MemorySegment.NULL, ArrowArray.release(scores));
        assertEquals(1, tracker.liveArrays());
        release(array);
        assertEquals(0, tracker.liveArrays());
        assertEquals(0, tracker.liveBytes());
        assertEquals(failuresBefore, ArrowExporter.releaseFailures());
    }

    @Test
    void aSecondReleaseThroughAStaleCallbackIsCountedNotACrash() {
        MemorySegment array = ArrowArray.allocate(arena);
        ArrowExporter.exportArray(batch(), array);
        MemorySegment callback = ArrowArray.release(array);
        release(array);
        // A buggy consumer calls the saved callback again: the id is gone, so nothing is freed twice.
        ArrowArray.release.invoke(callback, array);
        assertEquals(failuresBefore + 1, ArrowExporter.releaseFailures());
        assertEquals(0, tracker.liveArrays());
    }

    @Test
    void releaseMayRunOnAnotherThread() throws InterruptedException {
        MemorySegment array = Arena.global().allocate(ArrowArray.layout());
        ArrowExporter.exportArray(batch(), array);
        Thread releaser = Thread.ofPlatform().start(() -> release(array));
        releaser.join();
        assertEquals(MemorySegment.NULL, ArrowArray.release(array));
        assertEquals(0, tracker.liveArrays());
        assertEquals(0, tracker.liveBytes());
    }

    @Test
    void exportingBothStructsAndReleasingThem() {
        MemorySegment array = ArrowArray.allocate(arena);
        MemorySegment schema = ArrowSchema.allocate(arena);
        ArrowExporter.export(batch(), array, schema);
        assertEquals("+s", string(ArrowSchema.format(schema)));
        assertEquals(3, ArrowSchema.n_children(schema));
        release(array);
        ArrowSchema.release.invoke(ArrowSchema.release(schema), schema);
        assertEquals(0, tracker.liveBytes());
    }

    @Test
    void anEmptyBatchExportsWithRealBuffers() {
        MemorySegment array = ArrowArray.allocate(arena);
        try (RowDataAppender appender = new RowDataAppender(TYPE, allocator)) {
            ArrowExporter.exportArray(appender.finish(), array);
        }
        assertEquals(0, ArrowArray.length(array));
        MemorySegment name = CDataChecksum.child(array, 1);
        assertEquals(0, CDataChecksum.offset(name, 0));
        assertNotEquals(MemorySegment.NULL, CDataChecksum.buffer(name, 2, 0));
        release(array);
    }

    @Test
    void anOutputStructStillHoldingAnArrayIsRefusedAndTheBatchStaysTheCallers() {
        MemorySegment array = ArrowArray.allocate(arena);
        ArrowExporter.exportArray(batch(), array);
        try (FinishedArray second = batch()) {
            IllegalArgumentException e =
                    assertThrows(IllegalArgumentException.class, () -> ArrowExporter.exportArray(second, array));
            assertTrue(e.getMessage().contains("release it first"), e.getMessage());
            assertFalse(second.buffers().isEmpty(), "still owned by the caller, who closes it");
        }
        try (FinishedArray third = batch()) {
            assertThrows(IllegalArgumentException.class, () -> ArrowExporter.exportArray(third, arena.allocate(8)));
        }
        release(array);
    }

    @Test
    void aBatchIsExportedOnlyOnce() {
        FinishedArray batch = batch();
        MemorySegment array = ArrowArray.allocate(arena);
        ArrowExporter.exportArray(batch, array);
        assertThrows(IllegalStateException.class, () -> ArrowExporter.exportArray(batch, ArrowArray.allocate(arena)));
        batch.close(); // does nothing: the export owns the buffers
        assertEquals(3, ArrowArray.length(array));
        release(array);
        assertEquals(0, tracker.liveBytes());
    }

    @Test
    void anArrayExportPastTheCapFailsWholeAndLeavesNothingCountedOrRegistered() {
        long batchBytes;
        long exportedBytes;
        MemorySegment probe = ArrowArray.allocate(arena);
        try (FinishedArray batch = batch()) {
            batchBytes = tracker.liveBytes();
            ArrowExporter.exportArray(batch, probe);
            exportedBytes = tracker.liveBytes();
        }
        release(probe);
        assertTrue(exportedBytes > batchBytes, "the export's structs count too");

        // Room for the batch's buffers, one byte short of its export's structs.
        try (MemoryTracker capped = tracker.child("capped", exportedBytes - 1, "test.cap")) {
            try (RowDataAppender appender = new RowDataAppender(TYPE, new BufferAllocator(capped));
                    FinishedArray batch = finish(appender)) {
                assertEquals(batchBytes, capped.liveBytes());
                MemorySegment array = ArrowArray.allocate(arena);
                MemoryLimitExceededException e =
                        assertThrows(MemoryLimitExceededException.class, () -> ArrowExporter.exportArray(batch, array));
                assertEquals(exportedBytes - batchBytes, e.requested());
                assertEquals(MemorySegment.NULL, ArrowArray.release(array), "the caller's struct holds nothing");
                assertEquals(0, ArrowExporter.liveStructs(), "no struct of the failed export is registered");
                assertEquals(0, capped.liveArrays(), "nor counted as an array");
                assertFalse(batch.buffers().isEmpty(), "the batch is still the caller's, to close");
            }
            assertEquals(0, capped.liveBytes(), "closing the batch gave back everything");
            assertEquals(0, capped.liveArrays());
        }
        LeakCheck.assertNoLeaks();
    }

    @Test
    void aSchemaExportPastTheCapFailsWholeAndLeavesNothingCountedOrRegistered() {
        ArrowField field;
        try (FinishedArray batch = batch()) {
            field = batch.field();
        }
        MemorySegment probe = ArrowSchema.allocate(arena);
        ArrowExporter.exportSchema(field, probe, tracker);
        long schemaBytes = tracker.liveBytes();
        ArrowSchema.release.invoke(ArrowSchema.release(probe), probe);
        assertEquals(0, tracker.liveBytes());

        try (MemoryTracker capped = tracker.child("capped", schemaBytes - 1, "test.cap")) {
            MemorySegment schema = ArrowSchema.allocate(arena);
            MemoryLimitExceededException e = assertThrows(
                    MemoryLimitExceededException.class, () -> ArrowExporter.exportSchema(field, schema, capped));
            assertEquals(schemaBytes, e.requested());
            assertEquals(MemorySegment.NULL, ArrowSchema.release(schema), "the caller's struct holds nothing");
            assertEquals(0, ArrowExporter.liveStructs(), "no struct of the failed export is registered");
            assertEquals(0, capped.liveBytes());
            assertEquals(0, capped.liveArrays());
        }
        LeakCheck.assertNoLeaks();
    }

    private static FinishedArray finish(RowDataAppender appender) {
        ROWS.forEach(appender::append);
        return appender.finish();
    }
}
