package dev.isthmus.bench.nexmark;

import dev.isthmus.bench.nexmark.OutputCheck.Fingerprint;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.minicluster.MiniClusterConfiguration;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.hadoop.HadoopCatalog;
import org.apache.iceberg.io.CloseableIterable;

/**
 * The Nexmark benchmark on Iceberg tables: each query of each mode (a cell) runs as a warm-up
 * pair and then measured pairs of the stock and the native leg in alternating order, every run
 * checked (the committed output's fingerprint, stock against native, and the witness of the
 * path it took). A cell's observations are appended to the results CSV only once the cell is
 * whole, and cells already there are skipped, so an interrupted run resumes where it stopped.
 */
public final class Nexmark {
    /** The options of {@code ci/nexmark.sh}. */
    record Options(long events, long seed, List<NexmarkQuery> queries, List<Mode> modes, int parallelism,
            int pairs, Path warehouse, Path results) {
        static Options parse(String[] args) {
            Map<String, String> given = new TreeMap<>();
            for (int i = 0; i < args.length; i++) {
                if (!args[i].startsWith("--") || i + 1 == args.length) {
                    throw new IllegalArgumentException("expected --option value, got '" + args[i] + "'");
                }
                given.put(args[i].substring(2), args[++i]);
            }
            Set<String> known = Set.of("events", "seed", "queries", "modes", "parallelism", "pairs", "warehouse",
                    "results");
            for (String key : given.keySet()) {
                if (!known.contains(key)) {
                    throw new IllegalArgumentException("unknown option --" + key + "; known: " + known);
                }
            }
            NexmarkConfig defaults = NexmarkConfig.defaults();
            long events = Long.parseLong(given.getOrDefault("events", Long.toString(defaults.events())));
            int parallelism = Integer.parseInt(given.getOrDefault("parallelism", "2"));
            String results = "docs/benchmarks/nexmark-" + events + "-p" + parallelism + ".csv";
            return new Options(events,
                    Long.parseLong(given.getOrDefault("seed", Long.toString(defaults.seed()))),
                    NexmarkQuery.parse(given.getOrDefault("queries", "all")),
                    Mode.parseList(given.getOrDefault("modes", Mode.DEFAULT.toString())),
                    parallelism,
                    Integer.parseInt(given.getOrDefault("pairs", "3")),
                    Path.of(given.getOrDefault("warehouse", "/tmp/isthmus-nexmark")).toAbsolutePath(),
                    Path.of(given.getOrDefault("results", results)).toAbsolutePath());
        }

        NexmarkConfig config() {
            return NexmarkConfig.defaults().withEvents(events).withSeed(seed);
        }
    }

    private final MiniCluster cluster;
    private final HadoopCatalog catalog;
    private final QueryRun runs;
    private final NexmarkConfig config;
    private Map<Long, Long> bidsPerBidder;

    Nexmark(MiniCluster cluster, Path warehouse, NexmarkConfig config, int parallelism) throws IOException {
        this.cluster = cluster;
        this.config = config;
        this.catalog = new HadoopCatalog(new org.apache.hadoop.conf.Configuration(), warehouse.toUri().toString());
        Path checkpoints = warehouse.resolve("checkpoints");
        Files.createDirectories(checkpoints);
        this.runs = new QueryRun(cluster, catalog, new QueryRun.Settings(parallelism, warehouse, checkpoints,
                config.bids()));
    }

    /** Writes the input tables unless the warehouse already holds them for this configuration. */
    void prepareInputs() {
        InputTables.prepare(catalog, QueryRun.INPUT, config);
    }

    /** A MiniCluster of one TaskManager with {@code slots} slots; the caller closes it. */
    static MiniCluster startCluster(int slots) throws Exception {
        Configuration conf = new Configuration();
        // The heaviest joins keep every bid and auction in heap state.
        conf.set(TaskManagerOptions.TASK_HEAP_MEMORY, MemorySize.ofMebiBytes(6144));
        conf.set(TaskManagerOptions.MANAGED_MEMORY_SIZE, MemorySize.ofMebiBytes(1024));
        MiniCluster cluster = new MiniCluster(new MiniClusterConfiguration.Builder()
                .setConfiguration(conf).setNumTaskManagers(1).setNumSlotsPerTaskManager(slots).build());
        cluster.start();
        return cluster;
    }

