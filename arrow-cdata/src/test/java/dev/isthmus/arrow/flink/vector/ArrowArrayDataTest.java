package dev.isthmus.arrow.flink.vector;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.isthmus.arrow.FlinkValues;
import dev.isthmus.arrow.LeakCheckExtension;
import dev.isthmus.arrow.NativeRoundTrip;
import dev.isthmus.arrow.RandomRows;
import dev.isthmus.arrow.memory.MemoryTracker;
import java.io.IOException;
import java.util.List;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.flink.table.data.ArrayData;
import org.apache.flink.table.data.GenericArrayData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.binary.BinaryStringData;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.table.types.logical.ArrayType;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarBinaryType;
import org.apache.flink.table.types.logical.VarCharType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The lists of Arrow list vectors ({@link ArrowArrayData}), read in place. */
@ExtendWith(LeakCheckExtension.class)
class ArrowArrayDataTest {
    private static final RowType LISTS = RowType.of(
            new LogicalType[] {
                new ArrayType(new VarCharType(VarCharType.MAX_LENGTH)),
                new ArrayType(new BigIntType(false)),
                new ArrayType(
                        RowType.of(new LogicalType[] {new VarCharType(VarCharType.MAX_LENGTH)}, new String[] {"s"})),
                new ArrayType(new VarBinaryType(VarBinaryType.MAX_LENGTH))
            },
            new String[] {"tags", "ids", "points", "blobs"});

    private final MemoryTracker tracker = MemoryTracker.root().child("ArrowArrayDataTest");

    @AfterEach
    void closeTracker() {
        tracker.close();
    }

    @Test
    void aListReadsItsOwnElementsInPlace() {
        List<GenericRowData> rows = List.of(
                GenericRowData.of(
                        strings("a", null, "bcd"),
                        new GenericArrayData(new long[] {1, 2, 3}),
                        new GenericArrayData(new Object[] {GenericRowData.of(StringData.fromString("x")), null}),
                        new GenericArrayData(new Object[] {new byte[] {1, 2}, new byte[] {3}})),
                GenericRowData.of(
                        strings("efgh", "", "i", "jk"),
                        new GenericArrayData(new long[] {}),
                        new GenericArrayData(new Object[] {GenericRowData.of(StringData.fromString("yz"))}),
                        new GenericArrayData(new Object[] {new byte[] {}, new byte[] {4, 5, 6}})));
        try (ArrowColumnarBatch batch = NativeRoundTrip.batch(rows, LISTS, tracker)) {
            ArrowRowData row = batch.row(1);
            ArrayData tags = row.getArray(0);
            assertInstanceOf(ArrowArrayData.class, tags);
            assertEquals(4, tags.size());
            assertEquals("efgh", tags.getString(0).toString());
            assertEquals("", tags.getString(1).toString());
            assertEquals("jk", tags.getString(3).toString());
            assertArrayEquals(new long[] {}, row.getArray(1).toLongArray());
            RowData point = row.getArray(2).getRow(0, 1);
            assertInstanceOf(ArrowRowData.class, point);
            assertEquals("yz", point.getString(0).toString());
            assertArrayEquals(new byte[] {}, row.getArray(3).getBinary(0));
            assertArrayEquals(new byte[] {4, 5, 6}, row.getArray(3).getBinary(1));

            row.setRowId(0);
            ArrayData first = row.getArray(0);
            assertEquals(3, first.size());
            assertFalse(first.isNullAt(0));
            assertTrue(first.isNullAt(1));
            assertEquals("bcd", first.getString(2).toString());
            assertSame(
                    ((BinaryStringData) first.getString(0)).getSegments(),
                    ((BinaryStringData) tags.getString(3)).getSegments(),
                    "the lists' strings share the elements' heap copy");
            assertArrayEquals(new long[] {1, 2, 3}, row.getArray(1).toLongArray());
            assertEquals(2L, row.getArray(1).getLong(1));
            assertEquals("x", row.getArray(2).getRow(0, 1).getString(0).toString());
            assertTrue(row.getArray(2).isNullAt(1));
            assertArrayEquals(new byte[] {1, 2}, row.getArray(3).getBinary(0));
            assertArrayEquals(new byte[] {3}, row.getArray(3).getBinary(1));
        }
    }

    @Test
    void flinksSerializerCopiesAndSerializesRowsWithLists() throws IOException {
        List<GenericRowData> rows = new RandomRows(7, 0.2).rows(LISTS, 500);
        RowDataSerializer serializer = new RowDataSerializer(LISTS);
        try (ArrowColumnarBatch batch = NativeRoundTrip.batch(rows, LISTS, tracker)) {
            ArrowRowData row = batch.row(0);
            for (int i = 0; i < rows.size(); i++) {
                row.setRowId(i);
                List<Object> expected = FlinkValues.row(rows.get(i), LISTS);
                assertEquals(expected, FlinkValues.row(serializer.copy(row), LISTS), "copy of row " + i);
                DataOutputSerializer out = new DataOutputSerializer(256);
                serializer.serialize(row, out);
                RowData back = serializer.deserialize(new DataInputDeserializer(out.getCopyOfBuffer()));
                assertEquals(expected, FlinkValues.row(back, LISTS), "row " + i + " serialized");
            }
        }
    }

    @Test
    void aListReadAfterItsBatchClosesThrows() {
        ArrayData tags;
        try (ArrowColumnarBatch batch = NativeRoundTrip.batch(
                List.of(GenericRowData.of(strings("a", "b"), null, null, null)), LISTS, tracker)) {
            tags = batch.row(0).getArray(0);
            assertEquals("a", tags.getString(0).toString());
        }
        assertThrows(IllegalStateException.class, () -> tags.getString(1));
    }

    private static GenericArrayData strings(String... values) {
        Object[] data = new Object[values.length];
        for (int i = 0; i < values.length; i++) {
            data[i] = values[i] == null ? null : StringData.fromString(values[i]);
        }
        return new GenericArrayData(data);
    }
}
