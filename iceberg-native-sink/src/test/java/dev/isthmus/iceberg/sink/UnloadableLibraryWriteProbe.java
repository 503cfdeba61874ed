package dev.isthmus.iceberg.sink;

import dev.isthmus.arrow.memory.MemoryTracker;
import dev.isthmus.iceberg.sink.parquet.NativeParquetWriter;
import dev.isthmus.iceberg.sink.write.DataFileAppenders;
import dev.isthmus.iceberg.sink.write.NativeDataFiles;
import dev.isthmus.iceberg.sink.write.SinkTaskWriterFactory;
import dev.isthmus.iceberg.source.JobMetricGroup;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.iceberg.AppendFiles;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.TaskWriter;
import org.apache.iceberg.types.Types;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.util.HadoopInputFile;

/**
 * Run by {@link UnloadableLibraryWriteTest} in a JVM where the native library cannot load: the
 * sink's task writers of two jobs (job-a with two subtasks, job-b with one) write and commit
 * rows, the writer's gauges are read, and a strict sink is tried. Prints {@code key=value} lines;
 * the fallbacks log through {@code StdoutLogProvider}.
 */
public final class UnloadableLibraryWriteProbe {
    private static final Schema SCHEMA = new Schema(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.optional(2, "name", Types.StringType.get()));

    private UnloadableLibraryWriteProbe() {}

    public static void main(String[] args) throws Exception {
        // Iceberg's Java writers must manage without native code too: no JNI codec.
        Table table = new SinkTests.Warehouse(Path.of(args[0]))
                .create(
                        "unloadable",
                        SCHEMA,
                        PartitionSpec.unpartitioned(),
                        Map.of("write.parquet.compression-codec", "uncompressed"));
        List<DataFile> files = new ArrayList<>();
        SinkTaskWriterFactory last = null;
        long id = 0;
        for (String job : List.of("job-a", "job-b")) {
            long fallbacks = NativeDataFiles.fallbacks();
            int subtasks = job.equals("job-a") ? 2 : 1;
            for (int subtask = 0; subtask < subtasks; subtask++) {
                SinkTaskWriterFactory factory = factory(table, NativeDataFiles.lenient());
                factory.initialize(job, subtask, 0);
                last = factory;
                // Two checkpoints' files each: the factory's appenders are asked for a file several times.
                for (int checkpoint = 0; checkpoint < 2; checkpoint++) {
                    TaskWriter<RowData> writer = factory.create();
                    for (int row = 0; row < 250; row++, id++) {
                        writer.write(GenericRowData.of(id, StringData.fromString("row " + id)));
                    }
                    files.addAll(List.of(writer.complete().dataFiles()));
                }
            }
            System.out.println(job + ".fallbacks=" + (NativeDataFiles.fallbacks() - fallbacks));
        }
        AppendFiles append = table.newAppend();
        files.forEach(append::appendFile);
        append.commit();

        TreeSet<String> createdBy = new TreeSet<>();
        for (DataFile file : files) {
            try (ParquetFileReader reader = ParquetFileReader.open(HadoopInputFile.fromPath(
                    new org.apache.hadoop.fs.Path(file.location()), new org.apache.hadoop.conf.Configuration()))) {
                createdBy.add(
                        reader.getFooter().getFileMetaData().getCreatedBy().split(" ")[0]);
            }
        }
        long read = 0;
        long idSum = 0;
        try (CloseableIterable<Record> records = IcebergGenerics.read(table).build()) {
            for (Record record : records) {
                read++;
                idSum += (Long) record.getField("id");
                if (!("row " + record.getField("id")).equals(record.getField("name"))) {
                    throw new AssertionError("read back " + record);
                }
            }
        }
        System.out.println("files=" + files.size());
        System.out.println("createdBy=" + createdBy);
        System.out.println("rowsWritten=" + id);
        System.out.println("rowsRead=" + read);
        System.out.println("idSum=" + idSum);

        JobMetricGroup group = new JobMetricGroup("job-b");
        new WriterMetrics(group, table.name(), last.memory());
        TreeMap<String, Object> gauges = new TreeMap<>();
        String prefix = WriterMetrics.GROUP + ".table." + table.name() + ".";
        group.gauges().forEach((name, gauge) -> gauges.put(name.substring(prefix.length()), gauge.getValue()));
        System.out.println("gauges=" + gauges);
        System.out.println("encodeNanos=" + NativeParquetWriter.encodeNanos());

        try {
            factory(table, NativeDataFiles.strict()).initialize("job-strict", 0, 0);
            System.out.println("strict=initialized");
        } catch (UnsupportedOperationException e) {
            System.out.println("strict=" + e.getMessage());
            System.out.println("strictCause=" + e.getCause().getClass().getName());
        }
    }

    private static SinkTaskWriterFactory factory(Table table, DataFileAppenders dataFiles) {
        return new SinkTaskWriterFactory(
                () -> table,
                SinkTests.flinkType(SCHEMA),
                FileFormat.PARQUET,
                128L << 20,
                table.properties(),
                List.of(),
                false,
                dataFiles,
                MemoryTracker.NO_LIMIT);
    }
}
