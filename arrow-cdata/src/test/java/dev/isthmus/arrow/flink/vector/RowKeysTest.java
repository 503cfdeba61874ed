package dev.isthmus.arrow.flink.vector;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.isthmus.arrow.FlinkValues;
import dev.isthmus.arrow.LeakCheckExtension;
import dev.isthmus.arrow.NativeRoundTrip;
import dev.isthmus.arrow.memory.MemoryTracker;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.BinaryType;
import org.apache.flink.table.types.logical.BooleanType;
import org.apache.flink.table.types.logical.DateType;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.DoubleType;
import org.apache.flink.table.types.logical.FloatType;
import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.NullType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.SmallIntType;
import org.apache.flink.table.types.logical.TimeType;
import org.apache.flink.table.types.logical.TimestampType;
import org.apache.flink.table.types.logical.VarBinaryType;
import org.apache.flink.table.types.logical.VarCharType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Row keys must be equal exactly when the rows' values are: over random rows drawn from small
 * domains (so most keys repeat), every key maps to one row value and every row value to one key.
 */
@ExtendWith(LeakCheckExtension.class)
class RowKeysTest {
    private static final RowType KEYS = RowType.of(
            new LogicalType[] {
                new BigIntType(), new VarCharType(VarCharType.MAX_LENGTH), new DecimalType(20, 3), new DoubleType(),
                new TimestampType(6), new BinaryType(4), new VarBinaryType(VarBinaryType.MAX_LENGTH), new BooleanType(),
                new DateType(), new SmallIntType(), new NullType(),
            },
            new String[] {"id", "name", "amount", "score", "ts", "fixed", "bytes", "flag", "day", "small", "nothing"});

    private final MemoryTracker tracker = MemoryTracker.root().child("row-keys-test");

    @AfterEach
    void noLeaks() {
        assertEquals(0, tracker.liveArrays());
        tracker.close();
    }

    @Test
    void keysAreEqualExactlyWhenValuesAre() {
        List<RowData> rows = randomRows(new SplittableRandom(7), 3_000);
        try (ArrowColumnarBatch batch = NativeRoundTrip.batch(rows, KEYS, tracker)) {
            RowKeys keys = RowKeys.of(batch.batch().columns);
            Map<String, List<Object>> valueOfKey = new HashMap<>();
            Map<List<Object>, String> keyOfValue = new HashMap<>();
            for (int i = 0; i < rows.size(); i++) {
                String key = key(keys, i);
                List<Object> value = FlinkValues.row(rows.get(i), KEYS);
                List<Object> seen = valueOfKey.putIfAbsent(key, value);
                assertTrue(seen == null || seen.equals(value), "one key for " + seen + " and " + value);
                String known = keyOfValue.putIfAbsent(value, key);
                assertTrue(known == null || known.equals(key), "two keys for " + value);
            }
            assertTrue(valueOfKey.size() < rows.size() / 2, "the test needs repeated keys: " + valueOfKey.size());
            assertTrue(valueOfKey.size() > 100, "and distinct ones: " + valueOfKey.size());
        }
    }

    /** A column promoted by schema evolution keys as the wider one. */
    @Test
    void widerTypesGiveTheSameKeys() {
        RowType pairs = RowType.of(
                new LogicalType[] {
                    new IntType(), new BigIntType(), new FloatType(), new DoubleType(),
                },
                new String[] {"i", "l", "f", "d"});
        SplittableRandom random = new SplittableRandom(11);
        List<RowData> rows = new ArrayList<>();
        for (int i = 0; i < 500; i++) {
            int value = random.nextInt(100) == 0 ? Integer.MIN_VALUE : random.nextInt(-1000, 1000);
            float real = random.nextInt(50) == 0 ? Float.NaN : random.nextInt(50) == 0 ? -0.0f : value / 8f;
            boolean nulls = random.nextInt(10) == 0;
            rows.add(
                    nulls
                            ? GenericRowData.of(null, null, null, null)
                            : GenericRowData.of(value, (long) value, real, (double) real));
        }
        try (ArrowColumnarBatch batch = NativeRoundTrip.batch(rows, pairs, tracker)) {
            var columns = batch.batch().columns;
            for (int c = 0; c < columns.length; c += 2) {
                RowKeys narrow = RowKeys.of(columns[c]);
                RowKeys wide = RowKeys.of(columns[c + 1]);
                for (int i = 0; i < rows.size(); i++) {
                    assertEquals(
                            key(wide, i), key(narrow, i), pairs.getFieldNames().get(c) + " at row " + i);
                }
            }
        }
    }

