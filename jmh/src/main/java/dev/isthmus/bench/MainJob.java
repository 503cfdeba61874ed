package dev.isthmus.bench;

import dev.isthmus.ffm.NativeLibrary;
import dev.isthmus.iceberg.sink.NativeIcebergSink;
import dev.isthmus.iceberg.source.NativeIcebergSource;
import dev.isthmus.iceberg.source.NativeReadOptions.RowFormat;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;
import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.api.common.accumulators.LongCounter;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.streaming.util.TestStreamEnvironment;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.iceberg.DistributionMode;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.flink.CatalogLoader;
import org.apache.iceberg.flink.FlinkSchemaUtil;
import org.apache.iceberg.flink.TableLoader;
import org.apache.iceberg.flink.sink.FlinkSink;
import org.apache.iceberg.flink.source.IcebergSource;

/**
 * The README's main job: an embedded Flink MiniCluster and a Hadoop catalog in a local warehouse.
 * <ol>
 *   <li>generates N Nexmark-like bids (default 2,000,000; deterministic by seed);</li>
 *   <li>writes them to two tables bucketed 4 ways by bidder, one through Iceberg's own sink and
 *   one through the native sink;</li>
 *   <li>reads each table back through Iceberg's own source and through the native source;</li>
 *   <li>checks that the four reads agree with each other and with the generated bids (row count
 *   and an order-independent checksum of every value);</li>
 *   <li>prints elapsed time, rows/s and the native/stock ratios.</li>
 * </ol>
 * A round of at most 200,000 bids first warms the JIT up for both sides, then come the timed
 * rounds (three unless {@code --rounds N}): each step's time is the median of its rounds, since a
 * single job on a two-core machine is at the mercy of the JIT compiling in the background and of
 * everything else the machine runs. Every read of every round is checked. Jobs run with Flink's
 * object reuse on unless {@code --no-object-reuse}.
 */
public final class MainJob {
    private static final Namespace NAMESPACE = Namespace.of("main_job");
    /**
     * Rows generated or read so far by the running job (the MiniCluster shares this JVM); striped,
     * so that the subtasks counting every row do not contend on one cache line.
     */
    private static final LongAdder PROGRESS = new LongAdder();

    private static final long WARM_UP_ROWS = 200_000;

    private MainJob() {}

    /**
     * @param rowFormat the native source's rows; by default binary without object reuse (Flink then
     *     copies every record, one array copy for a binary row) and columnar with it, as the SQL
     *     option {@code isthmus.row-format=auto} chooses
     */
    record Options(
            long rows,
            int parallelism,
            Path warehouse,
            long seed,
            boolean objectReuse,
            RowFormat rowFormat,
            int rounds) {
        Options withRows(long n) {
            return new Options(n, parallelism, warehouse, seed, objectReuse, rowFormat, rounds);
        }
    }

    /** What a step's job does; a reference times what both sides of a comparison share. */
    enum Kind {
        REFERENCE,
        WRITE,
        READ
    }

    /** One timed job: what it did, how long it took, and the checksum of what it read. */
    record Step(String name, Kind kind, long nanos, long rows, long checksum) {
        double rowsPerSecond() {
            return rows / (nanos / 1e9);
        }

        Step asReference() {
            return new Step(name, Kind.REFERENCE, nanos, rows, checksum);
        }
    }

    public static void main(String[] args) throws Exception {
        Options options = parse(args);
        System.out.printf(
                Locale.ROOT,
                "Isthmus %s main job: %,d bids, parallelism %d, object reuse %s, native rows %s,"
                        + " %d timed rounds, warehouse %s%n",
                NativeLibrary.version(),
                options.rows(),
                options.parallelism(),
                options.objectReuse() ? "on" : "off",
                options.rowFormat().name().toLowerCase(Locale.ROOT),
                options.rounds(),
                options.warehouse());
        Files.createDirectories(options.warehouse());
        CatalogLoader catalogLoader = CatalogLoader.hadoop(
                "main_job",
                new org.apache.hadoop.conf.Configuration(),
                Map.of("warehouse", options.warehouse().toUri().toString()));
        long expected = NexmarkBidRows.checksum(options.rows(), options.seed());
        List<List<Step>> rounds = new ArrayList<>();
        try (MiniCluster cluster = MiniClusters.start(options.parallelism())) {
            // A smaller untimed round first, so that neither side pays for the JIT's warm-up.
            Options warmUp = options.withRows(Math.min(options.rows(), WARM_UP_ROWS));
            System.out.printf(Locale.ROOT, "warm-up round, %,d bids:%n", warmUp.rows());
            runAll(cluster, catalogLoader, warmUp);
            for (int round = 1; round <= options.rounds(); round++) {
                System.out.printf(
                        Locale.ROOT, "timed round %d of %d, %,d bids:%n", round, options.rounds(), options.rows());
                rounds.add(runAll(cluster, catalogLoader, options));
            }
        }
        boolean agree = report(rounds, options.rows(), expected);
        if (!agree) {
            System.err.println("FAILED: the reads do not agree (see above)");
            System.exit(1);
        }
    }

