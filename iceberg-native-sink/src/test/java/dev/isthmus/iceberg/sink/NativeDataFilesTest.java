package dev.isthmus.iceberg.sink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.isthmus.iceberg.sink.write.NativeDataFiles;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.catalog.Column;
import org.apache.flink.table.catalog.ResolvedSchema;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.types.Types;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Who writes what: the sink's data files are the native encoder's, with the table's Parquet
 * properties in them; its delete files are Iceberg's Java writers'; a table the encoder cannot
 * write falls back to Iceberg's writers as a whole, or fails when the sink is strict.
 */
class NativeDataFilesTest {
    @RegisterExtension
    static final MiniClusterExtension CLUSTER = SinkTests.miniCluster();

    private static final Schema SCHEMA = new Schema(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.optional(2, "name", Types.StringType.get()));

    @TempDir
    Path warehouse;

    private static final String[] WORDS = ("alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima "
                    + "mike november oscar papa quebec romeo sierra tango uniform victor whiskey xray yankee zulu")
            .split(" ");

    /** Distinct keys, and text with the long-range repeats that separate zstd's levels. */
    private static List<RowData> rows(int count) {
        java.util.SplittableRandom random = new java.util.SplittableRandom(5);
        List<RowData> rows = new ArrayList<>();
        for (long i = 0; i < count; i++) {
            StringBuilder name = new StringBuilder();
            for (int w = 0; w < 6; w++) {
                name.append(WORDS[random.nextInt(WORDS.length)]).append(' ');
            }
            rows.add(GenericRowData.of(i, StringData.fromString(name.append(i).toString())));
        }
        return rows;
    }

    private static DataStream<RowData> stream(StreamExecutionEnvironment env, List<RowData> rows, RowType type) {
        return env.fromData(rows, InternalTypeInfo.of(type));
    }

