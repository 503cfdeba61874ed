package dev.isthmus.arrow.builder;

import dev.isthmus.arrow.memory.MemoryTracker;
import dev.isthmus.arrow.types.ArrowField;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * A batch that a builder has finished: the field, the counts and the buffers of one Arrow array
 * and its children, owned by this object until {@link #handOver()} (an export takes them) or
 * {@link #close()} (they are freed). Only the root of the tree is handed over or closed.
 */
public final class FinishedArray implements AutoCloseable {
    private final ArrowField field;
    private final int length;
    private final int nullCount;
    private final List<NativeBuffer> buffers;
    private final List<FinishedArray> children;
    private final MemoryTracker tracker;
    private boolean owned = true;

    FinishedArray(
            ArrowField field,
            int length,
            int nullCount,
            List<NativeBuffer> buffers,
            List<FinishedArray> children,
            MemoryTracker tracker) {
        this.field = field;
        this.length = length;
        this.nullCount = nullCount;
        this.buffers = Collections.unmodifiableList(buffers); // may hold null: an absent validity bitmap
        this.children = List.copyOf(children);
        this.tracker = tracker;
    }

    public ArrowField field() {
        return field;
    }

    public int length() {
        return length;
    }

    public int nullCount() {
        return nullCount;
    }

    /**
     * The buffers in the C Data Interface's order (validity first where the type has one);
     * an entry is {@code null} for a validity bitmap the batch does not need.
     */
    public List<NativeBuffer> buffers() {
        requireOwned();
        return buffers;
    }

    public List<FinishedArray> children() {
        return children;
    }

    /** The tracker that counted the buffers' memory; an export counts the array there too. */
    public MemoryTracker tracker() {
        return tracker;
    }

    /**
     * Transfers every buffer of this tree to the caller, which frees each exactly once; this
     * object no longer owns or frees them.
     *
     * @throws IllegalStateException if the buffers were already handed over or freed
     */
    public List<NativeBuffer> handOver() {
        requireOwned();
        List<NativeBuffer> all = new ArrayList<>();
        collect(all);
        return all;
    }

    private void collect(List<NativeBuffer> all) {
        owned = false;
        for (NativeBuffer buffer : buffers) {
            if (buffer != null) {
                all.add(buffer);
            }
        }
        for (FinishedArray child : children) {
            child.collect(all);
        }
    }

    /** Frees the buffers unless they were handed over. A second call does nothing. */
    @Override
    public void close() {
        if (owned) {
            for (NativeBuffer buffer : handOver()) {
                buffer.free();
            }
        }
    }

    private void requireOwned() {
        if (!owned) {
            throw new IllegalStateException(
                    "the buffers of '" + field.name() + "' were handed over (exported) or freed");
        }
    }

    @Override
    public String toString() {
        return "FinishedArray[" + field.name() + ", " + length + " values, " + nullCount + " nulls, " + children.size()
                + " children" + (owned ? "" : ", handed over") + "]";
    }
}
