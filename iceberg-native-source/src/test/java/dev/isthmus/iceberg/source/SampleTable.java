package dev.isthmus.iceberg.source;

import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Types;

/**
 * A table shape for source tests: ids in write order (so row groups have disjoint id ranges and
 * statistics can prune them), a low-cardinality category and day to partition by, timestamps
 * within a few days, and values with nulls and NaN.
 */
final class SampleTable {
    static final Schema SCHEMA = new Schema(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.optional(2, "category", Types.StringType.get()),
            Types.NestedField.optional(3, "ts", Types.TimestampType.withoutZone()),
            Types.NestedField.optional(4, "amount", Types.DecimalType.of(10, 2)),
            Types.NestedField.optional(5, "score", Types.DoubleType.get()),
            Types.NestedField.optional(6, "day", Types.DateType.get()),
            Types.NestedField.optional(7, "payload", Types.BinaryType.get()));

    private static final String[] CATEGORIES = {"a", "b", "c", "dé", null};
    private static final LocalDateTime BASE = LocalDateTime.of(2026, 11, 27, 22, 0);

    private SampleTable() {}

    /** Rows {@code first} to {@code first + count - 1}. */
    static List<Record> records(long first, int count) {
        SplittableRandom random = new SplittableRandom(first);
        List<Record> records = new ArrayList<>(count);
        for (long id = first; id < first + count; id++) {
            GenericRecord r = GenericRecord.create(SCHEMA);
            r.set(0, id);
            r.set(1, CATEGORIES[(int) (id % CATEGORIES.length)]);
            r.set(2, random.nextInt(10) == 0 ? null : BASE.plusSeconds(id * 37));
            r.set(3, random.nextInt(10) == 0 ? null : BigDecimal.valueOf(random.nextLong(-10_000_000, 10_000_000), 2));
            int kind = random.nextInt(50);
            r.set(4, kind == 0 ? (Double) Double.NaN : kind < 5 ? null : (Double) random.nextDouble(-1e3, 1e3));
            r.set(5, LocalDate.of(2026, 11, 27).plusDays(id % 3));
            byte[] bytes = new byte[random.nextInt(6)];
            random.nextBytes(bytes);
            r.set(6, random.nextInt(10) == 0 ? null : ByteBuffer.wrap(bytes));
            records.add(r);
        }
        return records;
    }
}
