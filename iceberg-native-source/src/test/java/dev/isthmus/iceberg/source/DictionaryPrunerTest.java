package dev.isthmus.iceberg.source;

import static org.apache.iceberg.expressions.Expressions.and;
import static org.apache.iceberg.expressions.Expressions.equal;
import static org.apache.iceberg.expressions.Expressions.greaterThan;
import static org.apache.iceberg.expressions.Expressions.in;
import static org.apache.iceberg.expressions.Expressions.isNull;
import static org.apache.iceberg.expressions.Expressions.lessThanOrEqual;
import static org.apache.iceberg.expressions.Expressions.not;
import static org.apache.iceberg.expressions.Expressions.notEqual;
import static org.apache.iceberg.expressions.Expressions.notIn;
import static org.apache.iceberg.expressions.Expressions.notNull;
import static org.apache.iceberg.expressions.Expressions.notStartsWith;
import static org.apache.iceberg.expressions.Expressions.or;
import static org.apache.iceberg.expressions.Expressions.startsWith;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.isthmus.arrow.LeakCheckExtension;
import dev.isthmus.arrow.memory.MemoryTracker;
import dev.isthmus.iceberg.source.parquet.NativeParquetFile;
import java.math.BigDecimal;
import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.expressions.Evaluator;
import org.apache.iceberg.expressions.Expression;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link DictionaryPruner} on a file of Iceberg's writer ({@link DictionaryTable}): every kind of
 * predicate prunes exactly the row groups whose dictionaries rule it out, never one holding a
 * matching row (checked against Iceberg's own row evaluator), and never by a dictionary that does
 * not hold every value of its chunk.
 */
@ExtendWith(LeakCheckExtension.class)
class DictionaryPrunerTest {
    private static final int GROUPS = 8;
    private static final List<Integer> EVEN = List.of(0, 2, 4, 6);
    private static final List<Integer> ODD = List.of(1, 3, 5, 7);

    private final MemoryTracker tracker = MemoryTracker.root().child("DictionaryPrunerTest");

    @TempDir
    Path dir;

    private List<Record> records;
    private List<Record> fallbackRecords;
    private NativeParquetFile file;
    private NativeParquetFile fallback;

    @BeforeEach
    void write() {
        Table table = new TestTables(dir)
                .create("dict", DictionaryTable.SCHEMA, PartitionSpec.unpartitioned(), DictionaryTable.PROPERTIES);
        records = DictionaryTable.records(0, GROUPS);
        DataFile data = TestTables.append(table, records).getFirst();
        file = NativeParquetFile.open(table.io().newInputFile(data.location()));
        var update = table.updateProperties();
        DictionaryTable.FALLBACK_PROPERTIES.forEach(update::set);
        update.commit();
        fallbackRecords = DictionaryTable.fallbackRecords(10_000, 400);
        DataFile fell = TestTables.append(table, fallbackRecords).getFirst();
        fallback = NativeParquetFile.open(table.io().newInputFile(fell.location()));
    }

    @AfterEach
    void close() {
        file.close();
        fallback.close();
    }

    /** The row groups the pruner rules out, after checking that none holds a row the filter keeps. */
    private List<Integer> pruned(Expression filter) {
        return pruned(file, records, filter);
    }

    private List<Integer> pruned(NativeParquetFile in, List<Record> written, Expression filter) {
        DictionaryPruner pruner = DictionaryPruner.of(in, in.columns(), DictionaryTable.SCHEMA, filter, true, tracker);
        Evaluator rows = new Evaluator(DictionaryTable.SCHEMA.asStruct(), filter, true);
        List<Integer> pruned = new ArrayList<>();
        for (int rg = 0; rg < in.rowGroupCount(); rg++) {
            if (!pruner.mightMatch(rg)) {
                NativeParquetFile.RowGroup group = in.rowGroup(rg);
                for (long row = group.firstRow(); row < group.firstRow() + group.rowCount(); row++) {
                    assertFalse(
                            matches(rows, written.get((int) row)),
                            filter + " pruned row group " + rg + ", which holds the matching row "
                                    + written.get((int) row));
                }
                pruned.add(rg);
            }
        }
        return pruned;
    }

    private static boolean matches(Evaluator rows, Record record) {
        try {
            return rows.eval(record);
        } catch (NullPointerException e) {
            // Iceberg's evaluator cannot look a null string up in a set; a null is in none.
            return false;
        }
    }

    @Test
    void theFilesHaveTheShapeTheTestsNeed() {
        assertEquals(GROUPS, file.rowGroupCount());
        int tag = 1;
        int word = 2;
        for (int rg = 0; rg < GROUPS; rg++) {
            assertEquals(DictionaryTable.ROWS_PER_GROUP, file.rowGroup(rg).rowCount());
            assertTrue(file.columnChunk(rg, tag).dictionaryCoversValues(), "tag, row group " + rg);
            assertTrue(file.columnChunk(rg, word).dictionaryCoversValues(), "word, row group " + rg);
        }
        assertEquals(1, fallback.rowGroupCount());
        NativeParquetFile.ColumnChunk words = fallback.columnChunk(0, word);
        assertTrue(words.dictionaryPageOffset() >= 0, "dictionary-encoded pages came first: " + words);
        assertFalse(words.dictionaryCoversValues(), "then PLAIN ones: " + words);
        assertTrue(fallback.columnChunk(0, tag).dictionaryCoversValues());
    }

    @Test
    void predicatesPruneWhereNoDictionaryEntryMatches() {
        assertEquals(EVEN, pruned(equal("tag", "m")));
        assertEquals(ODD, pruned(equal("tag", "a")));
        assertEquals(EVEN, pruned(in("tag", "m", "q")));
        assertEquals(List.of(), pruned(in("tag", "m", "z")));
        assertEquals(EVEN, pruned(equal("code", 50)));
        assertEquals(ODD, pruned(in("code", 1, 7)));
        assertEquals(EVEN, pruned(equal("amount", new BigDecimal("5.00"))));
        assertEquals(ODD, pruned(greaterThan("code", 60)));
        // Each predicate alone finds a code in even row groups (100 and 1), so they are kept: as in
        // Iceberg, a dictionary decides predicates, not rows.
        assertEquals(List.of(), pruned(and(greaterThan("code", 10), lessThanOrEqual("code", 50))));
        assertEquals(ODD, pruned(lessThanOrEqual("tag", "b")));
        assertEquals(EVEN, pruned(startsWith("tag", "m")));
        // Odd row groups hold only "m" and no nulls; even ones hold nulls, which negations keep.
        assertEquals(ODD, pruned(notStartsWith("tag", "m")));
        assertEquals(ODD, pruned(notEqual("tag", "m")));
        assertEquals(ODD, pruned(not(equal("tag", "m"))));
        assertEquals(ODD, pruned(notIn("tag", "m", "q")));
        assertEquals(ODD, pruned(notEqual("code", 50)));
        assertEquals(List.of(), pruned(notEqual("code", 1)));
        assertEquals(List.of(), pruned(or(equal("tag", "m"), equal("code", 1))));
        assertEquals(IntStream.range(0, GROUPS).boxed().toList(), pruned(and(equal("tag", "a"), equal("code", 50))));
    }

    @Test
    void nullsAndNaNAreNeverDecidedByDictionaries() {
        assertEquals(List.of(), pruned(isNull("tag")));
        assertEquals(List.of(), pruned(notNull("tag")));
        assertEquals(List.of(), pruned(and(isNull("code"), notNull("tag"))));
    }

    /** Only PLAIN pages after the dictionary fallback hold this word: its dictionary must not prune it. */
    @Test
    void chunksThatFellBackToPlainAreNeverPrunedByTheirDictionary() {
        String word = DictionaryTable.uniqueWord(10_000 + 390);
        assertEquals(List.of(), pruned(fallback, fallbackRecords, equal("word", word)));
        assertEquals(List.of(), pruned(fallback, fallbackRecords, in("word", word, "nowhere")));
        assertEquals(List.of(), pruned(fallback, fallbackRecords, startsWith("word", "u-")));
        // Not even for a word no row holds: the dictionary is not the chunk's whole set of values.
        assertEquals(List.of(), pruned(fallback, fallbackRecords, equal("word", "nowhere")));
        // Dictionaries that hold every value do prune it; and other columns of the file still prune.
        assertEquals(IntStream.range(0, GROUPS).boxed().toList(), pruned(equal("word", "nowhere")));
        assertEquals(List.of(0), pruned(fallback, fallbackRecords, equal("tag", "m")));
    }

    /** Without encoding_stats only a v1 list decides, as in parquet-java: a v2 chunk lists its dictionary page as PLAIN. */
    @Test
    void whichChunksDictionariesCoverWithoutEncodingStats() {
        int plain = 1;
        int plainDictionary = 1 << 2;
        int rle = 1 << 3;
        int bitPacked = 1 << 4;
        int rleDictionary = 1 << 8;
        assertTrue(chunk(100, 150, plainDictionary | rle | bitPacked, -1).dictionaryCoversValues());
        assertTrue(chunk(100, 150, plainDictionary, -1).dictionaryCoversValues());
        assertFalse(chunk(100, 150, plainDictionary | rle | plain, -1).dictionaryCoversValues(), "v1 fallback");
        assertFalse(chunk(100, 150, rleDictionary | rle | plain, -1).dictionaryCoversValues(), "v2: undecidable");
        assertFalse(chunk(100, 150, rleDictionary | rle, -1).dictionaryCoversValues(), "v2: undecidable");
        assertTrue(chunk(100, 150, rleDictionary | rle | plain, 1).dictionaryCoversValues(), "encoding_stats decide");
        assertFalse(chunk(100, 150, plainDictionary | rle, 0).dictionaryCoversValues(), "encoding_stats decide");
        assertFalse(chunk(-1, 150, plainDictionary | rle, 1).dictionaryCoversValues(), "no dictionary page");
        // Some writers set the offset to 0 for none (the file's magic is there), as parquet-java reads it.
        assertFalse(chunk(0, 150, plainDictionary | rle, 1).dictionaryCoversValues(), "offset 0: none");
        assertFalse(chunk(150, 150, plainDictionary | rle, 1).dictionaryCoversValues(), "no room for one");
    }

    private static NativeParquetFile.ColumnChunk chunk(long dictionary, long data, int encodings, int allDictionary) {
        return new NativeParquetFile.ColumnChunk(
                100, 500, 10, 0, null, null, dictionary, data, encodings, allDictionary);
    }

    @Test
    void theLocalFileReadsTheSameDictionaries() {
        String name = file.name();
        Path path = name.startsWith("file:") ? Path.of(URI.create(name)) : Path.of(name);
        try (NativeParquetFile local = NativeParquetFile.open(path)) {
            for (Expression filter : List.of(equal("tag", "m"), notEqual("code", 50))) {
                DictionaryPruner remote =
                        DictionaryPruner.of(file, file.columns(), DictionaryTable.SCHEMA, filter, true, tracker);
                DictionaryPruner pruner =
                        DictionaryPruner.of(local, local.columns(), DictionaryTable.SCHEMA, filter, true, tracker);
                for (int rg = 0; rg < GROUPS; rg++) {
                    assertEquals(remote.mightMatch(rg), pruner.mightMatch(rg), filter + ", row group " + rg);
                }
            }
        }
    }
}
