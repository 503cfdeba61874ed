package dev.isthmus.bench.nexmark;

import dev.isthmus.bench.nexmark.OutputCheck.Fingerprint;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.configuration.WebOptions;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.minicluster.MiniClusterConfiguration;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.hadoop.HadoopCatalog;

/**
 * The Nexmark benchmark on Iceberg tables: each query of each mode (a cell) runs as a warm-up
 * pair and then measured pairs of the stock and the native leg in alternating order, every run
 * checked (the committed output's fingerprint, stock against native, and the witness of the
 * path it took). Cells go to a {@link ResultsFile}, which makes a run resumable.
 */
public final class Nexmark {
    /** The options of {@code ci/nexmark.sh}. */
    record Options(
            NexmarkConfig config,
            List<NexmarkQuery> queries,
            List<Mode> modes,
            int parallelism,
            int pairs,
            Path warehouse,
            Path results) {
        private static final Set<String> KNOWN =
                Set.of("events", "seed", "queries", "modes", "parallelism", "pairs", "warehouse", "results");

        static Options parse(String[] args) {
            Map<String, String> given = new TreeMap<>();
            for (int i = 0; i < args.length; i++) {
                if (!args[i].startsWith("--") || i + 1 == args.length) {
                    throw new IllegalArgumentException("expected --option value, got '" + args[i] + "'");
                }
                given.put(args[i].substring(2), args[++i]);
            }
            for (String key : given.keySet()) {
                if (!KNOWN.contains(key)) {
                    throw new IllegalArgumentException("unknown option --" + key + "; known: " + KNOWN);
                }
            }
            NexmarkConfig defaults = NexmarkConfig.defaults();
            NexmarkConfig config = defaults.withEvents(
                            Long.parseLong(given.getOrDefault("events", Long.toString(defaults.events()))))
                    .withSeed(Long.parseLong(given.getOrDefault("seed", Long.toString(defaults.seed()))));
            int parallelism = Integer.parseInt(given.getOrDefault("parallelism", "2"));
            int pairs = Integer.parseInt(given.getOrDefault("pairs", "3"));
            if (parallelism < 1 || pairs < 1) {
                throw new IllegalArgumentException("--parallelism and --pairs must be at least 1");
            }
            return new Options(
                    config,
                    NexmarkQuery.parse(given.getOrDefault("queries", "all")),
                    Mode.parseList(given.getOrDefault("modes", Mode.DEFAULT.toString())),
                    parallelism,
                    pairs,
                    Path.of(given.getOrDefault("warehouse", "/tmp/isthmus-nexmark"))
                            .toAbsolutePath(),
                    Path.of(given.getOrDefault("results", defaultResults(config, parallelism)))
                            .toAbsolutePath());
        }

        /** Runs of another size, parallelism or seed never share a file, so never a median. */
        static String defaultResults(NexmarkConfig config, int parallelism) {
            String seed = config.seed() == NexmarkConfig.defaults().seed() ? "" : "-seed" + config.seed();
            return "docs/benchmarks/nexmark-" + config.events() + "-p" + parallelism + seed + ".csv";
        }
    }

    private final HadoopCatalog catalog;
    private final QueryRun runs;
    private final NexmarkConfig config;
    private BidderCounts bidderCounts;

    Nexmark(MiniCluster cluster, Path warehouse, NexmarkConfig config, int parallelism) throws IOException {
        this.config = config;
        this.catalog = new HadoopCatalog(
                new org.apache.hadoop.conf.Configuration(), warehouse.toUri().toString());
        Path checkpoints = warehouse.resolve("checkpoints");
        Files.createDirectories(checkpoints);
        this.runs = new QueryRun(
                cluster, catalog, new QueryRun.Settings(parallelism, warehouse, checkpoints, config.bids()));
    }

    /** Writes the input tables unless the warehouse already holds them for this configuration. */
    void prepareInputs() {
        InputTables.prepare(catalog, QueryRun.INPUT, config);
    }

