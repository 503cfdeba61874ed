package dev.isthmus.iceberg.source.parquet;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.UUID;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * Deterministic random Iceberg records for any schema: nulls only where the schema allows them,
 * and edge values (extremes, NaN, -0.0, empty and non-ASCII strings) often enough that every
 * file exercises them.
 */
public final class RandomRecords {
    /** One column of every Iceberg primitive type, optional, plus required ones and nesting. */
    public static final Schema EVERY_TYPE = new Schema(
            Types.NestedField.optional(1, "bool", Types.BooleanType.get()),
            Types.NestedField.optional(2, "i32", Types.IntegerType.get()),
            Types.NestedField.required(3, "i64", Types.LongType.get()),
            Types.NestedField.optional(4, "f32", Types.FloatType.get()),
            Types.NestedField.optional(5, "f64", Types.DoubleType.get()),
            Types.NestedField.optional(6, "dec9", Types.DecimalType.of(9, 2)),
            Types.NestedField.optional(7, "dec18", Types.DecimalType.of(18, 6)),
            Types.NestedField.optional(8, "dec38", Types.DecimalType.of(38, 10)),
            Types.NestedField.optional(9, "date", Types.DateType.get()),
            Types.NestedField.optional(10, "time", Types.TimeType.get()),
            Types.NestedField.optional(11, "ts", Types.TimestampType.withoutZone()),
            Types.NestedField.optional(12, "tstz", Types.TimestampType.withZone()),
            Types.NestedField.optional(13, "ts_ns", Types.TimestampNanoType.withoutZone()),
            Types.NestedField.optional(14, "tstz_ns", Types.TimestampNanoType.withZone()),
            Types.NestedField.optional(15, "str", Types.StringType.get()),
            Types.NestedField.required(16, "str_req", Types.StringType.get()),
            Types.NestedField.optional(17, "uuid", Types.UUIDType.get()),
            Types.NestedField.optional(18, "fixed", Types.FixedType.ofLength(7)),
            Types.NestedField.optional(19, "bin", Types.BinaryType.get()));

    private static final Type[] PRIMITIVES = {
        Types.BooleanType.get(),
        Types.IntegerType.get(),
        Types.LongType.get(),
        Types.FloatType.get(),
        Types.DoubleType.get(),
        Types.DecimalType.of(9, 3),
        Types.DecimalType.of(18, 0),
        Types.DecimalType.of(38, 20),
        Types.DateType.get(),
        Types.TimeType.get(),
        Types.TimestampType.withoutZone(),
        Types.TimestampType.withZone(),
        Types.TimestampNanoType.withoutZone(),
        Types.StringType.get(),
        Types.UUIDType.get(),
        Types.FixedType.ofLength(3),
        Types.BinaryType.get()
    };

    /** A random schema of 1 to 12 columns: primitives, and structs, lists and maps up to two deep. */
    public static Schema randomSchema(long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        int[] nextId = {1};
        List<Types.NestedField> columns = new ArrayList<>();
        int n = 1 + random.nextInt(12);
        for (int i = 0; i < n; i++) {
            columns.add(randomField(random, "c" + i, nextId, 0));
        }
        return new Schema(columns);
    }

    private static Types.NestedField randomField(SplittableRandom random, String name, int[] nextId, int depth) {
        int id = nextId[0]++;
        return random.nextBoolean()
                ? Types.NestedField.optional(id, name, randomType(random, nextId, depth))
                : Types.NestedField.required(id, name, randomType(random, nextId, depth));
    }

    private static Type randomType(SplittableRandom random, int[] nextId, int depth) {
        int choice = depth >= 2 ? 0 : random.nextInt(8);
        return switch (choice) {
            case 5 -> {
                List<Types.NestedField> fields = new ArrayList<>();
                int n = 1 + random.nextInt(3);
                for (int i = 0; i < n; i++) {
                    fields.add(randomField(random, "f" + i, nextId, depth + 1));
                }
                yield Types.StructType.of(fields);
            }
            case 6 -> {
                int element = nextId[0]++;
                Type type = randomType(random, nextId, depth + 1);
                yield random.nextBoolean()
                        ? Types.ListType.ofOptional(element, type)
                        : Types.ListType.ofRequired(element, type);
            }
            case 7 -> {
                int key = nextId[0]++;
                int value = nextId[0]++;
                Type keyType = random.nextBoolean() ? Types.StringType.get() : Types.IntegerType.get();
                Type valueType = randomType(random, nextId, depth + 1);
                yield random.nextBoolean()
                        ? Types.MapType.ofOptional(key, value, keyType, valueType)
                        : Types.MapType.ofRequired(key, value, keyType, valueType);
            }
            default -> PRIMITIVES[random.nextInt(PRIMITIVES.length)];
        };
    }

    private static final String[] TEXT = {
        "", "a", "héllo", "日本語テキスト", "😀", "Google", "Facebook", "Baidu", "https://www.nexmark.com/item.htm?query=1"
    };

    private final SplittableRandom random;
    private final double nullChance;

