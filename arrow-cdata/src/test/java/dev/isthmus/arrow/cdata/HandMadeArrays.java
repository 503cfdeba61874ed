package dev.isthmus.arrow.cdata;

import dev.isthmus.ffm.gen.ArrowArray;
import dev.isthmus.ffm.gen.ArrowSchema;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A minimal Arrow producer written by hand for import tests, independent of the library's
 * exporters: structs and buffers in a test arena, release callbacks that count their calls and
 * release children still in place, as the specification requires of a producer.
 */
final class HandMadeArrays {
    static final AtomicInteger ARRAY_RELEASES = new AtomicInteger();
    static final AtomicInteger SCHEMA_RELEASES = new AtomicInteger();
    /** Run by every top-level array release before it frees anything: tests observe the consumer then. */
    static volatile Runnable onArrayRelease = () -> {};

    private static final MemorySegment RELEASE_ARRAY =
            ArrowArray.release.allocate(HandMadeArrays::releaseArray, Arena.global());
    private static final MemorySegment RELEASE_SCHEMA =
            ArrowSchema.release.allocate(HandMadeArrays::releaseSchema, Arena.global());

    private final Arena arena;

    HandMadeArrays(Arena arena) {
        this.arena = arena;
    }

    @SuppressWarnings("restricted")
    private static void releaseArray(MemorySegment array) {
        onArrayRelease.run();
        MemorySegment struct = array.reinterpret(ArrowArray.sizeof());
        long n = ArrowArray.n_children(struct);
        MemorySegment children = ArrowArray.children(struct).reinterpret(n * ValueLayout.ADDRESS.byteSize());
        for (long i = 0; i < n; i++) {
            MemorySegment child = children.getAtIndex(ValueLayout.ADDRESS, i).reinterpret(ArrowArray.sizeof());
            if (!ArrowArray.release(child).equals(MemorySegment.NULL)) {
                releaseArray(child);
            }
        }
        MemorySegment dictionary = ArrowArray.dictionary(struct);
        if (!dictionary.equals(MemorySegment.NULL)) {
            MemorySegment d = dictionary.reinterpret(ArrowArray.sizeof());
            if (!ArrowArray.release(d).equals(MemorySegment.NULL)) {
                releaseArray(d);
            }
        }
        ArrowArray.release(struct, MemorySegment.NULL);
        ARRAY_RELEASES.incrementAndGet();
    }

    @SuppressWarnings("restricted")
    private static void releaseSchema(MemorySegment schema) {
        MemorySegment struct = schema.reinterpret(ArrowSchema.sizeof());
        long n = ArrowSchema.n_children(struct);
        MemorySegment children = ArrowSchema.children(struct).reinterpret(n * ValueLayout.ADDRESS.byteSize());
        for (long i = 0; i < n; i++) {
            MemorySegment child = children.getAtIndex(ValueLayout.ADDRESS, i).reinterpret(ArrowSchema.sizeof());
            if (!ArrowSchema.release(child).equals(MemorySegment.NULL)) {
                releaseSchema(child);
            }
        }
        MemorySegment dictionary = ArrowSchema.dictionary(struct);
        if (!dictionary.equals(MemorySegment.NULL)) {
            MemorySegment d = dictionary.reinterpret(ArrowSchema.sizeof());
            if (!ArrowSchema.release(d).equals(MemorySegment.NULL)) {
                releaseSchema(d);
            }
        }
        ArrowSchema.release(struct, MemorySegment.NULL);
        SCHEMA_RELEASES.incrementAndGet();
    }

    MemorySegment schema(String format, String name, long flags, MemorySegment... children) {
        return schemaWith(format, name, flags, MemorySegment.NULL, children);
    }

    /** A dictionary-encoded field: {@code format} is the index type, {@code dictionary} the values' schema. */
    MemorySegment dictionarySchema(String format, String name, long flags, MemorySegment dictionary) {
        return schemaWith(format, name, flags, dictionary);
    }

    private MemorySegment schemaWith(
            String format, String name, long flags, MemorySegment dictionary, MemorySegment... children) {
        MemorySegment s = ArrowSchema.allocate(arena);
        ArrowSchema.format(s, arena.allocateFrom(format));
        ArrowSchema.name(s, arena.allocateFrom(name));
        ArrowSchema.flags(s, flags);
        ArrowSchema.n_children(s, children.length);
        ArrowSchema.children(s, pointers(children));
        ArrowSchema.dictionary(s, dictionary);
        ArrowSchema.release(s, RELEASE_SCHEMA);
        return s;
    }

    MemorySegment array(long length, long nullCount, long offset, MemorySegment[] buffers, MemorySegment... children) {
        return arrayWith(length, nullCount, offset, buffers, MemorySegment.NULL, children);
    }

    MemorySegment dictionaryArray(
            long length, long nullCount, long offset, MemorySegment[] indexBuffers, MemorySegment dictionary) {
        return arrayWith(length, nullCount, offset, indexBuffers, dictionary);
    }

    private MemorySegment arrayWith(
            long length,
            long nullCount,
            long offset,
            MemorySegment[] buffers,
            MemorySegment dictionary,
            MemorySegment... children) {
        MemorySegment a = ArrowArray.allocate(arena);
        ArrowArray.length(a, length);
        ArrowArray.null_count(a, nullCount);
        ArrowArray.offset(a, offset);
        ArrowArray.n_buffers(a, buffers.length);
        ArrowArray.buffers(a, pointers(buffers));
        ArrowArray.n_children(a, children.length);
        ArrowArray.children(a, pointers(children));
        ArrowArray.dictionary(a, dictionary);
        ArrowArray.release(a, RELEASE_ARRAY);
        return a;
    }

    /** Copies a filled struct into the out-struct a consumer handed us, as a producer would. */
    static void move(MemorySegment from, MemorySegment to) {
        MemorySegment.copy(from, 0, to, 0, to.byteSize());
        ArrowArray.release(from, MemorySegment.NULL);
    }

    static void moveSchema(MemorySegment from, MemorySegment to) {
        MemorySegment.copy(from, 0, to, 0, to.byteSize());
        ArrowSchema.release(from, MemorySegment.NULL);
    }

    MemorySegment validity(boolean... valid) {
        MemorySegment bits = arena.allocate(Math.max(1, (valid.length + 7) / 8));
        for (int i = 0; i < valid.length; i++) {
            if (valid[i]) {
                bits.set(
                        ValueLayout.JAVA_BYTE, i / 8, (byte) (bits.get(ValueLayout.JAVA_BYTE, i / 8) | (1 << (i % 8))));
            }
        }
        return bits;
    }

    MemorySegment longs(long... values) {
        return arena.allocateFrom(ValueLayout.JAVA_LONG, values);
    }

    MemorySegment ints(int... values) {
        return arena.allocateFrom(ValueLayout.JAVA_INT, values);
    }

    MemorySegment bytes(byte[] values) {
        return arena.allocateFrom(ValueLayout.JAVA_BYTE, values);
    }

    private MemorySegment pointers(MemorySegment[] targets) {
        if (targets.length == 0) {
            return MemorySegment.NULL;
        }
        MemorySegment p = arena.allocate(ValueLayout.ADDRESS, targets.length);
        for (int i = 0; i < targets.length; i++) {
            p.setAtIndex(ValueLayout.ADDRESS, i, targets[i] == null ? MemorySegment.NULL : targets[i]);
        }
        return p;
    }
}