    /**
     * Times the write jobs' shared part (generating the bids into a discarding sink), writes both
     * tables, then reads each both ways: after the reference, the steps come in pairs, stock then
     * native.
     */
    private static List<Step> runAll(MiniCluster cluster, CatalogLoader catalogLoader, Options options)
            throws Exception {
        TableLoader stockTable = createTable(catalogLoader, "bids_stock");
        TableLoader nativeTable = createTable(catalogLoader, "bids_native");
        List<Step> steps = new ArrayList<>();
        steps.add(write(
                        cluster,
                        options,
                        "generate only, discarding sink (reference)",
                        stream -> stream.sinkTo(new DiscardingSink<>()))
                .asReference());
        steps.add(write(
                cluster,
                options,
                "write: Iceberg's FlinkSink",
                stream -> FlinkSink.forRowData(stream)
                        .tableLoader(stockTable)
                        .distributionMode(DistributionMode.NONE)
                        .writeParallelism(options.parallelism())
                        .append()));
        steps.add(write(
                cluster,
                options,
                "write: Isthmus native sink",
                stream -> NativeIcebergSink.forRowData(stream)
                        .tableLoader(nativeTable)
                        .distributionMode(DistributionMode.NONE)
                        .writeParallelism(options.parallelism())
                        .append()));
        for (var table : List.of(Map.entry("stock", stockTable), Map.entry("native", nativeTable))) {
            steps.add(read(
                    cluster,
                    options,
                    "read " + table.getKey() + "-written: Iceberg's IcebergSource",
                    IcebergSource.forRowData()
                            .tableLoader(table.getValue().clone())
                            .build()));
            steps.add(read(
                    cluster,
                    options,
                    "read " + table.getKey() + "-written: Isthmus native source",
                    NativeIcebergSource.forRowData()
                            .tableLoader(table.getValue().clone())
                            .strict(true)
                            .rowFormat(options.rowFormat())
                            .build()));
        }
        return steps;
    }

    private static TableLoader createTable(CatalogLoader catalogLoader, String name) throws IOException {
        TableIdentifier id = TableIdentifier.of(NAMESPACE, name);
        Catalog catalog = catalogLoader.loadCatalog();
        try {
            catalog.dropTable(id, true);
            catalog.createTable(
                    id,
                    NexmarkBidRows.SCHEMA,
                    PartitionSpec.builderFor(NexmarkBidRows.SCHEMA)
                            .bucket("bidder", 4)
                            .build(),
                    Map.of(TableProperties.FORMAT_VERSION, "2"));
        } finally {
            if (catalog instanceof AutoCloseable closeable) {
                try {
                    closeable.close();
                } catch (Exception e) {
                    throw new IOException(e);
                }
            }
        }
        TableLoader loader = TableLoader.fromCatalog(catalogLoader, id);
        loader.open();
        return loader;
    }

    /**
     * A job on the cluster. With object reuse (the default here; {@code --no-object-reuse} turns
     * it off) records pass between chained operators by reference; without it Flink deep-copies
     * each one with its serializer, which for the native source's columnar rows means building a
     * binary row per record.
     */
    private static StreamExecutionEnvironment environment(MiniCluster cluster, Options options) {
        StreamExecutionEnvironment env = new TestStreamEnvironment(cluster, options.parallelism());
        if (options.objectReuse()) {
            env.getConfig().enableObjectReuse();
        }
        return env;
    }

