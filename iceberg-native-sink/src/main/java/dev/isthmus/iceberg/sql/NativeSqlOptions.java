package dev.isthmus.iceberg.sql;

import dev.isthmus.iceberg.source.NativeReadOptions;
import dev.isthmus.iceberg.source.NativeReadOptions.RowFormat;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import org.apache.iceberg.util.PropertyUtil;

/**
 * The SQL options of the native catalog: catalog options (defaults for every table), Iceberg
 * table properties, or {@code OPTIONS} hints, the later overriding the earlier.
 *
 * <ul>
 *   <li>{@value #NATIVE} (true): read through the native source and write through the native
 *   sink; false reads and writes with Iceberg's own;
 *   <li>{@value #STRICT} (false): fail on a task the native reader cannot read, and on a table
 *   whose data files the native encoder cannot write, instead of falling back;
 *   <li>{@value #BATCH_SIZE} (8192): rows per decoded batch;
 *   <li>{@value #LOCAL_READS} (true): the library reads {@code file:} locations itself;
 *   <li>{@value #ROW_FORMAT} (auto): the rows native reads emit, {@code columnar}, {@code binary}
 *   or {@code auto}: binary unless the job reuses objects (as every batch query does), columnar
 *   if it does ({@link RowFormat}).
 * </ul>
 */
final class NativeSqlOptions {
    static final String PREFIX = "isthmus.";
    static final String NATIVE = "isthmus.native";
    static final String STRICT = "isthmus.strict";
    static final String BATCH_SIZE = "isthmus.batch-size";
    static final String LOCAL_READS = "isthmus.local-reads";
    static final String ROW_FORMAT = "isthmus.row-format";

    private NativeSqlOptions() {}

    static Map<String, String> catalogDefaults(Map<String, String> catalogProperties) {
        Map<String, String> defaults = new HashMap<>();
        catalogProperties.forEach((key, value) -> {
            if (key.startsWith(PREFIX)) {
                defaults.put(key, value);
            }
        });
        return Map.copyOf(defaults);
    }

    /** The catalog's defaults with the table's (and the query's) options on top. */
    static Map<String, String> merged(Map<String, String> catalogDefaults, Map<String, String> tableOptions) {
        Map<String, String> merged = new HashMap<>(catalogDefaults);
        tableOptions.forEach((key, value) -> {
            if (key.startsWith(PREFIX)) {
                merged.put(key, value);
            }
        });
        return merged;
    }

    /** Whether the table's reads and writes go through the native source and sink. */
    static boolean isNative(Map<String, String> options) {
        return PropertyUtil.propertyAsBoolean(options, NATIVE, true);
    }

    static boolean strict(Map<String, String> options) {
        return PropertyUtil.propertyAsBoolean(options, STRICT, false);
    }

    static NativeReadOptions readOptions(Map<String, String> options) {
        NativeReadOptions defaults = NativeReadOptions.defaults();
        return new NativeReadOptions(PropertyUtil.propertyAsInt(options, BATCH_SIZE, defaults.batchSize()),
                PropertyUtil.propertyAsBoolean(options, STRICT, defaults.strict()),
                PropertyUtil.propertyAsBoolean(options, LOCAL_READS, defaults.localReads()), defaults.rowFormat());
    }

    /** The row format asked for, or {@code null} for {@code auto}, which the job's object reuse decides. */
    static RowFormat rowFormat(Map<String, String> options) {
        String format = options.getOrDefault(ROW_FORMAT, "auto").trim().toLowerCase(Locale.ROOT);
        return switch (format) {
            case "auto" -> null;
            case "columnar" -> RowFormat.COLUMNAR;
            case "binary" -> RowFormat.BINARY;
            default -> throw new IllegalArgumentException(
                    ROW_FORMAT + " is columnar, binary or auto, not '" + options.get(ROW_FORMAT) + "'");
        };
    }
}
