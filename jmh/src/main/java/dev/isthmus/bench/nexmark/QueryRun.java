package dev.isthmus.bench.nexmark;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.util.TestStreamEnvironment;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.ExplainDetail;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.flink.FlinkSchemaUtil;
import org.apache.iceberg.io.CloseableIterable;

/**
 * One query, one leg, one mode: a fresh table environment on the long-lived MiniCluster, the
 * leg's source tables and the usual {@code person}, {@code auction}, {@code bid} views over them,
 * a fresh output table, and the INSERT, timed from just before it is submitted to the end of the
 * job (its last commit included).
 */
final class QueryRun {
    /** Where the input tables live in the warehouse. */
    static final Namespace INPUT = Namespace.of("nexmark");
    /** Where the runs' output tables go. */
    static final Namespace OUTPUT = Namespace.of("nexmark_out");

    private static final long MIB = 1024 * 1024;

    private static final Map<String, String> VIEWS = Map.of(
            "person",
                    "SELECT id, name, emailAddress, creditCard, city, state, rowtime AS `dateTime`, extra FROM person_src",
            "auction",
                    "SELECT id, itemName, description, initialBid, reserve, rowtime AS `dateTime`,"
                            + " CAST(expires AS TIMESTAMP(3)) AS expires, seller, category, extra FROM auction_src",
            "bid", "SELECT auction, bidder, price, channel, url, rowtime AS `dateTime`, extra FROM bid_src");
    /** Longer than any query takes here; a run that takes longer has hung. */
    private static final Duration RUN_TIMEOUT = Duration.ofMinutes(30);

    /** How every run is set up. */
    record Settings(int parallelism, Path warehouse, Path checkpoints, long bids) {}

    /**
     * What a finished run leaves for the checks; {@code startedAt} is the epoch millisecond the
     * time starts at, for matching profiles to runs, and {@code timeline} is Flink's record of
     * the job from then on.
     */
    record Result(
            Table output,
            long startedAt,
            long millis,
            String executionPlan,
            NativeCounters counters,
            JobTimeline timeline) {}

    private final MiniCluster cluster;
    private final Catalog catalog;
    private final Settings settings;

    QueryRun(MiniCluster cluster, Catalog catalog, Settings settings) {
        this.cluster = cluster;
        this.catalog = catalog;
        this.settings = settings;
    }

    Result run(NexmarkQuery query, Leg leg, Mode mode, String outputName) throws Exception {
        StreamTableEnvironment sql = environment(mode);
        String warehouse = settings.warehouse().toUri().toString();
        sql.executeSql("CREATE CATALOG " + leg.catalog() + " WITH ('type'='" + leg.catalogType()
                        + "', 'catalog-type'='hadoop', 'warehouse'='" + warehouse + "'" + leg.strictOption() + ")")
                .await();
        for (String input : InputTables.NAMES) {
            sql.executeSql(sourceTable(input, leg, warehouse, query.processingTime()))
                    .await();
            sql.executeSql("CREATE TEMPORARY VIEW " + input + " AS " + VIEWS.get(input))
                    .await();
        }
        QueryScript script = QueryScript.parse(query);
        TableIdentifier id = TableIdentifier.of(OUTPUT, outputName);
        createOutput(sql, leg, query, script, id);
        for (String statement : script.setupStatements()) {
            sql.executeSql(statement).await();
        }
        String insert = script.insert(leg.catalog() + ".`" + OUTPUT + "`.`" + outputName + "`");
        String plan = sql.explainSql(insert, ExplainDetail.JSON_EXECUTION_PLAN);
        Table output = catalog.loadTable(id);
        NativeCounters before = NativeCounters.now();
        // No other job runs meanwhile: the fetchers stalled from here on are this job's.
        Set<Long> stalledBefore = StalledFetchers.now();
        long startedAt = System.currentTimeMillis();
        long start = System.nanoTime();
        TableResult result = sql.executeSql(insert);
        JobClient job = result.getJobClient().orElseThrow();
        long end;
        try {
            end = query.processingTime() ? awaitAllBidsCounted(job, output) : awaitEnd(result);
        } finally {
            stop(job);
        }
        JobTimeline timeline = JobTimeline.of(
                cluster.getArchivedExecutionGraph(job.getJobID()).get(1, TimeUnit.MINUTES),
                startedAt,
                OutputCheck.lastDataFileWritten(output),
                StalledFetchers.since(stalledBefore));
        return new Result(
                output,
                startedAt,
                (end - start) / 1_000_000,
                plan,
                NativeCounters.now().since(before),
                timeline);
    }

