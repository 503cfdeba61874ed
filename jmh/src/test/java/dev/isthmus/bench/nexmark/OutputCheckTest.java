package dev.isthmus.bench.nexmark;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetWriter;
import org.apache.iceberg.hadoop.HadoopCatalog;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.parquet.Parquet;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The fingerprint tells multisets of rows apart, and only them; the footers name their writers. */
class OutputCheckTest {
    private static final Schema SCHEMA = new Schema(
            Types.NestedField.optional(1, "id", Types.LongType.get()),
            Types.NestedField.optional(2, "name", Types.StringType.get()),
            Types.NestedField.optional(3, "price", Types.DecimalType.of(23, 3)));

    @TempDir
    Path warehouse;

    private HadoopCatalog catalog;
    private int tables;

    @BeforeEach
    void catalog() {
        catalog = new HadoopCatalog(new Configuration(), warehouse.toUri().toString());
    }

    private static Record row(long id, String name, String price) {
        Record row = GenericRecord.create(SCHEMA);
        row.setField("id", id);
        row.setField("name", name);
        row.setField("price", price == null ? null : new BigDecimal(price));
        return row;
    }

    /** A table holding {@code files}, each file the given rows in that order. */
    @SafeVarargs
    private Table table(List<Record>... files) throws IOException {
        Table table =
                catalog.createTable(TableIdentifier.of("t", "t" + tables++), SCHEMA, PartitionSpec.unpartitioned());
        OutputFileFactory names = OutputFileFactory.builderFor(table, 1, 0)
                .format(FileFormat.PARQUET)
                .build();
        var append = table.newAppend();
        for (List<Record> rows : files) {
            DataWriter<Record> writer = Parquet.writeData(names.newOutputFile())
                    .forTable(table)
                    .createWriterFunc(GenericParquetWriter::create)
                    .build();
            try (writer) {
                writer.write(rows);
            }
            DataFile file = writer.toDataFile();
            append.appendFile(file);
        }
        append.commit();
        return table;
    }

    @Test
    void theSameRowsInAnotherOrderAndOtherFilesHaveTheSameFingerprint() throws IOException {
        Record a = row(1, "a", "1.500");
        Record b = row(2, null, null);
        Record c = row(3, "c", "-2.000");

        assertThat(OutputCheck.fingerprint(table(List.of(c, b), List.of(a))))
                .isEqualTo(OutputCheck.fingerprint(table(List.of(a, b, c))));
    }

    @Test
    void aChangedValueADuplicateOrAMissingRowChangesTheFingerprint() throws IOException {
        OutputCheck.Fingerprint reference =
                OutputCheck.fingerprint(table(List.of(row(1, "a", "1.500"), row(2, "b", null))));

        assertThat(OutputCheck.fingerprint(table(List.of(row(1, "a", "1.501"), row(2, "b", null)))))
                .isNotEqualTo(reference);
        assertThat(OutputCheck.fingerprint(table(List.of(row(1, "a", "1.500"), row(2, "b", null), row(2, "b", null)))))
                .isNotEqualTo(reference);
        assertThat(OutputCheck.fingerprint(table(List.of(row(1, "a", "1.500")))))
                .isNotEqualTo(reference);
        // A null and the text "null", or a decimal's scale, are values too.
        assertThat(OutputCheck.fingerprint(table(List.of(row(1, "a", "1.500"), row(2, "null", null)))))
                .isNotEqualTo(reference);
    }

    @Test
    void theFilesOfAJavaWriterAreNamedParquetMr() throws IOException {
        OutputCheck.Files files = OutputCheck.files(table(List.of(row(1, "a", "1.500")), List.of(row(2, "b", null))));

        assertThat(files.dataFiles()).isEqualTo(2);
        assertThat(files.dataWriters()).containsOnlyKeys(Witness.JAVA_WRITER);
        assertThat(files.allDataBy(Witness.ISTHMUS_WRITER)).isFalse();
        assertThat(files.noDataBy(Witness.ISTHMUS_WRITER)).isTrue();
    }

    @Test
    void theDifferenceNamesTheRowsOnlyOneSideHolds() throws IOException {
        String difference = OutputCheck.difference(
                table(List.of(row(1, "a", null), row(2, "b", null))),
                table(List.of(row(1, "a", null), row(3, "c", null))),
                5);

        assertThat(difference).contains("L2|Sb|N|").contains("L3|Sc|N|").doesNotContain("L1|");
    }
}
