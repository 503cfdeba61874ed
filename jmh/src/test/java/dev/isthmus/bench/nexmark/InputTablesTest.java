package dev.isthmus.bench.nexmark;

import static dev.isthmus.bench.nexmark.NexmarkGeneratorTest.SMALL;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.PartitionField;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableUtil;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetReaders;
import org.apache.iceberg.hadoop.HadoopCatalog;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.parquet.Parquet;
import org.apache.iceberg.transforms.Transform;
import org.apache.iceberg.transforms.Transforms;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class InputTablesTest {
    private static final Namespace NAMESPACE = Namespace.of("nexmark");
    private static final List<String> TABLES = List.of("person", "auction", "bid");
    private static final List<Schema> SCHEMAS =
            List.of(InputTables.PERSON_SCHEMA, InputTables.AUCTION_SCHEMA, InputTables.BID_SCHEMA);
    private static final Transform<Long, Integer> BUCKET = Transforms.bucket(InputTables.BUCKETS);

    @TempDir
    Path warehouse;

    private HadoopCatalog catalog;

    @BeforeEach
    void openCatalog() {
        catalog = new HadoopCatalog(new Configuration(), warehouse.toUri().toString());
    }

    @AfterEach
    void closeCatalog() throws IOException {
        catalog.close();
    }

    private Table table(int t) {
        return catalog.loadTable(TableIdentifier.of(NAMESPACE, TABLES.get(t)));
    }

    private static List<Record> generated(NexmarkGenerator.Stripe stripe, int t) {
        return List.of(stripe.people(), stripe.auctions(), stripe.bids()).get(t);
    }

    private static <T> List<T> list(CloseableIterable<T> iterable) throws IOException {
        try (iterable) {
            List<T> list = new ArrayList<>();
            iterable.forEach(list::add);
            return list;
        }
    }

    private static List<String> sorted(List<Record> rows) {
        return rows.stream().map(Record::toString).sorted().toList();
    }

    private List<Long> snapshotIds(int t) {
        List<Long> ids = new ArrayList<>();
        table(t).snapshots().forEach(s -> ids.add(s.snapshotId()));
        return ids;
    }

    /** What Iceberg's generic reader returns of the current snapshot, against all generated rows. */
    private void assertHolds(NexmarkConfig config) throws IOException {
        NexmarkGenerator generator = new NexmarkGenerator(config);
        for (int t = 0; t < TABLES.size(); t++) {
            List<Record> expected = new ArrayList<>();
            for (int k = 0; k < config.stripes(); k++) {
                expected.addAll(generated(generator.stripe(k), t));
            }
            List<Record> read = list(IcebergGenerics.read(table(t)).build());
            assertThat(read).as(TABLES.get(t)).hasSize(expected.size());
            assertThat(sorted(read)).as(TABLES.get(t)).isEqualTo(sorted(expected));
        }
    }

    @Test
    void preparedTablesHoldOneCommitPerStripeAndOneFilePerBucketInEventOrder() throws IOException {
        InputTables.prepare(catalog, NAMESPACE, SMALL);
        NexmarkGenerator generator = new NexmarkGenerator(SMALL);
        long[] counts = {SMALL.people(), SMALL.auctions(), SMALL.bids()};
        for (int t = 0; t < TABLES.size(); t++) {
            Table table = table(t);
            Schema schema = SCHEMAS.get(t);
            String key = t == 2 ? "auction" : "id";
            assertThat(table.schema().asStruct()).isEqualTo(schema.asStruct());
            assertThat(TableUtil.formatVersion(table)).isEqualTo(2);
            PartitionField bucket = table.spec().fields().getFirst();
            assertThat(table.spec().fields()).hasSize(1);
            assertThat(bucket.transform().toString()).isEqualTo("bucket[4]");
            assertThat(bucket.sourceId()).isEqualTo(schema.findField(key).fieldId());
            assertThat(table.properties())
                    .containsAllEntriesOf(InputTables.recorded(SMALL))
                    .containsEntry(InputTables.COMPLETE, "true")
                    .containsEntry("write.parquet.compression-codec", "zstd")
                    .containsEntry("write.parquet.compression-level", "3")
                    .containsEntry("write.parquet.row-group-size-bytes", "134217728")
                    .containsEntry("write.parquet.page-size-bytes", "1048576")
                    .containsEntry("write.parquet.dict-size-bytes", "2097152");
            assertThat(table.currentSnapshot().summary()).containsEntry("total-records", String.valueOf(counts[t]));

            List<Snapshot> snapshots = new ArrayList<>();
            table.snapshots().forEach(snapshots::add);
            assertThat(snapshots).hasSize(SMALL.stripes());
            for (int k = 0; k < snapshots.size(); k++) {
                Snapshot snapshot = snapshots.get(k);
                assertThat(snapshot.operation()).isEqualTo("append");
                assertThat(snapshot.summary()).containsEntry("nexmark.stripe", String.valueOf(k));
                List<Record> stripeRows = generated(generator.stripe(k), t);
                List<DataFile> files = new ArrayList<>();
                snapshot.addedDataFiles(table.io()).forEach(files::add);
                assertThat(files).hasSize(InputTables.BUCKETS);
                assertThat(files)
                        .extracting(f -> f.partition().get(0, Integer.class))
                        .containsExactlyInAnyOrder(0, 1, 2, 3);
                for (DataFile file : files) {
                    int b = file.partition().get(0, Integer.class);
                    List<Record> expected = stripeRows.stream()
                            .filter(r -> BUCKET.bind(Types.LongType.get()).apply((Long) r.getField(key)) == b)
                            .toList();
                    List<Record> read = list(Parquet.read(table.io().newInputFile(file.location()))
                            .project(schema)
                            .createReaderFunc(fileSchema -> GenericParquetReaders.buildReader(schema, fileSchema))
                            .build());
                    assertThat(read)
                            .as("%s stripe %d bucket %d", TABLES.get(t), k, b)
                            .isEqualTo(expected);
                }
            }
        }
        assertHolds(SMALL);
    }

    @Test
    void preparingTheSameConfigAgainKeepsTheTables() throws IOException {
        InputTables.prepare(catalog, NAMESPACE, SMALL);
        List<List<Long>> before = List.of(snapshotIds(0), snapshotIds(1), snapshotIds(2));
        InputTables.prepare(catalog, NAMESPACE, SMALL);
        assertThat(List.of(snapshotIds(0), snapshotIds(1), snapshotIds(2))).isEqualTo(before);
    }

    @Test
    void preparingAnotherSeedRewritesTheTables() throws IOException {
        InputTables.prepare(catalog, NAMESPACE, SMALL);
        List<Long> before = snapshotIds(2);
        NexmarkConfig other = SMALL.withSeed(7);
        InputTables.prepare(catalog, NAMESPACE, other);
        assertThat(snapshotIds(2)).hasSize(other.stripes()).doesNotContainAnyElementsOf(before);
        assertThat(table(2).properties()).containsEntry("nexmark.seed", "7");
        assertHolds(other);
    }

    @Test
    void aTableLeftIncompleteIsRewrittenWithTheOthers() throws IOException {
        InputTables.prepare(catalog, NAMESPACE, SMALL);
        List<Long> before = snapshotIds(0);
        table(1).updateProperties().remove(InputTables.COMPLETE).commit();
        InputTables.prepare(catalog, NAMESPACE, SMALL);
        assertThat(snapshotIds(0)).hasSize(SMALL.stripes()).doesNotContainAnyElementsOf(before);
        assertThat(table(1).properties()).containsEntry(InputTables.COMPLETE, "true");
        assertHolds(SMALL);
    }
}
