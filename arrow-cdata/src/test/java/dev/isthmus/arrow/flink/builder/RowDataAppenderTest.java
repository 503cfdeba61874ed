package dev.isthmus.arrow.flink.builder;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.isthmus.arrow.ArrowChecksum;
import dev.isthmus.arrow.CDataChecksum;
import dev.isthmus.arrow.LeakCheckExtension;
import dev.isthmus.arrow.RandomRows;
import dev.isthmus.arrow.builder.BuilderTestSupport;
import dev.isthmus.arrow.builder.FinishedArray;
import dev.isthmus.arrow.types.ArrowType;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.apache.flink.core.memory.MemorySegmentFactory;
import org.apache.flink.table.data.GenericArrayData;
import org.apache.flink.table.data.GenericMapData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.data.binary.BinaryStringData;
import org.apache.flink.table.data.columnar.ColumnarRowData;
import org.apache.flink.table.data.columnar.vector.ColumnVector;
import org.apache.flink.table.data.columnar.vector.VectorizedColumnBatch;
import org.apache.flink.table.data.columnar.vector.heap.HeapBytesVector;
import org.apache.flink.table.data.columnar.vector.heap.HeapIntVector;
import org.apache.flink.table.data.columnar.vector.heap.HeapLongVector;
import org.apache.flink.table.data.columnar.vector.heap.HeapTimestampVector;
import org.apache.flink.table.data.writer.BinaryRowWriter;
import org.apache.flink.table.types.logical.ArrayType;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.BinaryType;
import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.MapType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.TimestampType;
import org.apache.flink.table.types.logical.VarCharType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

@ExtendWith(LeakCheckExtension.class)
class RowDataAppenderTest extends BuilderTestSupport {
    private static final RowType ORDER = RowType.of(
            new LogicalType[] {
                new BigIntType(false),
                new VarCharType(VarCharType.MAX_LENGTH),
                RowType.of(
                        new LogicalType[] {new IntType(false), new VarCharType(false, 20)},
                        new String[] {"qty", "sku"}),
                new ArrayType(RowType.of(new LogicalType[] {new IntType(false)}, new String[] {"price"})),
                new MapType(new VarCharType(false, VarCharType.MAX_LENGTH), new IntType()),
                new BinaryType(4),
            },
            new String[] {"id", "note", "item", "lines", "tags", "code"});

    private long appendAll(List<? extends RowData> rows, RowType type) {
        try (RowDataAppender appender = new RowDataAppender(type, allocator)) {
            for (RowData row : rows) {
                appender.append(row);
            }
            assertEquals(rows.size(), appender.rowCount());
            return CDataChecksum.ofExported(appender.finish());
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 1, 7, 1000})
    void genericRowsOfEveryTypeMatchTheChecksumOracle(int rowCount) {
        List<GenericRowData> rows = new RandomRows(rowCount, 0.2).rows(RandomRows.EVERY_TYPE, rowCount);
        assertEquals(ArrowChecksum.of(rows, RandomRows.EVERY_TYPE), appendAll(rows, RandomRows.EVERY_TYPE));
    }

    @Test
    void rowsOfOneTypeShareOneGeneratedAppend() {
        try (RowDataAppender first = new RowDataAppender(RandomRows.EVERY_TYPE, allocator);
                RowDataAppender second = new RowDataAppender(RandomRows.EVERY_TYPE, allocator);
                RowDataAppender other = new RowDataAppender(ORDER, allocator)) {
            assertNotNull(first.generated());
            assertNotSame(first.generated(), second.generated());
            assertSame(first.generated().getClass(), second.generated().getClass());
            assertNotSame(first.generated().getClass(), other.generated().getClass());
        }
    }

