package dev.isthmus.iceberg.sql;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.flink.runtime.jobgraph.JobVertex;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.bridge.java.StreamStatementSet;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The native scan's parallelism is the one Iceberg's scan gets for the same query and
 * configuration: inferred from the splits of a bounded read, capped by the inference's maximum and
 * the limit, the default parallelism without inference, {@code scan.parallelism} over all of it,
 * the job's for a streaming read. Each case builds the same job with both catalogs over the same
 * table of three data files.
 */
class NativeScanParallelismTest {
    /** The job's parallelism, which no inferred one below equals. */
    private static final int JOB_PARALLELISM = 8;
    /** One split per data file. */
    private static final String FILE_SPLITS = "'split-size'='1'";

    @TempDir
    static Path warehouse;

    @BeforeAll
    static void writeThreeFiles() throws Exception {
        StreamTableEnvironment sql = tables(StreamExecutionEnvironment.getExecutionEnvironment(), Map.of());
        sql.executeSql("CREATE DATABASE IF NOT EXISTS stock.db").await();
        sql.executeSql("CREATE TABLE stock.db.bids (auction BIGINT, price BIGINT)")
                .await();
        sql.executeSql("CREATE TABLE stock.db.sunk (auction BIGINT, price BIGINT)")
                .await();
        for (int i = 0; i < 3; i++) {
            sql.executeSql("INSERT INTO stock.db.bids VALUES (" + i + ", " + (10 * i) + ")")
                    .await();
        }
    }

    private static StreamTableEnvironment tables(StreamExecutionEnvironment env, Map<String, String> config)
            throws Exception {
        StreamTableEnvironment sql = StreamTableEnvironment.create(env, EnvironmentSettings.inStreamingMode());
        config.forEach(sql.getConfig()::set);
        for (String[] catalog : new String[][] {{"lake", "isthmus-iceberg"}, {"stock", "iceberg"}}) {
            sql.executeSql("CREATE CATALOG " + catalog[0] + " WITH ('type'='" + catalog[1]
                            + "', 'catalog-type'='hadoop', 'warehouse'='" + warehouse.toUri() + "')")
                    .await();
        }
        return sql;
    }

    /**
     * The job that {@code select} (naming the catalog as %s) builds: the parallelism of each
     * vertex in order, the scan's first, so that the chaining after the scan is compared too.
     */
    private List<Integer> jobParallelism(String catalog, String select, Map<String, String> config) throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(JOB_PARALLELISM);
        StreamTableEnvironment sql = tables(env, config);
        StreamStatementSet set = sql.createStatementSet();
        set.addInsertSql("INSERT INTO stock.db.sunk " + select.formatted(catalog));
        set.attachAsDataStream();
        List<JobVertex> vertices = env.getStreamGraph().getJobGraph().getVerticesSortedTopologicallyFromSources();
        assertThat(vertices.get(0).getName()).startsWith("Source: ");
        return vertices.stream().map(JobVertex::getParallelism).toList();
    }

    private void assertBothScans(int expected, String select, Map<String, String> config) throws Exception {
        List<Integer> stock = jobParallelism("stock", select, config);
        assertThat(stock.get(0)).as("Iceberg's scan").isEqualTo(expected);
        assertThat(jobParallelism("lake", select, config))
                .as("the native scan's job")
                .isEqualTo(stock);
    }

    @Test
    void aBoundedScanTakesOneSubtaskPerSplit() throws Exception {
        assertBothScans(3, "SELECT * FROM %s.db.bids /*+ OPTIONS(" + FILE_SPLITS + ") */", Map.of());
        assertBothScans(1, "SELECT * FROM %s.db.bids", Map.of());
    }

    @Test
    void theInferenceMaximumAndTheLimitCapIt() throws Exception {
        assertBothScans(
                2,
                "SELECT * FROM %s.db.bids /*+ OPTIONS(" + FILE_SPLITS + ") */",
                Map.of("table.exec.iceberg.infer-source-parallelism.max", "2"));
        assertBothScans(2, "SELECT * FROM %s.db.bids /*+ OPTIONS(" + FILE_SPLITS + ") */ LIMIT 2", Map.of());
    }

    @Test
    void withoutInferenceTheDefaultParallelismApplies() throws Exception {
        assertBothScans(
                5,
                "SELECT * FROM %s.db.bids /*+ OPTIONS(" + FILE_SPLITS + ") */",
                Map.of(
                        "table.exec.iceberg.infer-source-parallelism", "false",
                        "table.exec.resource.default-parallelism", "5"));
    }

    @Test
    void scanParallelismOverridesTheInference() throws Exception {
        assertBothScans(
                4, "SELECT * FROM %s.db.bids /*+ OPTIONS(" + FILE_SPLITS + ", 'scan.parallelism'='4') */", Map.of());
    }

    @Test
    void aStreamingReadTakesTheJobsParallelism() throws Exception {
        assertBothScans(
                JOB_PARALLELISM,
                "SELECT * FROM %s.db.bids /*+ OPTIONS(" + FILE_SPLITS + ", 'streaming'='true') */",
                Map.of());
    }
}
