package dev.isthmus.bench.nexmark;

import static org.apache.iceberg.types.Types.NestedField.optional;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.apache.iceberg.AppendFiles;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetWriter;
import org.apache.iceberg.encryption.EncryptedOutputFile;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.parquet.Parquet;
import org.apache.iceberg.types.Types;

/**
 * The Nexmark input tables {@code person}, {@code auction} and {@code bid} of a {@link NexmarkConfig},
 * flat (the columns of the upstream views) so that both the stock and the native reader can project
 * them. They are written by Iceberg's own Java Parquet writer, so that neither leg of a comparison
 * reads files of its own making, in one commit per stripe of at most one file per bucket, rows in
 * event order. Each commit then covers a stretch of event time of its own, which source watermarks
 * rely on, and the bids of one auction and one millisecond sit in one file in event order, which
 * keeps the order of ties reproducible.
 *
 * <p>Preparing is idempotent: the tables record their config, and complete tables of the same
 * config are kept as they are.
 */
final class InputTables {
    static final Schema PERSON_SCHEMA = new Schema(
            optional(1, "id", Types.LongType.get()),
            optional(2, "name", Types.StringType.get()),
            optional(3, "emailAddress", Types.StringType.get()),
            optional(4, "creditCard", Types.StringType.get()),
            optional(5, "city", Types.StringType.get()),
            optional(6, "state", Types.StringType.get()),
            optional(7, "dateTime", Types.TimestampType.withoutZone()),
            optional(8, "extra", Types.StringType.get()));
    static final Schema AUCTION_SCHEMA = new Schema(
            optional(1, "id", Types.LongType.get()),
            optional(2, "itemName", Types.StringType.get()),
            optional(3, "description", Types.StringType.get()),
            optional(4, "initialBid", Types.LongType.get()),
            optional(5, "reserve", Types.LongType.get()),
            optional(6, "dateTime", Types.TimestampType.withoutZone()),
            optional(7, "expires", Types.TimestampType.withoutZone()),
            optional(8, "seller", Types.LongType.get()),
            optional(9, "category", Types.LongType.get()),
            optional(10, "extra", Types.StringType.get()));
    static final Schema BID_SCHEMA = new Schema(
            optional(1, "auction", Types.LongType.get()),
            optional(2, "bidder", Types.LongType.get()),
            optional(3, "price", Types.LongType.get()),
            optional(4, "channel", Types.StringType.get()),
            optional(5, "url", Types.StringType.get()),
            optional(6, "dateTime", Types.TimestampType.withoutZone()),
            optional(7, "extra", Types.StringType.get()));
    /** The benchmark's Parquet settings, for the input tables and the runs' output tables alike. */
    static final Map<String, String> TABLE_PROPERTIES = Map.of(
            TableProperties.FORMAT_VERSION,
            "2",
            TableProperties.PARQUET_COMPRESSION,
            "zstd",
            TableProperties.PARQUET_COMPRESSION_LEVEL,
            "3",
            TableProperties.PARQUET_ROW_GROUP_SIZE_BYTES,
            String.valueOf(128 << 20),
            TableProperties.PARQUET_PAGE_SIZE_BYTES,
            String.valueOf(1 << 20),
            TableProperties.PARQUET_DICT_SIZE_BYTES,
            String.valueOf(2 << 20));

    static final int BUCKETS = 4;
    /** The tables, in the order of {@link #SCHEMAS}. */
    static final List<String> NAMES = List.of("person", "auction", "bid");

    private static final List<Schema> SCHEMAS = List.of(PERSON_SCHEMA, AUCTION_SCHEMA, BID_SCHEMA);
    /** Bids go by auction, so that each auction's bids of a stripe sit in one file, in event order. */
    private static final List<String> BUCKET_COLUMNS = List.of("id", "id", "auction");
    /** Set once every stripe is committed: a table without it is left over from an interrupted run. */
    static final String COMPLETE = "nexmark.complete";

    private InputTables() {}

    /** The schema of input table {@code name}, one of {@link #NAMES}. */
    static Schema schema(String name) {
        return SCHEMAS.get(NAMES.indexOf(name));
    }