    private interface SinkWiring {
        void attach(DataStream<RowData> stream);
    }

    private static Step write(MiniCluster cluster, Options options, String name, SinkWiring sink) throws Exception {
        StreamExecutionEnvironment env = environment(cluster, options);
        DataStream<RowData> bids = env.fromSequence(0, options.rows() - 1)
                .map(new GenerateBid(options.seed()))
                .returns(InternalTypeInfo.of(FlinkSchemaUtil.convert(NexmarkBidRows.SCHEMA)));
        sink.attach(bids);
        long start = System.nanoTime();
        run(env, name, options.rows());
        return new Step(name, Kind.WRITE, System.nanoTime() - start, options.rows(), 0);
    }

    private static Step read(MiniCluster cluster, Options options, String name, Source<RowData, ?, ?> source)
            throws Exception {
        StreamExecutionEnvironment env = environment(cluster, options);
        env.fromSource(
                        source,
                        WatermarkStrategy.noWatermarks(),
                        "bids",
                        InternalTypeInfo.of(FlinkSchemaUtil.convert(NexmarkBidRows.SCHEMA)))
                .map(new Checksum())
                .sinkTo(new DiscardingSink<>());
        long start = System.nanoTime();
        JobExecutionResult result = run(env, name, options.rows());
        long nanos = System.nanoTime() - start;
        long rows = result.<Long>getAccumulatorResult(Checksum.ROWS);
        long checksum = result.<Long>getAccumulatorResult(Checksum.SUM);
        return new Step(name, Kind.READ, nanos, rows, checksum);
    }

    /** Runs a job to the end, printing how far it got every second. */
    private static JobExecutionResult run(StreamExecutionEnvironment env, String name, long rows) throws Exception {
        PROGRESS.reset();
        long start = System.nanoTime();
        JobClient job = env.executeAsync(name);
        var done = job.getJobExecutionResult();
        while (!done.isDone()) {
            System.out.printf(Locale.ROOT, "\r   %-46s %,13d / %,d rows", name, PROGRESS.sum(), rows);
            System.out.flush();
            try {
                done.get(1, java.util.concurrent.TimeUnit.SECONDS);
            } catch (java.util.concurrent.TimeoutException still) {
                // keep reporting
            }
        }
        JobExecutionResult result = done.get();
        System.out.printf(
                Locale.ROOT,
                "\r   %-46s %,13d / %,d rows, done in %,d ms%n",
                name,
                PROGRESS.sum(),
                rows,
                (System.nanoTime() - start) / 1_000_000);
        return result;
    }

    /**
     * Prints each step's median time over the rounds (with the fastest and slowest round), its
     * rows/s at the median, and for native steps the ratio of the medians with the range of the
     * rounds' own ratios; then checks every read of every round.
     */
    private static boolean report(List<List<Step>> rounds, long rows, long expected) {
        System.out.printf(
                Locale.ROOT,
                "%n   %-46s %10s %13s %12s %10s %13s%n",
                "step",
                "median ms",
                "rounds ms",
                "rows/s",
                "vs stock",
                "rounds");
        List<Step> first = rounds.get(0);
        int paired = 0;
        for (int i = 0; i < first.size(); i++) {
            int step = i;
            long[] nanos =
                    rounds.stream().mapToLong(r -> r.get(step).nanos()).sorted().toArray();
            long median = median(nanos);
            String ratio = "";
            String ratios = "";
            // Past the references, steps come in pairs: stock, then native.
            if (first.get(i).kind() != Kind.REFERENCE && paired++ % 2 == 1) {
                ratio = String.format(
                        Locale.ROOT,
                        "%.2fx",
                        (double) median(rounds.stream()
                                        .mapToLong(r -> r.get(step - 1).nanos())
                                        .sorted()
                                        .toArray())
                                / median);
                double[] each = rounds.stream()
                        .mapToDouble(r ->
                                (double) r.get(step - 1).nanos() / r.get(step).nanos())
                        .sorted()
                        .toArray();
                ratios = String.format(Locale.ROOT, "%.2f-%.2fx", each[0], each[each.length - 1]);
            }
            System.out.printf(
                    Locale.ROOT,
                    "   %-46s %10.0f %13s %,12.0f %10s %13s%n",
                    first.get(i).name(),
                    median / 1e6,
                    String.format(Locale.ROOT, "%.0f-%.0f", nanos[0] / 1e6, nanos[nanos.length - 1] / 1e6),
                    rows / (median / 1e9),
                    ratio,
                    ratios);
        }
        System.out.println();
        boolean agree = true;
        for (int round = 0; round < rounds.size(); round++) {
            for (Step step : rounds.get(round).stream()
                    .filter(s -> s.kind() == Kind.READ)
                    .toList()) {
                boolean same = step.rows() == rows && step.checksum() == expected;
                agree &= same;
                System.out.printf(
                        Locale.ROOT,
                        "   round %d %-46s %,d rows, checksum %016x %s%n",
                        round + 1,
                        step.name(),
                        step.rows(),
                        step.checksum(),
                        same
                                ? "= generated"
                                : "DIFFERS from the generated " + rows + " rows, "
                                        + String.format(Locale.ROOT, "%016x", expected));
            }
        }
        return agree;
    }

