package dev.isthmus.iceberg.sink.write;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.math.BigDecimal;
import java.util.SplittableRandom;
import java.util.UUID;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.types.logical.RowType;
import org.apache.iceberg.Schema;
import org.apache.iceberg.flink.FlinkSchemaUtil;
import org.apache.iceberg.flink.RowDataWrapper;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.UUIDUtil;
import org.junit.jupiter.api.Test;

class RowDataStructTest {
    private static final Schema SCHEMA = new Schema(
            Types.NestedField.optional(1, "b", Types.BooleanType.get()),
            Types.NestedField.optional(2, "i", Types.IntegerType.get()),
            Types.NestedField.optional(3, "l", Types.LongType.get()),
            Types.NestedField.optional(4, "f", Types.FloatType.get()),
            Types.NestedField.optional(5, "d", Types.DoubleType.get()),
            Types.NestedField.optional(6, "date", Types.DateType.get()),
            Types.NestedField.optional(7, "time", Types.TimeType.get()),
            Types.NestedField.optional(8, "ts", Types.TimestampType.withoutZone()),
            Types.NestedField.optional(9, "tstz", Types.TimestampType.withZone()),
            Types.NestedField.optional(10, "s", Types.StringType.get()),
            Types.NestedField.optional(11, "bin", Types.BinaryType.get()),
            Types.NestedField.optional(12, "fixed", Types.FixedType.ofLength(3)),
            Types.NestedField.optional(13, "uuid", Types.UUIDType.get()),
            Types.NestedField.optional(14, "dec", Types.DecimalType.of(20, 4)));

    private static Object value(SplittableRandom random, int field) {
        if (random.nextInt(8) == 0) {
            return null;
        }
        return switch (field) {
            case 0 -> random.nextBoolean();
            case 1 -> random.nextInt();
            case 2 -> random.nextLong();
            case 3 -> (float) random.nextDouble(-1e6, 1e6);
            case 4 -> random.nextDouble(-1e12, 1e12);
            case 5 -> random.nextInt(-100_000, 100_000);
            case 6 -> random.nextInt(86_400_000);
            case 7, 8 -> TimestampData.fromEpochMillis(random.nextLong(-1L << 40, 1L << 42), random.nextInt(1_000_000));
            case 9 -> StringData.fromString("s" + random.nextInt(1000));
            case 10 -> new byte[] {(byte) random.nextInt(), 2};
            case 11 -> new byte[] {(byte) random.nextInt(), 2, 3};
            case 12 -> UUIDUtil.convert(new UUID(random.nextLong(), random.nextLong()));
            default -> DecimalData.fromBigDecimal(BigDecimal.valueOf(random.nextLong(), 4), 20, 4);
        };
    }

    @Test
    void everyTypeReadsAsIcebergsWrapperReadsIt() {
        RowType flinkType = FlinkSchemaUtil.convert(SCHEMA);
        RowDataWrapper iceberg = new RowDataWrapper(flinkType, SCHEMA.asStruct());
        RowDataStruct struct = new RowDataStruct(flinkType, SCHEMA.asStruct());
        SplittableRandom random = new SplittableRandom(11);
        for (int r = 0; r < 2_000; r++) {
            Object[] values = new Object[SCHEMA.columns().size()];
            for (int f = 0; f < values.length; f++) {
                values[f] = value(random, f);
            }
            RowData row = GenericRowData.of(values);
            iceberg.wrap(row);
            struct.wrap(row);
            assertEquals(iceberg.size(), struct.size());
            for (int f = 0; f < values.length; f++) {
                assertEquals(
                        iceberg.get(f, Object.class),
                        struct.get(f, Object.class),
                        "field " + SCHEMA.columns().get(f).name() + " of row " + r);
            }
        }
    }
}
