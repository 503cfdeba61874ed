package dev.isthmus.iceberg.sql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.isthmus.arrow.memory.MemoryTracker;
import dev.isthmus.iceberg.source.NativeReadOptions;
import dev.isthmus.iceberg.source.NativeReadOptions.RowFormat;
import java.nio.file.Path;
import java.util.Map;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.ValidationException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The {@code isthmus.*} options are checked where they are declared (the catalog, the table, a
 * query's hint), and a bad one fails naming its key instead of silently meaning a default.
 */
class NativeSqlOptionsTest {
    @TempDir
    Path warehouse;

    @Test
    void defaultsApplyWhenNothingIsSet() {
        NativeSqlOptions options = NativeSqlOptions.parse(Map.of("write.format.default", "parquet"), "table 't'");
        assertTrue(options.nativeIo());
        assertFalse(options.strict());
        assertEquals(8192, options.readOptions().batchSize());
        assertTrue(options.readOptions().localReads());
        assertNull(options.rowFormat(), "auto");
    }

    @Test
    void valuesOfEachTypeAreParsed() {
        NativeSqlOptions options = NativeSqlOptions.parse(
                Map.of(
                        "isthmus.native",
                        "FALSE",
                        "isthmus.strict",
                        "true",
                        "isthmus.batch-size",
                        "1000",
                        "isthmus.local-reads",
                        "false",
                        "isthmus.row-format",
                        "Binary"),
                "t");
        assertFalse(options.nativeIo());
        assertTrue(options.strict());
        assertTrue(options.readOptions().strict());
        assertEquals(1000, options.readOptions().batchSize());
        assertFalse(options.readOptions().localReads());
        assertEquals(RowFormat.BINARY, options.rowFormat());
    }

    @Test
    void aMemoryCapIsAMemorySizeOfAtLeastOneByte() {
        assertEquals(
                MemoryTracker.NO_LIMIT,
                NativeSqlOptions.parse(Map.of(), "t").readOptions().maxNativeBytes(),
                "no cap by default");
        NativeSqlOptions capped = NativeSqlOptions.parse(Map.of("isthmus.max-native-bytes", "256mb"), "t");
        assertEquals(256L << 20, capped.readOptions().maxNativeBytes());
        ValidationException e = assertThrows(
                ValidationException.class,
                () -> NativeSqlOptions.parse(Map.of("isthmus.max-native-bytes", "lots"), "table 'lake.db.t'"));
        assertEquals(
                "invalid value 'lots' for option 'isthmus.max-native-bytes' (table 'lake.db.t'): expected a"
                        + " memory size such as '256mb'",
                e.getMessage());
        e = assertThrows(
                ValidationException.class,
                () -> NativeSqlOptions.parse(Map.of("isthmus.max-native-bytes", "0"), "table 'lake.db.t'"));
        assertEquals(
                "'isthmus.max-native-bytes' must be at least one byte, got '0' (table 'lake.db.t')", e.getMessage());
    }

    @Test
    void theDeletePositionsLimitIsACountWithinAnArraysReach() {
        assertEquals(
                NativeReadOptions.DEFAULT_MAX_DELETE_POSITIONS,
                NativeSqlOptions.parse(Map.of(), "t").readOptions().maxDeletePositions());
        assertEquals(
                1000,
                NativeSqlOptions.parse(Map.of("isthmus.max-delete-positions", "1000"), "t")
                        .readOptions()
                        .maxDeletePositions());
        ValidationException e = assertThrows(
                ValidationException.class,
                () -> NativeSqlOptions.parse(Map.of("isthmus.max-delete-positions", "-1"), "table 'lake.db.t'"));
        assertEquals(
                "'isthmus.max-delete-positions' must be between 0 and 2147483639, got -1 (table 'lake.db.t')",
                e.getMessage());
    }

    @Test
    void theEqualityDeleteLimitIsAMemorySize() {
        assertEquals(
                NativeReadOptions.DEFAULT_MAX_EQUALITY_DELETE_BYTES,
                NativeSqlOptions.parse(Map.of(), "t").readOptions().maxEqualityDeleteBytes());
        assertEquals(
                16L << 20,
                NativeSqlOptions.parse(Map.of("isthmus.max-equality-delete-bytes", "16mb"), "t")
                        .readOptions()
                        .maxEqualityDeleteBytes());
        assertThrows(
                ValidationException.class,
                () -> NativeSqlOptions.parse(Map.of("isthmus.max-equality-delete-bytes", "lots"), "t"));
        ValidationException e = assertThrows(
                ValidationException.class,
                () -> NativeSqlOptions.parse(Map.of("isthmus.max-equality-delete-bytes", "2gb"), "t"));
        assertEquals("'isthmus.max-equality-delete-bytes' must be at most 1gb, got '2gb' (t)", e.getMessage());
    }

    @ParameterizedTest
    @ValueSource(strings = {"yes", "0", "maybe", ""})
    void aBooleanThatIsNotTrueOrFalseIsRefusedNamingTheKey(String value) {
        ValidationException e = assertThrows(
                ValidationException.class,
                () -> NativeSqlOptions.parse(Map.of("isthmus.strict", value), "table 'lake.db.t'"));
        assertEquals(
                "invalid value '" + value + "' for option 'isthmus.strict' (table 'lake.db.t'): expected true"
                        + " or false",
                e.getMessage());
    }

    @Test
    void aBatchSizeThatIsNoNumberOrBelowOneIsRefusedNamingTheKey() {
        ValidationException text = assertThrows(
                ValidationException.class,
                () -> NativeSqlOptions.parse(Map.of("isthmus.batch-size", "abc"), "table 't'"));
        assertEquals(
                "invalid value 'abc' for option 'isthmus.batch-size' (table 't'): expected a whole number",
                text.getMessage());
        ValidationException zero = assertThrows(
                ValidationException.class,
                () -> NativeSqlOptions.parse(Map.of("isthmus.batch-size", "0"), "table 't'"));
        assertEquals("'isthmus.batch-size' must be at least 1, got 0 (table 't')", zero.getMessage());
    }

    @Test
    void anUnknownIsthmusKeyIsRefusedListingTheKnownOnes() {
        ValidationException e = assertThrows(
                ValidationException.class,
                () -> NativeSqlOptions.parse(
                        Map.of("isthmus.stric", "true", "write.format.default", "parquet"), "catalog 'lake'"));
        assertEquals(
                "unsupported option 'isthmus.stric' (catalog 'lake'); the isthmus.* options are"
                        + " 'isthmus.batch-size', 'isthmus.local-reads', 'isthmus.max-delete-positions', 'isthmus.max-equality-delete-bytes', 'isthmus.max-native-bytes', 'isthmus.native',"
                        + " 'isthmus.row-format',"
                        + " 'isthmus.strict'",
                e.getMessage());
    }

    @Test
    void anUnknownRowFormatIsRefused() {
        ValidationException e = assertThrows(
                ValidationException.class,
                () -> NativeSqlOptions.parse(Map.of("isthmus.row-format", "rows"), "table 't'"));
        assertEquals(
                "invalid value 'rows' for option 'isthmus.row-format' (table 't'): expected columnar, binary or"
                        + " auto",
                e.getMessage());
    }

    @Test
    void createCatalogCreateTableAndHintsRefuseBadOptions() {
        TableEnvironment sql = TableEnvironment.create(EnvironmentSettings.inBatchMode());
        String catalog = "CREATE CATALOG %s WITH ('type'='isthmus-iceberg', 'catalog-type'='hadoop', 'warehouse'='"
                + warehouse.toUri() + "'%s)";
        assertMessage(
                () -> sql.executeSql(String.format(catalog, "typo", ", 'isthmus.stric'='true'")),
                "unsupported option 'isthmus.stric' (catalog 'typo')");
        assertMessage(
                () -> sql.executeSql(String.format(catalog, "yes", ", 'isthmus.native'='yes'")),
                "invalid value 'yes' for option 'isthmus.native' (catalog 'yes')");

        sql.executeSql(String.format(catalog, "lake", ""));
        sql.executeSql("CREATE DATABASE lake.db");
        assertMessage(
                () -> sql.executeSql("CREATE TABLE lake.db.bad (id BIGINT) WITH ('isthmus.batch-size'='0')"),
                "'isthmus.batch-size' must be at least 1, got 0 (table 'lake.db.bad')");
        sql.executeSql("CREATE TABLE lake.db.t (id BIGINT)");
        assertMessage(
                () -> sql.explainSql("SELECT * FROM lake.db.t /*+ OPTIONS('isthmus.batch-size'='abc') */"),
                "invalid value 'abc' for option 'isthmus.batch-size' (table 'lake.db.t')");
        assertMessage(
                () -> sql.explainSql("INSERT INTO lake.db.t /*+ OPTIONS('isthmus.strict'='maybe') */ VALUES (1)"),
                "invalid value 'maybe' for option 'isthmus.strict' (table 'lake.db.t')");
        assertTrue(
                sql.explainSql("SELECT * FROM lake.db.t /*+ OPTIONS('isthmus.batch-size'='100') */")
                        .contains("lake"),
                "a good hint plans");
    }

    /** The statement fails, with {@code expected} in the message of the exception or one of its causes. */
    private static void assertMessage(org.junit.jupiter.api.function.Executable statement, String expected) {
        Throwable e = assertThrows(Throwable.class, statement);
        StringBuilder messages = new StringBuilder();
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t.getMessage() != null && t.getMessage().contains(expected)) {
                return;
            }
            messages.append(t.getClass().getSimpleName())
                    .append(": ")
                    .append(t.getMessage())
                    .append('\n');
        }
        throw new AssertionError("'" + expected + "' in none of:\n" + messages);
    }
}
