package dev.isthmus.iceberg.sink.parquet;

import dev.isthmus.ffm.NativeCall;
import dev.isthmus.ffm.gen.isthmus_h;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.Metrics;
import org.apache.iceberg.MetricsConfig;
import org.apache.iceberg.MetricsModes;
import org.apache.iceberg.MetricsUtil;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Conversions;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.TypeUtil;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.BinaryUtil;
import org.apache.iceberg.util.UnicodeUtil;

/**
 * What a closed native writer reports, copied out of its {@code isthmus_write_result} (which is
 * freed right after): the file's size and split offsets, and Iceberg {@link Metrics} built by the
 * rules of Iceberg's own Parquet writer ({@code ParquetMetrics}): a column in mode {@code none}
 * has no entry at all (not even its size); {@code counts} keeps value, null and NaN counts;
 * {@code truncate(N)} and {@code full} add bounds, strings and binaries truncated to N (an upper
 * bound that cannot be truncated is dropped), other types whole. NaN counts exist for floats
 * and doubles only, and their bounds leave NaN out (the library already does). A column whose
 * Parquet statistics are disabled keeps only its size unless it is a float or double. A leaf
 * inside a list or a map keeps only its size too, as Iceberg's metrics visitor collects nothing
 * below them; leaves inside structs only are treated as top-level columns.
 */
record WrittenFile(long fileSize, List<Long> splitOffsets, Metrics metrics) {
    private static final String STATS_ENABLED_PREFIX = "write.parquet.stats-enabled.column.";

    /** A writer closed without rows writes no file, as Iceberg's, whose metrics for it these are. */
    static final WrittenFile EMPTY = new WrittenFile(0, null, new Metrics(0L, null, null, null, null));

    @SuppressWarnings("restricted") // offsets and bounds are the result's, of the lengths it reports
    static WrittenFile read(MemorySegment result, Schema schema, MetricsConfig config, Map<String, String> properties) {
        try (NativeCall call = NativeCall.open()) {
            Arena arena = call.arena();
            MemorySegment error = call.error();
            MemorySegment records = arena.allocate(ValueLayout.JAVA_LONG);
            MemorySegment size = arena.allocate(ValueLayout.JAVA_LONG);
            MemorySegment columnCount = arena.allocate(ValueLayout.JAVA_INT);
            call.check(isthmus_h.isthmus_write_result_file(result, records, size, columnCount, error));

            MemorySegment offsetsOut = arena.allocate(ValueLayout.ADDRESS);
            MemorySegment offsetCount = arena.allocate(ValueLayout.JAVA_INT);
            call.check(isthmus_h.isthmus_write_result_split_offsets(result, offsetsOut, offsetCount, error));
            int n = offsetCount.get(ValueLayout.JAVA_INT, 0);
            List<Long> offsets = new ArrayList<>(n);
            if (n > 0) {
                MemorySegment values = offsetsOut.get(ValueLayout.ADDRESS, 0).reinterpret(n * Long.BYTES);
                for (int i = 0; i < n; i++) {
                    offsets.add(values.getAtIndex(ValueLayout.JAVA_LONG, i));
                }
            }

            Map<Integer, Long> columnSizes = new HashMap<>();
            Map<Integer, Long> valueCounts = new HashMap<>();
            Map<Integer, Long> nullCounts = new HashMap<>();
            Map<Integer, Long> nanCounts = new HashMap<>();
            Map<Integer, ByteBuffer> lowerBounds = new HashMap<>();
            Map<Integer, ByteBuffer> upperBounds = new HashMap<>();
            Map<Integer, Type> originalTypes = new HashMap<>();
            MemorySegment fieldId = arena.allocate(ValueLayout.JAVA_INT);
            MemorySegment valueCount = arena.allocate(ValueLayout.JAVA_LONG);
            MemorySegment nullCount = arena.allocate(ValueLayout.JAVA_LONG);
            MemorySegment nanCount = arena.allocate(ValueLayout.JAVA_LONG);
            MemorySegment compressed = arena.allocate(ValueLayout.JAVA_LONG);
            MemorySegment min = arena.allocate(ValueLayout.ADDRESS);
            MemorySegment minLength = arena.allocate(ValueLayout.JAVA_LONG);
            MemorySegment max = arena.allocate(ValueLayout.ADDRESS);
            MemorySegment maxLength = arena.allocate(ValueLayout.JAVA_LONG);
            Set<Integer> repeated = insideListsAndMaps(schema);
            int columns = columnCount.get(ValueLayout.JAVA_INT, 0);
            for (int c = 0; c < columns; c++) {
                call.check(isthmus_h.isthmus_write_result_column(
                        result, c, fieldId, valueCount, nullCount, nanCount, compressed, error));
                int id = fieldId.get(ValueLayout.JAVA_INT, 0);
                MetricsModes.MetricsMode mode = MetricsUtil.metricsMode(schema, config, id);
                if (mode == MetricsModes.None.get()) {
                    continue;
                }
                columnSizes.put(id, compressed.get(ValueLayout.JAVA_LONG, 0));
                if (repeated.contains(id)) {
                    continue;
                }
                Type.PrimitiveType type = schema.findType(id).asPrimitiveType();
                if (!statisticsEnabled(properties, schema.findColumnName(id)) && !isFloatingPoint(type)) {
                    // Iceberg reads these from the footer's statistics, which then have no null
                    // count, so its metrics have nothing but the size; floats and doubles come from
                    // its value writers instead.
                    continue;
                }
                valueCounts.put(id, valueCount.get(ValueLayout.JAVA_LONG, 0));
                nullCounts.put(id, nullCount.get(ValueLayout.JAVA_LONG, 0));
                long nans = nanCount.get(ValueLayout.JAVA_LONG, 0);
                if (nans >= 0) {
                    nanCounts.put(id, nans);
                }
                int truncateLength = truncateLength(mode);
                if (truncateLength <= 0) {
                    continue;
                }
                call.check(
                        isthmus_h.isthmus_write_result_column_bounds(result, c, min, minLength, max, maxLength, error));
                Object lower = value(type, min.get(ValueLayout.ADDRESS, 0), minLength.get(ValueLayout.JAVA_LONG, 0));
                Object upper = value(type, max.get(ValueLayout.ADDRESS, 0), maxLength.get(ValueLayout.JAVA_LONG, 0));
                lower = truncateLower(type, lower, truncateLength);
                upper = truncateUpper(type, upper, truncateLength);
                originalTypes.put(id, type);
                if (lower != null) {
                    lowerBounds.put(id, Conversions.toByteBuffer(type, lower));
                }
                if (upper != null) {
                    upperBounds.put(id, Conversions.toByteBuffer(type, upper));
                }
            }
            Metrics metrics = new Metrics(
                    records.get(ValueLayout.JAVA_LONG, 0),
                    columnSizes,
                    valueCounts,
                    nullCounts,
                    nanCounts,
                    lowerBounds,
                    upperBounds,
                    originalTypes);
            return new WrittenFile(size.get(ValueLayout.JAVA_LONG, 0), Collections.unmodifiableList(offsets), metrics);
        }
    }

