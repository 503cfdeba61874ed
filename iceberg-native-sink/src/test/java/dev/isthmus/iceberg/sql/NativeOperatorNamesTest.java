package dev.isthmus.iceberg.sql;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.stream.StreamSupport;
import org.apache.flink.api.connector.source.Boundedness;
import org.apache.flink.runtime.jobgraph.JobVertex;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.graph.StreamNode;
import org.apache.flink.streaming.api.lineage.LineageGraph;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.ExplainDetail;
import org.apache.flink.table.api.bridge.java.StreamStatementSet;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the job graph and EXPLAIN show of native I/O: the native scan and the sink's operators are
 * named as Isthmus's own, a stock scan and sink keep Iceberg's names.
 */
class NativeOperatorNamesTest {
    @TempDir
    Path warehouse;

    private StreamTableEnvironment tables(StreamExecutionEnvironment env) throws Exception {
        StreamTableEnvironment sql = StreamTableEnvironment.create(env, EnvironmentSettings.inStreamingMode());
        for (String[] catalog : new String[][] {{"lake", "isthmus-iceberg"}, {"stock", "iceberg"}}) {
            sql.executeSql("CREATE CATALOG " + catalog[0] + " WITH ('type'='" + catalog[1]
                            + "', 'catalog-type'='hadoop', 'warehouse'='" + warehouse.toUri() + "')")
                    .await();
        }
        sql.executeSql("CREATE DATABASE IF NOT EXISTS lake.db").await();
        sql.executeSql("CREATE TABLE IF NOT EXISTS lake.db.bids (auction BIGINT, price BIGINT)")
                .await();
        sql.executeSql("CREATE TABLE IF NOT EXISTS lake.db.sunk (auction BIGINT, price BIGINT)")
                .await();
        return sql;
    }

    private static String insert(String catalog) {
        return "INSERT INTO " + catalog + ".db.sunk SELECT auction, price FROM " + catalog + ".db.bids WHERE price > 3";
    }

    private static List<String> vertexNames(
            StreamExecutionEnvironment env, StreamTableEnvironment sql, String catalog) {
        StreamStatementSet set = sql.createStatementSet();
        set.addInsertSql(insert(catalog));
        set.attachAsDataStream();
        Iterable<JobVertex> vertices = env.getStreamGraph().getJobGraph().getVertices();
        return StreamSupport.stream(vertices.spliterator(), false)
                .map(JobVertex::getName)
                .toList();
    }

    @Test
    void theJobGraphAndTheExecutionPlanNameTheNativeScanAndSink() throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        StreamTableEnvironment sql = tables(env);

        List<String> lake = vertexNames(env, sql, "lake");
        List<String> stock = vertexNames(env, sql, "stock");
        assertThat(lake)
                .anyMatch(name -> name.contains("IsthmusIcebergWriter"))
                .anyMatch(name -> name.contains("IsthmusIcebergCommitter -> IsthmusIcebergSink lake.db.sunk"));
        assertThat(stock).noneMatch(name -> name.contains("Isthmus"));
        assertThat(lake).anyMatch(name -> name.startsWith("Source: IsthmusIcebergSource lake.db.bids -> "));
        assertThat(stock).anyMatch(name -> name.matches("Source: bids\\[\\d+\\] -> .*"));

        String lakePlan = sql.explainSql(insert("lake"), ExplainDetail.JSON_EXECUTION_PLAN);
        String stockPlan = sql.explainSql(insert("stock"), ExplainDetail.JSON_EXECUTION_PLAN);
        assertThat(lakePlan)
                .contains("\"type\" : \"IsthmusIcebergWriter\"")
                .contains("\"contents\" : \"Source: IsthmusIcebergSource lake.db.bids\"");
        assertThat(stockPlan).doesNotContain("Isthmus");
    }

    /** The native scan takes {@code scan.parallelism} as Iceberg's does. */
    @Test
    void scanParallelismSetsTheNativeScansParallelism() throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2);
        StreamTableEnvironment sql = tables(env);
        StreamStatementSet set = sql.createStatementSet();
        set.addInsertSql("INSERT INTO lake.db.sunk SELECT auction, price FROM lake.db.bids"
                + " /*+ OPTIONS('scan.parallelism'='1') */ WHERE price > 3");
        set.attachAsDataStream();
        List<JobVertex> vertices = StreamSupport.stream(
                        env.getStreamGraph().getJobGraph().getVertices().spliterator(), false)
                .toList();
        assertThat(vertices)
                .filteredOn(v -> v.getName().startsWith("Source: IsthmusIcebergSource"))
                .singleElement()
                .extracting(JobVertex::getParallelism)
                .isEqualTo(1);
        assertThat(vertices).anyMatch(v -> v.getName().contains("IsthmusIcebergWriter") && v.getParallelism() == 2);
    }

    private List<StreamNode> scans(String catalog, boolean alwaysUids) throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        StreamTableEnvironment sql = tables(env);
        if (alwaysUids) {
            sql.getConfig().set("table.exec.uid.generation", "ALWAYS");
        }
        StreamStatementSet set = sql.createStatementSet();
        set.addInsertSql(insert(catalog));
        set.attachAsDataStream();
        return env.getStreamGraph().getStreamNodes().stream()
                .filter(node -> node.getOperatorName().startsWith("Source: "))
                .toList();
    }

    /**
     * With uids generated for every operator, the native scan's is the one the planner gives a
     * stock scan, so a savepoint taken with either connector restores with the other.
     */
    @Test
    void generatedUidsOfTheNativeScanAreThoseOfAStockScan() throws Exception {
        assertThat(scans("lake", true))
                .singleElement()
                .extracting(StreamNode::getTransformationUID)
                .asString()
                .matches("\\d+_source");
        assertThat(scans("stock", true))
                .singleElement()
                .extracting(StreamNode::getTransformationUID)
                .asString()
                .matches("\\d+_source");
    }

    /** Lineage sees the native scan's table as the planner records a stock scan's. */
    @Test
    void theLineageGraphHasTheNativeScansTable() throws Exception {
        for (String catalog : List.of("lake", "stock")) {
            StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
            StreamTableEnvironment sql = tables(env);
            StreamStatementSet set = sql.createStatementSet();
            set.addInsertSql(insert(catalog));
            set.attachAsDataStream();
            LineageGraph lineage = env.getStreamGraph().getLineageGraph();
            assertThat(lineage.sources()).as(catalog).singleElement().satisfies(source -> {
                assertThat(source.boundedness()).isEqualTo(Boundedness.BOUNDED);
                assertThat(source.datasets()).singleElement().satisfies(dataset -> {
                    assertThat(dataset.name()).isEqualTo(catalog + ".db.bids");
                    assertThat(dataset.namespace()).isEmpty();
                });
            });
        }
    }
}
