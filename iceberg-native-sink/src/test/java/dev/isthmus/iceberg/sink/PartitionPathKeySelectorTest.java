package dev.isthmus.iceberg.sink;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.math.BigDecimal;
import java.util.SplittableRandom;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.util.InstantiationUtil;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.flink.FlinkSchemaUtil;
import org.apache.iceberg.flink.sink.PartitionKeySelector;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

class PartitionPathKeySelectorTest {
    private static final Schema SCHEMA = new Schema(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.optional(2, "name", Types.StringType.get()),
            Types.NestedField.optional(3, "ts", Types.TimestampType.withoutZone()),
            Types.NestedField.optional(4, "price", Types.DecimalType.of(9, 2)),
            Types.NestedField.optional(5, "qty", Types.IntegerType.get()),
            Types.NestedField.optional(6, "day", Types.DateType.get()),
            Types.NestedField.optional(7, "flag", Types.BooleanType.get()));
    private static final RowType FLINK_TYPE = FlinkSchemaUtil.convert(SCHEMA);
    /** Names that the path must escape, and nulls. */
    private static final String[] NAMES = {"plain", "a b", "x/y=z", "é€", "%20", "", null};

    /** Few distinct partitions, so that most rows are served from the paths kept. */
    private static RowData row(SplittableRandom random, long id) {
        String name = NAMES[random.nextInt(NAMES.length)];
        return GenericRowData.of(
                id,
                name == null ? null : StringData.fromString(name),
                random.nextInt(10) == 0
                        ? null
                        : TimestampData.fromEpochMillis(random.nextInt(-3, 3) * 86_400_000L + random.nextInt(1000)),
                DecimalData.fromBigDecimal(BigDecimal.valueOf(random.nextInt(-300, 300), 2), 9, 2),
                random.nextInt(10) == 0 ? null : random.nextInt(-50, 50),
                random.nextInt(10) == 0 ? null : random.nextInt(-2, 2),
                random.nextInt(10) == 0 ? null : random.nextBoolean());
    }

    @Test
    void keysAreIcebergsForEveryTransform() throws Exception {
        PartitionSpec spec = PartitionSpec.builderFor(SCHEMA)
                .bucket("id", 4)
                .identity("name")
                .day("ts")
                .truncate("price", 100)
                .bucket("qty", 3)
                .identity("day")
                .identity("flag")
                .build();
        PartitionKeySelector iceberg = new PartitionKeySelector(spec, SCHEMA, FLINK_TYPE);
        // As Flink ships it to the tasks.
        PartitionPathKeySelector cached = InstantiationUtil.clone(
                new PartitionPathKeySelector(spec, SCHEMA, FLINK_TYPE),
                getClass().getClassLoader());
        SplittableRandom random = new SplittableRandom(42);
        for (int i = 0; i < 20_000; i++) {
            RowData row = row(random, random.nextLong());
            assertEquals(iceberg.getKey(row), cached.getKey(row), "row " + i + ": " + row);
        }
    }

    @Test
    void keysStayIcebergsPastTheCachedPaths() throws Exception {
        PartitionSpec spec = PartitionSpec.builderFor(SCHEMA).identity("id").build();
        PartitionKeySelector iceberg = new PartitionKeySelector(spec, SCHEMA, FLINK_TYPE);
        PartitionPathKeySelector cached = new PartitionPathKeySelector(spec, SCHEMA, FLINK_TYPE);
        SplittableRandom random = new SplittableRandom(7);
        for (int i = 0; i < 3 * PartitionPathKeySelector.MAX_PATHS; i++) {
            // Each partition twice, the second time after others: served from the paths kept.
            long id = i / 2 + (i % 2 == 0 ? 0 : -7);
            RowData row = row(random, id);
            assertEquals(iceberg.getKey(row), cached.getKey(row), "row " + i);
        }
    }
}