    /**
     * One pair: both legs of {@code query} in the given order, each checked and its output
     * dropped; parity holds when both committed the same rows.
     */
    List<Observation> pair(NexmarkQuery query, Mode mode, int pair, List<Leg> order) throws Exception {
        Map<Leg, Observation> byLeg = new TreeMap<>();
        Map<Leg, String> digests = new TreeMap<>();
        Map<Leg, Table> outputs = new TreeMap<>();
        int position = 0;
        for (Leg leg : order) {
            position++;
            String name = query.id() + "_" + leg.shortName() + "_" + pair;
            QueryRun.Result run;
            try {
                run = runs.run(query, leg, mode, name);
            } catch (Exception e) {
                // A failed run is an observation too: the cell stays whole and the report shows it.
                Throwable root = e;
                while (root.getCause() != null) {
                    root = root.getCause();
                }
                String reason = "the run failed: " + root;
                System.out.println("nexmark: " + query.id() + " " + leg + " " + reason);
                digests.put(leg, leg.name());
                byLeg.put(leg, new Observation(mode, query, pair, leg, position, -1, -1, "-", false, reason, 0, 0, 0,
                        0, 0));
                continue;
            }
            Table output = run.output();
            Fingerprint fingerprint = query.processingTime() ? bidderCounts(output) : OutputCheck.fingerprint(output);
            OutputCheck.Files files = OutputCheck.files(output);
            String proof = Witness.check(leg, query, run, files);
            if (query.processingTime()) {
                proof = conservation(output, proof);
            }
            digests.put(leg, fingerprint.digest());
            byLeg.put(leg, new Observation(mode, query, pair, leg, position, run.millis(), fingerprint.rows(),
                    fingerprint.digest().substring(0, 16), false, proof, files.dataFiles(), files.dataBytes(),
                    files.deleteFiles(), run.counters().nativeTasks(), run.counters().fallbackTasks()));
            outputs.put(leg, output);
        }
        boolean parity = digests.values().stream().distinct().count() == 1;
        if (!parity && !query.processingTime() && outputs.size() == 2) {
            System.out.println("nexmark: " + query.id() + " pair " + pair + " differs: "
                    + OutputCheck.difference(outputs.get(Leg.STOCK), outputs.get(Leg.NATIVE), 5));
        }
        for (Table output : outputs.values()) {
            catalog.dropTable(TableIdentifier.of(QueryRun.OUTPUT, output.name().substring(
                    output.name().lastIndexOf('.') + 1)), true);
        }
        List<Observation> observations = new ArrayList<>();
        for (Leg leg : order) {
            Observation o = byLeg.get(leg);
            observations.add(new Observation(o.mode(), o.query(), o.pair(), o.leg(), o.position(), o.millis(), o.rows(),
                    o.digest(), parity, o.proof(), o.dataFiles(), o.dataBytes(), o.deleteFiles(), o.nativeTasks(),
                    o.fallbackTasks()));
        }
        return observations;
    }

    /** A cell: the warm-up pair and {@code pairs} measured ones, stock first in odd pairs. */
    List<Observation> cell(NexmarkQuery query, Mode mode, int pairs) throws Exception {
        List<Observation> observations = new ArrayList<>();
        for (int pair = 0; pair <= pairs; pair++) {
            List<Leg> order = pair % 2 == 0 && pair > 0 ? List.of(Leg.NATIVE, Leg.STOCK) : List.of(Leg.STOCK, Leg.NATIVE);
            List<Observation> done = pair(query, mode, pair, order);
            for (Observation o : done) {
                System.out.printf("nexmark: %s %s pair %d %-6s %7d ms %9d rows %s parity %s proof %s%n", mode,
                        query.id(), pair, o.leg().name().toLowerCase(java.util.Locale.ROOT), o.millis(), o.rows(),
                        o.digest(), o.parity() ? "pass" : "FAIL", o.proof());
            }
            observations.addAll(done);
        }
        return observations;
    }

