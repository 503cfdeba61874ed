package dev.isthmus.iceberg.source;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.UUID;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.MetricsConfig;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.mapping.MappingUtil;
import org.apache.iceberg.mapping.NameMapping;
import org.apache.iceberg.mapping.NameMappingParser;
import org.apache.iceberg.parquet.ParquetUtil;
import org.apache.iceberg.types.Types;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.SimpleGroupFactory;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.example.ExampleParquetWriter;
import org.apache.parquet.io.LocalOutputFile;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.MessageTypeParser;

/**
 * A table as Iceberg's {@code migrate} and {@code add_files} leave it: Parquet files written by
 * parquet-java without field ids (as Hive and Spark write them), added by path with their
 * metrics, and the table's name mapping (from its schema) in {@code schema.name-mapping.default}.
 */
public final class HiveStyleTable {
    /** The files' schema: flat columns, a struct and a 3-level list, no ids anywhere. */
    public static final MessageType FILE_SCHEMA = MessageTypeParser.parseMessageType("""
            message hive {
              required int64 id;
              optional binary name (STRING);
              optional double score;
              optional group info {
                optional binary city (STRING);
                optional int32 zip;
              }
              optional group tags (LIST) {
                repeated group list {
                  optional binary element (STRING);
                }
              }
            }""");

    /** The table's schema, as a migration derives it from the files'. */
    public static final Schema SCHEMA = new Schema(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.optional(2, "name", Types.StringType.get()),
            Types.NestedField.optional(3, "score", Types.DoubleType.get()),
            Types.NestedField.optional(
                    4,
                    "info",
                    Types.StructType.of(
                            Types.NestedField.optional(6, "city", Types.StringType.get()),
                            Types.NestedField.optional(7, "zip", Types.IntegerType.get()))),
            Types.NestedField.optional(5, "tags", Types.ListType.ofOptional(8, Types.StringType.get())));

    private HiveStyleTable() {}

    /** Sets {@code table}'s name mapping to the one {@code MappingUtil} derives from its schema. */
    public static NameMapping mapByName(Table table) {
        NameMapping mapping = MappingUtil.create(table.schema());
        table.updateProperties()
                .set(TableProperties.DEFAULT_NAME_MAPPING, NameMappingParser.toJson(mapping))
                .commit();
        return mapping;
    }

    /** Writes rows {@code first} to {@code first + count - 1} into one file without ids and adds it. */
    public static DataFile addFile(Table table, long first, int count) {
        return addFile(table, first, count, null);
    }

    /**
     * Writes rows {@code first} to {@code first + count - 1} into one file without ids and adds it
     * to partition {@code partitionPath} (such as {@code region=eu}, a value the file does not hold,
     * as Hive lays out partitions), or unpartitioned if it is {@code null}.
     */
    public static DataFile addFile(Table table, long first, int count, String partitionPath) {
        String location = table.locationProvider().newDataLocation(UUID.randomUUID() + ".parquet");
        Path path = Path.of(java.net.URI.create(location));
        try {
            java.nio.file.Files.createDirectories(path.getParent());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        SimpleGroupFactory groups = new SimpleGroupFactory(FILE_SCHEMA);
        try (ParquetWriter<Group> writer = ExampleParquetWriter.builder(new LocalOutputFile(path))
                .withType(FILE_SCHEMA)
                .withRowGroupSize(16 * 1024)
                .withPageSize(2048)
                .build()) {
            for (long id = first; id < first + count; id++) {
                Group row = groups.newGroup().append("id", id);
                if (id % 9 != 0) {
                    row.append("name", "n" + id % 17);
                }
                if (id % 11 != 0) {
                    row.append("score", id * 0.5);
                }
                if (id % 13 != 0) {
                    Group info = row.addGroup("info");
                    if (id % 7 != 0) {
                        info.append("city", "c" + id % 5);
                    }
                    info.append("zip", (int) (id % 1000));
                }
                if (id % 10 != 0) {
                    Group tags = row.addGroup("tags");
                    for (int i = 0; i < id % 4; i++) {
                        Group element = tags.addGroup("list");
                        if (i != 2) {
                            element.append("element", "t" + (id + i) % 6);
                        }
                    }
                }
                writer.write(row);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        InputFile input = table.io().newInputFile(location);
        String mapping = table.properties().get(TableProperties.DEFAULT_NAME_MAPPING);
        DataFiles.Builder builder = DataFiles.builder(table.spec());
        if (partitionPath != null) {
            builder.withPartitionPath(partitionPath);
        }
        DataFile file = builder.withPath(location)
                .withFormat(FileFormat.PARQUET)
                .withFileSizeInBytes(input.getLength())
                .withMetrics(ParquetUtil.fileMetrics(
                        input,
                        MetricsConfig.forTable(table),
                        mapping == null ? null : NameMappingParser.fromJson(mapping)))
                .build();
        table.newAppend().appendFile(file).commit();
        return file;
    }
}
