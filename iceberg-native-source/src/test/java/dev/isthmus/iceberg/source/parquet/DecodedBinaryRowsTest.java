package dev.isthmus.iceberg.source.parquet;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.isthmus.arrow.FlinkValues;
import dev.isthmus.arrow.LeakCheckExtension;
import dev.isthmus.arrow.flink.vector.ArrowColumnarBatch;
import dev.isthmus.arrow.flink.vector.ArrowRowData;
import dev.isthmus.arrow.flink.vector.BinaryRowTransposer;
import dev.isthmus.arrow.flink.vector.BinaryRows;
import dev.isthmus.arrow.memory.MemoryTracker;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.table.types.logical.RowType;
import org.apache.iceberg.Schema;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.flink.FlinkSchemaUtil;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The decoder's batches of every Iceberg primitive type, transposed to binary rows: byte for byte
 * what Flink's {@code RowDataSerializer.toBinaryRow} makes of the same columnar rows, and the
 * values Iceberg's own reader reads. The decoder's vectors are the ones the source transposes:
 * times and timestamps in micro- and nanoseconds, UUIDs and fixed bytes, decimals of every
 * width, and (kept) dictionary-encoded strings.
 */
@ExtendWith(LeakCheckExtension.class)
class DecodedBinaryRowsTest {
    @TempDir
    Path dir;

    private final MemoryTracker tracker = MemoryTracker.root().child("DecodedBinaryRowsTest");

    @AfterEach
    void closeTracker() {
        tracker.close();
    }

    @ParameterizedTest(name = "dictionaries kept: {0}")
    @ValueSource(booleans = {false, true})
    void decodedBatchesTransposeAsFlinksWriterWritesThem(boolean keepDictionaries) {
        BinaryRowTransposer transposer = transposeEveryBatch(RandomRecords.EVERY_TYPE, keepDictionaries, false);
        assertEquals(0, transposer.generatedBatches(), "selections in reverse order go column by column");
    }

    /**
     * Whole batches of the types the generated row writers take (all but wide decimals, UUIDs and
     * fixed bytes) are written by them, to the same bytes; dictionary-encoded strings are not.
     */
    @ParameterizedTest(name = "dictionaries kept: {0}")
    @ValueSource(booleans = {false, true})
    void wholeDecodedBatchesTransposeThroughTheGeneratedWriters(boolean keepDictionaries) {
        Schema schema = new Schema(RandomRecords.EVERY_TYPE.columns().stream()
                .filter(f -> !Set.of("dec38", "uuid", "fixed").contains(f.name()))
                .toList());
        BinaryRowTransposer transposer = transposeEveryBatch(schema, keepDictionaries, true);
        assertEquals(
                keepDictionaries ? 0 : (2_500 + 599) / 600,
                transposer.generatedBatches(),
                "batches written by the generated writer");
    }

    /**
     * Transposes every batch of a file of {@code schema}'s random records, whole or a selection of
     * it, and checks each row against Flink's binary row and Iceberg's reader.
     */
    private BinaryRowTransposer transposeEveryBatch(Schema schema, boolean keepDictionaries, boolean wholeBatches) {
        List<Record> records = new RandomRecords(21, 0.15).records(schema, 2_500);
        Path path = dir.resolve("every-type.parquet");
        IcebergParquetFiles.write(
                path,
                schema,
                records,
                Map.of(TableProperties.PARQUET_COMPRESSION, TableProperties.PARQUET_COMPRESSION_DEFAULT_SINCE_1_4_0));
        List<List<Object>> stock = IcebergParquetFiles.readStock(path, schema);
        RowType type = FlinkSchemaUtil.convert(schema);
        RowDataSerializer serializer = new RowDataSerializer(type);
        BinaryRowTransposer transposer = new BinaryRowTransposer(type);
        BinaryRows into = new BinaryRows();
        BinaryRowData transposed = new BinaryRowData(type.getFieldCount());
        int dictionaryColumns = 0;
        int first = 0;
        try (NativeParquetFile file = NativeParquetFile.open(path);
                NativeParquetScan scan = file.scan(
                        ScanOptions.of(schema).withBatchSize(600).withDictionaries(keepDictionaries), tracker)) {
            while (scan.hasNext()) {
                try (ArrowColumnarBatch batch = scan.next()) {
                    for (int c = 0; c < batch.array().view().childCount(); c++) {
                        dictionaryColumns +=
                                batch.array().view().child(c).field().isDictionaryEncoded() ? 1 : 0;
                    }
                    // Every row but each third, last first: a selection as a filter leaves, in any order.
                    int[] selection = new int[batch.numRows()];
                    int count = 0;
                    for (int i = batch.numRows() - 1; i >= 0; i--) {
                        if (wholeBatches || i % 3 != 1) {
                            selection[count++] = wholeBatches ? batch.numRows() - 1 - i : i;
                        }
                    }
                    transposer.transpose(batch.batch().columns, wholeBatches ? null : selection, count, into);
                    ArrowRowData columnar = batch.row(0);
                    for (int k = 0; k < count; k++) {
                        columnar.setRowId(selection[k]);
                        into.pointTo(transposed, k);
                        String at = "row " + (first + selection[k]);
                        assertEquals(serializer.toBinaryRow(columnar), transposed, at);
                        assertEquals(stock.get(first + selection[k]), FlinkValues.row(transposed, type), at);
                    }
                    first += batch.numRows();
                }
            }
        }
        assertEquals(records.size(), first);
        assertEquals(keepDictionaries, dictionaryColumns > 0, "string columns came as dictionaries");
        return transposer;
    }
}
