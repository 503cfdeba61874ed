package dev.isthmus.iceberg.source;

import dev.isthmus.iceberg.source.parquet.NativeParquetFile;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.Metrics;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.expressions.Binder;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.InclusiveMetricsEvaluator;
import org.apache.iceberg.types.Conversions;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * Row-group pruning by the footer's column statistics: each row group's statistics become
 * Iceberg metrics (value and null counts, lower and upper bounds in Iceberg's binary form) and
 * Iceberg's own {@link InclusiveMetricsEvaluator} decides, so pruning follows exactly the rules
 * Iceberg prunes whole files by. A row group is skipped only when no row in it can match.
 *
 * <p>Bounds are used only where the Parquet column holds the Iceberg type's values in Iceberg's
 * own representation (or an int read as long, a decimal of the same scale); anything else (floats,
 * whose statistics leave NaN out, UUIDs, INT96, other units) contributes counts but no bounds,
 * which can only keep row groups.
 */
final class RowGroupPruner {
    private final NativeParquetFile file;
    private final InclusiveMetricsEvaluator evaluator;
    private final int[] leaves;
    private final int[] ids;
    private final List<Function<byte[], ByteBuffer>> bounds;
    /** The filter's columns the file lacks, which Iceberg's row-group filter takes as all null. */
    private final int[] missing;

    private RowGroupPruner(
            NativeParquetFile file,
            InclusiveMetricsEvaluator evaluator,
            int[] leaves,
            int[] ids,
            List<Function<byte[], ByteBuffer>> bounds,
            int[] missing) {
        this.file = file;
        this.evaluator = evaluator;
        this.leaves = leaves;
        this.ids = ids;
        this.bounds = bounds;
        this.missing = missing;
    }

    /**
     * A pruner for {@code filter} (unbound, over {@code schema}) on {@code file}'s row groups,
     * whose leaf {@code columns} carry the ids the filter's fields are matched by.
     */
    static RowGroupPruner of(
            NativeParquetFile file,
            List<NativeParquetFile.Column> columns,
            Schema schema,
            Expression filter,
            boolean caseSensitive) {
        Set<Integer> referenced = Binder.boundReferences(schema.asStruct(), List.of(filter), caseSensitive);
        int[] leaves = new int[columns.size()];
        int[] ids = new int[columns.size()];
        List<Function<byte[], ByteBuffer>> bounds = new java.util.ArrayList<>();
        int n = 0;
        for (int leaf = 0; leaf < columns.size(); leaf++) {
            NativeParquetFile.Column column = columns.get(leaf);
            if (column.repeated() || !referenced.contains(column.fieldId())) {
                continue;
            }
            Types.NestedField field = schema.findField(column.fieldId());
            if (field == null || !field.type().isPrimitiveType()) {
                continue;
            }
            leaves[n] = leaf;
            ids[n] = column.fieldId();
            bounds.add(boundConversion(field.type(), column));
            n++;
        }
        // Iceberg's ParquetMetricsRowGroupFilter reads a column without a chunk as all null, also one
        // a default fills: the same row groups are skipped, so the same rows come out.
        int[] missing = referenced.stream()
                .filter(id -> schema.findField(id) != null && columns.stream().noneMatch(c -> c.fieldId() == id))
                .mapToInt(Integer::intValue)
                .toArray();
        return new RowGroupPruner(
                file,
                new InclusiveMetricsEvaluator(schema, filter, caseSensitive),
                java.util.Arrays.copyOf(leaves, n),
                java.util.Arrays.copyOf(ids, n),
                bounds,
                missing);
    }

    /** Whether row group {@code rowGroup} may hold a row the filter keeps. */
    boolean mightMatch(int rowGroup) {
        NativeParquetFile.RowGroup group = file.rowGroup(rowGroup);
        Map<Integer, Long> valueCounts = new HashMap<>();
        Map<Integer, Long> nullCounts = new HashMap<>();
        Map<Integer, ByteBuffer> lower = new HashMap<>();
        Map<Integer, ByteBuffer> upper = new HashMap<>();
        for (int i = 0; i < leaves.length; i++) {
            NativeParquetFile.ColumnChunk chunk = file.columnChunk(rowGroup, leaves[i]);
            valueCounts.put(ids[i], chunk.valueCount());
            if (chunk.nullCount() >= 0) {
                nullCounts.put(ids[i], chunk.nullCount());
            }
            Function<byte[], ByteBuffer> conversion = bounds.get(i);
            if (conversion != null && chunk.min() != null && chunk.max() != null) {
                ByteBuffer min = conversion.apply(chunk.min());
                ByteBuffer max = conversion.apply(chunk.max());
                if (min != null && max != null) {
                    lower.put(ids[i], min);
                    upper.put(ids[i], max);
                }
            }
        }
        for (int id : missing) {
            valueCounts.put(id, group.rowCount());
            nullCounts.put(id, group.rowCount());
        }
        DataFile metrics = DataFiles.builder(PartitionSpec.unpartitioned())
                .withPath(file.name() + "#row-group-" + rowGroup)
                .withFormat(FileFormat.PARQUET)
                .withFileSizeInBytes(Math.max(1, group.compressedSize()))
                .withMetrics(new Metrics(group.rowCount(), null, valueCounts, nullCounts, null, lower, upper))
                .build();
        return evaluator.eval(metrics);
    }

    /**
     * How the column's statistics bytes (Parquet's PLAIN encoding) become Iceberg's binary form
     * of {@code type}, or {@code null} when they do not hold {@code type}'s values as Iceberg
     * orders them.
     */
    private static Function<byte[], ByteBuffer> boundConversion(Type type, NativeParquetFile.Column column) {
        String format = column.arrowFormat();
        if (format == null) {
            return null;
        }
        int physical = column.physicalType();
        return switch (type.typeId()) {
            case BOOLEAN -> format.equals("b") ? fixed(1) : null;
            case INTEGER -> format.equals("i") ? fixed(4) : null;
            case DATE -> format.equals("tdD") ? fixed(4) : null;
            case LONG ->
                switch (format) {
                    case "l" -> fixed(8);
                    case "i" ->
                        bytes -> bytes.length == 4
                                ? littleEndianLong(ByteBuffer.wrap(bytes)
                                        .order(ByteOrder.LITTLE_ENDIAN)
                                        .getInt())
                                : null;
                    default -> null;
                };
            case TIME -> format.equals("ttu") && physical == 2 ? fixed(8) : null;
            case TIMESTAMP -> format.startsWith("tsu:") && physical == 2 ? fixed(8) : null;
            case TIMESTAMP_NANO -> format.startsWith("tsn:") && physical == 2 ? fixed(8) : null;
            case STRING -> format.equals("u") ? RowGroupPruner::copy : null;
            case BINARY -> format.equals("z") ? RowGroupPruner::copy : null;
            case FIXED -> format.equals("w:" + ((Types.FixedType) type).length()) ? RowGroupPruner::copy : null;
            case DECIMAL -> decimal((Types.DecimalType) type, format, physical);
            default -> null;
        };
    }

    private static Function<byte[], ByteBuffer> fixed(int width) {
        return bytes -> bytes.length == width ? ByteBuffer.wrap(bytes.clone()) : null;
    }

    private static ByteBuffer copy(byte[] bytes) {
        return ByteBuffer.wrap(bytes.clone());
    }

    private static ByteBuffer littleEndianLong(long value) {
        return ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(0, value);
    }

    private static Function<byte[], ByteBuffer> decimal(Types.DecimalType type, String format, int physical) {
        if (!format.startsWith("d:") || !format.endsWith("," + type.scale())) {
            return null;
        }
        return bytes -> {
            BigInteger unscaled = switch (physical) {
                case 1 ->
                    bytes.length == 4
                            ? BigInteger.valueOf(ByteBuffer.wrap(bytes)
                                    .order(ByteOrder.LITTLE_ENDIAN)
                                    .getInt())
                            : null;
                case 2 ->
                    bytes.length == 8
                            ? BigInteger.valueOf(ByteBuffer.wrap(bytes)
                                    .order(ByteOrder.LITTLE_ENDIAN)
                                    .getLong())
                            : null;
                case 6, 7 -> bytes.length > 0 ? new BigInteger(bytes) : null;
                default -> null;
            };
            return unscaled == null ? null : Conversions.toByteBuffer(type, new BigDecimal(unscaled, type.scale()));
        };
    }
}
