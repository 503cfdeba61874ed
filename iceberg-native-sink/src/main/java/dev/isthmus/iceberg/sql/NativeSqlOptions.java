package dev.isthmus.iceberg.sql;

import dev.isthmus.arrow.memory.MemoryTracker;
import dev.isthmus.iceberg.source.NativeReadOptions;
import dev.isthmus.iceberg.source.NativeReadOptions.RowFormat;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.table.api.ValidationException;

/**
 * The {@code isthmus.*} SQL options, parsed and checked: catalog options (defaults for every
 * table), Iceberg table properties, or {@code OPTIONS} hints, the later overriding the earlier.
 * Every {@code isthmus.*} key must be one of these, with a value of its type: a typo or a value
 * such as {@code 'yes'} fails where it is declared, naming the key, instead of meaning a default.
 *
 * <ul>
 *   <li>{@code isthmus.native} (true): read through the native source and write through the
 *   native sink; false reads and writes with Iceberg's own;
 *   <li>{@code isthmus.strict} (false): fail on a task the native reader cannot read, and on a
 *   table whose data files the native encoder cannot write, instead of falling back;
 *   <li>{@code isthmus.batch-size} (8192): rows per decoded batch, at least 1;
 *   <li>{@code isthmus.local-reads} (true): the library reads {@code file:} locations itself;
 *   <li>{@code isthmus.row-format} (auto): the rows native reads emit, {@code columnar},
 *   {@code binary} or {@code auto}: binary unless the job reuses objects (as every batch query
 *   does), columnar if it does ({@link RowFormat}).
 *   <li>{@code isthmus.max-native-bytes} (none): the native memory one reader or writer subtask
 *   may hold at once, as a memory size ({@code '256mb'}); past it the read or write fails
 *   (docs/memory.md);
 *   <li>{@code isthmus.max-delete-positions} (16777216): the positions a task's position delete
 *   files may delete from its data file; past it the task falls back (strict: fails);
 *   <li>{@code isthmus.max-equality-delete-bytes} (128mb, 1gb at most): the heap the keys of a
 *   task's equality delete files on the same columns may take, as a memory size; past it the task
 *   falls back (strict: fails).
 * </ul>
 *
 * @param nativeIo whether reads and writes go through the native source and sink
 * @param strict whether to fail instead of falling back to Iceberg's reader or writer
 * @param readOptions the native reader's options; its {@code maxNativeBytes} caps writers too
 * @param rowFormat the row format asked for, or {@code null} for {@code auto}, which the job's
 *     object reuse decides
 */
record NativeSqlOptions(boolean nativeIo, boolean strict, NativeReadOptions readOptions, RowFormat rowFormat) {
    static final String PREFIX = "isthmus.";

    static final ConfigOption<Boolean> NATIVE = ConfigOptions.key("isthmus.native")
            .booleanType()
            .defaultValue(true)
            .withDescription(
                    "Read and write the table's data files natively; false uses Iceberg's own reader and" + " writer.");
    static final ConfigOption<Boolean> STRICT = ConfigOptions.key("isthmus.strict")
            .booleanType()
            .defaultValue(false)
            .withDescription("Fail instead of falling back to Iceberg's reader or writer.");
    static final ConfigOption<Integer> BATCH_SIZE = ConfigOptions.key("isthmus.batch-size")
            .intType()
            .defaultValue(NativeReadOptions.DEFAULT_BATCH_SIZE)
            .withDescription("Rows per decoded batch.");
    static final ConfigOption<Boolean> LOCAL_READS = ConfigOptions.key("isthmus.local-reads")
            .booleanType()
            .defaultValue(true)
            .withDescription("Let the library read file: locations itself.");
    static final ConfigOption<String> ROW_FORMAT = ConfigOptions.key("isthmus.row-format")
            .stringType()
            .defaultValue("auto")
            .withDescription("The rows native reads emit: columnar, binary or auto.");

    static final ConfigOption<MemorySize> MAX_NATIVE_BYTES = ConfigOptions.key("isthmus.max-native-bytes")
            .memoryType()
            .noDefaultValue()
            .withDescription("The native memory one reader or writer subtask may hold at once; no cap by default.");

    static final ConfigOption<Long> MAX_DELETE_POSITIONS = ConfigOptions.key("isthmus.max-delete-positions")
            .longType()
            .defaultValue(NativeReadOptions.DEFAULT_MAX_DELETE_POSITIONS)
            .withDescription("The positions a task's position delete files may delete from its data file.");

    static final ConfigOption<MemorySize> MAX_EQUALITY_DELETE_BYTES = ConfigOptions.key(
                    "isthmus.max-equality-delete-bytes")
            .memoryType()
            .defaultValue(new MemorySize(NativeReadOptions.DEFAULT_MAX_EQUALITY_DELETE_BYTES))
            .withDescription("The heap the keys of a task's equality delete files on the same columns may take.");

    static final List<ConfigOption<?>> ALL = List.of(
            NATIVE,
            STRICT,
            BATCH_SIZE,
            LOCAL_READS,
            ROW_FORMAT,
            MAX_NATIVE_BYTES,
            MAX_DELETE_POSITIONS,
            MAX_EQUALITY_DELETE_BYTES);

