package dev.isthmus.arrow;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.GenericArrayData;
import org.apache.flink.table.data.GenericMapData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.data.utils.JoinedRowData;
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

/**
 * Deterministic random Flink rows of any {@link RowType} (nulls in nullable places only, edge
 * values now and then), and the same rows as the other {@link RowData} implementations.
 */
public final class RandomRows {
    /** Every type the builders handle, nullable and NOT NULL, flat and nested. */
    public static final RowType EVERY_TYPE = RowType.of(
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
                new DecimalType(38, 10),
                new DateType(),
                new TimeType(),
                new TimestampType(3),
                new TimestampType(false, 6),
                new TimestampType(9),
                new LocalZonedTimestampType(6),
                new LocalZonedTimestampType(9),
                new VarCharType(VarCharType.MAX_LENGTH),
                new VarCharType(false, VarCharType.MAX_LENGTH),
                new CharType(3),
                new VarBinaryType(VarBinaryType.MAX_LENGTH),
                new BinaryType(16),
                new NullType(),
                RowType.of(
                        new LogicalType[] {new IntType(false), new VarCharType(VarCharType.MAX_LENGTH)},
                        new String[] {"a", "b"}),
                new ArrayType(new BigIntType()),
                new ArrayType(
                        false,
                        RowType.of(
                                new LogicalType[] {new DoubleType(), new ArrayType(new VarCharType(10))},
                                new String[] {"x", "ys"})),
                new MapType(new VarCharType(false, VarCharType.MAX_LENGTH), new IntType()),
                new MapType(new IntType(false), new MapType(new VarCharType(false, 5), new DecimalType(5, 2))),
            },
            new String[] {
                "bool",
                "i8",
                "i16",
                "i32",
                "i64",
                "f32",
                "f64",
                "dec9",
                "dec18",
                "dec38",
                "date",
                "time",
                "ts3",
                "ts6",
                "ts9",
                "ltz6",
                "ltz9",
                "str",
                "str_nn",
                "chr",
                "bin",
                "fixed16",
                "nothing",
                "point",
                "longs",
                "pairs",
                "attrs",
                "nested_map"
            });

    /** {@link #EVERY_TYPE} but NULL, which Flink's binary rows cannot hold (it has no serializer). */
    public static final RowType EVERY_BINARY_ROW_TYPE = new RowType(EVERY_TYPE.getFields().stream()
            .filter(field -> !(field.getType() instanceof NullType))
            .toList());

    private static final String[] SAMPLE_TEXT = {"", "a", "héllo", "日本語", "😀 emoji", "tab\tnew\nline", "zzz"};

    private final SplittableRandom random;
    private final double nullChance;

    public RandomRows(long seed, double nullChance) {
        this.random = new SplittableRandom(seed);
        this.nullChance = nullChance;
    }

    public List<GenericRowData> rows(RowType type, int count) {
        List<GenericRowData> rows = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            rows.add(row(type));
        }
        return rows;
    }

    public GenericRowData row(RowType type) {
        GenericRowData row = new GenericRowData(type.getFieldCount());
        for (int i = 0; i < type.getFieldCount(); i++) {
            row.setField(i, value(type.getTypeAt(i)));
        }
        return row;
    }

    public Object value(LogicalType type) {
        if (type instanceof NullType || (type.isNullable() && random.nextDouble() < nullChance)) {
            return null;
        }
        return switch (type) {
            case BooleanType t -> random.nextBoolean();
            case TinyIntType t -> (byte) random.nextInt();
            case SmallIntType t -> (short) random.nextInt();
            case IntType t -> edge() ? pick(Integer.MIN_VALUE, Integer.MAX_VALUE, 0) : random.nextInt();
            case BigIntType t -> edge() ? pick(Long.MIN_VALUE, Long.MAX_VALUE, 0L) : random.nextLong();
            case FloatType t ->
                edge() ? pick(Float.NaN, -0.0f, Float.NEGATIVE_INFINITY) : (float) random.nextGaussian();
            case DoubleType t ->
                edge() ? pick(Double.NaN, -0.0, Double.POSITIVE_INFINITY) : random.nextGaussian() * 1e6;
            case DecimalType t -> decimal(t.getPrecision(), t.getScale());
            case DateType t -> random.nextInt(-100_000, 100_000);
            case TimeType t -> random.nextInt(0, 86_400_000);
            case TimestampType t -> timestamp(t.getPrecision());
            case LocalZonedTimestampType t -> timestamp(t.getPrecision());
            case VarCharType t -> StringData.fromString(text(t.getLength()));
            case CharType t -> StringData.fromString(text(t.getLength()));
            case VarBinaryType t -> bytes(random.nextInt(0, 24));
            case BinaryType t -> bytes(t.getLength());
            case RowType t -> row(t);
            case ArrayType t -> {
                Object[] elements = new Object[random.nextInt(0, 5)];
                for (int i = 0; i < elements.length; i++) {
                    elements[i] = value(t.getElementType());
                }
                yield new GenericArrayData(elements);
            }
            case MapType t -> {
                Map<Object, Object> entries = new LinkedHashMap<>();
                int size = random.nextInt(0, 4);
                for (int i = 0; i < size; i++) {
                    entries.put(value(t.getKeyType()), value(t.getValueType()));
                }
                yield new GenericMapData(entries);
            }
            default -> throw new UnsupportedOperationException("no random values of " + type);
        };
    }

    private boolean edge() {
        return random.nextInt(8) == 0;
    }

    @SafeVarargs
    private <T> T pick(T... choices) {
        return choices[random.nextInt(choices.length)];
    }

    private DecimalData decimal(int precision, int scale) {
        BigInteger unscaled = new BigInteger(128, new java.util.Random(random.nextLong()))
                .mod(BigInteger.TEN.pow(random.nextInt(1, precision + 1)));
        if (random.nextBoolean()) {
            unscaled = unscaled.negate();
        }
        return DecimalData.fromBigDecimal(new BigDecimal(unscaled, scale), precision, scale);
    }

    /** Within the years nanoseconds reach (1677 to 2262), with sub-milli digits only where the precision keeps them. */
    private TimestampData timestamp(int precision) {
        long millis = random.nextLong(-6_000_000_000_000L, 6_000_000_000_000L);
        int nanos = precision <= 3 ? 0 : precision <= 6 ? random.nextInt(1000) * 1000 : random.nextInt(1_000_000);
        return TimestampData.fromEpochMillis(millis, nanos);
    }

    private String text(int maxCodePoints) {
        String sample = SAMPLE_TEXT[random.nextInt(SAMPLE_TEXT.length)];
        return sample.codePointCount(0, sample.length()) <= maxCodePoints
                ? sample
                : "x".repeat(Math.min(3, maxCodePoints));
    }

    private byte[] bytes(int length) {
        byte[] bytes = new byte[length];
        random.nextBytes(bytes);
        return bytes;
    }

    /** The same rows as {@code BinaryRowData}, nested rows, arrays and maps binary too. */
    public static List<RowData> binary(List<? extends RowData> rows, RowType type) {
        RowDataSerializer serializer = new RowDataSerializer(type);
        List<RowData> binary = new ArrayList<>(rows.size());
        for (RowData row : rows) {
            binary.add(serializer.toBinaryRow(row).copy());
        }
        return binary;
    }

    /** The same rows as {@code JoinedRowData} of their first {@code split} fields and the rest. */
    public static List<RowData> joined(List<GenericRowData> rows, int split) {
        List<RowData> joined = new ArrayList<>(rows.size());
        for (GenericRowData row : rows) {
            GenericRowData left = new GenericRowData(split);
            GenericRowData right = new GenericRowData(row.getArity() - split);
            for (int i = 0; i < row.getArity(); i++) {
                if (i < split) {
                    left.setField(i, row.getField(i));
                } else {
                    right.setField(i - split, row.getField(i));
                }
            }
            joined.add(new JoinedRowData(left, right));
        }
        return joined;
    }
}
