package dev.isthmus.arrow.cdata;

import dev.isthmus.arrow.builder.FinishedArray;
import dev.isthmus.arrow.builder.NativeBuffer;
import dev.isthmus.arrow.memory.MemoryTracker;
import dev.isthmus.arrow.types.ArrowField;
import dev.isthmus.arrow.types.ArrowFormat;
import dev.isthmus.arrow.types.ArrowType;
import dev.isthmus.ffm.gen.ArrowArray;
import dev.isthmus.ffm.gen.ArrowSchema;
import dev.isthmus.ffm.gen.isthmus_h;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;

/**
 * Exports finished batches through the Arrow C Data Interface into {@code ArrowArray} and
 * {@code ArrowSchema} structs the caller allocated, following docs/ownership.md ("Java produces,
 * Rust consumes"):
 *
 * <ul>
 *   <li>The export takes the batch's buffers over. Its child structs, the {@code buffers} and
 *       {@code children} pointer arrays (and a schema's strings) live in one shared arena per
 *       export, reference-counted by the export's structs.</li>
 *   <li>Every struct's {@code release} is the one upcall stub of its struct type, and its
 *       {@code private_data} an id that finds the export. Releasing a struct releases its
 *       children still in place (not moved out), sets {@code release} to NULL and drops one
 *       reference; the last reference closes the arena and frees the buffers. Releases may come
 *       from any thread, in any order of parent and moved-out children.</li>
 *   <li>An array export counts one array in the batch's {@link MemoryTracker} from export to last
 *       release, and the arena's bytes as memory; the buffers were counted when allocated. A
 *       capped tracker may refuse the arena's bytes: the export then fails whole, before the
 *       buffers are handed over, and leaves nothing counted or registered.</li>
 * </ul>
 *
 * The caller passes the filled structs to a consumer that moves them, or releases them itself
 * (calling {@code release} through {@link ArrowArray.release#invoke}).
 */
public final class ArrowExporter {
    private ArrowExporter() {}

    /**
     * Exports {@code array} into {@code outArray} and its field into {@code outSchema}: both or,
     * if anything fails, neither (the array then stays the caller's to close).
     */
    public static void export(FinishedArray array, MemorySegment outArray, MemorySegment outSchema) {
        exportSchema(array.field(), outSchema, array.tracker());
        try {
            exportArray(array, outArray);
        } catch (RuntimeException | Error e) {
            ArrowSchema.release.invoke(ArrowSchema.release(outSchema), outSchema);
            throw e;
        }
    }

    /**
     * Fills {@code out} with {@code array}, whose buffers now belong to the export.
     *
     * @throws IllegalArgumentException if {@code out} is too small or still holds a live struct
     * @throws IllegalStateException if the array was already exported or closed
     */
    public static void exportArray(FinishedArray array, MemorySegment out) {
        requireEmptyStruct(out, ExportKind.ARRAY);
        ExportArena arena = new ExportArena(array.tracker(), true);
        try {
            fillArray(array, out, arena);
            arena.account();
        } catch (RuntimeException | Error e) {
            abandon(arena, out, ExportKind.ARRAY);
            throw e;
        }
        // Cannot fail now: fillArray read the buffers, so the array is still the caller's to hand over.
        arena.publish(array.handOver());
    }

    /** Fills {@code out} with the schema of {@code field}, counting its memory in {@code tracker}. */
    public static void exportSchema(ArrowField field, MemorySegment out, MemoryTracker tracker) {
        requireEmptyStruct(out, ExportKind.SCHEMA);
        ExportArena arena = new ExportArena(tracker, false);
        try {
            fillSchema(field, out, arena);
            arena.account();
        } catch (RuntimeException | Error e) {
            abandon(arena, out, ExportKind.SCHEMA);
            throw e;
        }
        arena.publish(List.of());
    }

    /**
     * Takes back an export that failed: its structs leave the registry, and the caller's struct,
     * which a refused {@link ExportArena#account} finds filled, is emptied again (its release set
     * to NULL, as it was), so that nobody releases what was never handed out.
     */
    private static void abandon(ExportArena arena, MemorySegment out, ExportKind kind) {
        arena.abandon();
        kind.release(out, MemorySegment.NULL);
    }

    /** Releases that failed inside the release callback (logged; should stay 0). */
    public static long releaseFailures() {
        return ExportRelease.failures();
    }

    /** Exported structs (arrays, their children, schemas) whose release has not run yet. */
    public static int liveStructs() {
        return ExportRegistry.size();
    }

