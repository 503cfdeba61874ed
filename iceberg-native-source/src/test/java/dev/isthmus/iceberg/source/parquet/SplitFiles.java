package dev.isthmus.iceberg.source.parquet;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.flink.table.data.RowData;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Types;

/**
 * The files of one split, for tests of what a split's scans share: {@code id} and {@code name},
 * written by Iceberg. File {@code f}'s ids start at {@code f * 100_000}; every seventh name is
 * null, and the others have one length in every file, so every file's batches need the same
 * buffers.
 */
final class SplitFiles {
    static final Schema SCHEMA = new Schema(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.optional(2, "name", Types.StringType.get()));

    private SplitFiles() {}

    /** Writes {@code files} files of {@code rows} rows each into {@code dir}. */
    static List<Path> write(Path dir, int files, int rows) {
        List<Path> paths = new ArrayList<>();
        for (int f = 0; f < files; f++) {
            List<Record> records = new ArrayList<>();
            for (int row = 0; row < rows; row++) {
                GenericRecord record = GenericRecord.create(SCHEMA);
                record.setField("id", id(f, row));
                record.setField("name", name(f, row));
                records.add(record);
            }
            Path path = dir.resolve("part-" + f + ".parquet");
            IcebergParquetFiles.write(path, SCHEMA, records, Map.of());
            paths.add(path);
        }
        return paths;
    }

    static long id(int file, long row) {
        return file * 100_000L + row;
    }

    static String name(int file, long row) {
        return row % 7 == 0 ? null : String.format(Locale.ROOT, "name %07d", id(file, row));
    }

    /** Asserts that {@code row} is row {@code index} of file {@code file}. */
    static void assertRow(int file, long index, RowData row) {
        assertEquals(id(file, index), row.getLong(0), "id");
        assertEquals(
                name(file, index), row.isNullAt(1) ? null : row.getString(1).toString(), "name");
    }
}
