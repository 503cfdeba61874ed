package dev.isthmus.arrow.builder;

import dev.isthmus.arrow.types.ArrowField;
import dev.isthmus.arrow.types.ArrowFormat;
import dev.isthmus.arrow.types.ArrowType;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Builds one Arrow array, value by value, for one {@link ArrowField}; nested types hold one
 * builder per child field. {@link #forField} picks the builder for a field.
 *
 * <p>A batch's life: appends, then either {@link #finish()}, which copies the batch into native
 * buffers of its size (a string field's bytes, but for the last few kilobytes, are in a native
 * buffer already, grown by doubling, which goes along) and hands them to the returned
 * {@link FinishedArray} (the builder keeps no reference to them), or {@link #reset()}, which
 * discards the values. Either way the builder keeps its staging for the next batch, so a steady
 * stream of similar batches never grows it. {@link #close()} frees whatever the builder still
 * owns.
 *
 * <p>Why staged: the values, offsets and validity bits of a batch are written to Java arrays
 * and copied out once per batch, one bulk copy per buffer. Every write to a native segment
 * carries the FFM API's checks, which C2 inlines as hundreds of nodes each, and appends written
 * straight to native memory grew too large to inline into the row's writers
 * ({@code docs/benchmarks.md}, Nested columns, has the measurement). The staging is bounded by
 * the batch's values (a list's or map's elements are values of its child) times their fixed
 * width, and keeps its largest size until the builder is closed. A string or binary field's
 * bytes, which have no such bound, pass through a small staging array into native memory as
 * they come ({@link VarBinaryBuilder}), where the allocator's tracker counts them.
 *
 * <p>Staging grows by doubling. The validity bitmap is made on the field's first null, and never
 * for a field that is not nullable: appending a null there fails, naming the field. A batch
 * without nulls exports none, as the C Data Interface allows.
 *
 * <p>Not thread-safe: one thread appends to a builder at a time.
 */
public abstract class ArrowBuilder implements AutoCloseable {
    /** Slots the staging starts with, so tiny batches do not grow many times. */
    static final int MIN_CAPACITY = 64;

    /** The longest array the JDK's own collections make (its soft maximum). */
    static final int MAX_ARRAY_LENGTH = Integer.MAX_VALUE - 8;

    /** The most slots a batch can hold: offsets staging holds one more than the slots. */
    private static final int MAX_CAPACITY = MAX_ARRAY_LENGTH - 1;

    final ArrowField field;
    final String path;
    final BufferAllocator allocator;
    /** Values appended to the current batch. */
    int length;

    int nullCount;
    /** Slots every slot-indexed staging array (validity, values, offsets) holds without growing. */
    int capacity;
    /** {@code null} until the field's first null; then kept, and set for every value appended. */
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
            validity = BitBuffer.withPrefixSet(capacity, slot);
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
        int max = maxSlots();
        long doubled = Math.max((long) capacity * 2, MIN_CAPACITY);
        int newCapacity = (int) Math.min(max, Math.max(slots, doubled));
        if (newCapacity < slots) {
            throw new IllegalArgumentException("field '" + displayPath() + "' cannot hold more than " + max
                    + " values in one batch; finish the batch (it holds " + length
                    + ") and append the rest to the next");
        }
        growSlots(newCapacity);
        if (validity != null) {
            validity.grow(newCapacity);
        }
        capacity = newCapacity;
    }

    /** The most slots this builder's staging can hold. */
    int maxSlots() {
        return MAX_CAPACITY;
    }

    /** Grows the slot-indexed staging other than validity to {@code newCapacity} slots, keeping the values. */
    abstract void growSlots(int newCapacity);

    /** Discards the current batch, keeping the staging and buffers for the next one. */
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
     * Hands the current batch over: the returned array owns native copies of its buffers (close
     * it, or export it), and this builder starts an empty batch.
     *
     * @throws IllegalStateException if a nested builder is incomplete (a struct child of another
     *     length than the struct), naming the field; nothing is handed over and the batch is kept
     * @throws dev.isthmus.arrow.memory.MemoryLimitExceededException if the native buffers pass the
     *     allocator's tracker's cap. Then, as when the C allocator fails ({@link OutOfMemoryError}),
     *     the batch is discarded and nothing the copy allocated is left (string fields the copy had
     *     not reached keep their data buffers until {@link #close()} or the next batch)
     */
    public final FinishedArray finish() {
        prepareFinish();
        try {
            return copyOut();
        } finally {
            reset();
        }
    }

    /**
     * Everything {@link #finish} can fail at before it allocates: checks, and the staging of an
     * empty batch (a consumer expects an offsets buffer holding 0, for example).
     */
    void prepareFinish() {
        ensureCapacity(1);
    }

    /**
     * This batch in native buffers. If an allocation fails, whatever this call allocated, or took
     * from the builder (a string field's data buffer), is freed before the failure travels on,
     * and {@link #finish()} discards the batch.
     */
    final FinishedArray copyOut() {
        List<NativeBuffer> buffers = new ArrayList<>(3);
        List<FinishedArray> children = new ArrayList<>();
        try {
            copyBuffers(buffers);
            copyChildren(children);
        } catch (RuntimeException | Error e) {
            for (NativeBuffer buffer : buffers) {
                if (buffer != null) {
                    buffer.free();
                }
            }
            for (FinishedArray child : children) {
                child.close();
            }
            throw e;
        }
        return new FinishedArray(field, length, nullCount, buffers, children, allocator.tracker());
    }

    /**
     * Adds this array's buffers, in Arrow's order, to {@code buffers}, each as soon as it is
     * allocated (so a later failure frees it): native copies of the staging, or a native buffer
     * the builder then forgets.
     */
    abstract void copyBuffers(List<NativeBuffer> buffers);

    /** The validity bitmap for {@link #copyBuffers}: {@code null} when the batch has no nulls. */
    final NativeBuffer copyValidity() {
        return nullCount == 0 ? null : validity.copyOut(allocator, length);
    }

    /** Adds each child's {@link #copyOut()} to {@code children}, as soon as it is made. */
    void copyChildren(List<FinishedArray> children) {
        // No children.
    }

    /**
     * Frees every buffer this builder (and its children) still owns and drops the staging; the
     * builder can be reused.
     */
    @Override
    public void close() {
        validity = null;
        freeBuffers();
        length = 0;
        nullCount = 0;
        capacity = 0;
        resetContents();
    }

    /** Frees native buffers the builder holds and drops its staging arrays. */
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
