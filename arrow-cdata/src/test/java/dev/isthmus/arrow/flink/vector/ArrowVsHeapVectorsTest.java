package dev.isthmus.arrow.flink.vector;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.isthmus.arrow.FlinkValues;
import dev.isthmus.arrow.LeakCheckExtension;
import dev.isthmus.arrow.NativeRoundTrip;
import dev.isthmus.arrow.RandomRows;
import dev.isthmus.arrow.memory.MemoryTracker;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.columnar.ColumnarRowData;
import org.apache.flink.table.data.columnar.vector.ColumnVector;
import org.apache.flink.table.data.columnar.vector.VectorizedColumnBatch;
import org.apache.flink.table.types.logical.ArrayType;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.BinaryType;
import org.apache.flink.table.types.logical.BooleanType;
import org.apache.flink.table.types.logical.DateType;
import org.apache.flink.table.types.logical.DoubleType;
import org.apache.flink.table.types.logical.FloatType;
import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.table.types.logical.LocalZonedTimestampType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.MapType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.SmallIntType;
import org.apache.flink.table.types.logical.TimeType;
import org.apache.flink.table.types.logical.TimestampType;
import org.apache.flink.table.types.logical.TinyIntType;
import org.apache.flink.table.types.logical.VarBinaryType;
import org.apache.flink.table.types.logical.VarCharType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Random rows go Java builders -> export -> the native library (which validates, copies and
 * re-exports them) -> import -> Arrow-backed Flink vectors, and must read back exactly as the
 * same rows do through Flink's own heap vectors, and as the rows themselves.
 */
@ExtendWith(LeakCheckExtension.class)
class ArrowVsHeapVectorsTest {
    /** Every type Flink has a heap vector for, flat and nested. */
    static final RowType HEAP_TYPES = RowType.of(
            new LogicalType[] {
                new BooleanType(),
                new TinyIntType(),
                new SmallIntType(),
                new IntType(),
                new BigIntType(false),
                new FloatType(),
                new DoubleType(),
                new DateType(),
                new TimeType(),
                new TimestampType(6),
                new TimestampType(9),
                new LocalZonedTimestampType(6),
                new VarCharType(VarCharType.MAX_LENGTH),
                new VarBinaryType(VarBinaryType.MAX_LENGTH),
                new BinaryType(16),
                RowType.of(
                        new LogicalType[] {new IntType(), new VarCharType(VarCharType.MAX_LENGTH)},
                        new String[] {"a", "b"}),
                new ArrayType(new BigIntType()),
                new MapType(new VarCharType(false, VarCharType.MAX_LENGTH), new DoubleType()),
            },
            new String[] {
                "bool", "i8", "i16", "i32", "i64", "f32", "f64", "date", "time", "ts6", "ts9", "ltz6", "str", "bin",
                "fixed", "point", "longs", "weights"
            });

    private final MemoryTracker tracker = MemoryTracker.root().child("ArrowVsHeapVectorsTest");

    @AfterEach
    void closeTracker() {
        tracker.close();
    }

    private ArrowColumnarBatch throughNative(List<? extends RowData> rows, RowType type) {
        return NativeRoundTrip.batch(rows, type, tracker);
    }

