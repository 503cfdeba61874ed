package dev.isthmus.iceberg.sink;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.iceberg.DistributionMode;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The builder refuses what cannot work, before any job runs, and says why. */
class BuilderTest {
    private static final Schema SCHEMA = new Schema(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.required(2, "region", Types.StringType.get()),
            Types.NestedField.optional(3, "amount", Types.DoubleType.get()));

    @TempDir
    Path warehouse;

    private SinkTests.Warehouse tables;
    private DataStream<RowData> input;

    @BeforeEach
    void input() {
        tables = new SinkTests.Warehouse(warehouse);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        input = env.fromData(
                List.<RowData>of(GenericRowData.of(1L, null, null)), InternalTypeInfo.of(SinkTests.flinkType(SCHEMA)));
    }

    @Test
    void needsATableLoader() {
        assertThatThrownBy(() -> NativeIcebergSink.forRowData(input).append())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("table loader");
    }

    @Test
    void upsertNeedsEqualityFields() {
        Table table = tables.create("t", SCHEMA, PartitionSpec.unpartitioned(), Map.of());
        assertThatThrownBy(() -> NativeIcebergSink.forRowData(input)
                        .tableLoader(SinkTests.loader(table))
                        .upsert(true)
                        .append())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("Upsert needs equality fields");
    }

    @Test
    void upsertExcludesOverwrite() {
        Table table = tables.create("t", SCHEMA, PartitionSpec.unpartitioned(), Map.of());
        assertThatThrownBy(() -> NativeIcebergSink.forRowData(input)
                        .tableLoader(SinkTests.loader(table))
                        .equalityFieldColumns(List.of("id"))
                        .upsert(true)
                        .overwrite(true)
                        .append())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("Upsert and overwrite cannot be combined");
    }

    @Test
    void equalityFieldsMustExist() {
        Table table = tables.create("t", SCHEMA, PartitionSpec.unpartitioned(), Map.of());
        assertThatThrownBy(() -> NativeIcebergSink.forRowData(input)
                        .tableLoader(SinkTests.loader(table))
                        .equalityFieldColumns(List.of("nope"))
                        .append())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'nope'");
    }

    @Test
    void upsertOnPartitionedTableNeedsPartitionSourcesInTheKey() {
        Table table = tables.create(
                "t", SCHEMA, PartitionSpec.builderFor(SCHEMA).identity("region").build(), Map.of());
        assertThatThrownBy(() -> NativeIcebergSink.forRowData(input)
                        .tableLoader(SinkTests.loader(table))
                        .equalityFieldColumns(List.of("id"))
                        .upsert(true)
                        .append())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'region'");
    }

    @Test
    void rangeDistributionWithoutKeyIsRefused() {
        Table table = tables.create(
                "t", SCHEMA, PartitionSpec.builderFor(SCHEMA).identity("region").build(), Map.of());
        assertThatThrownBy(() -> NativeIcebergSink.forRowData(input)
                        .tableLoader(SinkTests.loader(table))
                        .distributionMode(DistributionMode.RANGE)
                        .append())
                .isInstanceOf(UnsupportedOperationException.class)
                .hasMessageContaining("range");
    }
}
