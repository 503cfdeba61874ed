package dev.isthmus.iceberg.source;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.AppendFiles;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.MetricsConfig;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.Table;
import org.apache.iceberg.avro.Avro;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.InternalRecordWrapper;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetWriter;
import org.apache.iceberg.deletes.EqualityDeleteWriter;
import org.apache.iceberg.deletes.PositionDelete;
import org.apache.iceberg.deletes.PositionDeleteWriter;
import org.apache.iceberg.flink.CatalogLoader;
import org.apache.iceberg.flink.TableLoader;
import org.apache.iceberg.hadoop.HadoopCatalog;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.parquet.Parquet;

/** Iceberg tables in a Hadoop catalog (in a temporary directory, or on a Hadoop file system), written with Iceberg's own writers. */
final class TestTables {
    private final String warehouse;
    private final Configuration conf;
    private final HadoopCatalog catalog;

    TestTables(Path dir) {
        this("file:" + dir.toAbsolutePath(), new Configuration());
    }

    /** Tables under {@code warehouse}, any Hadoop file system's URI (an {@code hdfs://} one, say). */
    TestTables(String warehouse, Configuration conf) {
        this.warehouse = warehouse;
        this.conf = conf;
        this.catalog = new HadoopCatalog(conf, warehouse);
    }

    Table create(String name, Schema schema, PartitionSpec spec, Map<String, String> properties) {
        return catalog.createTable(TableIdentifier.of("db", name), schema, spec, properties);
    }

    TableLoader loader(String name) {
        return TableLoader.fromCatalog(
                CatalogLoader.hadoop("test", conf, Map.of("warehouse", warehouse)), TableIdentifier.of("db", name));
    }