    /** A MiniCluster of one TaskManager with {@code slots} slots; the caller closes it. */
    static MiniCluster startCluster(int slots) throws Exception {
        Configuration conf = new Configuration();
        // RocksDB's memory is managed memory, shared by the slots.
        conf.set(TaskManagerOptions.MANAGED_MEMORY_SIZE, MemorySize.ofMebiBytes(1024));
        // Flink keeps the last 10 checkpoints' statistics by default; the timelines want them all.
        conf.set(WebOptions.CHECKPOINTS_HISTORY_SIZE, 100_000);
        MiniCluster cluster = new MiniCluster(new MiniClusterConfiguration.Builder()
                .setConfiguration(conf)
                .setNumTaskManagers(1)
                .setNumSlotsPerTaskManager(slots)
                .build());
        cluster.start();
        return cluster;
    }

    /**
     * One pair: both legs of {@code query} in the given order, each checked; parity holds when
     * both committed the same rows. The outputs are dropped once compared.
     */
    List<Observation> pair(NexmarkQuery query, Mode mode, int pair, List<Leg> order) throws Exception {
        Map<Leg, Observation> byLeg = new TreeMap<>();
        Map<Leg, String> digests = new TreeMap<>();
        Map<Leg, Table> outputs = new TreeMap<>();
        int position = 0;
        for (Leg leg : order) {
            position++;
            TableIdentifier id = TableIdentifier.of(QueryRun.OUTPUT, query.id() + "_" + leg.shortName() + "_" + pair);
            QueryRun.Result run;
            try {
                run = runs.run(query, leg, mode, id.name());
            } catch (Exception e) {
                // A failed run is an observation too: the cell stays whole and the report shows it.
                String reason = "the run failed: " + rootCause(e);
                System.out.println("nexmark: " + query.id() + " " + leg + " " + reason);
                catalog.dropTable(id, true);
                digests.put(leg, leg.name());
                byLeg.put(
                        leg,
                        new Observation(
                                mode,
                                query,
                                pair,
                                leg,
                                position,
                                -1,
                                -1,
                                "-",
                                false,
                                reason,
                                0,
                                0,
                                0,
                                0,
                                0,
                                JobTimeline.UNKNOWN));
                continue;
            }
            System.out.printf(
                    Locale.ROOT,
                    "nexmark: timed %s %s %d-%d; %s%n",
                    query.id(),
                    leg.name().toLowerCase(Locale.ROOT),
                    run.startedAt(),
                    run.startedAt() + run.millis(),
                    run.timeline().summary());
            Table output = run.output();
            OutputCheck.Files files = OutputCheck.files(output);
            List<String> failed = new ArrayList<>(Witness.check(leg, query, run, files));
            Fingerprint fingerprint;
            if (query.processingTime()) {
                Map<Long, Long> counts = BidderCounts.of(output);
                fingerprint = BidderCounts.fingerprint(counts);
                failed.addAll(bidderCounts().check(output, counts));
            } else {
                fingerprint = OutputCheck.fingerprint(output);
            }
            digests.put(leg, fingerprint.digest());
            outputs.put(leg, output);
            byLeg.put(
                    leg,
                    new Observation(
                            mode,
                            query,
                            pair,
                            leg,
                            position,
                            run.millis(),
                            fingerprint.rows(),
                            fingerprint.digest().substring(0, 16),
                            false,
                            failed.isEmpty() ? "ok" : String.join("; ", failed),
                            files.dataFiles(),
                            files.dataBytes(),
                            files.deleteFiles(),
                            run.counters().nativeTasks(),
                            run.counters().fallbackTasks(),
                            run.timeline()));
        }
        boolean parity = digests.values().stream().distinct().count() == 1;
        if (!parity && !query.processingTime() && outputs.size() == 2) {
            System.out.println("nexmark: " + query.id() + " pair " + pair + " differs: "
                    + OutputCheck.difference(outputs.get(Leg.STOCK), outputs.get(Leg.NATIVE), 5));
        }
        for (Leg leg : outputs.keySet()) {
            catalog.dropTable(
                    TableIdentifier.of(QueryRun.OUTPUT, query.id() + "_" + leg.shortName() + "_" + pair), true);
        }
        List<Observation> observations = new ArrayList<>();
        for (Leg leg : order) {
            observations.add(byLeg.get(leg).withParity(parity));
        }
        return observations;
    }

