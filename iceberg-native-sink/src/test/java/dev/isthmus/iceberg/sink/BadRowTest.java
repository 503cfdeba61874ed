package dev.isthmus.iceberg.sink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** A null in a required column fails the job, names the column, and leaves nothing behind. */
class BadRowTest {
    @RegisterExtension
    static final MiniClusterExtension CLUSTER = SinkTests.miniCluster();

    private static final Schema SCHEMA = new Schema(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.required(2, "name", Types.StringType.get()),
            Types.NestedField.optional(3, "note", Types.StringType.get()));

    @TempDir
    Path warehouse;

    @Test
    void nullInRequiredColumnFailsTheJobNamingTheColumn() throws Exception {
        Table table = new SinkTests.Warehouse(warehouse).create("t", SCHEMA, PartitionSpec.unpartitioned(), Map.of());
        List<RowData> rows = new ArrayList<>();
        for (int i = 0; i < 2_000; i++) {
            // Row 1500 lacks its name: by then the writer has a file open with rows in it.
            rows.add(GenericRowData.of((long) i, i == 1_500 ? null : StringData.fromString("n" + i), null));
        }
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(1);
        NativeIcebergSink.forRowData(env.fromData(rows, InternalTypeInfo.of(SinkTests.flinkType(SCHEMA))))
                .tableLoader(SinkTests.loader(table))
                .append();

        assertThatThrownBy(() -> env.execute("bad row"))
                .rootCause()
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("required column 'name'");
        table.refresh();
        assertThat(table.currentSnapshot()).as("nothing committed").isNull();
        try (Stream<Path> files = Files.walk(Path.of(table.location().replaceFirst("^file:", ""), "data"))
                .filter(Files::isRegularFile)
                .filter(f -> !f.getFileName().toString().startsWith("."))) {
            assertThat(files.toList()).as("the aborted writer deleted its file").isEmpty();
        } catch (java.nio.file.NoSuchFileException e) {
            // No data directory at all: nothing was left either.
        }
    }
}
