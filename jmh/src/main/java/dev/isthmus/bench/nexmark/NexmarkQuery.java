package dev.isthmus.bench.nexmark;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The 23 Nexmark queries the benchmark runs (q0 to q23 without q6), with what the harness must know
 * beyond their SQL to give each an Iceberg output table and to feed it.
 *
 * <p>q6 is left out: upstream's q6.sql uses a same-level alias in WHERE, and written correctly Flink
 * refuses it ("Non-time attribute sort is not supported for bounded OVER window").
 *
 * <p>The SQL is {@code nexmark/qN.sql} on the classpath: upstream's text, changed only where Flink
 * 2.1 or the harness requires (each file's first comment lines say how), for {@link QueryScript}.
 */
enum NexmarkQuery {
    // (inputs, bucket column[, processing time], upsert keys...)
    Q0("bid", "auction"),
    Q1("bid", "auction"),
    Q2("bid", "auction"),
    Q3("person,auction", "id"),
    Q4("auction,bid", "id", "id"),
    Q5("bid", "auction"),
    Q7("bid", "auction"),
    Q8("person,auction", "id"),
    Q9("auction,bid", "id", "id"),
    Q10("bid", "auction"),
    Q11("bid", "bidder"),
    Q12("bid", "bidder", true),
    Q13("bid", "auction"),
    Q14("bid", "auction"),
    Q15("bid", "day", "day"),
    Q16("bid", "channel", "channel", "day"),
    Q17("bid", "auction", "auction", "day"),
    Q18("bid", "auction", "bidder", "auction"),
    Q19("bid", "auction", "auction", "rank_number"),
    Q20("bid,auction", "auction"),
    Q21("bid", "auction"),
    Q22("bid", "auction"),
    Q23("bid,person,auction", "bidder");

    private static final String INPUT_ORDER = "person,auction,bid";

    private final Set<String> inputs;
    private final String bucketColumn;
    private final List<String> upsertKeys;
    private final boolean processingTime;

    NexmarkQuery(String inputs, String bucketColumn, String... upsertKeys) {
        this(inputs, bucketColumn, false, upsertKeys);
    }

    NexmarkQuery(String inputs, String bucketColumn, boolean processingTime, String... upsertKeys) {
        List<String> listed = Arrays.asList(inputs.split(","));
        Set<String> ordered = new LinkedHashSet<>();
        for (String input : INPUT_ORDER.split(",")) {
            if (listed.contains(input)) {
                ordered.add(input);
            }
        }
        this.inputs = Collections.unmodifiableSet(ordered);
        this.bucketColumn = bucketColumn;
        this.upsertKeys = List.of(upsertKeys);
        this.processingTime = processingTime;
    }

    /** {@code "q4"}: the upstream name, which the harness's command line and reports use. */
    public String id() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** {@code "nexmark_q4"}: the output table the SQL creates and inserts into. */
    public String sinkTable() {
        return "nexmark_" + id();
    }

    /** The text of {@code nexmark/qN.sql}; split it with {@link QueryScript#parse(NexmarkQuery)}. */
    public String sql() {
        String resource = "nexmark/" + id() + ".sql";
        try (InputStream in = NexmarkQuery.class.getClassLoader().getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException(
                        "The SQL of Nexmark " + id() + ", " + resource + ", is not on the classpath");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot read " + resource, e);
        }
    }

    /**
     * The identifier fields of an updating query's output table, in its column names: the query's
     * own upsert key, so that the upserted table is exactly the query's result (Flink then needs no
     * upsert materializer in front of the sink). Empty for an append-only query.
     */
    public List<String> upsertKeys() {
        return upsertKeys;
    }

    /**
     * Whether the query changes rows it emitted before, so that its output table must be upserted by
     * {@link #upsertKeys()}. Flink 2.1 plans q9's Top-1 as insert-only, yet the operator emits an
     * UPDATE_AFTER (with no UPDATE_BEFORE) when a higher bid takes the lead: q9 is updating, and
     * only an upserting writer gets its result right.
     */
    public boolean updating() {
        return !upsertKeys.isEmpty();
    }

    /**
     * The output column the output table is bucketed by ({@code bucket(4, col)}). An updating
     * query's is one of its upsert keys, which upsert writes require; an append-only query's is a
     * BIGINT the rows spread over ({@code auction} where the output has it).
     */
    public String bucketColumn() {
        return bucketColumn;
    }

    /** Which of {@code person}, {@code auction} and {@code bid} the query reads, in that order. */
    public Set<String> inputs() {
        return inputs;
    }

    /**
     * Whether the result depends on processing time, so that two runs, or the two legs, may differ
     * in content. Only q12 (processing-time windows). q13 is not: it uses
     * {@code PROCTIME()} only to look its side input up, and the side input never changes, so its
     * result is the same whenever the lookup happens.
     */
    public boolean processingTime() {
        return processingTime;
    }

    /** The query named {@code "q4"} or {@code "Q4"}. */
    public static NexmarkQuery of(String id) {
        String name = id.strip().toUpperCase(Locale.ROOT);
        if (name.equals("Q6")) {
            throw new IllegalArgumentException(
                    "Nexmark q6 is not run: Flink cannot plan it (Non-time attribute sort is not supported for bounded OVER window)");
        }
        for (NexmarkQuery query : values()) {
            if (query.name().equals(name)) {
                return query;
            }
        }
        throw new IllegalArgumentException("Unknown Nexmark query '" + id + "'; the queries are "
                + Arrays.stream(values()).map(NexmarkQuery::id).collect(Collectors.joining(",")));
    }

    /** The queries of a comma-separated list such as {@code "q0,q4,q13"}, in its order, or all for {@code "all"}. */
    public static List<NexmarkQuery> parse(String list) {
        if (list.strip().equalsIgnoreCase("all")) {
            return List.of(values());
        }
        List<NexmarkQuery> queries = new ArrayList<>();
        for (String id : list.split(",", -1)) {
            if (id.isBlank()) {
                throw new IllegalArgumentException("Empty entry in the Nexmark query list '" + list + "'");
            }
            NexmarkQuery query = of(id);
            if (queries.contains(query)) {
                throw new IllegalArgumentException("Nexmark " + query.id() + " is listed twice in '" + list + "'");
            }
            queries.add(query);
        }
        return List.copyOf(queries);
    }
}