    /**
     * A cell: the warm-up pair and {@code pairs} measured ones, stock first in the odd pairs and
     * native first in the even ones.
     */
    List<Observation> cell(NexmarkQuery query, Mode mode, int pairs) throws Exception {
        List<Observation> observations = new ArrayList<>();
        for (int pair = 0; pair <= pairs; pair++) {
            List<Leg> order =
                    pair % 2 == 0 && pair > 0 ? List.of(Leg.NATIVE, Leg.STOCK) : List.of(Leg.STOCK, Leg.NATIVE);
            for (Observation o : pair(query, mode, pair, order)) {
                System.out.printf(
                        Locale.ROOT,
                        "nexmark: %s %s pair %d %-6s %7d ms %9d rows %s parity %s proof %s%n",
                        mode,
                        query.id(),
                        pair,
                        o.leg().name().toLowerCase(Locale.ROOT),
                        o.millis(),
                        o.rows(),
                        o.digest(),
                        o.parity() ? "pass" : "FAIL",
                        o.proof());
                observations.add(o);
            }
        }
        return observations;
    }

    private BidderCounts bidderCounts() {
        if (bidderCounts == null) {
            bidderCounts = new BidderCounts(catalog.loadTable(TableIdentifier.of(QueryRun.INPUT, "bid")));
        }
        return bidderCounts;
    }

    private static Throwable rootCause(Throwable e) {
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return root;
    }

    public static void main(String[] args) throws Exception {
        Options options = Options.parse(args);
        NexmarkConfig config = options.config();
        ResultsFile results = new ResultsFile(options.results());
        System.out.printf(
                Locale.ROOT,
                "nexmark: %d events (seed %d), queries %s, modes %s, parallelism %d,"
                        + " %d pairs; warehouse %s; results %s%n",
                config.events(),
                config.seed(),
                options.queries(),
                options.modes(),
                options.parallelism(),
                options.pairs(),
                options.warehouse(),
                options.results());
        Set<String> done = results.completedCells();
        MiniCluster cluster = startCluster(options.parallelism());
        int status = 0;
        try {
            Nexmark nexmark = new Nexmark(cluster, options.warehouse(), config, options.parallelism());
            nexmark.prepareInputs();
            for (Mode mode : options.modes()) {
                for (NexmarkQuery query : options.queries()) {
                    if (done.contains(mode + " " + query.id())) {
                        System.out.printf("nexmark: %s %s already in %s%n", mode, query.id(), options.results());
                        continue;
                    }
                    results.append(nexmark.cell(query, mode, options.pairs()));
                }
            }
            System.out.println("nexmark: results " + options.results());
        } catch (Throwable e) {
            e.printStackTrace();
            status = 1;
        } finally {
            close(cluster);
        }
        // Threads a job leaves behind in this JVM (a fetcher stalled for good, see StalledFetchers)
        // can keep it alive after the cluster closed; what the run measured is written by now.
        System.exit(status);
    }

    /** Closes the cluster, or gives up after a minute: a job's leftover threads can hold its shutdown. */
    private static void close(MiniCluster cluster) {
        try {
            cluster.closeAsync().get(1, TimeUnit.MINUTES);
        } catch (TimeoutException e) {
            System.out.println("nexmark: the MiniCluster did not shut down within a minute; leaving it");
        } catch (ExecutionException e) {
            System.out.println("nexmark: the MiniCluster's shutdown failed: " + e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            System.out.println("nexmark: interrupted while the MiniCluster shut down; leaving it");
        }
    }
}