    /** The median of sorted values (the mean of the middle two for an even count). */
    private static long median(long[] sorted) {
        int n = sorted.length;
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }

    private static Options parse(String[] args) {
        long rows = 2_000_000;
        int parallelism = 2;
        Path warehouse = Path.of(System.getProperty("java.io.tmpdir"), "isthmus-main-job", "warehouse");
        long seed = 1;
        boolean objectReuse = true;
        RowFormat rowFormat = null;
        int rounds = 3;
        for (int i = 0; i < args.length; i++) {
            String value = i + 1 < args.length ? args[i + 1] : null;
            if (args[i].equals("--no-object-reuse")) {
                objectReuse = false;
                continue;
            }
            switch (args[i]) {
                case "--rows" -> rows = Long.parseLong(require(args[i], value));
                case "--parallelism" -> parallelism = Integer.parseInt(require(args[i], value));
                case "--warehouse" -> warehouse = Path.of(require(args[i], value));
                case "--seed" -> seed = Long.parseLong(require(args[i], value));
                case "--row-format" ->
                    rowFormat = RowFormat.valueOf(require(args[i], value).toUpperCase(Locale.ROOT));
                case "--rounds" -> rounds = Integer.parseInt(require(args[i], value));
                default ->
                    throw new IllegalArgumentException("unknown option " + args[i]
                            + "; options: --rows N --parallelism N --warehouse DIR --seed N --no-object-reuse"
                            + " --row-format columnar|binary --rounds N");
            }
            i++;
        }
        if (rows < 1 || parallelism < 1 || rounds < 1) {
            throw new IllegalArgumentException("--rows, --parallelism and --rounds must be positive");
        }
        if (rowFormat == null) {
            rowFormat = objectReuse ? RowFormat.COLUMNAR : RowFormat.BINARY;
        }
        return new Options(rows, parallelism, warehouse, seed, objectReuse, rowFormat, rounds);
    }

    private static String require(String option, String value) {
        if (value == null) {
            throw new IllegalArgumentException(option + " needs a value");
        }
        return value;
    }

    /** Bid {@code event} of the deterministic stream. */
    private static final class GenerateBid extends RichMapFunction<Long, RowData> {
        private final long seed;

        GenerateBid(long seed) {
            this.seed = seed;
        }

        @Override
        public RowData map(Long event) {
            PROGRESS.increment();
            return NexmarkBidRows.bid(event, seed);
        }
    }

    /** Counts the rows read and sums a hash of each, which does not depend on their order. */
    private static final class Checksum extends RichMapFunction<RowData, Boolean> {
        static final String ROWS = "rows";
        static final String SUM = "checksum";
        private final LongCounter rows = new LongCounter();
        private final LongCounter sum = new LongCounter();

        @Override
        public void open(OpenContext context) {
            getRuntimeContext().addAccumulator(ROWS, rows);
            getRuntimeContext().addAccumulator(SUM, sum);
        }

        @Override
        public Boolean map(RowData row) {
            PROGRESS.increment();
            rows.add(1);
            sum.add(NexmarkBidRows.hash(row));
            return Boolean.TRUE;
        }
    }
}
