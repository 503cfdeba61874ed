package dev.isthmus.iceberg.source.parquet;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.data.Record;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The harness the native decoder is judged by: Iceberg writes, the stock Flink reader reads. */
class StockHarnessTest {
    @Test
    void stockReaderReadsBackWhatIcebergWrote(@TempDir Path dir) {
        List<Record> records = new RandomRecords(1, 0.2).records(RandomRecords.EVERY_TYPE, 300);
        Path file = dir.resolve("every-type.parquet");
        IcebergParquetFiles.write(file, RandomRecords.EVERY_TYPE, records, Map.of("write.parquet.page-version", "v2"));
        List<List<Object>> rows = IcebergParquetFiles.readStock(file, RandomRecords.EVERY_TYPE);
        assertEquals(records.size(), rows.size());
        assertEquals(records.get(0).size(), rows.get(0).size());
    }
}