    /** Appends {@code records} in one snapshot: one data file per partition, with the table's write properties. */
    static List<DataFile> append(Table table, List<Record> records) {
        Map<StructLike, List<Record>> byPartition = new LinkedHashMap<>();
        PartitionKey key = new PartitionKey(table.spec(), table.schema());
        InternalRecordWrapper wrapper = new InternalRecordWrapper(table.schema().asStruct());
        for (Record record : records) {
            key.partition(wrapper.wrap(record));
            byPartition.computeIfAbsent(key.copy(), k -> new ArrayList<>()).add(record);
        }
        List<DataFile> files = new ArrayList<>();
        AppendFiles append = table.newAppend();
        for (Map.Entry<StructLike, List<Record>> partition : byPartition.entrySet()) {
            String location = table.locationProvider()
                    .newDataLocation(table.spec(), partition.getKey(), UUID.randomUUID() + ".parquet");
            DataWriter<Record> writer;
            try {
                writer = Parquet.writeData(table.io().newOutputFile(location))
                        .schema(table.schema())
                        .withSpec(table.spec())
                        .withPartition(partition.getKey())
                        .setAll(table.properties())
                        .createWriterFunc(GenericParquetWriter::create)
                        .overwrite()
                        .build();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            try (writer) {
                partition.getValue().forEach(writer::write);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            files.add(writer.toDataFile());
            append.appendFile(writer.toDataFile());
        }
        append.commit();
        return files;
    }

    /** Appends {@code records} to an unpartitioned table as one Avro data file. */
    static DataFile appendAvro(Table table, List<Record> records) {
        String location = table.locationProvider().newDataLocation(UUID.randomUUID() + ".avro");
        DataWriter<Record> writer;
        try {
            writer = Avro.writeData(table.io().newOutputFile(location))
                    .schema(table.schema())
                    .withSpec(table.spec())
                    .createWriterFunc(org.apache.iceberg.data.avro.DataWriter::create)
                    .overwrite()
                    .build();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        try (writer) {
            records.forEach(writer::write);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        table.newAppend().appendFile(writer.toDataFile()).commit();
        return writer.toDataFile();
    }

    /** Deletes rows {@code positions} of {@code file} with a position delete file. */
    static void deletePositions(Table table, DataFile file, long... positions) {
        deletePositions(table, List.of(file), positions);
    }

    /**
     * Deletes rows {@code positions} of each of {@code files} (of one partition) with one position
     * delete file, its rows sorted by file and position as Iceberg's writers sort them.
     */
    static void deletePositions(Table table, List<DataFile> files, long... positions) {
        DataFile file = files.getFirst();
        String location = table.locationProvider()
                .newDataLocation(table.spec(), file.partition(), "deletes-" + UUID.randomUUID() + ".parquet");
        PositionDeleteWriter<Record> writer;
        try {
            // Iceberg's position delete metrics keep file_path's bounds exact, so a file naming
            // one data file is scoped to it at planning, as Iceberg's writers leave them.
            writer = Parquet.writeDeletes(table.io().newOutputFile(location))
                    .setAll(table.properties())
                    .metricsConfig(MetricsConfig.forPositionDelete(table))
                    .withSpec(table.spec())
                    .withPartition(file.partition())
                    .overwrite()
                    .buildPositionWriter();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        try (writer) {
            PositionDelete<Record> delete = PositionDelete.create();
            long[] sorted = positions.clone();
            java.util.Arrays.sort(sorted);
            for (String path : files.stream().map(DataFile::location).sorted().toList()) {
                for (long position : sorted) {
                    writer.write(delete.set(path, position, null));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        DeleteFile deletes = writer.toDeleteFile();
        table.newRowDelta().addDeletes(deletes).commit();
    }

    /** Deletes rows {@code positions} of {@code file} with a deletion vector (format v3), its first. */
    static void deleteWithVector(Table table, DataFile file, long... positions) {
        String location = table.locationProvider()
                .newDataLocation(table.spec(), file.partition(), "dv-" + UUID.randomUUID() + ".puffin");
        org.apache.iceberg.deletes.BaseDVFileWriter writer =
                new org.apache.iceberg.deletes.BaseDVFileWriter(() -> table.io().newOutputFile(location), path -> null);
        try (writer) {
            for (long position : positions) {
                writer.delete(file.location(), position, table.specs().get(file.specId()), file.partition());
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        org.apache.iceberg.RowDelta delta = table.newRowDelta();
        writer.result().deleteFiles().forEach(delta::addDeletes);
        delta.commit();
    }

    /** Deletes the rows whose {@code equalityField} equals one of {@code rows}' with an equality delete file. */
    static void deleteEquals(Table table, String equalityField, List<Record> rows) {
        deleteEquals(table, List.of(equalityField), rows);
    }

    /**
     * Deletes the rows whose {@code equalityFields} equal those of one of {@code rows}, in one
     * commit: one equality delete file per partition of the table's current spec, holding just
     * those fields, as Flink's upsert sink writes them.
     */
    static void deleteEquals(Table table, List<String> equalityFields, List<Record> rows) {
        Schema deleteSchema = table.schema().select(equalityFields);
        int[] ids = equalityFields.stream()
                .mapToInt(f -> table.schema().findField(f).fieldId())
                .toArray();
        Map<StructLike, List<Record>> byPartition = new LinkedHashMap<>();
        PartitionKey partitionKey = new PartitionKey(table.spec(), table.schema());
        InternalRecordWrapper wrapper = new InternalRecordWrapper(table.schema().asStruct());
        for (Record row : rows) {
            partitionKey.partition(wrapper.wrap(row));
            byPartition
                    .computeIfAbsent(partitionKey.copy(), k -> new ArrayList<>())
                    .add(row);
        }
        org.apache.iceberg.RowDelta delta = table.newRowDelta();
        for (Map.Entry<StructLike, List<Record>> partition : byPartition.entrySet()) {
            String location = table.locationProvider()
                    .newDataLocation(table.spec(), partition.getKey(), "eq-deletes-" + UUID.randomUUID() + ".parquet");
            EqualityDeleteWriter<Record> writer;
            try {
                writer = Parquet.writeDeletes(table.io().newOutputFile(location))
                        .forTable(table)
                        .withSpec(table.spec())
                        .withPartition(table.spec().isUnpartitioned() ? null : partition.getKey())
                        .rowSchema(deleteSchema)
                        .createWriterFunc(GenericParquetWriter::create)
                        .equalityFieldIds(ids)
                        .overwrite()
                        .buildEqualityWriter();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            try (writer) {
                for (Record row : partition.getValue()) {
                    Record key = GenericRecord.create(deleteSchema);
                    for (String field : equalityFields) {
                        key.setField(field, row.getField(field));
                    }
                    writer.write(key);
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            delta.addDeletes(writer.toDeleteFile());
        }
        delta.commit();
    }
}
