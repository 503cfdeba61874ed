package dev.isthmus.bench.nexmark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Row;
import org.apache.flink.types.RowKind;
import org.apache.flink.util.CloseableIterator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Every query runs to the end over a few generated rows, as the harness runs it but into a blackhole. */
class NexmarkQueryRunTest {
    @RegisterExtension
    static final MiniClusterExtension CLUSTER = new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
            .setNumberTaskManagers(1)
            .setNumberSlotsPerTaskManager(1)
            .build());

    @ParameterizedTest
    @EnumSource(NexmarkQuery.class)
    void runs(NexmarkQuery query) throws Exception {
        StreamTableEnvironment tEnv = NexmarkTables.environment();
        QueryScript script = QueryScript.parse(query);
        script.setupStatements().forEach(tEnv::executeSql);
        NexmarkTables.createBlackholeSink(tEnv, "sink_table", script);
        tEnv.executeSql(script.insert("sink_table")).await(2, TimeUnit.MINUTES);
    }

    @Test
    void q13EnrichesEveryBidWithItsSideInputRow() throws Exception {
        StreamTableEnvironment tEnv = NexmarkTables.environment();
        QueryScript.parse(NexmarkQuery.Q13).setupStatements().forEach(tEnv::executeSql);
        List<Row> rows = collect(
                tEnv,
                "SELECT B.auction, S.key, S.`value` FROM (SELECT *, PROCTIME() AS p_time FROM bid) B"
                        + " JOIN side_input FOR SYSTEM_TIME AS OF B.p_time AS S ON mod(B.auction, 10000) = S.key");
        assertThat(rows).hasSize(NexmarkTables.ROWS).allSatisfy(row -> {
            assertThat(row.<Long>getFieldAs(1)).isEqualTo(row.<Long>getFieldAs(0) % 10_000);
            assertThat(row.<String>getFieldAs(2)).isEqualTo(String.valueOf(row.<Long>getFieldAs(1)));
        });
    }

    @Test
    void q14CountsTheCharacter() throws Exception {
        StreamTableEnvironment tEnv = NexmarkTables.environment();
        QueryScript.parse(NexmarkQuery.Q14).setupStatements().forEach(tEnv::executeSql);
        List<Row> rows = collect(tEnv, "SELECT extra, count_char(extra, 'c') FROM bid");
        assertThat(rows)
                .hasSize(NexmarkTables.ROWS)
                .allSatisfy(row -> assertThat(row.<Long>getFieldAs(1))
                        .isEqualTo(row.<String>getFieldAs(0)
                                .chars()
                                .filter(c -> c == 'c')
                                .count()));
    }

    /**
     * Flink 2.1 plans q9's Top-1 (ordered by two keys, price and dateTime) as insert-only, yet it
     * emits an UPDATE_AFTER, with no UPDATE_BEFORE, whenever a higher bid takes the lead. Only an
     * upsert by {@code id} turns that into the query's result.
     */
    @Test
    void q9EmitsUpdatesThatFlinkPlansAsInserts() throws Exception {
        StreamTableEnvironment tEnv = NexmarkTables.empty();
        tEnv.executeSql("CREATE TEMPORARY VIEW auction AS SELECT * FROM (VALUES (CAST(1 AS BIGINT), 'item', 'text',"
                + " CAST(1 AS BIGINT), CAST(1 AS BIGINT), TIMESTAMP '2020-01-01 00:00:00', TIMESTAMP '2020-01-01 01:00:00',"
                + " CAST(1 AS BIGINT), CAST(10 AS BIGINT), 'extra')) AS t(id, itemName, description, initialBid, reserve,"
                + " `dateTime`, expires, seller, category, extra)");
        tEnv.executeSql("CREATE TEMPORARY VIEW bid AS SELECT * FROM (VALUES"
                + " (CAST(1 AS BIGINT), CAST(1 AS BIGINT), CAST(5 AS BIGINT), 'c', 'u', TIMESTAMP '2020-01-01 00:00:01', 'e'),"
                + " (1, 2, 7, 'c', 'u', TIMESTAMP '2020-01-01 00:00:02', 'e'),"
                + " (1, 3, 3, 'c', 'u', TIMESTAMP '2020-01-01 00:00:03', 'e'))"
                + " AS t(auction, bidder, price, channel, url, `dateTime`, extra)");
        String insert = QueryScript.parse(NexmarkQuery.Q9).insert("t");
        List<Row> rows = collect(tEnv, insert.substring("INSERT INTO t".length()));
        assertThat(rows)
                .extracting(Row::getKind, row -> row.<Long>getFieldAs("price"))
                .containsExactly(tuple(RowKind.INSERT, 5L), tuple(RowKind.UPDATE_AFTER, 7L));
    }

    private static List<Row> collect(StreamTableEnvironment tEnv, String query) throws Exception {
        List<Row> rows = new ArrayList<>();
        try (CloseableIterator<Row> it = tEnv.executeSql(query).collect()) {
            it.forEachRemaining(rows::add);
        }
        return rows;
    }
}
