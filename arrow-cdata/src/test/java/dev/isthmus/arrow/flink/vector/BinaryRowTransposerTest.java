package dev.isthmus.arrow.flink.vector;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.isthmus.arrow.FlinkValues;
import dev.isthmus.arrow.LeakCheckExtension;
import dev.isthmus.arrow.NativeRoundTrip;
import dev.isthmus.arrow.RandomRows;
import dev.isthmus.arrow.memory.MemoryTracker;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.IntStream;
import org.apache.flink.core.memory.DataInputViewStreamWrapper;
import org.apache.flink.core.memory.DataOutputViewStreamWrapper;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.data.columnar.ColumnarRowData;
import org.apache.flink.table.data.columnar.vector.BooleanColumnVector;
import org.apache.flink.table.data.columnar.vector.ByteColumnVector;
import org.apache.flink.table.data.columnar.vector.BytesColumnVector;
import org.apache.flink.table.data.columnar.vector.ColumnVector;
import org.apache.flink.table.data.columnar.vector.DecimalColumnVector;
import org.apache.flink.table.data.columnar.vector.DoubleColumnVector;
import org.apache.flink.table.data.columnar.vector.FloatColumnVector;
import org.apache.flink.table.data.columnar.vector.IntColumnVector;
import org.apache.flink.table.data.columnar.vector.LongColumnVector;
import org.apache.flink.table.data.columnar.vector.ShortColumnVector;
import org.apache.flink.table.data.columnar.vector.TimestampColumnVector;
import org.apache.flink.table.data.columnar.vector.VectorizedColumnBatch;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.table.types.logical.ArrayType;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.BinaryType;
import org.apache.flink.table.types.logical.BooleanType;
import org.apache.flink.table.types.logical.CharType;
import org.apache.flink.table.types.logical.DateType;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.DoubleType;
import org.apache.flink.table.types.logical.FloatType;
import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.table.types.logical.LocalZonedTimestampType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.MapType;
import org.apache.flink.table.types.logical.NullType;
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
 * Transposed rows must be exactly Flink's binary rows: byte for byte what
 * {@code RowDataSerializer.toBinaryRow} (Flink's {@code BinaryRowWriter}) makes of the same
 * columnar row, with the same values, whether the columns are Arrow vectors read in place or
 * other vectors read through Flink's interfaces.
 */
@ExtendWith(LeakCheckExtension.class)
class BinaryRowTransposerTest {
    /**
     * Every flat type, nullable and NOT NULL, on both sides of each layout boundary: compact and
     * wide decimals and timestamps, fixed-width bytes inline (5) and not (16), and (from the
     * random text and bytes) strings of 0 to 24 bytes.
     */
    static final RowType FLAT = RowType.of(
            new LogicalType[] {
                new BooleanType(),
                new TinyIntType(),
                new SmallIntType(),
                new IntType(false),
                new BigIntType(),
                new FloatType(),
                new DoubleType(false),
                new DecimalType(9, 2),
                new DecimalType(false, 18, 4),
                new DecimalType(19, 0),
                new DecimalType(38, 10),
                new DateType(),
                new TimeType(),
                new TimestampType(3),
                new TimestampType(false, 6),
                new TimestampType(9),
                new LocalZonedTimestampType(3),
                new LocalZonedTimestampType(6),
                new LocalZonedTimestampType(9),
                new VarCharType(VarCharType.MAX_LENGTH),
                new VarCharType(false, VarCharType.MAX_LENGTH),
                new CharType(3),
                new VarBinaryType(VarBinaryType.MAX_LENGTH),
                new BinaryType(16),
                new BinaryType(5),
            },
            new String[] {
                "bool", "i8", "i16", "i32", "i64", "f32", "f64", "dec9", "dec18", "dec19", "dec38", "date", "time",
                "ts3", "ts6", "ts9", "ltz3", "ltz6", "ltz9", "str", "str_nn", "chr", "bin", "fixed16", "fixed5"
            });

    /** The fields of {@link #FLAT} the generated row writers take: all but wide decimals and fixed-width bytes. */
    static final RowType GENERATED = new RowType(FLAT.getFields().stream()
            .filter(f -> !List.of("dec19", "dec38", "fixed16", "fixed5").contains(f.getName()))
            .toList());

    /** The fields of {@link #FLAT} written from their slots alone. */
    static final RowType SLOTS = new RowType(FLAT.getFields().stream()
            .filter(f -> List.of(
                            "bool", "i8", "i16", "i32", "i64", "f32", "f64", "dec9", "dec18", "date", "time", "ts3",
                            "ltz3")
                    .contains(f.getName()))
            .toList());

    private final MemoryTracker tracker = MemoryTracker.root().child("BinaryRowTransposerTest");

    @AfterEach
    void closeTracker() {
        tracker.close();
    }

    /** Rows {@code selection} of the batch (all when null), compared with Flink's binary rows of the columnar rows. */
    private static void assertTransposedAsFlink(
            VectorizedColumnBatch batch,
            int[] selection,
            int count,
            List<? extends RowData> original,
            RowType type,
            BinaryRows into,
            String what) {
        new BinaryRowTransposer(type).transpose(batch.columns, selection, count, into);
        assertTransposed(batch, selection, count, original, type, into, what);
    }

    private static void assertTransposed(
            VectorizedColumnBatch batch,
            int[] selection,
            int count,
            List<? extends RowData> original,
            RowType type,
            BinaryRows into,
            String what) {
        RowDataSerializer serializer = new RowDataSerializer(type);
        assertEquals(count, into.count(), what + ": row count");
        ColumnarRowData columnar = new ColumnarRowData(batch);
        BinaryRowData transposed = new BinaryRowData(type.getFieldCount());
        for (int k = 0; k < count; k++) {
            int row = selection == null ? k : selection[k];
            columnar.setRowId(row);
            into.pointTo(transposed, k);
            BinaryRowData expected = serializer.toBinaryRow(columnar);
            String at = what + ", row " + k + " (batch row " + row + ")";
            assertEquals(
                    expected, transposed, () -> at + "\nexpected " + hex(expected) + "\nactual   " + hex(transposed));
            assertEquals(FlinkValues.row(original.get(row), type), FlinkValues.row(transposed, type), at);
            assertEquals(FlinkValues.row(columnar, type), FlinkValues.row(transposed, type), at);
        }
    }

    private static String hex(BinaryRowData row) {
        byte[] bytes = new byte[row.getSizeInBytes()];
        row.getSegments()[0].get(row.getOffset(), bytes);
        return HexFormat.ofDelimiter(" ").formatHex(bytes);
    }

    /** Rows {@code from..from + count)}. */
    private static int[] run(int from, int count) {
        return IntStream.range(from, from + count).toArray();
    }

    /** A random subset of {@code 0..rows)} in random order, some rows more than once. */
    private static int[] randomSelection(SplittableRandom random, int rows, int count) {
        int[] selection = new int[count + 3];
        for (int k = 0; k < count; k++) {
            selection[k] = random.nextInt(rows);
        }
        Arrays.fill(selection, count, selection.length, -1);
        return selection;
    }

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 4, 5})
    void arrowColumnsTransposeAsFlinksWriterWritesThem(long seed) {
        List<GenericRowData> rows = new RandomRows(seed, 0.2).rows(FLAT, 1_500);
        try (ArrowColumnarBatch arrow = NativeRoundTrip.batch(rows, FLAT, tracker)) {
            BinaryRows into = new BinaryRows();
            assertTransposedAsFlink(arrow.batch(), null, rows.size(), rows, FLAT, into, "every row");
            SplittableRandom random = new SplittableRandom(seed);
            int count = random.nextInt(1, rows.size());
            assertTransposedAsFlink(
                    arrow.batch(),
                    randomSelection(random, rows.size(), count),
                    count,
                    rows,
                    FLAT,
                    into,
                    "a selection of " + count);
            assertTransposedAsFlink(arrow.batch(), new int[0], 0, rows, FLAT, into, "no row");
            // Consecutive rows read their string offsets in one copy; near-consecutive ones must not.
            assertTransposedAsFlink(
                    arrow.batch(), new int[] {300, 301, 302, 303}, 4, rows, FLAT, into, "consecutive rows");
            assertTransposedAsFlink(
                    arrow.batch(),
                    new int[] {300, 300, 302},
                    3,
                    rows,
                    FLAT,
                    into,
                    "a repeat and a gap spanning as many rows");
            assertTransposedAsFlink(
                    arrow.batch(), new int[] {301, 300, 302}, 3, rows, FLAT, into, "the same rows out of order");
        }
    }

    /**
     * Strings are copied from a heap copy of their column's data when most of it is transposed
     * and the strings are short, and straight from the Arrow buffer otherwise: a few rows of a
     * batch, or long strings; every way gives Flink's bytes.
     */
    @Test
    void stringsOfAnyLengthAndSelectionsOfAnySizeTransposeAsFlinksWriterWritesThem() {
        RowType type = RowType.of(
                new LogicalType[] {
                    new VarCharType(VarCharType.MAX_LENGTH), new VarBinaryType(false, VarBinaryType.MAX_LENGTH)
                },
                new String[] {"text", "bytes"});
        SplittableRandom random = new SplittableRandom(13);
        for (int maxLength : new int[] {12, 40, 400}) {
            List<GenericRowData> rows = new ArrayList<>();
            for (int i = 0; i < 1_000; i++) {
                byte[] bytes = new byte[random.nextInt(maxLength)];
                random.nextBytes(bytes);
                String text = "é".repeat(random.nextInt(maxLength / 2));
                rows.add(GenericRowData.of(random.nextInt(10) == 0 ? null : StringData.fromString(text), bytes));
            }
            try (ArrowColumnarBatch arrow = NativeRoundTrip.batch(rows, type, tracker)) {
                BinaryRows into = new BinaryRows();
                for (int count : new int[] {1_000, 400, 7}) {
                    assertTransposedAsFlink(
                            arrow.batch(),
                            randomSelection(random, rows.size(), count),
                            count,
                            rows,
                            type,
                            into,
                            count + " rows of strings up to " + maxLength + " bytes");
                }
            }
        }
    }

    /**
     * Consecutive rows of columns the generated writers take are written by the writer of their
     * shape (one per mix of fields with and without nulls), to the same bytes; other selections
     * take the column passes.
     */
    @ParameterizedTest
    @ValueSource(doubles = {0.0, 0.2})
    void generatedWritersTransposeConsecutiveRowsAsFlinksWriterWritesThem(double nulls) {
        List<GenericRowData> rows = new RandomRows(14, nulls).rows(GENERATED, 1_500);
        try (ArrowColumnarBatch arrow = NativeRoundTrip.batch(rows, GENERATED, tracker)) {
            ColumnVector[] columns = arrow.batch().columns;
            assertTrue(
                    Arrays.stream(columns).anyMatch(c -> ((ValidityVector) c).validity == null),
                    "a column without a validity buffer, written without null checks");
            if (nulls > 0) {
                assertTrue(
                        Arrays.stream(columns).anyMatch(c -> ((ValidityVector) c).validity != null),
                        "a column with nulls");
            }
            BinaryRowTransposer transposer = new BinaryRowTransposer(GENERATED);
            BinaryRows into = new BinaryRows();
            transposer.transpose(columns, null, rows.size(), into);
            assertTransposed(arrow.batch(), null, rows.size(), rows, GENERATED, into, "every row");
            transposer.transpose(columns, run(300, 1_024), 1_024, into);
            assertTransposed(arrow.batch(), run(300, 1_024), 1_024, rows, GENERATED, into, "a run of rows");
            assertEquals(2, transposer.generatedBatches(), "batches written by the generated writer");

            transposer.transpose(columns, new int[] {300, 302}, 2, into);
            assertTransposed(arrow.batch(), new int[] {300, 302}, 2, rows, GENERATED, into, "rows with a gap");
            assertEquals(2, transposer.generatedBatches(), "a gap takes the column passes");
        }
    }

    /**
     * Columns the generated writers do not take send the whole batch to the column passes: wide
     * decimals and fixed-width bytes, strings of more than 128 bytes a row, rows of more than 128
     * fields.
     */
    @Test
    void batchesTheGeneratedWritersDoNotTakeGoColumnByColumn() {
        List<GenericRowData> rows = new RandomRows(15, 0.2).rows(FLAT, 500);
        try (ArrowColumnarBatch arrow = NativeRoundTrip.batch(rows, FLAT, tracker)) {
            BinaryRowTransposer transposer = new BinaryRowTransposer(FLAT);
            BinaryRows into = new BinaryRows();
            transposer.transpose(arrow.batch().columns, null, rows.size(), into);
            assertTransposed(arrow.batch(), null, rows.size(), rows, FLAT, into, "wide decimals");
            assertEquals(0, transposer.generatedBatches());
        }

        RowType text = RowType.of(new VarCharType(VarCharType.MAX_LENGTH));
        for (int length : new int[] {100, 200}) {
            List<GenericRowData> strings = IntStream.range(0, 300)
                    .mapToObj(i -> GenericRowData.of(StringData.fromString("x".repeat(length))))
                    .toList();
            try (ArrowColumnarBatch arrow = NativeRoundTrip.batch(strings, text, tracker)) {
                BinaryRowTransposer transposer = new BinaryRowTransposer(text);
                BinaryRows into = new BinaryRows();
                transposer.transpose(arrow.batch().columns, null, strings.size(), into);
                assertTransposed(arrow.batch(), null, strings.size(), strings, text, into, length + "-byte strings");
                assertEquals(length <= 128 ? 1 : 0, transposer.generatedBatches(), length + "-byte strings");
            }
        }

        for (int arity : new int[] {RowWriterGenerator.MAX_FIELDS, RowWriterGenerator.MAX_FIELDS + 1}) {
            LogicalType[] types = new LogicalType[arity];
            Arrays.fill(types, new BigIntType());
            RowType wide = RowType.of(types);
            List<GenericRowData> wideRows = new RandomRows(16, 0.1).rows(wide, 100);
            try (ArrowColumnarBatch arrow = NativeRoundTrip.batch(wideRows, wide, tracker)) {
                BinaryRowTransposer transposer = new BinaryRowTransposer(wide);
                BinaryRows into = new BinaryRows();
                transposer.transpose(arrow.batch().columns, null, wideRows.size(), into);
                assertTransposed(arrow.batch(), null, wideRows.size(), wideRows, wide, into, arity + " fields");
                assertEquals(
                        arity <= RowWriterGenerator.MAX_FIELDS ? 1 : 0,
                        transposer.generatedBatches(),
                        arity + " fields");
            }
        }
    }

    /** Each column writes only its own slot and variable part, so the columns' order must not matter. */
    @Test
    void eachTypeAloneTransposesAsFlinksWriterWritesIt() {
        List<GenericRowData> rows = new RandomRows(6, 0.3).rows(FLAT, 300);
        for (int c = 0; c < FLAT.getFieldCount(); c++) {
            RowType single = new RowType(List.of(FLAT.getFields().get(c)));
            int field = c;
            List<GenericRowData> column =
                    rows.stream().map(r -> GenericRowData.of(r.getField(field))).toList();
            try (ArrowColumnarBatch arrow = NativeRoundTrip.batch(column, single, tracker)) {
                assertTransposedAsFlink(
                        arrow.batch(), null, column.size(), column, single, new BinaryRows(), single.toString());
            }
        }
    }

    /** A batch imported with the struct sliced: the offset carries into every column's buffers. */
    @Test
    void slicedBatchesTransposeOnlyTheirSlice() {
        List<GenericRowData> rows = new RandomRows(7, 0.2).rows(FLAT, 300);
        try (ArrowColumnarBatch sliced = NativeRoundTrip.sliced(rows, FLAT, 37, 200, tracker)) {
            assertTransposedAsFlink(
                    sliced.batch(), null, 200, rows.subList(37, 237), FLAT, new BinaryRows(), "sliced batch");
            assertTransposedAsFlink(
                    sliced.batch(),
                    new int[] {199, 0, 57},
                    3,
                    rows.subList(37, 237),
                    FLAT,
                    new BinaryRows(),
                    "sliced batch, selected");
        }
    }

    /**
     * The array is reused from batch to batch: bytes left by a larger batch (here, garbage) must
     * not show through the padding, null slots or null bits of the next.
     */
    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void aReusedBufferHoldsExactlyTheNewRows(boolean generated) {
        RowType type = generated ? GENERATED : FLAT;
        List<GenericRowData> large = new RandomRows(8, 0.0).rows(type, 900);
        List<GenericRowData> small = new RandomRows(9, 0.5).rows(type, 400);
        BinaryRows into = new BinaryRows();
        BinaryRowTransposer transposer = new BinaryRowTransposer(type);
        try (ArrowColumnarBatch first = NativeRoundTrip.batch(large, type, tracker);
                ArrowColumnarBatch second = NativeRoundTrip.batch(small, type, tracker)) {
            transposer.transpose(first.batch().columns, null, large.size(), into);
            int capacity = into.capacityInBytes();
            Arrays.fill(into.dataFor(capacity), (byte) 0xA5);
            transposer.transpose(second.batch().columns, null, small.size(), into);
            assertEquals(capacity, into.capacityInBytes(), "the smaller batch fits the same array");
            assertTransposed(second.batch(), null, small.size(), small, type, into, "second batch");
            assertEquals(generated ? 2 : 0, transposer.generatedBatches(), "batches written by the generated writer");
        }
    }

    /** Rows written by the transposer survive Flink's copy and its serialization as they are. */
    @Test
    void flinkCopiesAndSerializesTransposedRowsAsBinaryRows() throws IOException {
        List<GenericRowData> rows = new RandomRows(10, 0.2).rows(FLAT, 200);
        RowDataSerializer serializer = new RowDataSerializer(FLAT);
        try (ArrowColumnarBatch arrow = NativeRoundTrip.batch(rows, FLAT, tracker)) {
            BinaryRows into = new BinaryRows();
            new BinaryRowTransposer(FLAT).transpose(arrow.batch().columns, null, rows.size(), into);
            BinaryRowData row = new BinaryRowData(FLAT.getFieldCount());
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            DataOutputViewStreamWrapper out = new DataOutputViewStreamWrapper(bytes);
            List<RowData> copies = new ArrayList<>();
            for (int k = 0; k < rows.size(); k++) {
                into.pointTo(row, k);
                RowData copy = serializer.copy(row);
                assertTrue(copy instanceof BinaryRowData, "a binary row is copied as one");
                copies.add(copy);
                serializer.serialize(row, out);
            }
            DataInputViewStreamWrapper in =
                    new DataInputViewStreamWrapper(new ByteArrayInputStream(bytes.toByteArray()));
            for (int k = 0; k < rows.size(); k++) {
                List<Object> expected = FlinkValues.row(rows.get(k), FLAT);
                assertEquals(expected, FlinkValues.row(copies.get(k), FLAT), "copy of row " + k);
                assertEquals(expected, FlinkValues.row(serializer.deserialize(in), FLAT), "row " + k + " serialized");
            }
        }
    }

    /**
     * Columns that are not Arrow vectors (a task's constant column, say) are read through
     * Flink's interfaces, to the same bytes.
     */
    @ParameterizedTest
    @ValueSource(longs = {11, 12})
    void otherVectorsTransposeAsFlinksWriterWritesThem(long seed) {
        List<GenericRowData> rows = new RandomRows(seed, 0.2).rows(FLAT, 700);
        ColumnVector[] columns = new ColumnVector[FLAT.getFieldCount()];
        for (int c = 0; c < columns.length; c++) {
            RowData.FieldGetter getter = RowData.createFieldGetter(FLAT.getTypeAt(c), c);
            columns[c] =
                    new ValuesVector(rows.stream().map(getter::getFieldOrNull).toArray());
        }
        VectorizedColumnBatch batch = new VectorizedColumnBatch(columns);
        batch.setNumRows(rows.size());
        assertTransposedAsFlink(batch, null, rows.size(), rows, FLAT, new BinaryRows(), "value vectors");
        SplittableRandom random = new SplittableRandom(seed);
        assertTransposedAsFlink(
                batch,
                randomSelection(random, rows.size(), 99),
                99,
                rows,
                FLAT,
                new BinaryRows(),
                "value vectors, selected");

        // Fields written from their slots alone take the generated writers through the same interfaces.
        ColumnVector[] slotColumns = new ColumnVector[SLOTS.getFieldCount()];
        for (int c = 0; c < slotColumns.length; c++) {
            slotColumns[c] =
                    columns[FLAT.getFieldNames().indexOf(SLOTS.getFieldNames().get(c))];
        }
        VectorizedColumnBatch slotBatch = new VectorizedColumnBatch(slotColumns);
        slotBatch.setNumRows(rows.size());
        List<GenericRowData> slotRows = rows.stream()
                .map(r -> {
                    GenericRowData row = new GenericRowData(slotColumns.length);
                    for (int c = 0; c < slotColumns.length; c++) {
                        row.setField(
                                c,
                                r.getField(FLAT.getFieldNames()
                                        .indexOf(SLOTS.getFieldNames().get(c))));
                    }
                    return row;
                })
                .toList();
        BinaryRowTransposer transposer = new BinaryRowTransposer(SLOTS);
        BinaryRows into = new BinaryRows();
        transposer.transpose(slotBatch.columns, null, rows.size(), into);
        assertTransposed(slotBatch, null, rows.size(), slotRows, SLOTS, into, "value vectors of slot fields");
        assertEquals(1, transposer.generatedBatches(), "batches written by the generated writer");
    }

    @Test
    void onlyFlatTypesAreSupported() {
        assertTrue(BinaryRowTransposer.supports(FLAT));
        for (LogicalType nested : List.of(
                new ArrayType(new IntType()),
                new MapType(new IntType(), new IntType()),
                RowType.of(new IntType()),
                new NullType())) {
            RowType type = RowType.of(new IntType(), nested);
            assertFalse(BinaryRowTransposer.supports(type), type::toString);
            assertThrows(IllegalArgumentException.class, () -> new BinaryRowTransposer(type));
        }
    }

    /** Flink's internal values, one per row, answered through every typed vector interface. */
    private static final class ValuesVector
            implements BooleanColumnVector,
                    ByteColumnVector,
                    ShortColumnVector,
                    IntColumnVector,
                    LongColumnVector,
                    FloatColumnVector,
                    DoubleColumnVector,
                    DecimalColumnVector,
                    TimestampColumnVector,
                    BytesColumnVector {
        private final Object[] values;

        ValuesVector(Object[] values) {
            this.values = values;
        }

        @Override
        public boolean isNullAt(int i) {
            return values[i] == null;
        }

        @Override
        public boolean getBoolean(int i) {
            return (Boolean) values[i];
        }

        @Override
        public byte getByte(int i) {
            return (Byte) values[i];
        }

        @Override
        public short getShort(int i) {
            return (Short) values[i];
        }

        @Override
        public int getInt(int i) {
            return (Integer) values[i];
        }

        @Override
        public long getLong(int i) {
            return (Long) values[i];
        }

        @Override
        public float getFloat(int i) {
            return (Float) values[i];
        }

        @Override
        public double getDouble(int i) {
            return (Double) values[i];
        }

        @Override
        public DecimalData getDecimal(int i, int precision, int scale) {
            return (DecimalData) values[i];
        }

        @Override
        public TimestampData getTimestamp(int i, int precision) {
            return (TimestampData) values[i];
        }

        /** At an offset in a larger array, as Flink's heap vectors hand out bytes. */
        @Override
        public Bytes getBytes(int i) {
            byte[] bytes = values[i] instanceof StringData s ? s.toBytes() : (byte[]) values[i];
            byte[] padded = new byte[bytes.length + 5];
            System.arraycopy(bytes, 0, padded, 3, bytes.length);
            return new Bytes(padded, 3, bytes.length);
        }
    }
}
