package dev.isthmus.iceberg.sink;

import static org.assertj.core.api.Assertions.assertThat;

import dev.isthmus.iceberg.source.NativeSourceCounters;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.RowKind;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.DistributionMode;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.flink.sink.FlinkSink;
import org.apache.iceberg.types.Types;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Changelogs on a table keyed by (id, region): a seeded table gets updates and deletes of old
 * keys (equality deletes) and of keys written in the same job (position deletes), through
 * Iceberg's FlinkSink and through this sink, in upsert and full-changelog mode. The rows read
 * back, and the kinds and row counts of the delete files, must be the stock sink's.
 */
class DeltaParityTest {
    @RegisterExtension
    static final MiniClusterExtension CLUSTER = SinkTests.miniCluster();

    private static final Schema SCHEMA = new Schema(
            List.of(
                    Types.NestedField.required(1, "id", Types.LongType.get()),
                    Types.NestedField.required(2, "region", Types.StringType.get()),
                    Types.NestedField.optional(3, "amount", Types.DoubleType.get()),
                    Types.NestedField.optional(4, "note", Types.StringType.get())),
            Set.of(1, 2));
    private static final int SEEDED = 2_000;
    private static final int ADDED = 600;

    @TempDir
    Path warehouse;

    static Stream<Arguments> cases() {
        DistributionMode none = DistributionMode.NONE;
        return Stream.of(
                Arguments.of(true, false, 2, none),
                Arguments.of(false, false, 2, none),
                Arguments.of(true, true, 2, none),
                Arguments.of(false, true, 2, none),
                Arguments.of(true, true, 2, DistributionMode.HASH),
                Arguments.of(false, true, 3, none));
    }

    @ParameterizedTest(name = "upsert={0} partitioned={1} format-version={2} distribution={3}")
    @MethodSource("cases")
    void deletesAndUpdatesAsTheStockSink(
            boolean upsert, boolean partitioned, int formatVersion, DistributionMode distribution) throws Exception {
        SinkTests.Warehouse tables = new SinkTests.Warehouse(warehouse);
        PartitionSpec spec = partitioned
                ? PartitionSpec.builderFor(SCHEMA).identity("region").build()
                : PartitionSpec.unpartitioned();
        Map<String, String> props = Map.of("format-version", Integer.toString(formatVersion));
        Table stock = tables.create("stock", SCHEMA, spec, props);
        Table ours = tables.create("ours", SCHEMA, spec, props);

        Map<List<Object>, GenericRowData> state = new LinkedHashMap<>();
        List<RowData> seed = new ArrayList<>();
        for (long id = 0; id < SEEDED; id++) {
            seed.add(apply(state, row(RowKind.INSERT, id, id, "seed")));
        }
        run(seed, stock, ours, upsert, distribution);
        List<RowData> changes = changes(state);
        run(changes, stock, ours, upsert, distribution);

        Map<List<Object>, Integer> expected = new HashMap<>();
        state.values()
                .forEach(r -> expected.merge(
                        List.of(
                                r.getLong(0),
                                r.getString(1).toString(),
                                r.getDouble(2),
                                r.getString(3).toString()),
                        1,
                        Integer::sum));
        Map<List<Object>, Integer> stockRows = SinkTests.rows(stock);
        assertThat(stockRows).isEqualTo(expected);
        assertThat(SinkTests.rows(ours)).isEqualTo(stockRows);

        // Both sinks' equality deletes and position deletes (deletion vectors on v3), applied natively.
        long keys = NativeSourceCounters.equalityDeleteKeys();
        assertThat(SinkTests.readBySource(stock, true)).isEqualTo(stockRows);
        assertThat(SinkTests.readBySource(ours, true)).isEqualTo(stockRows);
        assertThat(SinkTests.readBySource(ours, false)).isEqualTo(stockRows);
        assertThat(NativeSourceCounters.equalityDeleteKeys()).isGreaterThan(keys);

        List<DeleteFile> ourDeletes = SinkTests.deleteFiles(ours);
        assertThat(ourDeletes)
                .extracting(DeleteFile::content)
                .contains(FileContent.EQUALITY_DELETES, FileContent.POSITION_DELETES);
        assertThat(deleteRows(ourDeletes)).isEqualTo(deleteRows(SinkTests.deleteFiles(stock)));
        for (DeleteFile delete : ourDeletes) {
            if (formatVersion > 2 && delete.content() == FileContent.POSITION_DELETES) {
                assertThat(delete.format()).as("deletion vectors on v3").isEqualTo(FileFormat.PUFFIN);
            } else {
                assertThat(delete.format()).isEqualTo(FileFormat.PARQUET);
                assertThat(createdBy(delete.location()))
                        .as("delete files are Java's")
                        .startsWith("parquet-mr");
            }
        }
    }

