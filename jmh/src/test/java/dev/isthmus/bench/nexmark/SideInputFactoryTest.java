package dev.isthmus.bench.nexmark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.stream.LongStream;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;
import org.junit.jupiter.api.Test;

class SideInputFactoryTest {
    private static final String JOIN = "SELECT B.k, S.key, S.`value` FROM"
            + " (SELECT k, PROCTIME() AS p FROM (VALUES (CAST(0 AS BIGINT)), (9), (9999), (10000), (-1)) AS t(k)) B"
            + " JOIN side_input FOR SYSTEM_TIME AS OF B.p AS S ON B.k = S.key";

    @Test
    void servesEachKeyBelowRowsOnce() {
        SideInputFactory.Lookup lookup = new SideInputFactory.Lookup(10);
        List<RowData> rows = new ArrayList<>();
        LongStream.range(-5, 20).forEach(key -> rows.addAll(lookup(lookup, key)));
        assertThat(rows).hasSize(10);
        for (int i = 0; i < 10; i++) {
            assertThat(rows.get(i).getLong(0)).isEqualTo(i);
            assertThat(rows.get(i).getString(1).toString()).isEqualTo(Integer.toString(i));
        }
        assertThat(lookup(lookup, 10)).isEmpty();
        assertThat(lookup(lookup, -1)).isEmpty();
        assertThat(lookup(lookup, Long.MAX_VALUE)).isEmpty();
        assertThat(lookup.lookup(GenericRowData.of((Object) null))).isEmpty();
    }

    @Test
    void joinsInSqlWithTenThousandRowsByDefault() throws Exception {
        TableEnvironment tEnv = TableEnvironment.create(EnvironmentSettings.inStreamingMode());
        tEnv.executeSql(
                "CREATE TEMPORARY TABLE side_input (key BIGINT, `value` VARCHAR) WITH ('connector' = 'nexmark-side-input')");
        List<Row> rows = new ArrayList<>();
        try (CloseableIterator<Row> it = tEnv.executeSql(JOIN).collect()) {
            it.forEachRemaining(rows::add);
        }
        assertThat(rows)
                .containsExactlyInAnyOrder(Row.of(0L, 0L, "0"), Row.of(9L, 9L, "9"), Row.of(9999L, 9999L, "9999"));
    }

    @Test
    void refusesBadOptionsAndSchemas() {
        TableEnvironment tEnv = TableEnvironment.create(EnvironmentSettings.inStreamingMode());
        tEnv.executeSql(
                "CREATE TEMPORARY TABLE bad_option (key BIGINT, `value` STRING) WITH ('connector' = 'nexmark-side-input', 'row' = '5')");
        tEnv.executeSql(
                "CREATE TEMPORARY TABLE negative (key BIGINT, `value` STRING) WITH ('connector' = 'nexmark-side-input', 'rows' = '-1')");
        tEnv.executeSql(
                "CREATE TEMPORARY TABLE int_key (key INT, `value` STRING) WITH ('connector' = 'nexmark-side-input')");
        tEnv.executeSql(
                "CREATE TEMPORARY TABLE side_input (key BIGINT, `value` STRING) WITH ('connector' = 'nexmark-side-input')");
        assertThatThrownBy(() -> tEnv.explainSql(JOIN.replace("side_input", "bad_option")))
                .hasStackTraceContaining("Unsupported options")
                .hasStackTraceContaining("row");
        assertThatThrownBy(() -> tEnv.explainSql(JOIN.replace("side_input", "negative")))
                .hasStackTraceContaining("must be >= 0");
        assertThatThrownBy(() ->
                        tEnv.explainSql(JOIN.replace("side_input", "int_key").replace("B.k =", "CAST(B.k AS INT) =")))
                .hasStackTraceContaining("serves rows (BIGINT, STRING)");
        assertThatThrownBy(() -> tEnv.explainSql(JOIN.replace("B.k = S.key", "CAST(B.k AS STRING) = S.`value`")))
                .hasStackTraceContaining("looked up by its first column only");
    }

    private static Collection<RowData> lookup(SideInputFactory.Lookup lookup, long key) {
        return lookup.lookup(GenericRowData.of(key));
    }
}
