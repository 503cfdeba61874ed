package dev.isthmus.arrow.builder;

import dev.isthmus.arrow.types.ArrowField;

/**
 * Arrow lists ({@code +l}). Append a list's elements to {@link #elements()}, then call
 * {@link #endList()}; {@link #appendNull()} appends a null list.
 */
public final class ListBuilder extends OffsetListBuilder {
    ListBuilder(ArrowField field, String path, BufferAllocator allocator) {
        super(field, path, allocator);
    }

    /** The builder of every list's elements. */
    public ArrowBuilder elements() {
        return child;
    }

    /** Appends a list of the elements appended since the previous list ended (possibly none). */
    public void endList() {
        endEntry();
    }
}