    @Test
    void aSlicedBatchKeysItsOwnRows() {
        List<RowData> rows = randomRows(new SplittableRandom(3), 400);
        try (ArrowColumnarBatch whole = NativeRoundTrip.batch(rows, KEYS, tracker);
                ArrowColumnarBatch sliced = NativeRoundTrip.sliced(rows, KEYS, 123, 200, tracker)) {
            RowKeys all = RowKeys.of(whole.batch().columns);
            RowKeys slice = RowKeys.of(sliced.batch().columns);
            for (int i = 0; i < 200; i++) {
                assertEquals(key(all, 123 + i), key(slice, i), "row " + i);
            }
        }
    }

    /** Time is read as Flink's milliseconds, which would merge keys a microsecond apart. */
    @Test
    void timeColumnsAreRefused() {
        RowType type = RowType.of(new LogicalType[] {new TimeType(6)}, new String[] {"t"});
        try (ArrowColumnarBatch batch = NativeRoundTrip.batch(List.of(GenericRowData.of(1)), type, tracker)) {
            IllegalArgumentException e =
                    assertThrows(IllegalArgumentException.class, () -> RowKeys.of(batch.batch().columns));
            assertTrue(e.getMessage().contains("Key column 0"), e.getMessage());
        }
    }

    /** Row {@code row}'s key as hex: encoded first, since encoding may replace the array. */
    private static String key(RowKeys keys, int row) {
        int length = keys.encode(row);
        return HexFormat.of().formatHex(keys.bytes(), 0, length);
    }

    /** Rows of 300 kinds at most, each drawn from its own seed, so that equal rows repeat. */
    private static List<RowData> randomRows(SplittableRandom seeds, int count) {
        String[] names = {"", "a", "ab", "héllo", "日本", "a\u0000b"};
        List<RowData> rows = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            SplittableRandom random = new SplittableRandom(seeds.nextInt(300));
            GenericRowData row = new GenericRowData(KEYS.getFieldCount());
            row.setField(0, nullOr(random, (long) random.nextInt(-3, 3) << 40));
            row.setField(1, nullOr(random, StringData.fromString(names[random.nextInt(names.length)])));
            row.setField(
                    2,
                    nullOr(
                            random,
                            DecimalData.fromBigDecimal(
                                    BigDecimal.valueOf(random.nextLong(-2, 2) * 1_000_000_000_000_000L, 3), 20, 3)));
            double[] doubles = {0.0, -0.0, Double.NaN, 1.5, Double.NEGATIVE_INFINITY};
            row.setField(3, nullOr(random, doubles[random.nextInt(doubles.length)]));
            row.setField(
                    4, nullOr(random, TimestampData.fromEpochMillis(random.nextInt(-1, 2), random.nextInt(2) * 1000)));
            row.setField(5, nullOr(random, new byte[] {0, 0, 0, (byte) random.nextInt(2)}));
            byte[] bytes = new byte[random.nextInt(3)];
            Arrays.fill(bytes, (byte) 7);
            row.setField(6, nullOr(random, bytes));
            row.setField(7, nullOr(random, random.nextBoolean()));
            row.setField(8, nullOr(random, random.nextInt(-1, 1)));
            row.setField(9, nullOr(random, (short) random.nextInt(2)));
            rows.add(row);
        }
        return rows;
    }

    private static Object nullOr(SplittableRandom random, Object value) {
        return random.nextInt(8) == 0 ? null : value;
    }
}
