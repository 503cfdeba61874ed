package dev.isthmus.iceberg.sink.parquet;

import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.GenericArrayData;
import org.apache.flink.table.data.GenericMapData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * Iceberg records as the Flink rows a sink receives (structs as rows, lists as arrays, maps as
 * maps), in the representation Iceberg's Flink
 * connector uses (TIME in milliseconds, so sub-millisecond digits are dropped as Flink drops them).
 */
final class FlinkRows {
    private FlinkRows() {}

    static List<RowData> of(Schema schema, List<Record> records) {
        List<RowData> rows = new ArrayList<>(records.size());
        for (Record record : records) {
            GenericRowData row = new GenericRowData(schema.columns().size());
            for (int i = 0; i < schema.columns().size(); i++) {
                row.setField(i, value(schema.columns().get(i).type(), record.get(i)));
            }
            rows.add(row);
        }
        return rows;
    }

    /** Only the flat columns of {@code schema}, the ones {@link ParquetJava#read} compares. */
    static Schema flat(Schema schema) {
        return new Schema(schema.columns().stream()
                .filter(f -> f.type().isPrimitiveType())
                .toList());
    }

    static Object value(Type type, Object value) {
        if (value == null) {
            return null;
        }
        return switch (type.typeId()) {
            case STRUCT -> {
                List<Types.NestedField> fields = type.asStructType().fields();
                Record record = (Record) value;
                GenericRowData row = new GenericRowData(fields.size());
                for (int i = 0; i < fields.size(); i++) {
                    row.setField(i, value(fields.get(i).type(), record.get(i)));
                }
                yield row;
            }
            case LIST ->
                new GenericArrayData(((List<?>) value)
                        .stream()
                                .map(element -> value(type.asListType().elementType(), element))
                                .toArray());
            case MAP -> {
                Map<Object, Object> entries = new LinkedHashMap<>();
                ((Map<?, ?>) value)
                        .forEach((k, v) -> entries.put(
                                value(type.asMapType().keyType(), k),
                                value(type.asMapType().valueType(), v)));
                yield new GenericMapData(entries);
            }
            case DECIMAL ->
                DecimalData.fromBigDecimal(
                        (BigDecimal) value, ((Types.DecimalType) type).precision(), ((Types.DecimalType) type).scale());
            case DATE -> (int) ((LocalDate) value).toEpochDay();
            case TIME -> (int) (((LocalTime) value).toNanoOfDay() / 1_000_000);
            case TIMESTAMP, TIMESTAMP_NANO ->
                value instanceof OffsetDateTime t
                        ? TimestampData.fromInstant(t.toInstant())
                        : TimestampData.fromLocalDateTime((LocalDateTime) value);
            case STRING -> StringData.fromString(value.toString());
            case UUID -> {
                UUID uuid = (UUID) value;
                yield ByteBuffer.allocate(16)
                        .putLong(uuid.getMostSignificantBits())
                        .putLong(uuid.getLeastSignificantBits())
                        .array();
            }
            case BINARY -> {
                ByteBuffer buffer = ((ByteBuffer) value).duplicate();
                byte[] bytes = new byte[buffer.remaining()];
                buffer.get(bytes);
                yield bytes;
            }
            default -> value; // boolean, int, long, float, double, fixed (byte[])
        };
    }
}