    /** The ids of the fields that have a list or a map above them. */
    private static Set<Integer> insideListsAndMaps(Schema schema) {
        Map<Integer, Integer> parents = TypeUtil.indexParents(schema.asStruct());
        Set<Integer> ids = new HashSet<>();
        for (Integer id : parents.keySet()) {
            for (Integer parent = parents.get(id); parent != null; parent = parents.get(parent)) {
                if (schema.findType(parent).isListType()
                        || schema.findType(parent).isMapType()) {
                    ids.add(id);
                    break;
                }
            }
        }
        return ids;
    }

    /** {@code write.parquet.stats-enabled.column.<name>}, which Iceberg hands to parquet-java's writer. */
    private static boolean statisticsEnabled(Map<String, String> properties, String column) {
        return !"false"
                .equalsIgnoreCase(properties
                        .getOrDefault(STATS_ENABLED_PREFIX + column, "true")
                        .trim());
    }

    private static boolean isFloatingPoint(Type type) {
        return type.typeId() == Type.TypeID.FLOAT || type.typeId() == Type.TypeID.DOUBLE;
    }

    /** As Iceberg's {@code ParquetMetrics}: counts and none keep no bounds, full keeps them whole. */
    private static int truncateLength(MetricsModes.MetricsMode mode) {
        if (mode instanceof MetricsModes.Truncate truncate) {
            return truncate.length();
        }
        return mode == MetricsModes.Full.get() ? Integer.MAX_VALUE : 0;
    }

    /**
     * A bound in the Java form Iceberg's {@code Conversions} take, from the Parquet PLAIN bytes
     * the library reports; {@code null} when the column has none.
     */
    @SuppressWarnings("restricted")
    private static Object value(Type.PrimitiveType type, MemorySegment address, long length) {
        if (address.equals(MemorySegment.NULL)) {
            return null;
        }
        ByteBuffer plain = address.reinterpret(length).asByteBuffer().order(ByteOrder.LITTLE_ENDIAN);
        byte[] bytes = new byte[(int) length];
        plain.duplicate().get(bytes);
        return switch (type.typeId()) {
            // INT32 and INT64 decimals (P <= 18) are little-endian; fixed-length ones (P >= 19, at
            // least 9 bytes) big-endian two's complement: the length tells them apart.
            case DECIMAL -> {
                int scale = ((Types.DecimalType) type).scale();
                BigInteger unscaled = switch (bytes.length) {
                    case Integer.BYTES -> BigInteger.valueOf(plain.getInt(0));
                    case Long.BYTES -> BigInteger.valueOf(plain.getLong(0));
                    default -> new BigInteger(bytes);
                };
                yield new BigDecimal(unscaled, scale);
            }
            // Every other PLAIN form is Iceberg's single-value serialisation already.
            default -> Conversions.fromByteBuffer(type, ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN));
        };
    }

    private static Object truncateLower(Type.PrimitiveType type, Object value, int length) {
        if (value == null) {
            return null;
        }
        return switch (type.typeId()) {
            case STRING -> UnicodeUtil.truncateStringMin(value.toString(), length);
            case BINARY -> BinaryUtil.truncateBinaryMin((ByteBuffer) value, length);
            default -> value;
        };
    }

    private static Object truncateUpper(Type.PrimitiveType type, Object value, int length) {
        if (value == null) {
            return null;
        }
        return switch (type.typeId()) {
            case STRING -> UnicodeUtil.truncateStringMax(value.toString(), length);
            case BINARY -> BinaryUtil.truncateBinaryMax((ByteBuffer) value, length);
            default -> value;
        };
    }
}
