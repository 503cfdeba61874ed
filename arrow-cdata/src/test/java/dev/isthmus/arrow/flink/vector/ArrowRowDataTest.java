package dev.isthmus.arrow.flink.vector;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.isthmus.arrow.FlinkValues;
import dev.isthmus.arrow.LeakCheckExtension;
import dev.isthmus.arrow.NativeRoundTrip;
import dev.isthmus.arrow.RandomRows;
import dev.isthmus.arrow.memory.MemoryTracker;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.binary.BinaryStringData;
import org.apache.flink.table.data.columnar.ColumnarRowData;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarCharType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** {@link ArrowRowData} reads what Flink's {@code ColumnarRowData} reads, with fewer objects per string. */
@ExtendWith(LeakCheckExtension.class)
class ArrowRowDataTest {
    private static final RowType STRINGS = RowType.of(
            new LogicalType[] {
                new BigIntType(false),
                new VarCharType(VarCharType.MAX_LENGTH),
                RowType.of(new LogicalType[] {new VarCharType(VarCharType.MAX_LENGTH)}, new String[] {"city"})
            },
            new String[] {"id", "name", "address"});

    private final MemoryTracker tracker = MemoryTracker.root().child("ArrowRowDataTest");

    @AfterEach
    void closeTracker() {
        tracker.close();
    }

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3})
    void readsWhatColumnarRowDataReadsForEveryType(long seed) {
        List<GenericRowData> rows = new RandomRows(seed, 0.2).rows(RandomRows.EVERY_TYPE, 1_000);
        try (ArrowColumnarBatch batch = NativeRoundTrip.batch(rows, RandomRows.EVERY_TYPE, tracker)) {
            ArrowRowData arrow = batch.row(0);
            ColumnarRowData columnar = new ColumnarRowData(batch.batch());
            for (int i = 0; i < rows.size(); i++) {
                arrow.setRowId(i);
                columnar.setRowId(i);
                List<Object> expected = FlinkValues.row(rows.get(i), RandomRows.EVERY_TYPE);
                assertEquals(expected, FlinkValues.row(columnar, RandomRows.EVERY_TYPE), "columnar row " + i);
                assertEquals(expected, FlinkValues.row(arrow, RandomRows.EVERY_TYPE), "arrow row " + i);
            }
        }
    }

    @Test
    void aSlicedBatchsRowsReadFromTheSlicesStart() {
        List<GenericRowData> rows = new RandomRows(9, 0.2).rows(RandomRows.EVERY_TYPE, 300);
        try (ArrowColumnarBatch sliced = NativeRoundTrip.sliced(rows, RandomRows.EVERY_TYPE, 37, 200, tracker)) {
            ArrowRowData row = sliced.row(0);
            for (int i = 0; i < 200; i++) {
                row.setRowId(i);
                assertEquals(
                        FlinkValues.row(rows.get(37 + i), RandomRows.EVERY_TYPE),
                        FlinkValues.row(row, RandomRows.EVERY_TYPE),
                        "row " + i);
            }
        }
    }

    @Test
    void theStringsOfAColumnShareOneSegmentArray() {
        List<GenericRowData> rows = stringRows(100);
        try (ArrowColumnarBatch batch = NativeRoundTrip.batch(rows, STRINGS, tracker)) {
            ArrowRowData row = batch.row(3);
            BinaryStringData third = (BinaryStringData) row.getString(1);
            BinaryStringData thirdNested = (BinaryStringData) row.getRow(2, 1).getString(0);
            row.setRowId(97);
            BinaryStringData last = (BinaryStringData) row.getString(1);
            BinaryStringData lastNested = (BinaryStringData) row.getRow(2, 1).getString(0);

            assertEquals("name 3", third.toString());
            assertEquals("name 97", last.toString());
            assertEquals("city 3", thirdNested.toString());
            assertEquals("city 97", lastNested.toString());
            assertSame(third.getSegments(), last.getSegments(), "one segment array for the column");
            assertSame(thirdNested.getSegments(), lastNested.getSegments(), "one for the struct's field too");
            assertNotSame(third.getSegments(), thirdNested.getSegments(), "an array per column");
            // Flink's row wraps the copy anew for every string.
            ColumnarRowData columnar = new ColumnarRowData(batch.batch(), 3);
            BinaryStringData flinks = (BinaryStringData) columnar.getString(1);
            assertEquals(third, flinks);
            assertNotSame(third.getSegments(), flinks.getSegments());
        }
    }

    @Test
    void aStructFieldIsAnArrowRow() {
        List<GenericRowData> rows = stringRows(10);
        try (ArrowColumnarBatch batch = NativeRoundTrip.batch(rows, STRINGS, tracker)) {
            RowData address = batch.row(4).getRow(2, 1);
            assertInstanceOf(ArrowRowData.class, address);
            assertEquals("city 4", address.getString(0).toString());
            assertEquals(1, address.getArity());
        }
    }

    @Test
    void stringsReadStayValidAfterTheBatchClosesAndLaterReadsThrow() {
        List<GenericRowData> rows = stringRows(10);
        ArrowRowData row;
        StringData kept;
        try (ArrowColumnarBatch batch = NativeRoundTrip.batch(rows, STRINGS, tracker)) {
            row = batch.row(6);
            kept = row.getString(1);
        }
        assertEquals("name 6", kept.toString(), "a string lives in the heap copy, not the batch");
        IllegalStateException refused = assertThrows(IllegalStateException.class, () -> row.getString(1));
        assertTrue(
                refused.getMessage().contains("read of a recycled batch"),
                "with checked batches on, as in the tests, the read says what happened: " + refused.getMessage());
        assertThrows(IllegalStateException.class, () -> row.getRow(2, 1));
    }

    @Test
    void equalityAndHashingAreRefusedAsColumnarRowDataRefusesThem() {
        try (ArrowColumnarBatch batch = NativeRoundTrip.batch(stringRows(1), STRINGS, tracker)) {
            ArrowRowData row = batch.row(0);
            assertThrows(UnsupportedOperationException.class, () -> row.equals(batch.row(0)));
            assertThrows(UnsupportedOperationException.class, row::hashCode);
        }
    }

    private static List<GenericRowData> stringRows(int count) {
        List<GenericRowData> rows = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            rows.add(GenericRowData.of(
                    (long) i,
                    StringData.fromString("name " + i),
                    GenericRowData.of(StringData.fromString("city " + i))));
        }
        return rows;
    }
}
