package dev.isthmus.iceberg.sink;

import static org.assertj.core.api.Assertions.assertThat;

import dev.isthmus.iceberg.sink.write.DataFileAppenders;
import dev.isthmus.iceberg.sink.write.NativeDataFiles;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.RowKind;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.MetricsConfig;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.flink.data.FlinkParquetWriters;
import org.apache.iceberg.flink.sink.FlinkSink;
import org.apache.iceberg.parquet.Parquet;
import org.apache.iceberg.types.Types;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The data-file seam: any producer of a FileAppender, plugged in with one call, writes every data
 * file of an upsert, with the table's write properties, while delete files stay Iceberg's; the
 * rows are the stock sink's.
 */
class DataFileSeamTest {
    @RegisterExtension
    static final MiniClusterExtension CLUSTER = SinkTests.miniCluster();

    private static final Schema SCHEMA = new Schema(
            List.of(
                    Types.NestedField.required(1, "id", Types.LongType.get()),
                    Types.NestedField.optional(2, "name", Types.StringType.get())),
            Set.of(1));
    private static final String MARK = "isthmus.test.writer";

    /** Iceberg's Parquet writer for Flink rows, with a mark in the footer to tell its files apart. */
    static final DataFileAppenders MARKED = DataFileAppenders.of((context, file) -> {
        try {
            return Parquet.write(file)
                    .createWriterFunc(type -> FlinkParquetWriters.buildWriter(context.flinkType(), type))
                    .setAll(context.writeProperties())
                    .metricsConfig(MetricsConfig.forTable(context.table()))
                    .schema(context.schema())
                    .meta(MARK, "seam")
                    .overwrite()
                    .build();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    });

    /** The job ids the data-file writers of {@link #JOB_RECORDING} were told, one entry per writer subtask. */
    private static final List<String> TOLD = java.util.Collections.synchronizedList(new ArrayList<>());

    /** The sink's default, noting the job id each writer subtask is given (what it keys its fallback log by). */
    static final DataFileAppenders JOB_RECORDING = context -> {
        TOLD.add(context.jobId());
        return NativeDataFiles.lenient().create(context);
    };

    @TempDir
    Path warehouse;

    @Test
    void anotherAppenderWritesTheDataFilesOnly() throws Exception {
        SinkTests.Warehouse tables = new SinkTests.Warehouse(warehouse);
        Map<String, String> props =
                Map.of("write.parquet.compression-codec", "gzip", "write.parquet.row-group-size-bytes", "8192");
        Table stock = tables.create("stock", SCHEMA, PartitionSpec.unpartitioned(), props);
        Table ours = tables.create("ours", SCHEMA, PartitionSpec.unpartitioned(), props);
        List<RowData> rows = new ArrayList<>();
        for (long i = 0; i < 6_000; i++) {
            // Every third row updates an earlier key: position deletes in upsert mode.
            long id = i % 3 == 2 ? i - 2 : i;
            rows.add(GenericRowData.ofKind(
                    i % 3 == 2 ? RowKind.UPDATE_AFTER : RowKind.INSERT, id, StringData.fromString("name-" + i)));
        }
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2);
        DataStream<RowData> input = env.fromData(rows, InternalTypeInfo.of(SinkTests.flinkType(SCHEMA)));
        FlinkSink.forRowData(input)
                .tableLoader(SinkTests.loader(stock))
                .upsert(true)
                .writeParallelism(2)
                .append();
        NativeIcebergSink.forRowData(input)
                .tableLoader(SinkTests.loader(ours))
                .upsert(true)
                .writeParallelism(2)
                .dataFileAppenders(MARKED)
                .append();
        env.execute("seam");

        assertThat(SinkTests.rows(ours)).isEqualTo(SinkTests.rows(stock)).hasSize(4_000);
        ours.refresh();
        List<DataFile> dataFiles = SinkTests.dataFiles(ours);
        List<DeleteFile> deleteFiles = SinkTests.deleteFiles(ours);
        assertThat(dataFiles).isNotEmpty().allSatisfy(file -> {
            ParquetMetadata footer = footer(file);
            assertThat(footer.getFileMetaData().getKeyValueMetaData()).containsEntry(MARK, "seam");
            assertThat(footer.getBlocks()).as("row groups of at most 8 KiB").hasSizeGreaterThan(1);
            assertThat(footer.getBlocks().getFirst().getColumns().getFirst().getCodec())
                    .isEqualTo(CompressionCodecName.GZIP);
        });
        assertThat(deleteFiles)
                .isNotEmpty()
                .allSatisfy(file -> assertThat(footer(file).getFileMetaData().getKeyValueMetaData())
                        .doesNotContainKey(MARK));
    }

    private static ParquetMetadata footer(ContentFile<?> file) {
        try (ParquetFileReader reader = ParquetFileReader.open(
                HadoopInputFile.fromPath(new org.apache.hadoop.fs.Path(file.location()), new Configuration()))) {
            return reader.getFooter();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Test
    void eachWriterSubtaskIsToldItsJob() throws Exception {
        SinkTests.Warehouse tables = new SinkTests.Warehouse(warehouse);
        Table table = tables.create("jobs", SCHEMA, PartitionSpec.unpartitioned(), Map.of());
        List<RowData> rows = List.of(
                GenericRowData.of(1L, StringData.fromString("a")), GenericRowData.of(2L, StringData.fromString("b")));
        List<String> jobs = new ArrayList<>();
        for (int run = 0; run < 2; run++) {
            StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
            DataStream<RowData> input = env.fromData(rows, InternalTypeInfo.of(SinkTests.flinkType(SCHEMA)));
            NativeIcebergSink.forRowData(input)
                    .tableLoader(SinkTests.loader(table))
                    .writeParallelism(2)
                    .dataFileAppenders(JOB_RECORDING)
                    .append();
            jobs.add(env.execute("jobs " + run).getJobID().toHexString());
        }
        assertThat(TOLD).containsExactlyInAnyOrder(jobs.get(0), jobs.get(0), jobs.get(1), jobs.get(1));
    }
}
