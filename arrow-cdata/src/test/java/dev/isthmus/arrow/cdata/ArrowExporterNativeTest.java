package dev.isthmus.arrow.cdata;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.isthmus.arrow.ArrowChecksum;
import dev.isthmus.arrow.CDataChecksum;
import dev.isthmus.arrow.LeakCheckExtension;
import dev.isthmus.arrow.RandomRows;
import dev.isthmus.arrow.builder.BufferAllocator;
import dev.isthmus.arrow.builder.FinishedArray;
import dev.isthmus.arrow.flink.builder.RowDataAppender;
import dev.isthmus.arrow.memory.MemoryTracker;
import dev.isthmus.arrow.types.ArrowField;
import dev.isthmus.ffm.Diagnostics;
import dev.isthmus.ffm.NativeArrowStats;
import dev.isthmus.ffm.NativeErrors;
import dev.isthmus.ffm.NativeLibrary;
import dev.isthmus.ffm.gen.ArrowArray;
import dev.isthmus.ffm.gen.ArrowSchema;
import dev.isthmus.ffm.gen.isthmus_h;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import java.util.stream.Stream;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Batches built here and read by the native library: its checksum of the exported arrays must
 * equal the oracle's checksum of the rows, and an array moved into {@code isthmus_arrow_echo} is
 * released by the library through the upcall.
 */
@ExtendWith(LeakCheckExtension.class)
class ArrowExporterNativeTest {
    private final MemoryTracker tracker = MemoryTracker.root().child("ArrowExporterNativeTest");
    private final BufferAllocator allocator = new BufferAllocator(tracker);
    private final Arena arena = Arena.ofConfined();
    private final long failuresBefore = ArrowExporter.releaseFailures();

    @BeforeAll
    static void loadLibrary() {
        NativeLibrary.require();
    }

    @AfterEach
    void cleanUp() {
        arena.close();
        assertEquals(failuresBefore, ArrowExporter.releaseFailures());
        tracker.close();
    }

    private FinishedArray batch(List<? extends RowData> rows, RowType type) {
        try (RowDataAppender appender = new RowDataAppender(type, allocator)) {
            rows.forEach(appender::append);
            return appender.finish();
        }
    }

    private long nativeChecksum(MemorySegment array, MemorySegment schema) {
        MemorySegment checksum = arena.allocate(ValueLayout.JAVA_LONG);
        MemorySegment error = NativeErrors.allocate(arena);
        NativeErrors.check(isthmus_h.isthmus_arrow_checksum(array, schema, checksum, error), error);
        return checksum.get(ValueLayout.JAVA_LONG, 0);
    }

    /** Exports the rows, checksums the export natively, and releases it. */
    private long exportAndChecksum(List<? extends RowData> rows, RowType type) {
        MemorySegment array = ArrowArray.allocate(arena);
        MemorySegment schema = ArrowSchema.allocate(arena);
        ArrowExporter.export(batch(rows, type), array, schema);
        try {
            return nativeChecksum(array, schema);
        } finally {
            ArrowArray.release.invoke(ArrowArray.release(array), array);
            ArrowSchema.release.invoke(ArrowSchema.release(schema), schema);
        }
    }

    static Stream<String> everyField() {
        return RandomRows.EVERY_TYPE.getFieldNames().stream();
    }

    @ParameterizedTest
    @MethodSource("everyField")
    void eachTypeAloneChecksumsNativelyAsTheOracleSays(String fieldName) {
        RowType.RowField field = RandomRows.EVERY_TYPE.getFields().get(RandomRows.EVERY_TYPE.getFieldIndex(fieldName));
        RowType type = new RowType(List.of(field));
        for (long seed = 1; seed <= 3; seed++) {
            List<GenericRowData> rows = new RandomRows(seed * 31 + fieldName.hashCode(), 0.25).rows(type, 500);
            assertEquals(ArrowChecksum.of(rows, type), exportAndChecksum(rows, type), fieldName + ", seed " + seed);
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 1, 2, 1000, 8192})
    void batchesOfEveryTypeChecksumNativelyAsTheOracleSays(int rowCount) {
        List<GenericRowData> rows = new RandomRows(rowCount + 17L, 0.2).rows(RandomRows.EVERY_TYPE, rowCount);
        assertEquals(ArrowChecksum.of(rows, RandomRows.EVERY_TYPE), exportAndChecksum(rows, RandomRows.EVERY_TYPE));
    }

    @Test
    void binaryRowsChecksumNativelyAsTheirGenericOriginals() {
        RowType type = RandomRows.EVERY_BINARY_ROW_TYPE;
        List<GenericRowData> rows = new RandomRows(99, 0.2).rows(type, 2000);
        assertEquals(ArrowChecksum.of(rows, type), exportAndChecksum(RandomRows.binary(rows, type), type));
    }

    @Test
    void anArrayMovedIntoEchoIsReleasedByTheLibraryAndItsCopyByUs() {
        List<GenericRowData> rows = new RandomRows(5, 0.2).rows(RandomRows.EVERY_TYPE, 3000);
        FinishedArray batch = batch(rows, RandomRows.EVERY_TYPE);
        ArrowField field = batch.field();
        MemorySegment array = ArrowArray.allocate(arena);
        MemorySegment schema = ArrowSchema.allocate(arena);
        ArrowExporter.export(batch, array, schema);
        assertEquals(1, tracker.liveArrays());

        MemorySegment outArray = ArrowArray.allocate(arena);
        MemorySegment outSchema = ArrowSchema.allocate(arena);
        Diagnostics.arrowEcho(array, schema, outArray, outSchema);

        assertEquals(MemorySegment.NULL, ArrowArray.release(array), "echo moved the array in");
        assertEquals(MemorySegment.NULL, ArrowSchema.release(schema), "and the schema");
        assertEquals(0, tracker.liveArrays(), "the library released the input (through the upcall)");
        assertEquals(0, tracker.liveBytes(), "which freed every buffer and struct");
        assertEquals(0, ArrowExporter.liveStructs());

        long expected = ArrowChecksum.of(rows, RandomRows.EVERY_TYPE);
        assertEquals(expected, nativeChecksum(outArray, outSchema), "the library's copy holds the same values");
        assertEquals(expected, CDataChecksum.of(outArray, field), "read in Java too");
        assertEquals(1, NativeArrowStats.read().exportedLive());

        ArrowArray.release.invoke(ArrowArray.release(outArray), outArray);
        ArrowSchema.release.invoke(ArrowSchema.release(outSchema), outSchema);
        assertEquals(MemorySegment.NULL, ArrowArray.release(outArray));
        assertEquals(0, NativeArrowStats.read().exportedLive());
    }
}