    private static void assertSameRows(
            List<? extends RowData> expected, VectorizedColumnBatch batch, RowType type, String what) {
        assertEquals(expected.size(), batch.getNumRows(), what + " row count");
        ColumnarRowData row = new ColumnarRowData(batch);
        for (int i = 0; i < expected.size(); i++) {
            row.setRowId(i);
            assertEquals(FlinkValues.row(expected.get(i), type), FlinkValues.row(row, type), what + " row " + i);
        }
    }

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 4})
    void arrowVectorsReadWhatHeapVectorsRead(long seed) {
        List<GenericRowData> rows = new RandomRows(seed, 0.15).rows(HEAP_TYPES, 2_000);
        VectorizedColumnBatch heap = HeapVectors.batch(rows, HEAP_TYPES);
        assertSameRows(rows, heap, HEAP_TYPES, "heap vectors");
        try (ArrowColumnarBatch arrow = throughNative(rows, HEAP_TYPES)) {
            assertSameRows(rows, arrow.batch(), HEAP_TYPES, "arrow vectors");
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 1, 1_000})
    void everyTypeSurvivesTheNativeRoundTrip(int count) {
        List<GenericRowData> rows = new RandomRows(count, 0.2).rows(RandomRows.EVERY_TYPE, count);
        try (ArrowColumnarBatch arrow = throughNative(rows, RandomRows.EVERY_TYPE)) {
            assertSameRows(rows, arrow.batch(), RandomRows.EVERY_TYPE, "arrow vectors");
        }
    }

    /**
     * A batch exported by Java and imported back with the parent sliced: the struct's offset
     * must carry into every column, whatever its type.
     */
    @Test
    void slicedBatchesOfEveryTypeReadOnlyTheirSlice() {
        List<GenericRowData> rows = new RandomRows(11, 0.2).rows(RandomRows.EVERY_TYPE, 300);
        try (ArrowColumnarBatch sliced = NativeRoundTrip.sliced(rows, RandomRows.EVERY_TYPE, 37, 200, tracker)) {
            assertSameRows(rows.subList(37, 237), sliced.batch(), RandomRows.EVERY_TYPE, "sliced batch");
        }
    }

    /**
     * Byte strings inside maps are read through Flink's ColumnarArrayData.getBinary, which
     * mishandles a Bytes whose offset is not 0 (it copies [offset, len)); inside lists through
     * ArrowArrayData, which reads them from the column's heap copy at their offsets.
     */
    @Test
    void binaryElementsOfListsAndMapsReadBack() {
        RowType type = RowType.of(
                new LogicalType[] {
                    new ArrayType(new VarBinaryType(VarBinaryType.MAX_LENGTH)),
                    new MapType(new BinaryType(false, 4), new VarBinaryType(VarBinaryType.MAX_LENGTH)),
                    new ArrayType(new BinaryType(16))
                },
                new String[] {"blobs", "by_key", "ids"});
        List<GenericRowData> rows = new RandomRows(12, 0.1).rows(type, 400);
        try (ArrowColumnarBatch arrow = throughNative(rows, type)) {
            assertSameRows(rows, arrow.batch(), type, "binary in lists and maps");
        }
    }

    @Test
    void binaryAndJoinedRowsReadBackLikeGenericOnes() {
        List<GenericRowData> rows = new RandomRows(9, 0.1).rows(RandomRows.EVERY_BINARY_ROW_TYPE, 500);
        try (ArrowColumnarBatch arrow = throughNative(
                RandomRows.binary(rows, RandomRows.EVERY_BINARY_ROW_TYPE), RandomRows.EVERY_BINARY_ROW_TYPE)) {
            assertSameRows(rows, arrow.batch(), RandomRows.EVERY_BINARY_ROW_TYPE, "from binary rows");
        }
    }

    /**
     * A struct's field read as a column of its own, and structs, lists and maps rebuilt from parts
     * of them (as the source prunes and fills nested columns), read in a sliced batch: the
     * offsets carry into the parts.
     */
    @Test
    void nestedVectorsRebuiltFromTheirPartsReadTheParts() {
        RowType pair = RowType.of(
                new LogicalType[] {new IntType(), new VarCharType(VarCharType.MAX_LENGTH)}, new String[] {"a", "b"});
        RowType type = RowType.of(
                new LogicalType[] {
                    pair, new ArrayType(pair), new MapType(new VarCharType(false, VarCharType.MAX_LENGTH), pair)
                },
                new String[] {"s", "l", "m"});
        List<GenericRowData> rows = new RandomRows(13, 0.15).rows(type, 300);
        RowType swapped = RowType.of(
                new LogicalType[] {new VarCharType(VarCharType.MAX_LENGTH), new IntType()}, new String[] {"b", "a"});
        RowType rebuilt = RowType.of(
                new LogicalType[] {
                    new VarCharType(VarCharType.MAX_LENGTH),
                    swapped,
                    new ArrayType(swapped),
                    new MapType(new VarCharType(false, VarCharType.MAX_LENGTH), swapped)
                },
                new String[] {"s_b", "s", "l", "m"});
        try (ArrowColumnarBatch sliced = NativeRoundTrip.sliced(rows, type, 37, 200, tracker)) {
            var columns = sliced.batch().columns;
            var elements = ArrowVectors.elements(columns[1]);
            var values = ArrowVectors.elements(columns[2]);
            VectorizedColumnBatch parts = sliced.withColumns(new ColumnVector[] {
                ArrowVectors.field(columns[0], 1),
                ArrowVectors.withFields(columns[0], swap(columns[0])),
                ArrowVectors.withElements(columns[1], ArrowVectors.withFields(elements, swap(elements))),
                ArrowVectors.withElements(columns[2], ArrowVectors.withFields(values, swap(values)))
            });
            ColumnarRowData row = new ColumnarRowData(parts);
            for (int i = 0; i < 200; i++) {
                row.setRowId(i);
                List<Object> whole = FlinkValues.row(rows.get(37 + i), type);
                List<?> s = (List<?>) whole.get(0);
                List<Object> expected = new ArrayList<>();
                expected.add(s == null ? null : s.get(1));
                expected.add(s == null ? null : Arrays.asList(s.get(1), s.get(0)));
                List<?> l = (List<?>) whole.get(1);
                expected.add(
                        l == null
                                ? null
                                : l.stream()
                                        .map(e -> e == null
                                                ? null
                                                : Arrays.asList(((List<?>) e).get(1), ((List<?>) e).get(0)))
                                        .toList());
                Map<?, ?> m = (Map<?, ?>) whole.get(2);
                if (m == null) {
                    expected.add(null);
                } else {
                    Map<Object, Object> swappedMap = new LinkedHashMap<>();
                    m.forEach((k, v) -> swappedMap.put(
                            k, v == null ? null : Arrays.asList(((List<?>) v).get(1), ((List<?>) v).get(0))));
                    expected.add(swappedMap);
                }
                assertEquals(expected, FlinkValues.row(row, rebuilt), "row " + i);
            }
        }
    }

    private static ColumnVector[] swap(ColumnVector struct) {
        return new ColumnVector[] {ArrowVectors.field(struct, 1), ArrowVectors.field(struct, 0)};
    }
}
