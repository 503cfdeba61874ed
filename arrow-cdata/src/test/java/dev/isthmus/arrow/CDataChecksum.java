package dev.isthmus.arrow;

import dev.isthmus.arrow.builder.FinishedArray;
import dev.isthmus.arrow.cdata.ArrowExporter;
import dev.isthmus.arrow.types.ArrowField;
import dev.isthmus.arrow.types.ArrowType;
import dev.isthmus.ffm.gen.ArrowArray;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The canonical checksum of docs/arrow-checksum.md read from a filled {@code ArrowArray} struct
 * through the generated accessors: a Java mirror of {@code isthmus_arrow_checksum} for tests that
 * check exports without the native library. It reads buffers by the sizes the layout implies, so
 * a struct with short buffers fails here rather than reading past them silently.
 */
public final class CDataChecksum {
    private CDataChecksum() {}

    /** Exports {@code batch}, checksums the exported struct, and releases it. */
    public static long ofExported(FinishedArray batch) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment array = ArrowArray.allocate(arena);
            ArrowExporter.exportArray(batch, array);
            try {
                return of(array, batch.field());
            } finally {
                ArrowArray.release.invoke(ArrowArray.release(array), array);
            }
        }
    }

    public static long of(MemorySegment array, ArrowField field) {
        ArrowChecksum.Fnv1a hash = new ArrowChecksum.Fnv1a();
        long length = ArrowArray.length(array);
        for (long i = 0; i < length; i++) {
            value(hash, array, field, i);
        }
        return hash.value();
    }

    @SuppressWarnings("restricted") // test code reading the structs it exported
    static MemorySegment struct(MemorySegment pointer) {
        return pointer.reinterpret(ArrowArray.sizeof());
    }

    /** Buffer {@code index} of {@code array}, {@code bytes} long; NULL stays NULL. */
    @SuppressWarnings("restricted")
    public static MemorySegment buffer(MemorySegment array, int index, long bytes) {
        MemorySegment pointers =
                ArrowArray.buffers(array).reinterpret(ArrowArray.n_buffers(array) * ValueLayout.ADDRESS.byteSize());
        MemorySegment buffer = pointers.getAtIndex(ValueLayout.ADDRESS, index);
        return buffer.equals(MemorySegment.NULL) ? buffer : buffer.reinterpret(bytes);
    }

    @SuppressWarnings("restricted")
    public static MemorySegment child(MemorySegment array, int index) {
        MemorySegment pointers =
                ArrowArray.children(array).reinterpret(ArrowArray.n_children(array) * ValueLayout.ADDRESS.byteSize());
        return struct(pointers.getAtIndex(ValueLayout.ADDRESS, index));
    }

    public static boolean isValid(MemorySegment array, long index) {
        long slot = ArrowArray.offset(array) + index;
        MemorySegment validity = buffer(array, 0, (slot >>> 3) + 1);
        return validity.equals(MemorySegment.NULL)
                || (validity.get(ValueLayout.JAVA_BYTE, slot >>> 3) & (1 << (slot & 7))) != 0;
    }

    /** Offsets entry {@code slot} (the array's offset already applied) of a list, map or string array. */
    public static int offset(MemorySegment array, long slot) {
        return buffer(array, 1, (slot + 1) * 4).getAtIndex(ValueLayout.JAVA_INT, slot);
    }

    private static void value(ArrowChecksum.Fnv1a hash, MemorySegment array, ArrowField field, long index) {
        if (field.type() instanceof ArrowType.Null || !isValid(array, index)) {
            hash.add(0);
            return;
        }
        hash.add(1);
        long slot = ArrowArray.offset(array) + index;
        switch (field.type()) {
            case ArrowType.Bool b ->
                hash.add(
                        (buffer(array, 1, (slot >>> 3) + 1).get(ValueLayout.JAVA_BYTE, slot >>> 3) >>> (slot & 7)) & 1);
            case ArrowType.FixedWidth w -> {
                int width = w.bitWidth() / 8;
                hash.add(buffer(array, 1, (slot + 1) * width)
                        .asSlice(slot * width, width)
                        .toArray(ValueLayout.JAVA_BYTE));
            }
            case ArrowType.Utf8 u -> bytes(hash, array, slot);
            case ArrowType.Binary b -> bytes(hash, array, slot);
            case ArrowType.Struct s -> {
                for (int c = 0; c < field.children().size(); c++) {
                    value(hash, child(array, c), field.child(c), slot);
                }
            }
            case ArrowType.List l -> elements(hash, array, field, slot);
            case ArrowType.Map m -> elements(hash, array, field, slot);
            case ArrowType.Null n -> throw new AssertionError("handled above");
        }
    }

    private static void bytes(ArrowChecksum.Fnv1a hash, MemorySegment array, long slot) {
        int start = offset(array, slot);
        int end = offset(array, slot + 1);
        hash.addLittleEndian(end - start, 8);
        hash.add(buffer(array, 2, end).asSlice(start, end - start).toArray(ValueLayout.JAVA_BYTE));
    }

    private static void elements(ArrowChecksum.Fnv1a hash, MemorySegment array, ArrowField field, long slot) {
        int start = offset(array, slot);
        int end = offset(array, slot + 1);
        hash.addLittleEndian(end - start, 8);
        MemorySegment child = child(array, 0);
        for (int j = start; j < end; j++) {
            value(hash, child, field.child(0), j);
        }
    }
}