    /** Updates and deletes of seeded keys, and keys added, changed and deleted within the job. */
    private static List<RowData> changes(Map<List<Object>, GenericRowData> state) {
        List<RowData> changes = new ArrayList<>();
        for (long id = 0; id < SEEDED; id++) {
            GenericRowData old = state.get(key(id));
            switch ((int) (id % 5)) {
                case 0 -> {
                    changes.add(apply(state, copy(old, RowKind.UPDATE_BEFORE)));
                    changes.add(apply(state, row(RowKind.UPDATE_AFTER, id, id + 0.5, "updated")));
                }
                case 1 -> changes.add(apply(state, copy(old, RowKind.DELETE)));
                case 2 -> {
                    changes.add(apply(state, copy(old, RowKind.UPDATE_BEFORE)));
                    GenericRowData first = row(RowKind.UPDATE_AFTER, id, id + 0.25, "first");
                    changes.add(apply(state, first));
                    changes.add(apply(state, copy(first, RowKind.UPDATE_BEFORE)));
                    changes.add(apply(state, row(RowKind.UPDATE_AFTER, id, id + 0.75, "second")));
                }
                default -> {}
            }
        }
        for (long id = SEEDED; id < SEEDED + ADDED; id++) {
            GenericRowData added = row(RowKind.INSERT, id, id, "added");
            changes.add(apply(state, added));
            if (id % 2 == 0) {
                changes.add(apply(state, copy(added, RowKind.UPDATE_BEFORE)));
                added = row(RowKind.UPDATE_AFTER, id, -id, "re-added");
                changes.add(apply(state, added));
            }
            if (id % 3 == 0) {
                changes.add(apply(state, copy(added, RowKind.DELETE)));
            }
        }
        return changes;
    }

    private static void run(List<RowData> rows, Table stock, Table ours, boolean upsert, DistributionMode distribution)
            throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2);
        DataStream<RowData> input = env.fromData(rows, InternalTypeInfo.of(SinkTests.flinkType(SCHEMA)));
        // The collection source runs at parallelism 1; the writers would too without being told.
        FlinkSink.forRowData(input)
                .tableLoader(SinkTests.loader(stock))
                .upsert(upsert)
                .writeParallelism(2)
                .distributionMode(distribution)
                .append();
        NativeIcebergSink.forRowData(input)
                .tableLoader(SinkTests.loader(ours))
                .upsert(upsert)
                .writeParallelism(2)
                .distributionMode(distribution)
                .append();
        env.execute("changelog upsert=" + upsert);
    }

    private static GenericRowData row(RowKind kind, long id, double amount, String note) {
        return GenericRowData.ofKind(
                kind, id, StringData.fromString("r" + id % 3), amount, StringData.fromString(note));
    }

    private static GenericRowData copy(GenericRowData row, RowKind kind) {
        return GenericRowData.ofKind(kind, row.getField(0), row.getField(1), row.getField(2), row.getField(3));
    }

    private static List<Object> key(long id) {
        return List.of(id, "r" + id % 3);
    }

    private static GenericRowData apply(Map<List<Object>, GenericRowData> state, GenericRowData row) {
        List<Object> key = key(row.getLong(0));
        switch (row.getRowKind()) {
            case INSERT, UPDATE_AFTER -> state.put(key, row);
            case UPDATE_BEFORE, DELETE -> state.remove(key);
        }
        return row;
    }

    private static Map<FileContent, Long> deleteRows(List<DeleteFile> deletes) {
        return deletes.stream()
                .collect(Collectors.groupingBy(DeleteFile::content, Collectors.summingLong(DeleteFile::recordCount)));
    }

    private static String createdBy(String location) throws Exception {
        try (ParquetFileReader reader = ParquetFileReader.open(
                HadoopInputFile.fromPath(new org.apache.hadoop.fs.Path(location), new Configuration()))) {
            return reader.getFooter().getFileMetaData().getCreatedBy();
        }
    }
}
