package dev.isthmus.arrow.builder;

import dev.isthmus.arrow.types.ArrowField;

/**
 * Arrow maps ({@code +m}): a list of non-null {@code entries} structs of a key and a value.
 * Append each entry's key to {@link #keys()} and value to {@link #values()}, then call
 * {@link #endMap()}; {@link #appendNull()} appends a null map.
 */
public final class MapBuilder extends OffsetListBuilder {
    private final StructBuilder entries;

    MapBuilder(ArrowField field, String path, BufferAllocator allocator) {
        super(field, path, allocator);
        this.entries = (StructBuilder) child;
    }

    public ArrowBuilder keys() {
        return entries.child(0);
    }

    public ArrowBuilder values() {
        return entries.child(1);
    }

    /**
     * Appends a map of the keys and values appended since the previous map ended.
     *
     * @throws IllegalStateException naming the field if keys and values differ in number
     */
    public void endMap() {
        int pending = keys().length();
        if (values().length() != pending) {
            throw new IllegalStateException(
                    "map '" + displayPath() + "' has " + pending + " keys but " + values().length() + " values");
        }
        while (entries.length() < pending) {
            entries.append();
        }
        endEntry();
    }
}
