package dev.isthmus.arrow.builder;

import dev.isthmus.arrow.types.ArrowField;
import dev.isthmus.arrow.types.ArrowFormat;
import dev.isthmus.arrow.types.ArrowType;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Builds one Arrow array off-heap, value by value, for one {@link ArrowField}; nested types hold
 * one builder per child field. {@link #forField} picks the builder for a field.
 *
 * <p>A batch's life: appends, then either {@link #finish()}, which hands every buffer to the
 * returned {@link FinishedArray} (the builder keeps no reference to exported memory and starts the
 * next batch with fresh buffers of the same capacity, so a steady stream of similar batches never
 * grows or copies), or {@link #reset()}, which discards the values and keeps the buffers for the
 * next batch. {@link #close()} frees whatever the builder still owns.
 *
 * <p>Buffers grow by doubling. The validity bitmap is allocated on the first null of a batch
 * (a batch without nulls exports none, as the C Data Interface allows), and never for a field
 * that is not nullable: appending a null there fails, naming the field.
 *
 * <p>Not thread-safe: one thread appends to a builder at a time.
 */
public abstract class ArrowBuilder implements AutoCloseable {
    /** Slots a buffer starts with, so tiny batches do not grow many times. */
    static final int MIN_CAPACITY = 64;

    private static final int MAX_CAPACITY = Integer.MAX_VALUE - 8;

    final ArrowField field;
    final String path;
    final BufferAllocator allocator;
    /** Values appended to the current batch. */
    int length;

    int nullCount;
    /** Slots every slot-indexed buffer (validity, values, offsets) can hold without growing. */
    int capacity;
    /** The capacity to start the next batch with: the last finished batch's. */
    private int capacityHint = MIN_CAPACITY;
    /** {@code null} until the batch's first null. */
    BitBuffer validity;

    ArrowBuilder(ArrowField field, String path, BufferAllocator allocator) {
        this.field = Objects.requireNonNull(field, "field");
        this.path = path;
        this.allocator = Objects.requireNonNull(allocator, "allocator");
    }

    /**
     * A builder for {@code field} and, for nested types, its children.
     *
     * @throws UnsupportedOperationException for a type no builder produces (dictionary-encoded
     *     fields, large offsets, 32-bit times, 64-bit dates), naming the field
     */
    public static ArrowBuilder forField(ArrowField field, BufferAllocator allocator) {
        return create(field, field.name(), allocator);
    }

    static ArrowBuilder create(ArrowField field, String path, BufferAllocator allocator) {
        if (field.isDictionaryEncoded()) {
            throw unsupported(field, path);
        }
        return switch (field.type()) {
            case ArrowType.Null n -> new NullBuilder(field, path, allocator);
            case ArrowType.Bool b -> new BoolBuilder(field, path, allocator);
            case ArrowType.Int i ->
                switch (i.bitWidth()) {
                    case 8 -> new Int8Builder(field, path, allocator);
                    case 16 -> new Int16Builder(field, path, allocator);
                    case 32 -> new Int32Builder(field, path, allocator);
                    default -> new Int64Builder(field, path, allocator);
                };
            case ArrowType.Float32 f -> new Float32Builder(field, path, allocator);
            case ArrowType.Float64 d -> new Float64Builder(field, path, allocator);
            case ArrowType.Decimal d -> new Decimal128Builder(field, path, allocator);
            case ArrowType.Date d when d.days() -> new Date32Builder(field, path, allocator);
            case ArrowType.Time t when t.bitWidth() == 64 -> new Time64Builder(field, path, allocator);
            case ArrowType.Timestamp t -> new TimestampBuilder(field, path, allocator);
            case ArrowType.Utf8 u when !u.large() -> new VarBinaryBuilder(field, path, allocator);
            case ArrowType.Binary b when !b.large() -> new VarBinaryBuilder(field, path, allocator);
            case ArrowType.FixedSizeBinary w -> new FixedSizeBinaryBuilder(field, path, allocator);
            case ArrowType.Struct s -> new StructBuilder(field, path, allocator);
            case ArrowType.List l when !l.large() -> new ListBuilder(field, path, allocator);
            case ArrowType.Map m -> new MapBuilder(field, path, allocator);
            default -> throw unsupported(field, path);
        };
    }

    private static UnsupportedOperationException unsupported(ArrowField field, String path) {
        return new UnsupportedOperationException("no Arrow builder for type " + ArrowFormat.render(field.type())
                + (field.isDictionaryEncoded() ? " (dictionary-encoded)" : "") + " of field '" + path + "'");
    }

    /** The dotted path of a child field, as error messages name it. */
    static String childPath(String parentPath, ArrowField child) {
        return parentPath.isEmpty() ? child.name() : parentPath + "." + child.name();
    }

    public final ArrowField field() {
        return field;
    }

    /** The field's dotted path from the root builder, e.g. {@code order.items.element.price}. */
    public final String path() {
        return path;
    }

    /** Values (nulls included) in the current batch. */
    public final int length() {
        return length;
    }

    public final int nullCount() {
        return nullCount;
    }

    /**
     * Appends a null.
     *
     * @throws IllegalArgumentException if the field is not nullable
     */
    public void appendNull() {
        if (!field.nullable()) {
            throw new IllegalArgumentException("field '" + displayPath() + "' is NOT NULL but got a null");
        }
        int slot = length;
        ensureCapacity(slot + 1);
        if (validity == null) {
            validity = BitBuffer.allocateWithPrefixSet(allocator, capacity, slot);
        }
        validity.clear(slot);
        writeNullSlot(slot);
        nullCount++;
        length = slot + 1;
    }

    /**
     * Appends a non-null placeholder (zero, empty, all children empty): what a non-nullable child
     * holds under a null struct slot, where Arrow consumers expect no null.
     */
    abstract void appendEmpty();

    /** Fills the slot of a null with whatever keeps the layout valid (zeros, a repeated offset). */
    abstract void writeNullSlot(int slot);

    /**
     * Claims the next slot for a non-null value and returns its index; the caller writes the
     * value into the slot-indexed buffers, which have room for it.
     */
    final int appendValidSlot() {
        int slot = length;
        if (slot == capacity) {
            ensureCapacity(slot + 1);
        }
        if (validity != null) {
            validity.set(slot);
        }
        length = slot + 1;
        return slot;
    }

    final void ensureCapacity(int slots) {
        if (slots <= capacity) {
            return;
        }
        long doubled = Math.max((long) capacity * 2, capacityHint);
        int newCapacity = (int) Math.min(MAX_CAPACITY, Math.max(slots, doubled));
        if (newCapacity < slots) {
            throw new IllegalStateException(
                    "field '" + displayPath() + "' cannot hold more than " + MAX_CAPACITY + " values in one batch");
        }
        growSlots(newCapacity);
        if (validity != null) {
            validity.grow(newCapacity, length);
        }
        capacity = newCapacity;
    }

    /** Grows the slot-indexed buffers other than validity to {@code newCapacity} slots, keeping the values. */
    abstract void growSlots(int newCapacity);

    /** Discards the current batch, keeping the buffers for the next one. */
    public void reset() {
        length = 0;
        nullCount = 0;
        resetContents();
    }

    /** Resets what the subclass tracks beyond the slots (data ends, children). */
    abstract void resetContents();

    /**
     * Drops the values from {@code newLength} on: the batch becomes what it was when it held
     * {@code newLength} values. Children and data buffers follow the offsets, so a partly appended
     * row disappears entirely.
     */
    public final void truncate(int newLength) {
        if (newLength < length) {
            if (validity != null) {
                nullCount -= validity.countClear(newLength, length);
            }
            length = newLength;
        }
        truncateContents(newLength);
    }

    abstract void truncateContents(int newLength);

    /**
     * Hands the current batch over: the returned array owns every buffer (close it, or export
     * it), and this builder starts an empty batch with fresh buffers of the same capacity.
     *
     * @throws IllegalStateException if a nested builder is incomplete (a struct child of another
     *     length than the struct), naming the field; nothing is handed over then
     */
    public final FinishedArray finish() {
        prepareFinish();
        return detach();
    }

    /**
     * Everything {@link #finish} can fail at, done before anything is handed over: checks, and
     * the buffers of an empty batch (a consumer expects an offsets buffer holding 0, for example).
     */
    void prepareFinish() {
        ensureCapacity(1);
    }

    final FinishedArray detach() {
        List<NativeBuffer> buffers = new ArrayList<>(3);
        takeBuffers(buffers);
        FinishedArray array =
                new FinishedArray(field, length, nullCount, buffers, detachChildren(), allocator.tracker());
        capacityHint = Math.max(capacity, MIN_CAPACITY);
        length = 0;
        nullCount = 0;
        capacity = 0;
        validity = null;
        return array;
    }

    /**
     * Moves this array's buffers, in Arrow's order, into {@code buffers} and forgets them, along
     * with anything that described their contents (a data end).
     */
    abstract void takeBuffers(List<NativeBuffer> buffers);

    /** The validity bitmap for {@link #takeBuffers}: {@code null} when the batch has no nulls. */
    final NativeBuffer takeValidity() {
        NativeBuffer taken = validity == null ? null : validity.buffer();
        validity = null;
        return taken;
    }

    List<FinishedArray> detachChildren() {
        return List.of();
    }

    /** Frees every buffer this builder (and its children) still owns; the builder can be reused. */
    @Override
    public void close() {
        if (validity != null) {
            validity.free();
            validity = null;
        }
        freeBuffers();
        length = 0;
        nullCount = 0;
        capacity = 0;
        resetContents();
    }

    abstract void freeBuffers();

    /** The field's path from the batch's root, as error messages name it. */
    public final String displayPath() {
        return path.isEmpty() ? "(root)" : path;
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "[" + displayPath() + " " + ArrowFormat.render(field.type()) + ", " + length
                + " values, " + nullCount + " nulls, capacity " + capacity + "]";
    }
}
