package dev.isthmus.arrow.flink.vector;

import dev.isthmus.arrow.cdata.ArrowArrayView;
import dev.isthmus.arrow.types.ArrowType;
import org.apache.flink.table.data.columnar.vector.ColumnVector;

/** Builds the Flink vector that reads an imported Arrow array in place. */
public final class ArrowVectors {
    private ArrowVectors() {}

    public static ColumnVector of(ArrowArrayView view) {
        return of(view, 0);
    }

    /**
     * @param inheritedOffset the offsets of enclosing structs, which Arrow applies to children
     */
    static ColumnVector of(ArrowArrayView view, long inheritedOffset) {
        return of(view, inheritedOffset, false);
    }

    /**
     * @param arrayElements the vector holds the keys or values of a map, which Flink reads
     *     through {@code ColumnarArrayData}. Its {@code getBinary} copies {@code [offset, len)} of
     *     a {@code Bytes} instead of {@code [offset, offset + len)}, so binary values there must
     *     come as whole arrays at offset 0. Its {@code getString} honours the offset, and Flink
     *     reads character strings only through it, so those share the batch's heap copy as
     *     top-level strings do. A list's elements are read through {@link ArrowArrayData},
     *     which honours the offset.
     */
    private static ColumnVector of(ArrowArrayView view, long inheritedOffset, boolean arrayElements) {
        long offset = view.offset() + inheritedOffset;
        if (view.field().isDictionaryEncoded()) {
            ArrowType.Int index = view.field().dictionaryIndex();
            return new DictionaryVector(
                    view.validity(),
                    view.buffer(1),
                    offset,
                    index.bitWidth(),
                    index.signed(),
                    of(view.dictionary(), 0, arrayElements));
        }
        var validity = view.validity();
        return switch (view.field().type()) {
            case ArrowType.Null n -> NullVector.INSTANCE;
            case ArrowType.Bool b -> new PrimitiveVectors.Booleans(validity, view.buffer(1), offset);
            case ArrowType.Int i ->
                switch (i.bitWidth()) {
                    case 8 -> new PrimitiveVectors.Bytes(validity, view.buffer(1), offset);
                    case 16 -> new PrimitiveVectors.Shorts(validity, view.buffer(1), offset);
                    case 32 -> new PrimitiveVectors.Ints(validity, view.buffer(1), offset);
                    default -> new PrimitiveVectors.Longs(validity, view.buffer(1), offset);
                };
            case ArrowType.Float32 f -> new PrimitiveVectors.Floats(validity, view.buffer(1), offset);
            case ArrowType.Float64 d -> new PrimitiveVectors.Doubles(validity, view.buffer(1), offset);
            case ArrowType.Decimal d -> new ValueVectors.Decimals(validity, view.buffer(1), offset);
            case ArrowType.Date d ->
                d.days()
                        ? new PrimitiveVectors.Ints(validity, view.buffer(1), offset)
                        : new PrimitiveVectors.ScaledLongsAsInts(validity, view.buffer(1), offset, 86_400_000L);
            case ArrowType.Time t ->
                switch (t.unit()) {
                    case SECOND -> new PrimitiveVectors.SecondsAsMillis(validity, view.buffer(1), offset);
                    case MILLISECOND -> new PrimitiveVectors.Ints(validity, view.buffer(1), offset);
                    case MICROSECOND ->
                        new PrimitiveVectors.ScaledLongsAsInts(validity, view.buffer(1), offset, 1_000L);
                    case NANOSECOND ->
                        new PrimitiveVectors.ScaledLongsAsInts(validity, view.buffer(1), offset, 1_000_000L);
                };
            case ArrowType.Timestamp t -> new ValueVectors.Timestamps(validity, view.buffer(1), offset, t.unit());
            case ArrowType.Utf8 u ->
                new ValueVectors.VariableBytes(validity, view.buffer(1), view.buffer(2), offset, u.large(), false);
            case ArrowType.Binary b ->
                new ValueVectors.VariableBytes(
                        validity, view.buffer(1), view.buffer(2), offset, b.large(), arrayElements);
            case ArrowType.FixedSizeBinary w ->
                new ValueVectors.FixedBytes(validity, view.buffer(1), offset, w.byteWidth(), arrayElements);
            case ArrowType.Struct s -> new NestedVectors.Rows(validity, offset, children(view, offset));
            case ArrowType.List l ->
                new NestedVectors.Lists(
                        validity,
                        view.buffer(1),
                        offset,
                        NestedVectors.starts(view.buffer(1), l.large(), view.path()),
                        of(view.child(0), 0, false));
            case ArrowType.Map m -> {
                ArrowArrayView entries = view.child(0);
                long entriesOffset = entries.offset();
                yield new NestedVectors.Maps(
                        validity,
                        view.buffer(1),
                        offset,
                        NestedVectors.starts(view.buffer(1), false, view.path()),
                        of(entries.child(0), entriesOffset, true),
                        of(entries.child(1), entriesOffset, true));
            }
        };
    }

    /**
     * Field {@code index} of a struct vector built here, read as a column of its own: its slot
     * {@code i} is the field of row {@code i}. Arrow lets a field hold a value where its struct is
     * null; the decoder never does (a field is defined only where every struct above it is), so
     * the column is null wherever the struct is.
     *
     * @throws IllegalArgumentException if {@code struct} is not a struct vector of this package
     */
    public static ColumnVector field(ColumnVector struct, int index) {
        if (!(struct instanceof NestedVectors.Rows rows)) {
            throw new IllegalArgumentException("not an Arrow struct vector: " + struct);
        }
        return rows.field(index);
    }

    /**
     * A struct vector with the validity of {@code struct} (a struct vector built here) whose
     * fields are {@code fields}, each with a slot per row of the struct: some of its own fields,
     * or values filled in where the decoded ones are absent.
     *
     * @throws IllegalArgumentException if {@code struct} is not a struct vector of this package
     */
    public static ColumnVector withFields(ColumnVector struct, ColumnVector[] fields) {
        if (!(struct instanceof NestedVectors.Rows rows)) {
            throw new IllegalArgumentException("not an Arrow struct vector: " + struct);
        }
        return rows.withFields(fields);
    }

    /**
     * The elements of a list vector built here, or the values of a map vector: one slot per
     * element of all the lists (or entries of all the maps).
     *
     * @throws IllegalArgumentException if {@code vector} is neither
     */
    public static ColumnVector elements(ColumnVector vector) {
        return switch (vector) {
            case NestedVectors.Lists lists -> lists.elements();
            case NestedVectors.Maps maps -> maps.values();
            default -> throw new IllegalArgumentException("not an Arrow list or map vector: " + vector);
        };
    }

    /**
     * {@code vector} (a list or a map, as for {@link #elements}) with its elements (or values)
     * read from {@code elements} instead.
     */
    public static ColumnVector withElements(ColumnVector vector, ColumnVector elements) {
        return switch (vector) {
            case NestedVectors.Lists lists -> lists.withElements(elements);
            case NestedVectors.Maps maps -> maps.withValues(elements);
            default -> throw new IllegalArgumentException("not an Arrow list or map vector: " + vector);
        };
    }

    /** The vectors of a struct's fields, with the struct's offset carried into them. */
    static ColumnVector[] children(ArrowArrayView struct, long structOffset) {
        ColumnVector[] columns = new ColumnVector[struct.childCount()];
        for (int c = 0; c < columns.length; c++) {
            columns[c] = of(struct.child(c), structOffset);
        }
        return columns;
    }
}