    /**
     * Rows whose method would be too long for the JIT to compile (80 fields), or for a class file
     * to hold (400), have their writers called one by one, with the same batches.
     */
    @ParameterizedTest
    @ValueSource(ints = {80, 400})
    void rowsTooWideForAGeneratedAppendAppendFieldByField(int width) {
        // The last four types of EVERY_TYPE take about 180 bytes of the method each.
        LogicalType[] fields = new LogicalType[width];
        for (int i = 0; i < width; i++) {
            fields[i] = RandomRows.EVERY_TYPE.getTypeAt(RandomRows.EVERY_TYPE.getFieldCount() - 1 - i % 4);
        }
        RowType wide = RowType.of(fields);
        try (RowDataAppender appender = new RowDataAppender(wide, allocator)) {
            assertNull(appender.generated());
        }
        List<GenericRowData> rows = new RandomRows(5, 0.2).rows(wide, 50);
        assertEquals(ArrowChecksum.of(rows, wide), appendAll(rows, wide));
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 1, 300})
    void binaryRowsAppendLikeTheGenericRowsTheyWereMadeFrom(int rowCount) {
        RowType type = RandomRows.EVERY_BINARY_ROW_TYPE;
        List<GenericRowData> rows = new RandomRows(42 + rowCount, 0.2).rows(type, rowCount);
        List<RowData> binary = RandomRows.binary(rows, type);
        assertTrue(rowCount == 0 || binary.getFirst() instanceof BinaryRowData);
        assertEquals(ArrowChecksum.of(rows, type), appendAll(binary, type));
    }

    @Test
    void joinedRowsAppendLikeTheirParts() {
        List<GenericRowData> rows = new RandomRows(7, 0.2).rows(RandomRows.EVERY_TYPE, 200);
        assertEquals(
                ArrowChecksum.of(rows, RandomRows.EVERY_TYPE),
                appendAll(RandomRows.joined(rows, 11), RandomRows.EVERY_TYPE));
    }

    @Test
    void binaryRowsWrittenFieldByFieldAppend() {
        RowType type = RowType.of(
                new LogicalType[] {
                    new BigIntType(false),
                    new VarCharType(VarCharType.MAX_LENGTH),
                    new TimestampType(3),
                    new TimestampType(9)
                },
                new String[] {"id", "name", "ts3", "ts9"});
        List<RowData> rows = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            BinaryRowData row = new BinaryRowData(4);
            BinaryRowWriter writer = new BinaryRowWriter(row);
            writer.writeLong(0, i);
            if (i % 5 == 0) {
                writer.setNullAt(1);
            } else {
                writer.writeString(1, StringData.fromString("name-" + i));
            }
            writer.writeTimestamp(2, TimestampData.fromEpochMillis(-i * 1000L + 1), 3);
            writer.writeTimestamp(3, TimestampData.fromEpochMillis(-i, 999_999 - i), 9);
            writer.complete();
            rows.add(row);
        }
        assertEquals(ArrowChecksum.of(rows, type), appendAll(rows, type));
    }

    @Test
    void columnarRowsAppendThroughTheirVectors() {
        RowType type = RowType.of(
                new LogicalType[] {
                    new BigIntType(), new VarCharType(VarCharType.MAX_LENGTH), new IntType(false), new TimestampType(6)
                },
                new String[] {"a", "b", "c", "d"});
        int n = 100;
        HeapLongVector longs = new HeapLongVector(n);
        HeapBytesVector strings = new HeapBytesVector(n);
        HeapIntVector ints = new HeapIntVector(n);
        HeapTimestampVector timestamps = new HeapTimestampVector(n);
        for (int i = 0; i < n; i++) {
            if (i % 3 == 0) {
                longs.setNullAt(i);
            } else {
                longs.setLong(i, i * 1_000_000_007L);
            }
            byte[] text = ("row " + i).getBytes(java.nio.charset.StandardCharsets.UTF_8);
            strings.appendBytes(i, text, 0, text.length);
            ints.setInt(i, -i);
            timestamps.setTimestamp(i, TimestampData.fromEpochMillis(i * 86_400_000L, i * 1000));
        }
        VectorizedColumnBatch columns =
                new VectorizedColumnBatch(new ColumnVector[] {longs, strings, ints, timestamps});
        columns.setNumRows(n);
        List<RowData> rows = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            rows.add(new ColumnarRowData(columns, i));
        }
        // The oracle reads the same rows; copy them into generic rows, as the columnar row is a cursor.
        List<GenericRowData> copies = new ArrayList<>();
        for (RowData row : rows) {
            copies.add(GenericRowData.of(
                    row.isNullAt(0) ? null : row.getLong(0), row.getString(1), row.getInt(2), row.getTimestamp(3, 6)));
        }
        assertEquals(ArrowChecksum.of(copies, type), appendAll(rows, type));
    }

    @Test
    void stringsInOffHeapFlinkMemoryAreCopiedFromThere() {
        RowType type = RowType.of(new LogicalType[] {new VarCharType(VarCharType.MAX_LENGTH)}, new String[] {"s"});
        org.apache.flink.core.memory.MemorySegment offHeap = MemorySegmentFactory.allocateUnpooledOffHeapMemory(64);
        byte[] text = "__off-heap__".getBytes(java.nio.charset.StandardCharsets.UTF_8);
        offHeap.put(0, text);
        StringData inOffHeap =
                BinaryStringData.fromAddress(new org.apache.flink.core.memory.MemorySegment[] {offHeap}, 2, 8);
        List<GenericRowData> rows = List.of(GenericRowData.of(inOffHeap));
        try (RowDataAppender appender = new RowDataAppender(type, allocator)) {
            appender.append(rows.getFirst());
            try (FinishedArray batch = appender.finish()) {
                assertEquals("off-heap", utf8(batch.children().getFirst(), 0));
            }
        }
    }

    @Test
    void aNullInANotNullFieldNamesTheFieldPathAndRowAndKeepsTheRowsBefore() {
        List<GenericRowData> good = new RandomRows(3, 0.3).rows(ORDER, 5);
        GenericRowData bad =
                GenericRowData.of(99L, StringData.fromString("bad"), GenericRowData.of(1, null), null, null, null);
        try (RowDataAppender appender = new RowDataAppender(ORDER, allocator)) {
            good.forEach(appender::append);
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> appender.append(bad));
            assertEquals(
                    "cannot append row 5 of the batch: field 'item.sku' is NOT NULL but got a null", e.getMessage());
            assertEquals(5, appender.rowCount());
            GenericRowData last = new RandomRows(4, 0.3).row(ORDER);
            appender.append(last);
            List<GenericRowData> expected = new ArrayList<>(good);
            expected.add(last);
            assertEquals(
                    ArrowChecksum.of(expected, ORDER),
                    CDataChecksum.ofExported(appender.finish()),
                    "nothing of the failed row remains, in any child");
        }
    }

    @Test
    void failuresDeepInsideNestedValuesRollBackTheWholeRow() {
        GenericRowData first = GenericRowData.of(
                1L,
                null,
                GenericRowData.of(1, StringData.fromString("a")),
                new GenericArrayData(new Object[] {GenericRowData.of(10)}),
                new GenericMapData(Map.of(StringData.fromString("k"), 1)),
                new byte[] {1, 2, 3, 4});
        GenericRowData nullPrice = GenericRowData.of(
                2L,
                StringData.fromString("partial"),
                GenericRowData.of(2, StringData.fromString("b")),
                new GenericArrayData(new Object[] {GenericRowData.of(20), GenericRowData.of((Object) null)}),
                null,
                null);
        GenericRowData shortCode = GenericRowData.of(
                3L,
                StringData.fromString("partial"),
                GenericRowData.of(3, StringData.fromString("c")),
                new GenericArrayData(new Object[] {}),
                new GenericMapData(Map.of(StringData.fromString("x"), 2)),
                new byte[] {1, 2});
        try (RowDataAppender appender = new RowDataAppender(ORDER, allocator)) {
            appender.append(first);
            IllegalArgumentException price =
                    assertThrows(IllegalArgumentException.class, () -> appender.append(nullPrice));
            assertTrue(
                    price.getMessage().contains("row 1") && price.getMessage().contains("'lines.element.price'"),
                    price.getMessage());
            IllegalArgumentException code =
                    assertThrows(IllegalArgumentException.class, () -> appender.append(shortCode));
            assertTrue(
                    code.getMessage().contains("row 1")
                            && code.getMessage().contains("'code'")
                            && code.getMessage().contains("got 2"),
                    code.getMessage());
            try (FinishedArray batch = appender.finish()) {
                assertEquals(1, batch.length());
                FinishedArray note = batch.children().get(1);
                assertEquals(0, offset(note, 1), "the failed rows' strings are gone from the data buffer");
                FinishedArray lines = batch.children().get(3);
                assertEquals(1, lines.children().getFirst().length(), "and their list elements");
                FinishedArray tags = batch.children().get(4);
                assertEquals(1, tags.children().getFirst().length(), "and their map entries");
            }
        }
    }

    @Test
    void rowsFailingAtTheirLastFieldLeaveEachBatchHoldingItsGoodRows() {
        // A bad row fails at its last field (a 5-byte BINARY(4)), after its strings, list elements
        // and map entries went in; some carry a note longer than a string field's staging, so the
        // rollback crosses bytes already copied into native memory.
        SplittableRandom random = new SplittableRandom(17);
        String longNote = "n".repeat(20_000);
        try (RowDataAppender appender = new RowDataAppender(ORDER, allocator)) {
            long seed = 100;
            for (int batch = 0; batch < 6; batch++) {
                List<GenericRowData> good = new ArrayList<>();
                int rows = random.nextInt(400);
                for (int i = 0; i < rows; i++) {
                    GenericRowData row = new RandomRows(seed++, 0.2).row(ORDER);
                    if (random.nextInt(4) == 0) {
                        GenericRowData bad = new GenericRowData(row.getArity());
                        for (int k = 0; k < row.getArity(); k++) {
                            bad.setField(k, row.getField(k));
                        }
                        if (random.nextBoolean()) {
                            bad.setField(1, StringData.fromString(longNote));
                        }
                        bad.setField(5, new byte[5]);
                        assertThrows(IllegalArgumentException.class, () -> appender.append(bad));
                    }
                    appender.append(row);
                    good.add(row);
                }
                assertEquals(
                        ArrowChecksum.of(good, ORDER),
                        CDataChecksum.ofExported(appender.finish()),
                        "batch " + batch + " of " + rows + " rows");
            }
        }
    }

    @Test
    void aNullMapKeyAndAWrongArityAreNamed() {
        RowType type = RowType.of(
                new LogicalType[] {new MapType(new VarCharType(VarCharType.MAX_LENGTH), new IntType())},
                new String[] {"m"});
        java.util.HashMap<Object, Object> withNullKey = new java.util.HashMap<>();
        withNullKey.put(null, 1);
        try (RowDataAppender appender = new RowDataAppender(type, allocator)) {
            IllegalArgumentException key = assertThrows(
                    IllegalArgumentException.class,
                    () -> appender.append(GenericRowData.of(new GenericMapData(withNullKey))));
            assertTrue(key.getMessage().contains("'m.entries.key' is NOT NULL"), key.getMessage());
            IllegalArgumentException arity =
                    assertThrows(IllegalArgumentException.class, () -> appender.append(GenericRowData.of(1, 2)));
            assertTrue(arity.getMessage().contains("2 fields, the schema 1"), arity.getMessage());
            assertEquals(0, appender.rowCount());
        }
    }

    @Test
    void aGenericRowHoldingTheWrongClassNamesTheFieldItsTypeAndTheClassHeld() {
        try (RowDataAppender appender = new RowDataAppender(ORDER, allocator)) {
            IllegalArgumentException e = assertThrows(
                    IllegalArgumentException.class,
                    () -> appender.append(GenericRowData.of(1L, 42, null, null, null, null)));
            assertTrue(
                    e.getMessage()
                            .startsWith("cannot append row 0 of the batch: field 'note' of type STRING could"
                                    + " not be read: the row holds a java.lang.Integer there (ClassCastException"),
                    e.getMessage());
            assertEquals(0, appender.rowCount());
        }
    }

    /** A hot ClassCastException may come without a message; the appender's own words must remain. */
    @Test
    void aFieldThatFailsWithoutAMessageIsStillNamedWithItsTypeAndRowClass() {
        RowType type = RowType.of(new LogicalType[] {new VarCharType(VarCharType.MAX_LENGTH)}, new String[] {"name"});
        RowData row = (RowData) java.lang.reflect.Proxy.newProxyInstance(
                RowData.class.getClassLoader(),
                new Class<?>[] {RowData.class},
                (proxy, method, args) -> switch (method.getName()) {
                    case "getArity" -> 1;
                    case "isNullAt" -> false;
                    case "getString" -> throw new ClassCastException();
                    default -> throw new UnsupportedOperationException(method.getName());
                });
        try (RowDataAppender appender = new RowDataAppender(type, allocator)) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> appender.append(row));
            assertEquals(
                    "cannot append row 0 of the batch: field 'name' of type STRING could not be read from a "
                            + row.getClass().getName() + " (ClassCastException)",
                    e.getMessage());
            assertEquals(0, appender.rowCount());
        }
    }

    @Test
    void theBatchFieldComesFromTheTypeMapping() {
        try (RowDataAppender appender = new RowDataAppender(ORDER, allocator)) {
            assertEquals(new ArrowType.Struct(), appender.field().type());
            assertTrue(!appender.field().nullable());
            assertEquals("tags", appender.field().child(4).name());
            assertEquals(new ArrowType.Map(false), appender.field().child(4).type());
        }
    }

    @Test
    void consecutiveBatchesCarryNothingOverFromTheOnesBefore() {
        // Longer and shorter batches, with more and fewer nulls, an empty one: the staging kept
        // from one batch to the next must not show through.
        int[][] batches = {{2000, 30}, {700, 0}, {300, 10}, {0, 0}, {50, 100}, {900, 5}};
        for (RowType type : List.of(ORDER, RandomRows.EVERY_TYPE)) {
            try (RowDataAppender appender = new RowDataAppender(type, allocator)) {
                long seed = 9;
                for (int[] batch : batches) {
                    List<GenericRowData> rows = new RandomRows(seed++, batch[1] / 100.0).rows(type, batch[0]);
                    rows.forEach(appender::append);
                    assertEquals(
                            ArrowChecksum.of(rows, type),
                            CDataChecksum.ofExported(appender.finish()),
                            batch[0] + " rows, " + batch[1] + "% nulls, of " + type);
                }
            }
        }
    }

    @Test
    void resetDiscardsTheBatch() {
        try (RowDataAppender appender = new RowDataAppender(ORDER, allocator)) {
            new RandomRows(1, 0.1).rows(ORDER, 10).forEach(appender::append);
            appender.reset();
            assertEquals(0, appender.rowCount());
            List<GenericRowData> rows = new RandomRows(2, 0.1).rows(ORDER, 3);
            rows.forEach(appender::append);
            try (FinishedArray batch = appender.finish()) {
                assertEquals(3, batch.length());
                assertEquals(3, batch.children().getFirst().length());
                assertEquals(
                        rows.get(2).getLong(0),
                        data(batch.children().getFirst(), 1).getAtIndex(ValueLayout.JAVA_LONG, 2));
            }
        }
    }
}
