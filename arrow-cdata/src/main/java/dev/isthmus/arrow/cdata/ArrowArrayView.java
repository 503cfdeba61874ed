package dev.isthmus.arrow.cdata;

import dev.isthmus.arrow.types.ArrowField;
import dev.isthmus.arrow.types.ArrowType;
import dev.isthmus.ffm.gen.ArrowArray;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * A read-only view of one imported Arrow array and its children, with every buffer a
 * {@link MemorySegment} over the producer's memory, bounded to the bytes the array's type,
 * offset and length imply and scoped to the arena of the owning {@link ImportedArray}: once that
 * arena is closed, any access throws {@link IllegalStateException}. It closes with the array for
 * an array imported on its own or with {@link CheckedBatches} on; a scan's batch shares it with its
 * run ({@link ImportArenas}), and until the run ends a view of a closed batch reads whatever the
 * producer wrote there since (docs/ownership.md).
 *
 * <p>Offsets here are the array's own; a struct's offset also applies to its children, which
 * consumers add themselves (see {@code ArrowVectors}).
 */
public final class ArrowArrayView {
    private static final int MAX_DEPTH = 64;

    private final ArrowField field;
    private final String path;
    private final long length;
    private final long nullCount;
    private final long offset;
    private final MemorySegment[] buffers;
    private final ArrowArrayView[] children;
    private final ArrowArrayView dictionary;

    private ArrowArrayView(
            ArrowField field,
            String path,
            long length,
            long nullCount,
            long offset,
            MemorySegment[] buffers,
            ArrowArrayView[] children,
            ArrowArrayView dictionary) {
        this.field = field;
        this.path = path;
        this.length = length;
        this.nullCount = nullCount;
        this.offset = offset;
        this.buffers = buffers;
        this.children = children;
        this.dictionary = dictionary;
    }

    public ArrowField field() {
        return field;
    }

    /** Dotted path of this array in the schema, for messages. */
    public String path() {
        return path;
    }

    public long length() {
        return length;
    }

    /** The producer's null count; -1 means it did not compute one. */
    public long nullCount() {
        return nullCount;
    }

    public long offset() {
        return offset;
    }

    /** The validity bitmap, or {@code null} when the array has no nulls. */
    public MemorySegment validity() {
        return buffers.length == 0 ? null : buffers[0];
    }

    /** Buffer {@code i} in the specification's order (0 is the validity bitmap). */
    public MemorySegment buffer(int i) {
        return buffers[i];
    }

    /** How many buffers {@link #buffer(int)} has, the validity bitmap included. */
    public int bufferCount() {
        return buffers.length;
    }

    public int childCount() {
        return children.length;
    }

    public ArrowArrayView child(int i) {
        return children[i];
    }

    /** For a dictionary-encoded array, the dictionary's values; else {@code null}. */
    public ArrowArrayView dictionary() {
        return dictionary;
    }

    /** Reads {@code array} as described by {@code field}, scoping every buffer to {@code scope}. */
    static ArrowArrayView read(MemorySegment array, ArrowField field, Arena scope) {
        return read(array, field, scope, field.name(), 0);
    }

    @SuppressWarnings("restricted")
    private static ArrowArrayView read(MemorySegment array, ArrowField field, Arena scope, String path, int depth) {
        if (depth > MAX_DEPTH) {
            throw invalid(path, "nested deeper than " + MAX_DEPTH);
        }
        long length = ArrowArray.length(array);
        long nullCount = ArrowArray.null_count(array);
        long offset = ArrowArray.offset(array);
        if (length < 0 || offset < 0 || nullCount < -1 || nullCount > length) {
            throw invalid(path, "length " + length + ", offset " + offset + ", null_count " + nullCount);
        }
        long end = Math.addExact(offset, length);
        ArrowType type = field.isDictionaryEncoded() ? field.dictionaryIndex() : field.type();
        int expectedBuffers = bufferCount(type);
        if (ArrowArray.n_buffers(array) != expectedBuffers) {
            throw invalid(
                    path,
                    "n_buffers is " + ArrowArray.n_buffers(array) + " but type " + type + " has " + expectedBuffers);
        }
        int expectedChildren =
                field.isDictionaryEncoded() ? 0 : field.children().size();
        if (ArrowArray.n_children(array) != expectedChildren) {
            throw invalid(
                    path, "n_children is " + ArrowArray.n_children(array) + " but the schema has " + expectedChildren);
        }

        MemorySegment pointers = expectedBuffers == 0
                ? MemorySegment.NULL
                : ArrowArray.buffers(array).reinterpret(expectedBuffers * ValueLayout.ADDRESS.byteSize());
        MemorySegment[] buffers = new MemorySegment[expectedBuffers];
        if (expectedBuffers > 0) {
            // Validity: optional when there are no nulls.
            MemorySegment validity = pointers.getAtIndex(ValueLayout.ADDRESS, 0);
            if (!validity.equals(MemorySegment.NULL) && nullCount != 0) {
                buffers[0] = validity.reinterpret((end + 7) / 8, scope, null);
            } else if (nullCount > 0) {
                throw invalid(path, "null_count is " + nullCount + " but the validity buffer is NULL");
            }
        }
        switch (type) {
            case ArrowType.Utf8 u -> readVariable(pointers, buffers, end, u.large(), scope, path);
            case ArrowType.Binary b -> readVariable(pointers, buffers, end, b.large(), scope, path);
            case ArrowType.List l -> buffers[1] = offsets(pointers, end, l.large(), scope, path);
            case ArrowType.Map m -> buffers[1] = offsets(pointers, end, false, scope, path);
            case ArrowType.FixedWidth f -> buffers[1] = data(pointers, 1, bytesFor(end, f.bitWidth()), scope, path);
            default -> {}
        }

        ArrowArrayView[] children = new ArrowArrayView[expectedChildren];
        if (expectedChildren > 0) {
            MemorySegment childPointers =
                    ArrowArray.children(array).reinterpret(expectedChildren * ValueLayout.ADDRESS.byteSize());
            for (int i = 0; i < expectedChildren; i++) {
                ArrowField childField = field.child(i);
                MemorySegment child =
                        childPointers.getAtIndex(ValueLayout.ADDRESS, i).reinterpret(ArrowArray.sizeof());
                children[i] = read(child, childField, scope, path + "." + childField.name(), depth + 1);
            }
            requireChildLengths(field.type(), buffers, end, children, path);
        }

        ArrowArrayView dictionary = null;
        MemorySegment dictionaryPointer = ArrowArray.dictionary(array);
        if (field.isDictionaryEncoded()) {
            if (dictionaryPointer.equals(MemorySegment.NULL)) {
                throw invalid(path, "is dictionary-encoded but has no dictionary array");
            }
            ArrowField values = new ArrowField(field.name(), field.type(), true, field.children(), null);
            dictionary = read(
                    dictionaryPointer.reinterpret(ArrowArray.sizeof()),
                    values,
                    scope,
                    path + "<dictionary>",
                    depth + 1);
        } else if (!dictionaryPointer.equals(MemorySegment.NULL)) {
            throw invalid(path, "has a dictionary array but its schema is not dictionary-encoded");
        }
        return new ArrowArrayView(field, path, length, nullCount, offset, buffers, children, dictionary);
    }