    public RandomRecords(long seed, double nullChance) {
        this.random = new SplittableRandom(seed);
        this.nullChance = nullChance;
    }

    public List<Record> records(Schema schema, int count) {
        List<Record> records = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            records.add(record(schema.asStruct()));
        }
        return records;
    }

    private Record record(Types.StructType struct) {
        GenericRecord record = GenericRecord.create(struct);
        List<Types.NestedField> fields = struct.fields();
        for (int i = 0; i < fields.size(); i++) {
            Types.NestedField field = fields.get(i);
            record.set(i, field.isOptional() && random.nextDouble() < nullChance ? null : value(field.type()));
        }
        return record;
    }

    private boolean edge() {
        return random.nextInt(16) == 0;
    }

    public Object value(Type type) {
        return switch (type) {
            case Types.StructType struct -> record(struct);
            case Types.ListType list -> {
                List<Object> values = new ArrayList<>();
                int n = random.nextInt(4);
                for (int i = 0; i < n; i++) {
                    values.add(
                            list.isElementOptional() && random.nextDouble() < nullChance
                                    ? null
                                    : value(list.elementType()));
                }
                yield values;
            }
            case Types.MapType map -> {
                Map<Object, Object> values = new LinkedHashMap<>();
                int n = random.nextInt(4);
                for (int i = 0; i < n; i++) {
                    values.put(
                            value(map.keyType()),
                            map.isValueOptional() && random.nextDouble() < nullChance ? null : value(map.valueType()));
                }
                yield values;
            }
            default -> primitive(type);
        };
    }

    private Object primitive(Type type) {
        return switch (type.typeId()) {
            case BOOLEAN -> random.nextBoolean();
            case INTEGER -> edge() ? pick(Integer.MIN_VALUE, Integer.MAX_VALUE, 0, -1) : random.nextInt(-1000, 1000);
            case LONG ->
                edge() ? pick(Long.MIN_VALUE, Long.MAX_VALUE, 0L, -1L) : random.nextLong(-1_000_000, 1_000_000);
            case FLOAT ->
                edge()
                        ? pick(Float.NaN, -0.0f, Float.MAX_VALUE, Float.NEGATIVE_INFINITY, Float.MIN_VALUE)
                        : (float) random.nextDouble(-1e6, 1e6);
            case DOUBLE ->
                edge()
                        ? pick(Double.NaN, -0.0, Double.MAX_VALUE, Double.POSITIVE_INFINITY, Double.MIN_VALUE)
                        : random.nextDouble(-1e9, 1e9);
            case DECIMAL -> decimal((Types.DecimalType) type);
            case DATE ->
                LocalDate.ofEpochDay(edge() ? pick(-719_162L, 2_932_896L, 0L) : random.nextLong(-30_000, 30_000));
            case TIME -> LocalTime.ofNanoOfDay(random.nextLong(86_400_000_000L) * 1_000);
            case TIMESTAMP -> {
                LocalDateTime t = LocalDateTime.ofEpochSecond(
                        random.nextLong(-2_000_000_000L, 4_000_000_000L),
                        random.nextInt(1_000_000) * 1_000,
                        ZoneOffset.UTC);
                yield ((Types.TimestampType) type).shouldAdjustToUTC() ? t.atOffset(ZoneOffset.UTC) : t;
            }
            case TIMESTAMP_NANO -> {
                LocalDateTime t = LocalDateTime.ofEpochSecond(
                        random.nextLong(-2_000_000_000L, 4_000_000_000L),
                        random.nextInt(1_000_000_000),
                        ZoneOffset.UTC);
                yield ((Types.TimestampNanoType) type).shouldAdjustToUTC() ? (Object) t.atOffset(ZoneOffset.UTC) : t;
            }
            case STRING ->
                random.nextInt(4) == 0
                        ? TEXT[random.nextInt(TEXT.length)] + random.nextInt(100)
                        : TEXT[random.nextInt(TEXT.length)];
            case UUID -> new UUID(random.nextLong(), random.nextLong());
            case FIXED -> bytes(((Types.FixedType) type).length());
            case BINARY -> ByteBuffer.wrap(bytes(random.nextInt(12)));
            default -> throw new IllegalArgumentException("no random values for " + type);
        };
    }

    private BigDecimal decimal(Types.DecimalType type) {
        int digits = edge() ? type.precision() : 1 + random.nextInt(type.precision());
        BigInteger unscaled = BigInteger.TEN.pow(digits).subtract(BigInteger.ONE);
        if (!edge()) {
            unscaled = new BigInteger(unscaled.bitLength(), new java.util.Random(random.nextLong()))
                    .mod(unscaled.max(BigInteger.ONE));
        }
        return new BigDecimal(random.nextBoolean() ? unscaled.negate() : unscaled, type.scale());
    }

    private byte[] bytes(int n) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) random.nextInt(256);
        }
        return b;
    }

    @SafeVarargs
    private <T> T pick(T... choices) {
        return choices[random.nextInt(choices.length)];
    }
}
