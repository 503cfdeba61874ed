package dev.isthmus.iceberg.source;

import dev.isthmus.arrow.flink.vector.ArrowColumnarBatch;
import dev.isthmus.arrow.flink.vector.RowKeys;
import dev.isthmus.arrow.memory.MemoryTracker;
import dev.isthmus.iceberg.source.parquet.NativeParquetFile;
import dev.isthmus.iceberg.source.parquet.NativeParquetScan;
import dev.isthmus.iceberg.source.parquet.ScanOptions;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;
import org.apache.flink.table.data.columnar.vector.ColumnVector;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.Schema;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * The keys a task's equality delete files delete from its data file: per group of files on the
 * same equality field ids, the keys of each file's rows, decoded natively and held as
 * {@link RowKeys} byte strings in a {@link KeySet} per file. A data row whose key on a group's ids
 * is in one of its sets is deleted; nulls equal nulls, as Iceberg compares keys. Iceberg's planning has already
 * scoped the task's delete files (the delete's data sequence number above the data file's, its
 * partition, or any partition for an unpartitioned delete), so every set applies to every row.
 *
 * <p>Sets are shared through {@link EqualityDeleteCache}, one per delete file: the data files of a
 * partition each get the equality deletes committed after them, different lists of mostly the
 * same files, and a task decodes only the files no earlier task of the JVM left in the cache.
 */
final class EqualityDeletes {
    static final EqualityDeletes NONE = new EqualityDeletes(List.of(), 0, 0, 0);

    /** One group of delete files on the same columns: the columns, in field-id order, and each file's keys. */
    record Group(List<Types.NestedField> fields, List<KeySet> keys) {}

    private final List<Group> groups;
    private final int files;
    private final long keys;
    private final int cacheHits;

    private EqualityDeletes(List<Group> groups, int files, long keys, int cacheHits) {
        this.groups = groups;
        this.files = files;
        this.keys = keys;
        this.cacheHits = cacheHits;
    }

    /**
     * Why the native reader cannot apply the equality delete files among {@code deletes} to a
     * table of {@code tableSchema}, or {@code null} if it can.
     */
    static String refusal(List<DeleteFile> deletes, Schema tableSchema) {
        for (DeleteFile delete : deletes) {
            if (delete.content() != FileContent.EQUALITY_DELETES) {
                continue;
            }
            for (int id : delete.equalityFieldIds()) {
                Types.NestedField field = tableSchema.findField(id);
                if (field == null || tableSchema.columns().stream().noneMatch(c -> c.fieldId() == id)) {
                    return "its equality deletes are on field " + id + ", not a top-level column of the table";
                }
                if (!hashable(field.type())) {
                    return "its equality deletes are on " + field.name() + " of type " + field.type();
                }
            }
        }
        return null;
    }

    /**
     * Types whose keys {@link RowKeys} reads exactly from the decoded buffers. Time is decoded to
     * Flink's milliseconds, which would merge distinct microseconds; nanosecond timestamps, the
     * reader does not decode yet.
     */
    private static boolean hashable(Type type) {
        return switch (type.typeId()) {
            case BOOLEAN, INTEGER, LONG, FLOAT, DOUBLE, DATE, TIMESTAMP, DECIMAL, STRING, UUID, FIXED, BINARY -> true;
            default -> false;
        };
    }

    /**
     * Loads the keys of the equality delete files among {@code deletes}, which {@link #refusal}
     * accepts, or takes them from the cache.
     *
     * @param limit the heap the sets of one group of files on the same columns may take together
     * @throws DeleteLimitException past {@code limit}, naming the delete files and the limit
     */
    static EqualityDeletes load(
            List<DeleteFile> deletes,
            Schema tableSchema,
            FileIO io,
            NativeReadOptions options,
            MemoryTracker tracker,
            long limit) {
        Map<List<Integer>, List<DeleteFile>> byIds = new LinkedHashMap<>();
        for (DeleteFile delete : deletes) {
            if (delete.content() == FileContent.EQUALITY_DELETES) {
                List<Integer> ids = List.copyOf(new TreeSet<>(delete.equalityFieldIds()));
                byIds.computeIfAbsent(ids, k -> new ArrayList<>()).add(delete);
            }
        }
        if (byIds.isEmpty()) {
            return NONE;
        }
        List<Group> groups = new ArrayList<>();
        int files = 0;
        long keys = 0;
        int hits = 0;
        for (Map.Entry<List<Integer>, List<DeleteFile>> entry : byIds.entrySet()) {
            List<String> locations = entry.getValue().stream()
                    .map(DeleteFile::location)
                    .distinct()
                    .sorted()
                    .toList();
            List<Types.NestedField> fields =
                    entry.getKey().stream().map(tableSchema::findField).toList();
            List<KeySet> sets = new ArrayList<>();
            long bytes = 0;
            for (String location : locations) {
                long room = limit - bytes;
                EqualityDeleteCache.Lookup lookup = EqualityDeleteCache.get(
                        new EqualityDeleteCache.Key(entry.getKey(), location),
                        room,
                        () -> read(location, new Schema(fields), io, options, tracker, room, locations, limit));
                KeySet set = lookup.set();
                if (!lookup.loaded()) {
                    hits++;
                }
                bytes += set.bytes();
                if (bytes > limit) {
                    throw tooLarge(locations, limit);
                }
                sets.add(set);
                keys += set.size();
            }
            groups.add(new Group(fields, List.copyOf(sets)));
            files += locations.size();
        }
        return new EqualityDeletes(List.copyOf(groups), files, keys, hits);
    }