    private static int bufferCount(ArrowType type) {
        return switch (type) {
            case ArrowType.Null n -> 0;
            case ArrowType.Struct s -> 1;
            case ArrowType.Utf8 u -> 3;
            case ArrowType.Binary b -> 3;
            default -> 2;
        };
    }

    private static long bytesFor(long values, int bitWidth) {
        return (Math.multiplyExact(values, bitWidth) + 7) / 8;
    }

    @SuppressWarnings("restricted")
    private static MemorySegment data(MemorySegment pointers, int index, long bytes, Arena scope, String path) {
        MemorySegment pointer = pointers.getAtIndex(ValueLayout.ADDRESS, index);
        if (pointer.equals(MemorySegment.NULL)) {
            if (bytes != 0) {
                throw invalid(path, "buffer " + index + " is NULL but must hold " + bytes + " bytes");
            }
            return MemorySegment.NULL;
        }
        return pointer.reinterpret(bytes, scope, null);
    }

    private static MemorySegment offsets(MemorySegment pointers, long end, boolean large, Arena scope, String path) {
        long width = large ? 8 : 4;
        // A zero-length array may omit its offsets entirely.
        MemorySegment pointer = pointers.getAtIndex(ValueLayout.ADDRESS, 1);
        if (end == 0 && pointer.equals(MemorySegment.NULL)) {
            return MemorySegment.NULL;
        }
        return data(pointers, 1, Math.multiplyExact(end + 1, width), scope, path);
    }

    private static void readVariable(
            MemorySegment pointers, MemorySegment[] buffers, long end, boolean large, Arena scope, String path) {
        MemorySegment offsets = offsets(pointers, end, large, scope, path);
        buffers[1] = offsets;
        long last = offsets.byteSize() == 0 ? 0 : offsetAt(offsets, end, large);
        if (last < 0) {
            throw invalid(path, "last offset " + last + " is negative");
        }
        buffers[2] = data(pointers, 2, last, scope, path);
    }

    static long offsetAt(MemorySegment offsets, long index, boolean large) {
        return large
                ? offsets.getAtIndex(ValueLayout.JAVA_LONG_UNALIGNED, index)
                : offsets.getAtIndex(ValueLayout.JAVA_INT_UNALIGNED, index);
    }

    /** Children must cover what the parent addresses, or reads would run past them. */
    private static void requireChildLengths(
            ArrowType type, MemorySegment[] buffers, long end, ArrowArrayView[] children, String path) {
        long needed = switch (type) {
            case ArrowType.Struct s -> end;
            case ArrowType.List l -> buffers[1].byteSize() == 0 ? 0 : offsetAt(buffers[1], end, l.large());
            case ArrowType.Map m -> buffers[1].byteSize() == 0 ? 0 : offsetAt(buffers[1], end, false);
            default -> 0;
        };
        for (ArrowArrayView child : children) {
            if (child.length < needed) {
                throw invalid(
                        child.path, "has length " + child.length + " but its parent addresses " + needed + " values");
            }
        }
    }

    private static IllegalArgumentException invalid(String path, String problem) {
        return new IllegalArgumentException("invalid Arrow array at '" + path + "': " + problem);
    }
}
