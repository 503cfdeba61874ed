package dev.isthmus.iceberg.sink.write;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.UUID;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.SmallIntType;
import org.apache.flink.table.types.logical.TinyIntType;
import org.apache.iceberg.Schema;
import org.apache.iceberg.flink.FlinkSchemaUtil;
import org.apache.iceberg.flink.RowDataWrapper;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.UUIDUtil;
import org.junit.jupiter.api.Test;

class RowDataStructTest {
    private static final int ID = 16;
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
            Types.NestedField.optional(14, "dec", Types.DecimalType.of(20, 4)),
            Types.NestedField.optional(15, "tiny", Types.IntegerType.get()),
            Types.NestedField.optional(16, "small", Types.IntegerType.get()),
            Types.NestedField.required(17, "id", Types.LongType.get()));

    private static Object value(SplittableRandom random, int field) {
        if (field != ID && random.nextInt(8) == 0) {
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
            case 13 -> DecimalData.fromBigDecimal(BigDecimal.valueOf(random.nextLong(), 4), 20, 4);
            case 14 -> (byte) random.nextInt();
            case 15 -> (short) random.nextInt();
            default -> random.nextLong();
        };
    }

    /**
     * The sink's input type: narrow integers (TINYINT and SMALLINT for int columns, which Iceberg's
     * wrapper widens) and a NOT NULL column, as a table sink sees them.
     */
    private static RowType inputType() {
        RowType table = FlinkSchemaUtil.convert(SCHEMA);
        List<RowType.RowField> fields = new ArrayList<>(table.getFields());
        fields.set(14, new RowType.RowField("tiny", new TinyIntType()));
        fields.set(15, new RowType.RowField("small", new SmallIntType()));
        return new RowType(fields);
    }

    @Test
    void everyTypeReadsAsIcebergsWrapperReadsIt() {
        RowType flinkType = inputType();
        RowDataWrapper iceberg = new RowDataWrapper(flinkType, SCHEMA.asStruct());
        RowDataStruct struct = new RowDataStruct(flinkType, SCHEMA.asStruct());
        RowDataSerializer serializer = new RowDataSerializer(flinkType);
        SplittableRandom random = new SplittableRandom(11);
        for (int r = 0; r < 2_000; r++) {
            Object[] values = new Object[SCHEMA.columns().size()];
            for (int f = 0; f < values.length; f++) {
                values[f] = value(random, f);
            }
            GenericRowData generic = GenericRowData.of(values);
            for (RowData row : List.of(generic, serializer.toBinaryRow(generic))) {
                iceberg.wrap(row);
                struct.wrap(row);
                assertEquals(iceberg.size(), struct.size());
                for (int f = 0; f < values.length; f++) {
                    assertEquals(
                            iceberg.get(f, Object.class),
                            struct.get(f, Object.class),
                            "field " + SCHEMA.columns().get(f).name() + " of row " + r + " ("
                                    + row.getClass().getSimpleName() + ")");
                }
            }
        }
    }
}
