package dev.isthmus.iceberg.source.parquet;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.isthmus.arrow.FlinkValues;
import dev.isthmus.arrow.flink.vector.ArrowColumnarBatch;
import dev.isthmus.arrow.flink.vector.ArrowRowData;
import dev.isthmus.arrow.memory.MemoryTracker;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.table.types.logical.RowType;
import org.apache.iceberg.Files;
import org.apache.iceberg.flink.FlinkSchemaUtil;

/** Every row of a native scan as plain values ({@link FlinkValues}), batches checked on the way. */
final class NativeRows {
    private NativeRows() {}

    static List<List<Object>> read(Path path, ScanOptions options, boolean throughFileIo, MemoryTracker tracker) {
        try (NativeParquetFile file = throughFileIo
                ? NativeParquetFile.open(Files.localInput(path.toFile()))
                : NativeParquetFile.open(path)) {
            return read(file, options, tracker);
        }
    }

    static List<List<Object>> read(NativeParquetFile file, ScanOptions options, MemoryTracker tracker) {
        return read(file, options, tracker, null);
    }

    /** With the expected schema {@code projections} keeps, if any ({@link ExportedProjections}). */
    static List<List<Object>> read(
            NativeParquetFile file, ScanOptions options, MemoryTracker tracker, ExportedProjections projections) {
        RowType rowType = FlinkSchemaUtil.convert(options.projection());
        List<List<Object>> rows = new ArrayList<>();
        try (NativeParquetScan scan = file.scan(options, tracker, null, projections, null)) {
            while (scan.hasNext()) {
                try (ArrowColumnarBatch batch = scan.next()) {
                    assertTrue(batch.numRows() > 0 && batch.numRows() <= options.batchSize());
                    ArrowRowData row = batch.row(0);
                    for (int i = 0; i < batch.numRows(); i++) {
                        row.setRowId(i);
                        rows.add(FlinkValues.row(row, rowType));
                    }
                }
            }
        }
        return rows;
    }
}
