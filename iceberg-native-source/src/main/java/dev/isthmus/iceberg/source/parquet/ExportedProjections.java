package dev.isthmus.iceberg.source.parquet;

import dev.isthmus.arrow.flink.SchemaMetadata;
import dev.isthmus.arrow.memory.MemoryTracker;
import dev.isthmus.ffm.gen.ArrowSchema;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.function.Function;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Types;

/**
 * The projections of the scans of one split, each built and exported once. A split's files are
 * usually read with the same columns, and building the projection's {@link Schema} and exporting
 * it as the scan's expected schema (its Arrow form, every field labelled with its id) is a fixed
 * cost per scan, paid per file by tables of many small files.
 *
 * <p>A scan borrows an exported schema for its open call only: the library reads the expected
 * schema while it opens the scan and keeps nothing of it. The {@value #KEPT} projections used
 * last are kept; each export is released when its projection is dropped or at {@link #close()},
 * exactly once. A projection's export is known by its columns: equal columns export alike.
 *
 * <p>Thread-safe: the projections and every borrow are under this object's monitor, so a close
 * from another thread waits for an open in flight, and no scan opens with a released schema.
 */
public final class ExportedProjections implements AutoCloseable {
    /**
     * Projections kept. A split's files differ in theirs only where the files do: a partition spec
     * or row lineage of their own, columns an older file lacks that a default fills, equality
     * delete keys to read, a file without field ids read through the name mapping.
     */
    static final int KEPT = 4;

    private final MemoryTracker tracker;
    /** Least recently used first. */
    private final LinkedHashMap<List<Types.NestedField>, Projection> projections = new LinkedHashMap<>(8, 0.75f, true);

    private boolean closed;

    /** @param tracker counts the kept exports' memory */
    public ExportedProjections(MemoryTracker tracker) {
        this.tracker = tracker;
    }

    /**
     * The projection of {@code columns}: the same {@link Schema} for equal columns, for as long as
     * it is kept.
     *
     * @throws IllegalStateException if this is closed
     */
    public synchronized Schema schema(List<Types.NestedField> columns) {
        requireOpen();
        Projection kept = projections.get(columns);
        if (kept == null) {
            kept = new Projection(new Schema(columns));
            projections.put(List.copyOf(columns), kept);
            if (projections.size() > KEPT) {
                Iterator<Projection> eldest = projections.values().iterator();
                Projection dropped = eldest.next();
                eldest.remove();
                dropped.release();
            }
        }
        return kept.schema;
    }

    /**
     * Runs {@code open} with the expected schema of {@code projection}: the kept export when its
     * columns are kept here, else one exported for this call alone ({@link #withOwnExport}, into
     * {@code arena} and counted in {@code tracker}). The schema is valid during the call only, and
     * {@code open} runs under this object's monitor, so it must not call back into this object.
     *
     * @throws IllegalStateException if this is closed
     */
    synchronized <T> T withExported(
            Schema projection, MemoryTracker tracker, Arena arena, Function<MemorySegment, T> open) {
        requireOpen();
        Projection kept = projections.get(projection.columns());
        if (kept == null) {
            return withOwnExport(projection, tracker, arena, open);
        }
        if (kept.exported == null) {
            // Its struct and labels live in an automatic arena, which the kept segment keeps
            // reachable: a shared one's close would handshake with every thread of the JVM.
            kept.exported = export(projection, this.tracker, Arena.ofAuto());
        }
        return open.apply(kept.exported);
    }

    /**
     * Runs {@code open} with {@code projection}'s expected schema exported into {@code arena} and
     * counted in {@code tracker}, released when {@code open} returns: a scan without a split's
     * kept projections.
     */
    static <T> T withOwnExport(Schema projection, MemoryTracker tracker, Arena arena, Function<MemorySegment, T> open) {
        MemorySegment own = export(projection, tracker, arena);
        try {
            return open.apply(own);
        } finally {
            release(own);
        }
    }

    /** Releases every kept export; idempotent, any thread. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        projections.values().forEach(Projection::release);
        projections.clear();
    }

    /**
     * The expected schema of a scan of {@code projection}: its types, so that columns a file lacks
     * come back typed (and null), and every field's id, by which the decoder matches a struct's
     * fields.
     */
    private static MemorySegment export(Schema projection, MemoryTracker tracker, Arena arena) {
        MemorySegment expected = ArrowSchema.allocate(arena);
        SchemaMetadata.exportLabelled(projection, expected, tracker, arena);
        return expected;
    }

    private static void release(MemorySegment expected) {
        ArrowSchema.release.invoke(ArrowSchema.release(expected), expected);
    }

    private void requireOpen() {
        if (closed) {
            throw new IllegalStateException("these exported projections are closed");
        }
    }

    private static final class Projection {
        final Schema schema;
        /** Exported at the first scan that borrows it; {@code null} until then and once released. */
        MemorySegment exported;

        Projection(Schema schema) {
            this.schema = schema;
        }

        void release() {
            if (exported != null) {
                MemorySegment released = exported;
                exported = null;
                ExportedProjections.release(released);
            }
        }
    }
}
