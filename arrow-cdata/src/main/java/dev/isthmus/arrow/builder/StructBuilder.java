package dev.isthmus.arrow.builder;

import dev.isthmus.arrow.types.ArrowField;
import java.util.List;

/**
 * Arrow structs: a validity bitmap and one child builder per field, all of the struct's length.
 * For a non-null struct, append each field's value to its child and call {@link #append()} (in
 * either order); {@link #appendNull()} fills every child itself.
 */
public final class StructBuilder extends ArrowBuilder {
    private final ArrowBuilder[] children;

    StructBuilder(ArrowField field, String path, BufferAllocator allocator) {
        super(field, path, allocator);
        this.children = new ArrowBuilder[field.children().size()];
        for (int i = 0; i < children.length; i++) {
            ArrowField child = field.child(i);
            children[i] = ArrowBuilder.create(child, childPath(path, child), allocator);
        }
    }

    public int childCount() {
        return children.length;
    }

    public ArrowBuilder child(int i) {
        return children[i];
    }

    /** Appends a non-null struct whose field values are (or will be) appended to the children. */
    public void append() {
        appendValidSlot();
    }

    /**
     * Under a null struct each child gets a null, or an empty value if it is not nullable:
     * consumers check that a non-nullable child holds no null, whatever its parent holds.
     */
    @Override
    void writeNullSlot(int slot) {
        for (ArrowBuilder child : children) {
            if (child.field().nullable()) {
                child.appendNull();
            } else {
                child.appendEmpty();
            }
        }
    }

    @Override
    void appendEmpty() {
        for (ArrowBuilder child : children) {
            child.appendEmpty();
        }
        appendValidSlot();
    }

    @Override
    void growSlots(int newCapacity) {
        // Only the validity bitmap is indexed by the struct's slots; the children grow by themselves.
    }

    @Override
    void resetContents() {
        for (ArrowBuilder child : children) {
            child.reset();
        }
    }

    @Override
    void truncateContents(int newLength) {
        for (ArrowBuilder child : children) {
            child.truncate(newLength);
        }
    }

    @Override
    void prepareFinish() {
        super.prepareFinish();
        for (ArrowBuilder child : children) {
            if (child.length() != length) {
                throw new IllegalStateException(
                        "struct '" + displayPath() + "' has " + length + " values but its field '" + child.displayPath()
                                + "' has " + child.length() + "; append a value (or null) to every field");
            }
            child.prepareFinish();
        }
    }

    @Override
    void copyBuffers(List<NativeBuffer> buffers) {
        buffers.add(copyValidity());
    }

    @Override
    void copyChildren(List<FinishedArray> finished) {
        for (ArrowBuilder child : children) {
            finished.add(child.copyOut());
        }
    }

    @Override
    void freeBuffers() {
        for (ArrowBuilder child : children) {
            child.close();
        }
    }
}