    /**
     * q12's output depends on the wall clock (which window a bid falls in), so the legs are
     * compared on what does not: each bidder's committed count.
     */
    private static Fingerprint bidderCounts(Table output) throws IOException {
        Map<Long, Long> counts = countsPerBidder(output, "bid_count");
        StringBuilder text = new StringBuilder();
        counts.forEach((bidder, count) -> text.append(bidder).append('=').append(count).append('\n'));
        java.security.MessageDigest sha;
        try {
            sha = java.security.MessageDigest.getInstance("SHA-256");
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
        String digest = java.util.HexFormat.of().formatHex(sha.digest(text.toString().getBytes(StandardCharsets.UTF_8)));
        return new Fingerprint(counts.values().stream().mapToLong(Long::longValue).sum(), digest);
    }

    /**
     * Every bid counted once: per bidder the committed counts add up to the input's, no window
     * of a bidder appears twice, and every window is 10 s and aligned.
     */
    private String conservation(Table output, String proof) throws IOException {
        List<String> failed = new ArrayList<>();
        if (!proof.equals("ok")) {
            failed.add(proof);
        }
        if (bidsPerBidder == null) {
            bidsPerBidder = countsPerBidder(catalog.loadTable(TableIdentifier.of(QueryRun.INPUT, "bid")), null);
        }
        if (!countsPerBidder(output, "bid_count").equals(bidsPerBidder)) {
            failed.add("per-bidder counts differ from the input's");
        }
        Set<String> windows = new HashSet<>();
        try (CloseableIterable<Record> rows = IcebergGenerics.read(output).build()) {
            for (Record row : rows) {
                java.time.LocalDateTime start = (java.time.LocalDateTime) row.getField("starttime");
                java.time.LocalDateTime end = (java.time.LocalDateTime) row.getField("endtime");
                if (!windows.add(row.getField("bidder") + "@" + start)) {
                    failed.add("bidder " + row.getField("bidder") + " has two windows at " + start);
                    break;
                }
                if (!start.plusSeconds(10).equals(end) || start.getSecond() % 10 != 0 || start.getNano() != 0) {
                    failed.add("window " + start + " - " + end + " is not a 10 s tumbling window");
                    break;
                }
            }
        }
        return failed.isEmpty() ? "ok" : String.join("; ", failed);
    }

    /** Per bidder, the sum of {@code countColumn}, or the number of rows when it is null. */
    private static Map<Long, Long> countsPerBidder(Table table, String countColumn) throws IOException {
        Map<Long, Long> counts = new TreeMap<>();
        table.refresh();
        List<String> columns = countColumn == null ? List.of("bidder") : List.of("bidder", countColumn);
        try (CloseableIterable<Record> rows = IcebergGenerics.read(table).select(columns.toArray(String[]::new))
                .build()) {
            for (Record row : rows) {
                long n = countColumn == null ? 1 : ((Number) row.getField(countColumn)).longValue();
                counts.merge((Long) row.getField("bidder"), n, Long::sum);
            }
        }
        return counts;
    }

    /** The cells already in {@code results}, as "mode query". */
    static Set<String> completedCells(Path results) throws IOException {
        Set<String> done = new HashSet<>();
        if (Files.exists(results)) {
            for (String line : Files.readAllLines(results)) {
                if (!line.isBlank() && !line.startsWith("mode,")) {
                    String[] fields = line.split(",", 3);
                    done.add(fields[0] + " " + fields[1]);
                }
            }
        }
        return done;
    }

    static void append(Path results, List<Observation> observations) throws IOException {
        Files.createDirectories(results.getParent());
        StringBuilder text = new StringBuilder();
        if (!Files.exists(results)) {
            text.append(Observation.HEADER).append('\n');
        }
        observations.forEach(o -> text.append(o.csv()).append('\n'));
        Files.writeString(results, text, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    }

    public static void main(String[] args) throws Exception {
        Options options = Options.parse(args);
        NexmarkConfig config = options.config();
        System.out.printf("nexmark: %d events (seed %d), queries %s, modes %s, parallelism %d, %d pairs;"
                + " warehouse %s; results %s%n", config.events(), config.seed(), options.queries(), options.modes(),
                options.parallelism(), options.pairs(), options.warehouse(), options.results());
        Set<String> done = completedCells(options.results());
        try (MiniCluster cluster = startCluster(options.parallelism())) {
            Nexmark nexmark = new Nexmark(cluster, options.warehouse(), config, options.parallelism());
            nexmark.prepareInputs();
            for (Mode mode : options.modes()) {
                for (NexmarkQuery query : options.queries()) {
                    if (done.contains(mode + " " + query.id())) {
                        System.out.printf("nexmark: %s %s already in %s%n", mode, query.id(), options.results());
                        continue;
                    }
                    append(options.results(), nexmark.cell(query, mode, options.pairs()));
                }
            }
        } catch (UncheckedIOException e) {
            throw e.getCause();
        }
    }
}