    /**
     * Leaves the three tables of {@code config} in {@code namespace}: kept if they are complete and
     * of this config, otherwise dropped (with their files) and written again. Prints one line per table.
     */
    public static void prepare(Catalog catalog, Namespace namespace, NexmarkConfig config) {
        List<TableIdentifier> ids =
                NAMES.stream().map(name -> TableIdentifier.of(namespace, name)).toList();
        Map<String, String> recorded = recorded(config);
        if (ids.stream().allMatch(id -> reusable(catalog, id, recorded))) {
            for (TableIdentifier id : ids) {
                System.out.printf(
                        Locale.ROOT,
                        "nexmark: kept %s, %s rows of %s%n",
                        id,
                        catalog.loadTable(id).currentSnapshot().summary().get("total-records"),
                        config);
            }
            return;
        }
        long start = System.nanoTime();
        if (catalog instanceof SupportsNamespaces namespaces && !namespaces.namespaceExists(namespace)) {
            namespaces.createNamespace(namespace);
        }
        Map<String, String> properties = new LinkedHashMap<>(recorded);
        properties.putAll(TABLE_PROPERTIES);
        List<Table> tables = new ArrayList<>();
        for (int t = 0; t < ids.size(); t++) {
            catalog.dropTable(ids.get(t), true);
            Schema schema = SCHEMAS.get(t);
            tables.add(catalog.buildTable(ids.get(t), schema)
                    .withPartitionSpec(PartitionSpec.builderFor(schema)
                            .bucket(BUCKET_COLUMNS.get(t), BUCKETS)
                            .build())
                    .withProperties(properties)
                    .create());
        }
        NexmarkGenerator generator = new NexmarkGenerator(config);
        // The tables are independent: side by side, one table's commit overlaps another's encoding.
        try (ExecutorService pool = Executors.newFixedThreadPool(tables.size())) {
            for (int k = 0; k < config.stripes(); k++) {
                int stripe = k;
                NexmarkGenerator.Stripe rows = generator.stripe(k);
                CompletableFuture.allOf(
                                CompletableFuture.runAsync(() -> append(tables.get(0), stripe, rows.people()), pool),
                                CompletableFuture.runAsync(() -> append(tables.get(1), stripe, rows.auctions()), pool),
                                CompletableFuture.runAsync(() -> append(tables.get(2), stripe, rows.bids()), pool))
                        .join();
            }
        }
        for (Table table : tables) {
            table.updateProperties().set(COMPLETE, "true").commit();
        }
        long millis = (System.nanoTime() - start) / 1_000_000;
        for (int t = 0; t < ids.size(); t++) {
            System.out.printf(
                    Locale.ROOT,
                    "nexmark: wrote %s, %s rows in %d commits of %s (all three in %,d ms)%n",
                    ids.get(t),
                    tables.get(t).currentSnapshot().summary().get("total-records"),
                    config.stripes(),
                    config,
                    millis);
        }
    }

    /** The table properties that say which config and generator a table holds. */
    static Map<String, String> recorded(NexmarkConfig config) {
        return Map.of(
                "nexmark.events", String.valueOf(config.events()),
                "nexmark.seed", String.valueOf(config.seed()),
                "nexmark.events-per-second", String.valueOf(config.eventsPerSecond()),
                "nexmark.base-time-millis", String.valueOf(config.baseTimeMillis()),
                "nexmark.stripe-events", String.valueOf(config.stripeEvents()),
                "nexmark.generator-version", String.valueOf(NexmarkGenerator.VERSION));
    }

    private static boolean reusable(Catalog catalog, TableIdentifier id, Map<String, String> recorded) {
        if (!catalog.tableExists(id)) {
            return false;
        }
        Map<String, String> properties = catalog.loadTable(id).properties();
        return "true".equals(properties.get(COMPLETE))
                && recorded.entrySet().stream().allMatch(e -> e.getValue().equals(properties.get(e.getKey())));
    }

    /** Commits one stripe's rows of {@code table}: one file per bucket that has rows, rows in event order. */
    private static void append(Table table, int stripe, List<Record> rows) {
        PartitionKey key = new PartitionKey(table.spec(), table.schema());
        List<List<Record>> buckets = new ArrayList<>(BUCKETS);
        PartitionKey[] partitions = new PartitionKey[BUCKETS];
        for (int b = 0; b < BUCKETS; b++) {
            buckets.add(new ArrayList<>(rows.size() / BUCKETS * 2));
        }
        for (Record row : rows) {
            key.partition(row);
            int b = key.get(0, Integer.class);
            buckets.get(b).add(row);
            if (partitions[b] == null) {
                partitions[b] = key.copy();
            }
        }
        // A fixed operation id makes the file names, like the rows, a function of the config (hence
        // also overwrite: an interrupted run may have left files of these names behind).
        OutputFileFactory files = OutputFileFactory.builderFor(table, stripe, 0)
                .format(FileFormat.PARQUET)
                .operationId("nexmark")
                .build();
        AppendFiles append = table.newAppend();
        for (int b = 0; b < BUCKETS; b++) {
            if (partitions[b] != null) {
                append.appendFile(write(table, files.newOutputFile(partitions[b]), partitions[b], buckets.get(b)));
            }
        }
        append.set("nexmark.stripe", String.valueOf(stripe)).commit();
    }

    private static DataFile write(Table table, EncryptedOutputFile file, PartitionKey partition, List<Record> rows) {
        try {
            DataWriter<Record> writer = Parquet.writeData(file)
                    .forTable(table)
                    .withPartition(partition)
                    .createWriterFunc(GenericParquetWriter::create)
                    .overwrite()
                    .build();
            try (writer) {
                writer.write(rows);
            }
            return writer.toDataFile();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