    /**
     * The keys of one delete file; fails as soon as they take more than {@code room}, so a file far
     * past the limit is not decoded whole first.
     */
    private static KeySet read(
            String location,
            Schema keySchema,
            FileIO io,
            NativeReadOptions options,
            MemoryTracker tracker,
            long room,
            List<String> locations,
            long limit) {
        KeySet set = new KeySet();
        try (NativeParquetFile file = NativeTaskReader.openFile(location, io, options);
                NativeParquetScan scan =
                        file.scan(new ScanOptions(keySchema, null, 0, options.batchSize(), false), tracker)) {
            while (scan.hasNext()) {
                try (ArrowColumnarBatch batch = scan.next()) {
                    RowKeys rowKeys = RowKeys.of(batch.batch().columns);
                    int rows = batch.numRows();
                    for (int i = 0; i < rows; i++) {
                        int length = rowKeys.encode(i);
                        byte[] bytes = rowKeys.bytes();
                        set.add(bytes, length, KeySet.hash(bytes, length));
                    }
                }
                if (set.bytes() > room) {
                    throw tooLarge(locations, limit);
                }
            }
        }
        return set;
    }

    private static DeleteLimitException tooLarge(List<String> locations, long limit) {
        return new DeleteLimitException(
                "its equality deletes exceed maxEqualityDeleteBytes",
                String.format(
                        Locale.ROOT,
                        "the keys of equality delete files %s take more than %d bytes"
                                + " (maxEqualityDeleteBytes, or 'isthmus.max-equality-delete-bytes' in SQL)",
                        locations,
                        limit));
    }

    boolean isEmpty() {
        return groups.isEmpty();
    }

    /** The key columns of every set, each once: the data file's scan reads them whether projected or not. */
    List<Types.NestedField> keyFields() {
        Map<Integer, Types.NestedField> fields = new LinkedHashMap<>();
        for (Group group : groups) {
            for (Types.NestedField field : group.fields()) {
                fields.putIfAbsent(field.fieldId(), field);
            }
        }
        return List.copyOf(fields.values());
    }

    /** Equality delete files applied, each counted once per set. */
    int files() {
        return files;
    }

    /** Keys in the sets (distinct within each delete file). */
    long keys() {
        return keys;
    }

    /** Delete files whose set was found in the cache, or decoded by another reader meanwhile, rather than decoded. */
    int cacheHits() {
        return cacheHits;
    }

    /**
     * Keeps, of the {@code selected} rows {@code selection} lists, those no set deletes,
     * compacting them to its front in order; returns how many are kept.
     *
     * @param columnOf the index in {@code decoded} of each key column, by field id
     */
    int live(ColumnVector[] decoded, Map<Integer, Integer> columnOf, int[] selection, int selected) {
        int kept = selected;
        for (Group group : groups) {
            List<Types.NestedField> fields = group.fields();
            ColumnVector[] keyColumns = new ColumnVector[fields.size()];
            for (int c = 0; c < keyColumns.length; c++) {
                keyColumns[c] = decoded[columnOf.get(fields.get(c).fieldId())];
            }
            RowKeys rowKeys = RowKeys.of(keyColumns);
            List<KeySet> sets = group.keys();
            int n = 0;
            for (int k = 0; k < kept; k++) {
                int row = selection[k];
                int length = rowKeys.encode(row);
                byte[] bytes = rowKeys.bytes();
                int hash = KeySet.hash(bytes, length);
                boolean deleted = false;
                for (int f = 0; f < sets.size() && !deleted; f++) {
                    deleted = sets.get(f).contains(bytes, length, hash);
                }
                if (!deleted) {
                    selection[n++] = row;
                }
            }
            kept = n;
        }
        return kept;
    }
}