    private static void requireEmptyStruct(MemorySegment out, ExportKind kind) {
        if (out.byteSize() < kind.sizeof()) {
            throw new IllegalArgumentException("the output struct has " + out.byteSize() + " bytes; an Arrow "
                    + kind.name().toLowerCase() + " struct needs " + kind.sizeof());
        }
        if (!kind.release(out).equals(MemorySegment.NULL)) {
            throw new IllegalArgumentException("the output struct still holds a live Arrow "
                    + kind.name().toLowerCase() + " (its release is not NULL); release it first, or it would leak");
        }
    }

    /** Children first: {@code struct} (possibly the caller's) is written last, and only on success. */
    private static void fillArray(FinishedArray array, MemorySegment struct, ExportArena arena) {
        List<FinishedArray> children = array.children();
        MemorySegment[] childStructs = new MemorySegment[children.size()];
        MemorySegment childPointers = pointerArray(children.size(), arena);
        for (int i = 0; i < childStructs.length; i++) {
            childStructs[i] = arena.allocate(ArrowArray.layout());
            fillArray(children.get(i), childStructs[i], arena);
            childPointers.setAtIndex(ValueLayout.ADDRESS, i, childStructs[i]);
        }
        List<NativeBuffer> buffers = array.buffers();
        // Never NULL, even for n_buffers = 0: some consumers read the pointer before the count.
        MemorySegment bufferPointers = arena.allocate(ValueLayout.ADDRESS, Math.max(1, buffers.size()));
        for (int i = 0; i < buffers.size(); i++) {
            NativeBuffer buffer = buffers.get(i);
            bufferPointers.setAtIndex(
                    ValueLayout.ADDRESS,
                    i,
                    buffer == null ? MemorySegment.NULL : MemorySegment.ofAddress(buffer.address()));
        }
        long id = arena.register(ExportKind.ARRAY, childStructs);
        ArrowArray.length(struct, array.length());
        ArrowArray.null_count(struct, array.nullCount());
        ArrowArray.offset(struct, 0);
        ArrowArray.n_buffers(struct, buffers.size());
        ArrowArray.n_children(struct, children.size());
        ArrowArray.buffers(struct, bufferPointers);
        ArrowArray.children(struct, childPointers);
        ArrowArray.dictionary(struct, MemorySegment.NULL);
        ArrowArray.private_data(struct, MemorySegment.ofAddress(id));
        ArrowArray.release(struct, ExportRelease.ARRAY_CALLBACK);
    }

    private static void fillSchema(ArrowField field, MemorySegment struct, ExportArena arena) {
        // A dictionary-encoded field: this struct describes the indices, its dictionary the values.
        ArrowField values = field.isDictionaryEncoded()
                ? new ArrowField("", field.type(), field.nullable(), field.children(), null)
                : field;
        List<ArrowField> children = field.isDictionaryEncoded() ? List.of() : field.children();
        MemorySegment dictionary = MemorySegment.NULL;
        MemorySegment[] dependents = new MemorySegment[children.size() + (field.isDictionaryEncoded() ? 1 : 0)];
        MemorySegment childPointers = pointerArray(children.size(), arena);
        for (int i = 0; i < children.size(); i++) {
            dependents[i] = arena.allocate(ArrowSchema.layout());
            fillSchema(children.get(i), dependents[i], arena);
            childPointers.setAtIndex(ValueLayout.ADDRESS, i, dependents[i]);
        }
        if (field.isDictionaryEncoded()) {
            dictionary = arena.allocate(ArrowSchema.layout());
            fillSchema(values, dictionary, arena);
            dependents[children.size()] = dictionary;
        }
        ArrowType type = field.isDictionaryEncoded() ? field.dictionaryIndex() : field.type();
        long flags = (field.nullable() ? isthmus_h.ARROW_FLAG_NULLABLE() : 0)
                | (type instanceof ArrowType.Map map && map.keysSorted() ? isthmus_h.ARROW_FLAG_MAP_KEYS_SORTED() : 0);
        long id = arena.register(ExportKind.SCHEMA, dependents);
        ArrowSchema.format(struct, arena.allocateString(ArrowFormat.render(type)));
        ArrowSchema.name(struct, arena.allocateString(field.name()));
        ArrowSchema.metadata(struct, MemorySegment.NULL);
        ArrowSchema.flags(struct, flags);
        ArrowSchema.n_children(struct, children.size());
        ArrowSchema.children(struct, childPointers);
        ArrowSchema.dictionary(struct, dictionary);
        ArrowSchema.private_data(struct, MemorySegment.ofAddress(id));
        ArrowSchema.release(struct, ExportRelease.SCHEMA_CALLBACK);
    }

    private static MemorySegment pointerArray(int count, ExportArena arena) {
        return count == 0 ? MemorySegment.NULL : arena.allocate(ValueLayout.ADDRESS, count);
    }
}
