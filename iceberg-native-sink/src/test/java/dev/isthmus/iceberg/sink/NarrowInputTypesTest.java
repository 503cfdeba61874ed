package dev.isthmus.iceberg.sink;

import static org.assertj.core.api.Assertions.assertThat;

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
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.flink.sink.FlinkSink;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Rows whose Flink types are narrower than the table's (TINYINT and SMALLINT into Iceberg int
 * columns, one of them the partition source): with the input's schema given, as for Iceberg's
 * sink, they are read at their own width and land as the stock sink lands them.
 */
class NarrowInputTypesTest {
    @RegisterExtension
    static final MiniClusterExtension CLUSTER = SinkTests.miniCluster();

    private static final Schema SCHEMA = new Schema(
            Types.NestedField.required(1, "tiny", Types.IntegerType.get()),
            Types.NestedField.optional(2, "small", Types.IntegerType.get()));

    @TempDir
    Path warehouse;

    @Test
    void widensAsTheStockSink() throws Exception {
        ResolvedSchema input = ResolvedSchema.of(
                Column.physical("tiny", DataTypes.TINYINT().notNull()), Column.physical("small", DataTypes.SMALLINT()));
        SinkTests.Warehouse tables = new SinkTests.Warehouse(warehouse);
        PartitionSpec spec = PartitionSpec.builderFor(SCHEMA).bucket("tiny", 3).build();
        Table stock = tables.create("stock", SCHEMA, spec, Map.of());
        Table ours = tables.create("ours", SCHEMA, spec, Map.of());
        List<RowData> rows = new ArrayList<>();
        for (int i = 0; i < 1_000; i++) {
            // Bytes wrap: i = 1 gives (13, 37).
            rows.add(GenericRowData.of((byte) (i - 500), i % 7 == 0 ? null : (short) (i * 37)));
        }
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(1);
        DataStream<RowData> stream = env.fromData(
                rows, InternalTypeInfo.of((RowType) input.toSinkRowDataType().getLogicalType()));
        FlinkSink.forRowData(stream)
                .tableLoader(SinkTests.loader(stock))
                .resolvedSchema(input)
                .append();
        NativeIcebergSink.forRowData(stream)
                .tableLoader(SinkTests.loader(ours))
                .resolvedSchema(input)
                .append();
        env.execute("narrow types");

        assertThat(SinkTests.rows(ours)).isEqualTo(SinkTests.rows(stock)).containsKey(List.of(13, 37));
    }
}
