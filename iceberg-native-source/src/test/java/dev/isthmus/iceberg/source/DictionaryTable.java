package dev.isthmus.iceberg.source;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Types;

/**
 * A table whose row groups alternate between two kinds that footer statistics cannot tell apart
 * for some values but dictionaries can: even row groups hold tags "a" and "z" (and nulls), codes 1
 * and 100, amounts 1.00 and 9.00; odd ones only "m", 50 and 5.00. Files of {@link #fallbackRecords}
 * hold one row group whose {@code word} column starts with three repeated words and then
 * overflows its dictionary, so the chunk falls back to PLAIN after dictionary-encoded pages: its
 * dictionary holds only some of its values.
 */
final class DictionaryTable {
    static final int ROWS_PER_GROUP = 200;

    static final Schema SCHEMA = new Schema(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.optional(2, "tag", Types.StringType.get()),
            Types.NestedField.optional(3, "word", Types.StringType.get()),
            Types.NestedField.optional(4, "code", Types.IntegerType.get()),
            Types.NestedField.optional(5, "amount", Types.DecimalType.of(9, 2)));

    /**
     * Row groups of exactly {@link #ROWS_PER_GROUP} rows (Iceberg's writer checks the size that
     * often and always finds the 1-byte target exceeded), pages of 50 rows, small dictionaries.
     */
    static final Map<String, String> PROPERTIES = Map.of(
            "write.parquet.row-group-size-bytes",
            "1",
            "write.parquet.row-group-check-min-record-count",
            String.valueOf(ROWS_PER_GROUP),
            "write.parquet.row-group-check-max-record-count",
            String.valueOf(ROWS_PER_GROUP),
            "write.parquet.page-row-limit",
            "50",
            "write.parquet.dict-size-bytes",
            "512");

    /**
     * One row group; page sizes checked every 10 rows (the same property), so that pages of 50
     * rows are written before the 512-byte dictionary overflows.
     */
    static final Map<String, String> FALLBACK_PROPERTIES = Map.of(
            "write.parquet.row-group-size-bytes",
            "134217728",
            "write.parquet.row-group-check-min-record-count",
            "10",
            "write.parquet.row-group-check-max-record-count",
            "10",
            "write.parquet.page-row-limit",
            "50",
            "write.parquet.dict-size-bytes",
            "512");

    private DictionaryTable() {}

    /** A word only the PLAIN pages of a fallback file hold. */
    static String uniqueWord(long id) {
        return String.format(Locale.ROOT, "u-%08d-padding-padding", id);
    }

    /** {@code groups} row groups' rows, ids from {@code first} (a multiple of the group size). */
    static List<Record> records(long first, int groups) {
        List<Record> records = new ArrayList<>();
        for (long id = first; id < first + (long) groups * ROWS_PER_GROUP; id++) {
            boolean even = ((id - first) / ROWS_PER_GROUP) % 2 == 0;
            records.add(
                    even
                            ? record(
                                    id,
                                    id % 7 == 0 ? null : id % 2 == 0 ? "a" : "z",
                                    id % 2 == 0 ? 1 : 100,
                                    id % 2 == 0 ? "1.00" : "9.00",
                                    "w-common-" + id % 3)
                            : record(id, "m", 50, "5.00", "w-common-" + id % 3));
        }
        return records;
    }

    /** {@code rows} rows (more than 100) for a file of {@link #FALLBACK_PROPERTIES}. */
    static List<Record> fallbackRecords(long first, int rows) {
        List<Record> records = new ArrayList<>();
        for (long id = first; id < first + rows; id++) {
            records.add(record(id, "f", 7, "7.00", id - first < 100 ? "w-common-" + id % 3 : uniqueWord(id)));
        }
        return records;
    }

    private static Record record(long id, String tag, int code, String amount, String word) {
        GenericRecord r = GenericRecord.create(SCHEMA);
        r.set(0, id);
        r.set(1, tag);
        r.set(2, word);
        r.set(3, code);
        r.set(4, new BigDecimal(amount));
        return r;
    }
}
