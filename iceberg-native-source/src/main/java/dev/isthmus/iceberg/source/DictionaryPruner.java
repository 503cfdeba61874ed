package dev.isthmus.iceberg.source;

import dev.isthmus.arrow.cdata.ArrowArrayView;
import dev.isthmus.arrow.cdata.ImportedArray;
import dev.isthmus.arrow.flink.vector.ArrowVectors;
import dev.isthmus.arrow.memory.MemoryTracker;
import dev.isthmus.ffm.NativeException;
import dev.isthmus.iceberg.source.parquet.NativeParquetFile;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.IntFunction;
import java.util.function.IntPredicate;
import org.apache.flink.table.data.columnar.vector.BytesColumnVector;
import org.apache.flink.table.data.columnar.vector.ColumnVector;
import org.apache.flink.table.data.columnar.vector.DecimalColumnVector;
import org.apache.flink.table.data.columnar.vector.DoubleColumnVector;
import org.apache.flink.table.data.columnar.vector.FloatColumnVector;
import org.apache.flink.table.data.columnar.vector.IntColumnVector;
import org.apache.flink.table.data.columnar.vector.LongColumnVector;
import org.apache.iceberg.Schema;
import org.apache.iceberg.expressions.Binder;
import org.apache.iceberg.expressions.Bound;
import org.apache.iceberg.expressions.BoundReference;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.ExpressionVisitors;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.expressions.Literal;
import org.apache.iceberg.types.Comparators;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * Row-group pruning by dictionary pages, with the semantics of Iceberg's
 * {@code ParquetDictionaryRowGroupFilter}: where every value of a column chunk is in its
 * dictionary, the dictionary is the exact set of the chunk's non-null values, so a predicate no
 * entry satisfies rules the row group out. Used after {@link RowGroupPruner}, on the row groups
 * statistics kept: a filter like {@code s = 'm'} over a row group holding {@code 'a'} and
 * {@code 'z'} passes its min/max but not its dictionary.
 *
 * <p>Cheap only: a dictionary is read (one page, {@link NativeParquetFile#dictionary}) only for a
 * column the filter references, only when the chunk's metadata says its dictionary covers every
 * value, and only when the visitor reaches a predicate on it. Columns whose values are not
 * converted exactly into Iceberg's representation of the table's type are never used. Whenever
 * unsure, a row group is kept.
 *
 * <p>Mirrors Iceberg 1.11's {@code ParquetDictionaryRowGroupFilter} ({@code iceberg-parquet}), which
 * Iceberg's Flink reader applies through {@code Parquet.read}: the same predicates decided by the
 * dictionary, negations keeping a chunk that may hold nulls, entries compared with Iceberg's
 * {@code Comparators}, and a chunk's dictionary trusted only where parquet-java's
 * {@code encoding_stats} (or v1 encodings) say every data page uses it. The page itself is read and
 * decoded natively rather than by parquet-java. Parity is pinned by {@code DictionaryPrunerTest}
 * (every kind of predicate on a file of Iceberg's writer, checked against Iceberg's own row
 * evaluator) and {@code NativeReaderFunctionTest#dictionariesPruneRowGroupsStatisticsKeep} (the same
 * records, positions and resumes as Iceberg's reader); docs/architecture.md, "Upgrading Iceberg or
 * Flink", says what to compare on an upgrade.
 */
final class DictionaryPruner {
    private final NativeParquetFile file;
    private final Expression bound;
    private final MemoryTracker tracker;
    /** Per usable field id: its leaf, its Iceberg type and how its dictionary becomes Iceberg values. */
    private final Map<Integer, Usable> columns;

    private record Usable(int leaf, Comparator<Object> comparator, Conversion conversion) {}

    /** Reads entry {@code i} of an imported dictionary as Iceberg's Java value for the type. */
    @FunctionalInterface
    private interface Conversion {
        IntFunction<Object> reader(ArrowArrayView view);
    }

    private DictionaryPruner(
            NativeParquetFile file, Expression bound, MemoryTracker tracker, Map<Integer, Usable> columns) {
        this.file = file;
        this.bound = bound;
        this.tracker = tracker;
        this.columns = columns;
    }

    /**
     * A pruner for {@code filter} (unbound, over {@code schema}) on {@code file}'s row groups,
     * whose {@code leaves} carry the ids the filter's fields are matched by.
     */
    static DictionaryPruner of(
            NativeParquetFile file,
            List<NativeParquetFile.Column> leaves,
            Schema schema,
            Expression filter,
            boolean caseSensitive,
            MemoryTracker tracker) {
        // With NOTs pushed into the predicates every node is monotone, so "might match" composes.
        Expression bound = Binder.bind(schema.asStruct(), Expressions.rewriteNot(filter), caseSensitive);
        Set<Integer> referenced = Binder.boundReferences(schema.asStruct(), List.of(filter), caseSensitive);
        Map<Integer, Usable> columns = new HashMap<>();
        for (int leaf = 0; leaf < leaves.size(); leaf++) {
            NativeParquetFile.Column column = leaves.get(leaf);
            if (column.repeated() || !referenced.contains(column.fieldId())) {
                continue;
            }
            Types.NestedField field = schema.findField(column.fieldId());
            if (field == null || !field.type().isPrimitiveType()) {
                continue;
            }
            Conversion conversion = conversion(field.type(), column);
            if (conversion != null) {
                @SuppressWarnings("unchecked")
                Comparator<Object> comparator =
                        (Comparator<Object>) Comparators.forType(field.type().asPrimitiveType());
                columns.put(column.fieldId(), new Usable(leaf, comparator, conversion));
            }
        }
        return new DictionaryPruner(file, bound, tracker, columns);
    }

    /** Whether row group {@code rowGroup} may hold a row the filter keeps. */
    boolean mightMatch(int rowGroup) {
        return columns.isEmpty() || ExpressionVisitors.visitEvaluator(bound, new Evaluator(rowGroup));
    }

    /**
     * How a column's dictionary entries, in the Arrow type the decoder gives the file's column,
     * become Iceberg's values of {@code type}; {@code null} where they would not be exactly those
     * (other units, INT96, UUIDs, a decimal of another scale, booleans, which have no dictionaries).
     */
    private static Conversion conversion(Type type, NativeParquetFile.Column column) {
        String format = column.arrowFormat();
        if (format == null) {
            return null;
        }
        return switch (type.typeId()) {
            case INTEGER -> format.equals("i") ? ints() : null;
            case DATE -> format.equals("tdD") ? ints() : null;
            case LONG ->
                switch (format) {
                    case "l" ->
                        view -> {
                            LongColumnVector v = (LongColumnVector) ArrowVectors.of(view);
                            return v::getLong;
                        };
                    case "i" ->
                        view -> {
                            IntColumnVector v = (IntColumnVector) ArrowVectors.of(view);
                            return i -> (long) v.getInt(i);
                        };
                    default -> null;
                };
            // Flink's vectors turn these into milliseconds and TimestampData: read Iceberg's longs.
            case TIME -> format.equals("ttu") ? longs() : null;
            case TIMESTAMP -> format.startsWith("tsu:") ? longs() : null;
            case TIMESTAMP_NANO -> format.startsWith("tsn:") && column.physicalType() == 2 ? longs() : null;
            case FLOAT ->
                format.equals("f")
                        ? view -> {
                            FloatColumnVector v = (FloatColumnVector) ArrowVectors.of(view);
                            return v::getFloat;
                        }
                        : null;
            case DOUBLE ->
                switch (format) {
                    case "g" ->
                        view -> {
                            DoubleColumnVector v = (DoubleColumnVector) ArrowVectors.of(view);
                            return v::getDouble;
                        };
                    case "f" ->
                        view -> {
                            FloatColumnVector v = (FloatColumnVector) ArrowVectors.of(view);
                            return i -> (double) v.getFloat(i);
                        };
                    default -> null;
                };
            case STRING ->
                format.equals("u")
                        ? view -> {
                            BytesColumnVector v = (BytesColumnVector) ArrowVectors.of(view);
                            return i -> {
                                BytesColumnVector.Bytes b = v.getBytes(i);
                                return new String(b.data, b.offset, b.len, StandardCharsets.UTF_8);
                            };
                        }
                        : null;
            case BINARY -> format.equals("z") ? bytes() : null;
            case FIXED -> format.equals("w:" + ((Types.FixedType) type).length()) ? bytes() : null;
            case DECIMAL -> {
                Types.DecimalType decimal = (Types.DecimalType) type;
                yield format.startsWith("d:") && format.endsWith("," + decimal.scale())
                        ? view -> {
                            DecimalColumnVector v = (DecimalColumnVector) ArrowVectors.of(view);
                            return i -> v.getDecimal(i, decimal.precision(), decimal.scale())
                                    .toBigDecimal();
                        }
                        : null;
            }
            default -> null;
        };
    }

    private static Conversion ints() {
        return view -> {
            IntColumnVector v = (IntColumnVector) ArrowVectors.of(view);
            return v::getInt;
        };
    }

    private static Conversion longs() {
        ValueLayout.OfLong layout = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
        return view -> {
            MemorySegment values = view.buffer(1);
            long offset = view.offset();
            return i -> values.getAtIndex(layout, offset + i);
        };
    }

    private static Conversion bytes() {
        return view -> {
            ColumnVector v = ArrowVectors.of(view);
            return i -> {
                BytesColumnVector.Bytes b = ((BytesColumnVector) v).getBytes(i);
                return ByteBuffer.wrap(b.getBytes());
            };
        };
    }

    /**
     * The filter over one row group: {@code true} (might match) unless a dictionary proves that no
     * row can. Dictionaries are read when a predicate first needs them.
     */
    private final class Evaluator extends ExpressionVisitors.BoundExpressionVisitor<Boolean> {
        private static final boolean MIGHT_MATCH = true;
        private static final boolean CANNOT_MATCH = false;

        private final int rowGroup;
        /** Per field id: its dictionary, or an empty optional when it cannot be used here. */
        private final Map<Integer, Optional<Set<Object>>> dictionaries = new HashMap<>();

        Evaluator(int rowGroup) {
            this.rowGroup = rowGroup;
        }

        /** The column's dictionary in this row group, or {@code null} when it does not decide. */
        private Set<Object> dictionary(int id) {
            return dictionaries.computeIfAbsent(id, this::load).orElse(null);
        }

        private Optional<Set<Object>> load(int id) {
            Usable column = columns.get(id);
            if (column == null || !file.columnChunk(rowGroup, column.leaf()).dictionaryCoversValues()) {
                return Optional.empty();
            }
            Set<Object> values = new TreeSet<>(column.comparator());
            try (ImportedArray array = file.dictionary(rowGroup, column.leaf(), tracker)) {
                IntFunction<Object> reader = column.conversion().reader(array.view());
                for (int i = 0; i < array.length(); i++) {
                    values.add(reader.apply(i));
                }
            } catch (NativeException.Unsupported e) {
                // A page this build cannot decode: the scan would refuse it too, so decide nothing.
                return Optional.empty();
            }
            return Optional.of(values);
        }

        /** Whether the chunk may hold nulls, which negated predicates keep (as Iceberg's evaluator does). */
        private boolean mayContainNulls(int id) {
            return file.columnChunk(rowGroup, columns.get(id).leaf()).nullCount() != 0;
        }

        @Override
        public <T> Boolean handleNonReference(Bound<T> term) {
            // Transforms (bucket, day, ...) of a column: its dictionary does not give their values.
            return MIGHT_MATCH;
        }

        @Override
        public Boolean alwaysTrue() {
            return MIGHT_MATCH;
        }

        @Override
        public Boolean alwaysFalse() {
            return CANNOT_MATCH;
        }

        @Override
        public Boolean not(Boolean result) {
            // rewriteNot removed every NOT; an inclusive answer cannot be negated anyway.
            return MIGHT_MATCH;
        }

        @Override
        public Boolean and(Boolean left, Boolean right) {
            return left && right;
        }

        @Override
        public Boolean or(Boolean left, Boolean right) {
            return left || right;
        }

        @Override
        public <T> Boolean isNull(BoundReference<T> ref) {
            // A dictionary holds no nulls, so it says nothing about them.
            return MIGHT_MATCH;
        }

        @Override
        public <T> Boolean notNull(BoundReference<T> ref) {
            return MIGHT_MATCH;
        }

        @Override
        public <T> Boolean isNaN(BoundReference<T> ref) {
            return MIGHT_MATCH;
        }

        @Override
        public <T> Boolean notNaN(BoundReference<T> ref) {
            return MIGHT_MATCH;
        }

        @Override
        public <T> Boolean lt(BoundReference<T> ref, Literal<T> lit) {
            return any(ref, lit, cmp -> cmp < 0);
        }

        @Override
        public <T> Boolean ltEq(BoundReference<T> ref, Literal<T> lit) {
            return any(ref, lit, cmp -> cmp <= 0);
        }

        @Override
        public <T> Boolean gt(BoundReference<T> ref, Literal<T> lit) {
            return any(ref, lit, cmp -> cmp > 0);
        }

        @Override
        public <T> Boolean gtEq(BoundReference<T> ref, Literal<T> lit) {
            return any(ref, lit, cmp -> cmp >= 0);
        }

        @Override
        public <T> Boolean eq(BoundReference<T> ref, Literal<T> lit) {
            Set<Object> dictionary = dictionary(ref.fieldId());
            return dictionary == null || dictionary.contains(lit.value());
        }

        @Override
        public <T> Boolean notEq(BoundReference<T> ref, Literal<T> lit) {
            Set<Object> dictionary = dictionary(ref.fieldId());
            if (dictionary == null || dictionary.size() > 1 || mayContainNulls(ref.fieldId())) {
                return MIGHT_MATCH;
            }
            return !dictionary.contains(lit.value());
        }

        @Override
        public <T> Boolean in(BoundReference<T> ref, Set<T> literalSet) {
            Set<Object> dictionary = dictionary(ref.fieldId());
            if (dictionary == null) {
                return MIGHT_MATCH;
            }
            for (T value : literalSet) {
                if (dictionary.contains(value)) {
                    return MIGHT_MATCH;
                }
            }
            return CANNOT_MATCH;
        }

        @Override
        public <T> Boolean notIn(BoundReference<T> ref, Set<T> literalSet) {
            Set<Object> dictionary = dictionary(ref.fieldId());
            if (dictionary == null || mayContainNulls(ref.fieldId())) {
                return MIGHT_MATCH;
            }
            Set<Object> excluded = new TreeSet<>(columns.get(ref.fieldId()).comparator());
            excluded.addAll(literalSet);
            for (Object value : dictionary) {
                if (!excluded.contains(value)) {
                    return MIGHT_MATCH;
                }
            }
            return CANNOT_MATCH;
        }

        @Override
        public <T> Boolean startsWith(BoundReference<T> ref, Literal<T> lit) {
            Set<Object> dictionary = dictionary(ref.fieldId());
            if (dictionary == null) {
                return MIGHT_MATCH;
            }
            String prefix = lit.value().toString();
            for (Object value : dictionary) {
                if (value.toString().startsWith(prefix)) {
                    return MIGHT_MATCH;
                }
            }
            return CANNOT_MATCH;
        }

        @Override
        public <T> Boolean notStartsWith(BoundReference<T> ref, Literal<T> lit) {
            Set<Object> dictionary = dictionary(ref.fieldId());
            if (dictionary == null || mayContainNulls(ref.fieldId())) {
                return MIGHT_MATCH;
            }
            String prefix = lit.value().toString();
            for (Object value : dictionary) {
                if (!value.toString().startsWith(prefix)) {
                    return MIGHT_MATCH;
                }
            }
            return CANNOT_MATCH;
        }

        /** Whether some entry compares to the literal as {@code test} asks. */
        private <T> boolean any(BoundReference<T> ref, Literal<T> lit, IntPredicate test) {
            Set<Object> dictionary = dictionary(ref.fieldId());
            if (dictionary == null) {
                return MIGHT_MATCH;
            }
            Comparator<Object> comparator = columns.get(ref.fieldId()).comparator();
            for (Object value : dictionary) {
                if (test.test(comparator.compare(value, lit.value()))) {
                    return MIGHT_MATCH;
                }
            }
            return CANNOT_MATCH;
        }
    }
}