    /**
     * Parses and checks the {@code isthmus.*} keys of {@code options} (other keys are Iceberg's
     * or Flink's and left alone).
     *
     * @param where what declares them, for the message ("catalog 'lake'", "table 'lake.db.t'")
     * @throws ValidationException naming the key and {@code where} for an unknown key or a value
     *     that is not of the option's type
     */
    static NativeSqlOptions parse(Map<String, String> options, String where) {
        Configuration config = Configuration.fromMap(isthmusKeys(options, where));
        NativeReadOptions defaults = NativeReadOptions.defaults();
        int batchSize = get(config, BATCH_SIZE, where);
        if (batchSize <= 0) {
            throw new ValidationException(String.format(
                    Locale.ROOT, "'%s' must be at least 1, got %d (%s)", BATCH_SIZE.key(), batchSize, where));
        }
        boolean strict = get(config, STRICT, where);
        MemorySize cap = get(config, MAX_NATIVE_BYTES, where);
        if (cap != null && cap.getBytes() <= 0) {
            throw new ValidationException(String.format(
                    Locale.ROOT,
                    "'%s' must be at least one byte, got '%s' (%s)",
                    MAX_NATIVE_BYTES.key(),
                    config.toMap().get(MAX_NATIVE_BYTES.key()),
                    where));
        }
        long maxNativeBytes = cap == null ? MemoryTracker.NO_LIMIT : cap.getBytes();
        long maxDeletePositions = get(config, MAX_DELETE_POSITIONS, where);
        if (maxDeletePositions < 0 || maxDeletePositions > Integer.MAX_VALUE - 8) {
            throw new ValidationException(String.format(
                    Locale.ROOT,
                    "'%s' must be between 0 and %d, got %d (%s)",
                    MAX_DELETE_POSITIONS.key(),
                    Integer.MAX_VALUE - 8,
                    maxDeletePositions,
                    where));
        }
        long maxEqualityDeleteBytes =
                get(config, MAX_EQUALITY_DELETE_BYTES, where).getBytes();
        if (maxEqualityDeleteBytes > NativeReadOptions.MAX_EQUALITY_DELETE_BYTES) {
            throw new ValidationException(String.format(
                    Locale.ROOT,
                    "'%s' must be at most 1gb, got '%s' (%s)",
                    MAX_EQUALITY_DELETE_BYTES.key(),
                    config.toMap().get(MAX_EQUALITY_DELETE_BYTES.key()),
                    where));
        }
        return new NativeSqlOptions(
                get(config, NATIVE, where),
                strict,
                new NativeReadOptions(
                        batchSize,
                        strict,
                        get(config, LOCAL_READS, where),
                        defaults.rowFormat(),
                        maxNativeBytes,
                        maxDeletePositions,
                        maxEqualityDeleteBytes),
                rowFormat(get(config, ROW_FORMAT, where), where));
    }

    /** The {@code isthmus.*} entries of a catalog's options, checked: the defaults of its tables. */
    static Map<String, String> catalogDefaults(Map<String, String> catalogProperties, String where) {
        Map<String, String> defaults = isthmusKeys(catalogProperties, where);
        parse(defaults, where);
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

    private static Map<String, String> isthmusKeys(Map<String, String> options, String where) {
        Set<String> known = ALL.stream().map(ConfigOption::key).collect(Collectors.toSet());
        Map<String, String> keys = new HashMap<>();
        Set<String> unknown = new TreeSet<>();
        options.forEach((key, value) -> {
            if (key.startsWith(PREFIX) && known.contains(key)) {
                keys.put(key, value);
            } else if (key.startsWith(PREFIX)) {
                unknown.add(key);
            }
        });
        if (!unknown.isEmpty()) {
            throw new ValidationException(String.format(
                    Locale.ROOT,
                    "unsupported option%s %s (%s); the %s options" + " are %s",
                    unknown.size() == 1 ? "" : "s",
                    quoted(unknown),
                    where,
                    PREFIX + "*",
                    quoted(new TreeSet<>(known))));
        }
        return keys;
    }

    private static <T> T get(Configuration config, ConfigOption<T> option, String where) {
        try {
            return config.get(option);
        } catch (IllegalArgumentException e) {
            throw new ValidationException(
                    String.format(
                            Locale.ROOT,
                            "invalid value '%s' for option '%s' (%s): %s",
                            config.toMap().get(option.key()),
                            option.key(),
                            where,
                            expected(option)),
                    e);
        }
    }

    private static String expected(ConfigOption<?> option) {
        if (option.equals(BATCH_SIZE)) {
            return "expected a whole number";
        }
        return option.equals(MAX_NATIVE_BYTES) ? "expected a memory size such as '256mb'" : "expected true or false";
    }

    private static RowFormat rowFormat(String value, String where) {
        return switch (value.trim().toLowerCase(Locale.ROOT)) {
            case "auto" -> null;
            case "columnar" -> RowFormat.COLUMNAR;
            case "binary" -> RowFormat.BINARY;
            default ->
                throw new ValidationException(String.format(
                        Locale.ROOT,
                        "invalid value '%s' for option '%s' (%s): expected columnar, binary or auto",
                        value,
                        ROW_FORMAT.key(),
                        where));
        };
    }

    private static String quoted(Set<String> keys) {
        return keys.stream().map(k -> "'" + k + "'").collect(Collectors.joining(", "));
    }
}
