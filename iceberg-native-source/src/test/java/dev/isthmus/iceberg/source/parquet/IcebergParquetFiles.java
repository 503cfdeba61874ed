package dev.isthmus.iceberg.source.parquet;

import dev.isthmus.arrow.FlinkValues;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;
import org.apache.iceberg.Files;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetWriter;
import org.apache.iceberg.flink.FlinkSchemaUtil;
import org.apache.iceberg.flink.data.FlinkParquetReaders;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.FileAppender;
import org.apache.iceberg.parquet.Parquet;

/** Files written by Iceberg's own Parquet writer, and read back by the stock Flink reader. */
public final class IcebergParquetFiles {
    private IcebergParquetFiles() {}

    /** Writes {@code records} as Iceberg does, with table properties such as the codec or page version. */
    public static void write(Path file, Schema schema, List<Record> records, Map<String, String> properties) {
        Parquet.WriteBuilder builder = Parquet.write(Files.localOutput(file.toFile()))
                .schema(schema)
                .createWriterFunc(GenericParquetWriter::create)
                .overwrite();
        properties.forEach(builder::set);
        try (FileAppender<Record> appender = builder.build()) {
            appender.addAll(records);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * What Iceberg's Flink source reads, row by row, as plain values ({@link FlinkValues}) taken
     * while each row is current.
     */
    public static List<List<Object>> readStock(Path file, Schema projection) {
        RowType rowType = FlinkSchemaUtil.convert(projection);
        List<List<Object>> rows = new ArrayList<>();
        try (CloseableIterable<RowData> read = Parquet.read(Files.localInput(file.toFile()))
                .project(projection)
                .createReaderFunc(fileSchema -> FlinkParquetReaders.buildReader(projection, fileSchema))
                .build()) {
            for (RowData row : read) {
                rows.add(FlinkValues.row(row, rowType));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return rows;
    }
}