    private static ParquetMetadata footer(ContentFile<?> file) {
        try (ParquetFileReader reader = ParquetFileReader.open(HadoopInputFile.fromPath(
                new org.apache.hadoop.fs.Path(file.location()), new org.apache.hadoop.conf.Configuration()))) {
            return reader.getFooter();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String writer(ContentFile<?> file) {
        return footer(file).getFileMetaData().getCreatedBy().split(" ")[0];
    }

    @Test
    void dataFilesAreNativeWithTheTablesPropertiesAndDeleteFilesAreIcebergs() throws Exception {
        Table table = new SinkTests.Warehouse(warehouse)
                .create(
                        "upserts",
                        new Schema(
                                List.of(
                                        SCHEMA.columns().get(0),
                                        SCHEMA.columns().get(1)),
                                java.util.Set.of(1)),
                        PartitionSpec.unpartitioned(),
                        Map.of(
                                "format-version",
                                "2",
                                "write.parquet.compression-codec",
                                "snappy",
                                "write.parquet.row-group-size-bytes",
                                "32768"));
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(1);
        NativeIcebergSink.forRowData(stream(env, rows(20_000), SinkTests.flinkType(SCHEMA)))
                .tableLoader(SinkTests.loader(table))
                .upsert(true)
                .append();
        env.execute("upserts");

        table.refresh();
        assertThat(SinkTests.dataFiles(table)).isNotEmpty().allSatisfy(file -> {
            assertThat(writer(file)).isEqualTo("isthmus");
            ParquetMetadata footer = footer(file);
            assertThat(footer.getBlocks()).as("row groups of 32 KiB").hasSizeGreaterThan(1);
            for (BlockMetaData block : footer.getBlocks()) {
                for (ColumnChunkMetaData column : block.getColumns()) {
                    assertThat(column.getCodec()).isEqualTo(CompressionCodecName.SNAPPY);
                }
            }
        });
        // Every key was written once, so upsert's delete-before-insert makes equality deletes.
        assertThat(SinkTests.deleteFiles(table))
                .isNotEmpty()
                .allSatisfy(file -> assertThat(writer(file)).isEqualTo("parquet-mr"));
        assertThat(SinkTests.size(SinkTests.rows(table))).isEqualTo(20_000);
    }

    @Test
    void compressionLevelReachesTheEncoder() throws Exception {
        SinkTests.Warehouse tables = new SinkTests.Warehouse(warehouse);
        long[] sizes = new long[2];
        int i = 0;
        for (String level : List.of("1", "19")) {
            Table table = tables.create(
                    "level_" + level,
                    SCHEMA,
                    PartitionSpec.unpartitioned(),
                    Map.of("write.parquet.compression-codec", "zstd", "write.parquet.compression-level", level));
            StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
            env.setParallelism(1);
            NativeIcebergSink.forRowData(stream(env, rows(20_000), SinkTests.flinkType(SCHEMA)))
                    .tableLoader(SinkTests.loader(table))
                    .append();
            env.execute("level " + level);
            table.refresh();
            sizes[i++] = SinkTests.dataFiles(table).stream()
                    .mapToLong(ContentFile::fileSizeInBytes)
                    .sum();
        }
        assertThat(sizes[1]).as("zstd level 19 against level 1").isLessThan(sizes[0]);
    }

    @Test
    void aTableTheEncoderCannotWriteFallsBackWholeOrFailsWhenStrict() throws Exception {
        ResolvedSchema narrow = ResolvedSchema.of(
                Column.physical("id", DataTypes.BIGINT().notNull()),
                Column.physical("name", DataTypes.STRING()),
                Column.physical("tiny", DataTypes.TINYINT()));
        Schema schema = new Schema(
                SCHEMA.columns().get(0),
                SCHEMA.columns().get(1),
                Types.NestedField.optional(3, "tiny", Types.IntegerType.get()));
        RowType inputType = (RowType) narrow.toSinkRowDataType().getLogicalType();
        List<RowData> rows = new ArrayList<>();
        for (int n = 0; n < 500; n++) {
            rows.add(GenericRowData.of((long) n, StringData.fromString("n" + n), (byte) n));
        }
        SinkTests.Warehouse tables = new SinkTests.Warehouse(warehouse);

        Table lenient = tables.create("lenient", schema, PartitionSpec.unpartitioned(), Map.of());
        long fallbacks = NativeDataFiles.fallbacks();
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(1);
        NativeIcebergSink.forRowData(stream(env, rows, inputType))
                .tableLoader(SinkTests.loader(lenient))
                .resolvedSchema(narrow)
                .append();
        env.execute("lenient");
        lenient.refresh();
        assertThat(NativeDataFiles.fallbacks()).isGreaterThan(fallbacks);
        assertThat(SinkTests.dataFiles(lenient))
                .allSatisfy(file -> assertThat(writer(file)).isEqualTo("parquet-mr"));
        assertThat(SinkTests.size(SinkTests.rows(lenient))).isEqualTo(500);

        Table strict = tables.create("strict", schema, PartitionSpec.unpartitioned(), Map.of());
        StreamExecutionEnvironment strictEnv = StreamExecutionEnvironment.getExecutionEnvironment();
        strictEnv.setParallelism(1);
        NativeIcebergSink.forRowData(stream(strictEnv, rows, inputType))
                .tableLoader(SinkTests.loader(strict))
                .resolvedSchema(narrow)
                .dataFileAppenders(NativeDataFiles.strict())
                .append();
        assertThatThrownBy(() -> strictEnv.execute("strict"))
                .hasStackTraceContaining("cannot write data files natively")
                .hasStackTraceContaining("column 'tiny' arrives as TINYINT");
        strict.refresh();
        assertThat(strict.currentSnapshot()).as("nothing committed").isNull();
    }

    @Test
    void everyFlatTypeIsWrittenNatively() throws Exception {
        Schema schema = dev.isthmus.iceberg.source.parquet.RandomRecords.EVERY_TYPE;
        // Format 3 for the nanosecond timestamps.
        Table table = new SinkTests.Warehouse(warehouse)
                .create("every_type", schema, PartitionSpec.unpartitioned(), Map.of("format-version", "3"));
        List<RowData> rows = SinkTests.toRowData(
                new dev.isthmus.iceberg.source.parquet.RandomRecords(17, 0.2).records(schema, 3_000), schema);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(1);
        // Strict: a type the input arrives as but the encoder lays out differently would fail here.
        NativeIcebergSink.forRowData(stream(env, rows, SinkTests.flinkType(schema)))
                .tableLoader(SinkTests.loader(table))
                .dataFileAppenders(NativeDataFiles.strict())
                .append();
        env.execute("every type");
        table.refresh();
        assertThat(SinkTests.dataFiles(table))
                .isNotEmpty()
                .allSatisfy(file -> assertThat(writer(file)).isEqualTo("isthmus"));
        assertThat(SinkTests.size(SinkTests.rows(table))).isEqualTo(3_000);
    }
}
