package dev.isthmus.bench.nexmark;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.flink.table.api.ExplainDetail;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.types.logical.LogicalTypeRoot;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Every query plans in streaming mode the way the harness runs it, and Flink derives what the
 * query's metadata claims: its inputs, whether it updates, and its upsert key.
 */
class NexmarkQueryPlanTest {
    private static final Pattern SCAN =
            Pattern.compile("TableSourceScan\\(table=\\[\\[default_catalog, default_database, (\\w+)]]");
    private static final Pattern CHANGELOG = Pattern.compile("changelogMode=\\[([A-Z,]+)]");

    @ParameterizedTest
    @EnumSource(NexmarkQuery.class)
    void plansWithTheChangelogAndInputsOfItsMetadata(NexmarkQuery query) {
        Plan plan = plan(query, query.upsertKeys());
        if (query == NexmarkQuery.Q9) {
            // Flink 2.1 plans q9's Top-1 as insert-only although it emits updates: NexmarkQueryRunTest.
            assertThat(plan.sinkInputChangelog()).as("changelog into the sink").isEqualTo("I");
        } else if (query.updating()) {
            assertThat(plan.sinkInputChangelog()).as("changelog into the sink").isNotEqualTo("I");
        } else {
            assertThat(plan.sinkInputChangelog()).as("changelog into the sink").isEqualTo("I");
        }
        assertThat(plan.upsertMaterialized())
                .as("an upsert materializer in front of the sink")
                .isFalse();
        assertThat(plan.scannedTables()).isEqualTo(new TreeSet<>(query.inputs()));
    }

    @ParameterizedTest
    @EnumSource(NexmarkQuery.class)
    void bucketsByAKeyOrABigint(NexmarkQuery query) {
        StreamTableEnvironment tEnv = NexmarkTables.environment();
        NexmarkTables.createBlackholeSink(tEnv, query.sinkTable(), QueryScript.parse(query));
        LogicalTypeRoot type = tEnv.from(query.sinkTable())
                .getResolvedSchema()
                .getColumn(query.bucketColumn())
                .orElseThrow()
                .getDataType()
                .getLogicalType()
                .getTypeRoot();
        if (query.updating()) {
            assertThat(query.upsertKeys()).contains(query.bucketColumn());
        } else {
            assertThat(type).isEqualTo(LogicalTypeRoot.BIGINT);
        }
    }

    /**
     * No upsert key is smaller than the one declared: with any one column left out, Flink no longer
     * finds the query's upsert key within the primary key and materializes. Together with no
     * materializer for the whole key, the declared key is exactly the query's.
     */
    @Test
    void theQueriesWithCompositeKeysAreThoseCheckedForASmallerKey() {
        assertThat(java.util.Arrays.stream(NexmarkQuery.values())
                        .filter(q -> q.upsertKeys().size() > 1))
                .containsExactly(NexmarkQuery.Q16, NexmarkQuery.Q17, NexmarkQuery.Q18, NexmarkQuery.Q19);
    }

    @ParameterizedTest
    @EnumSource(
            value = NexmarkQuery.class,
            names = {"Q16", "Q17", "Q18", "Q19"})
    void upsertKeyHasNoSmallerKey(NexmarkQuery query) {
        for (String left : query.upsertKeys()) {
            List<String> keys = new ArrayList<>(query.upsertKeys());
            keys.remove(left);
            assertThat(plan(query, keys).upsertMaterialized())
                    .as("materialized without " + left)
                    .isTrue();
        }
    }

    private static Plan plan(NexmarkQuery query, List<String> upsertKeys) {
        StreamTableEnvironment tEnv = NexmarkTables.environment();
        QueryScript script = QueryScript.parse(query.sql(), query.sinkTable(), upsertKeys);
        script.setupStatements().forEach(tEnv::executeSql);
        NexmarkTables.createBlackholeSink(tEnv, query.sinkTable(), script);
        return new Plan(tEnv.explainSql(script.insert(query.sinkTable()), ExplainDetail.CHANGELOG_MODE));
    }

    /** The optimized physical plan of an EXPLAIN CHANGELOG_MODE of an INSERT. */
    private record Plan(String physical) {
        Plan {
            int start = physical.indexOf("== Optimized Physical Plan ==");
            int end = physical.indexOf("== Optimized Execution Plan ==");
            assertThat(start).isGreaterThanOrEqualTo(0);
            physical = physical.substring(start, end).strip();
        }

        private String[] lines() {
            String[] lines = physical.split("\n");
            assertThat(lines[1]).startsWith("Sink(");
            return lines;
        }

        String sinkInputChangelog() {
            Matcher m = CHANGELOG.matcher(lines()[2]);
            assertThat(m.find()).as(lines()[2]).isTrue();
            return m.group(1);
        }

        boolean upsertMaterialized() {
            return lines()[1].contains("upsertMaterialize=[true]");
        }

        Set<String> scannedTables() {
            Set<String> tables = new TreeSet<>();
            Matcher m = SCAN.matcher(physical);
            while (m.find()) {
                tables.add(m.group(1));
            }
            return tables;
        }
    }
}
