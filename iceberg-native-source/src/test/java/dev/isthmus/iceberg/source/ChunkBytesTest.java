package dev.isthmus.iceberg.source;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.isthmus.arrow.LeakCheckExtension;
import dev.isthmus.iceberg.source.parquet.IcebergParquetFiles;
import dev.isthmus.iceberg.source.parquet.IdNameDetails;
import dev.isthmus.iceberg.source.parquet.NativeParquetFile;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.Record;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code bytesRead} metric's count of a task: the stored bytes of its projected column
 * chunks, the same whether every leaf is projected (the row groups' totals) or some are (a sum
 * over their chunks).
 */
@ExtendWith(LeakCheckExtension.class)
class ChunkBytesTest {
    private static final Schema SCHEMA = IdNameDetails.SCHEMA;

    @TempDir
    Path dir;

    @Test
    void aTaskCountsTheStoredBytesOfItsProjectedChunks() {
        Path path = dir.resolve("groups.parquet");
        List<Record> records = new ArrayList<>();
        for (long id = 0; id < 20_000; id++) {
            records.add(IdNameDetails.record(id, "name " + id, "city " + (id % 97), (int) id));
        }
        IcebergParquetFiles.write(path, SCHEMA, records, Map.of("write.parquet.row-group-size-bytes", "65536"));
        try (NativeParquetFile file = NativeParquetFile.open(path)) {
            List<NativeParquetFile.Column> columns = file.columns(null);
            assertTrue(file.rowGroupCount() > 2, "several row groups");
            List<Integer> groups = List.of(0, 2);
            assertEquals(
                    chunks(file, columns, groups, Set.of(1, 2, 4, 5)),
                    NativeTaskReader.chunkBytes(file, columns, groups, SCHEMA),
                    "every leaf");
            long projected = NativeTaskReader.chunkBytes(file, columns, groups, IdNameDetails.NAME_AND_ZIP);
            assertEquals(chunks(file, columns, groups, Set.of(2, 5)), projected, "some leaves");
            assertTrue(projected > 0 && projected < NativeTaskReader.chunkBytes(file, columns, groups, SCHEMA));
        }
    }

    /** The stored bytes of the chunks of the leaves {@code ids} in {@code groups}, chunk by chunk. */
    private static long chunks(
            NativeParquetFile file, List<NativeParquetFile.Column> columns, List<Integer> groups, Set<Integer> ids) {
        long bytes = 0;
        for (int leaf = 0; leaf < columns.size(); leaf++) {
            if (ids.contains(columns.get(leaf).fieldId())) {
                for (int rg : groups) {
                    bytes += file.columnChunk(rg, leaf).compressedSize();
                }
            }
        }
        return bytes;
    }
}