    /** The job's end, its last commit included; a job that has not ended by the time limit fails the run. */
    private static long awaitEnd(TableResult result) throws Exception {
        try {
            result.await(RUN_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            throw new IllegalStateException("the job did not end within " + RUN_TIMEOUT, e);
        }
        return System.nanoTime();
    }

    /** Cancels a job still running, and waits until it has released its slots for the next run. */
    private static void stop(JobClient job) throws Exception {
        if (!job.getJobStatus().get().isGloballyTerminalState()) {
            job.cancel().get();
        }
        long deadline = System.nanoTime() + RUN_TIMEOUT.toNanos();
        while (!job.getJobStatus().get().isGloballyTerminalState() && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
    }

    private StreamTableEnvironment environment(Mode mode) {
        Configuration conf = new Configuration();
        conf.setString("state.backend.type", mode.flinkStateBackend());
        conf.setString("execution.checkpointing.interval", "1 s");
        conf.setString("execution.checkpointing.mode", "EXACTLY_ONCE");
        conf.setString("execution.checkpointing.storage", "filesystem");
        conf.setString(
                "execution.checkpointing.dir", settings.checkpoints().toUri().toString());
        conf.setString("execution.checkpointing.num-retained", "1");
        // A task failure fails the run: a restarted job would still commit exactly once, and its
        // longer time would pass for a valid one.
        conf.setString("restart-strategy.type", "none");
        StreamExecutionEnvironment env = new TestStreamEnvironment(cluster, settings.parallelism());
        env.configure(conf);
        StreamTableEnvironment sql = StreamTableEnvironment.create(env, EnvironmentSettings.inStreamingMode());
        sql.getConfig().set("table.local-time-zone", "UTC");
        // Without the inference both scans take table.exec.resource.default-parallelism (1 when
        // unset), and the operators chained after them theirs: set, both legs read at the job's.
        sql.getConfig().set("table.exec.iceberg.infer-source-parallelism", "false");
        sql.getConfig().set("table.exec.resource.default-parallelism", Integer.toString(settings.parallelism()));
        if (mode.miniBatch()) {
            sql.getConfig().set("table.exec.mini-batch.enabled", "true");
            sql.getConfig().set("table.exec.mini-batch.allow-latency", "2 s");
            sql.getConfig().set("table.exec.mini-batch.size", "50000");
        }
        return sql;
    }

    /**
     * A connector table in Flink's default catalog: a millisecond rowtime computed from
     * {@code dateTime}, Iceberg's file-statistics watermarks, one file per split so that the
     * watermark advances stripe by stripe in both legs.
     */
    private static String sourceTable(String input, Leg leg, String warehouse, boolean unbounded) {
        String split = Long.toString(128 * MIB);
        return "CREATE TEMPORARY TABLE " + input + "_src (" + columns(InputTables.schema(input))
                + ", rowtime AS CAST(`dateTime` AS TIMESTAMP(3)), WATERMARK FOR rowtime AS SOURCE_WATERMARK())"
                + " WITH ('connector'='" + leg.connector() + "', 'catalog-name'='nexmark_input',"
                + " 'catalog-type'='hadoop', 'warehouse'='" + warehouse + "', 'catalog-database'='" + INPUT
                + "', 'catalog-table'='" + input + "', 'watermark-column'='dateTime', 'split-size'='" + split
                + "', 'split-file-open-cost'='" + split + "'"
                + (unbounded
                        ? ", 'streaming'='true', 'starting-strategy'='TABLE_SCAN_THEN_INCREMENTAL',"
                                + " 'monitor-interval'='1 s'"
                        : "")
                + leg.strictOption() + ")";
    }

    /** The Flink columns of an Iceberg schema, as Iceberg's connector maps them (a timestamp is TIMESTAMP(6)). */
    private static String columns(Schema schema) {
        return FlinkSchemaUtil.convert(schema).getFields().stream()
                .map(field -> "`" + field.getName() + "` " + field.getType().asSerializableString())
                .collect(Collectors.joining(", "));
    }

    /**
     * A fresh 4-bucket table with the sink columns of the query's script; an updating query's
     * table is an upsert table keyed by its upsert key.
     */
    private void createOutput(
            StreamTableEnvironment sql, Leg leg, NexmarkQuery query, QueryScript script, TableIdentifier id)
            throws Exception {
        if (catalog.tableExists(id)) {
            catalog.dropTable(id, true);
        }
        StringBuilder ddl = new StringBuilder("CREATE TABLE " + leg.catalog() + ".`" + OUTPUT + "`.`" + id.name()
                + "` (" + script.sinkSchema() + ") WITH (");
        InputTables.TABLE_PROPERTIES.forEach(
                (k, v) -> ddl.append('\'').append(k).append("'='").append(v).append("', "));
        ddl.append("'write.target-file-size-bytes'='").append(512 * MIB).append("', 'write.distribution-mode'='hash'");
        if (query.updating()) {
            ddl.append(", 'write.upsert.enabled'='true'");
        }
        ddl.append(")");
        sql.executeSql("CREATE DATABASE IF NOT EXISTS " + leg.catalog() + ".`" + OUTPUT + "`")
                .await();
        sql.executeSql(ddl.toString()).await();
        catalog.loadTable(id)
                .updateSpec()
                .addField(Expressions.bucket(query.bucketColumn(), 4))
                .commit();
    }

    /**
     * q12's windows close on the wall clock, which a bounded job never lets happen for its last
     * ones; so it reads without end and is cancelled once the committed counts add up to every
     * bid.
     */
    private long awaitAllBidsCounted(JobClient job, Table output) throws Exception {
        long deadline = System.nanoTime() + RUN_TIMEOUT.toNanos();
        long lastSnapshot = -1;
        while (true) {
            if (job.getJobStatus().get().isGloballyTerminalState()) {
                job.getJobExecutionResult().get(); // throws the job's failure
                throw new IllegalStateException(output.name() + ": the unbounded job ended by itself");
            }
            output.refresh();
            if (output.currentSnapshot() != null && output.currentSnapshot().snapshotId() != lastSnapshot) {
                long seen = System.nanoTime();
                lastSnapshot = output.currentSnapshot().snapshotId();
                if (sum(output, "bid_count") >= settings.bids()) {
                    return seen;
                }
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(output.name() + ": the committed bid counts did not reach "
                        + settings.bids() + " within " + RUN_TIMEOUT);
            }
            Thread.sleep(200);
        }
    }

    static long sum(Table table, String column) throws Exception {
        long sum = 0;
        try (CloseableIterable<Record> rows =
                IcebergGenerics.read(table).select(column).build()) {
            for (Record row : rows) {
                Object value = row.getField(column);
                sum += value == null ? 0 : ((Number) value).longValue();
            }
        }
        return sum;
    }
}
