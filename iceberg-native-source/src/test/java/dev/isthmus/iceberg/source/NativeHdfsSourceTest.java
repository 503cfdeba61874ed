package dev.isthmus.iceberg.source;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.isthmus.iceberg.source.parquet.RandomRecords;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.table.data.RowData;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.flink.source.IcebergSource;
import org.apache.iceberg.io.CloseableIterable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Tables on a real HDFS (Hadoop's MiniDFSCluster, one datanode), read on a Flink MiniCluster
 * through the Java-supplied-bytes path: {@code hdfs://} locations go through the table's FileIO
 * ({@code HadoopFileIO} over the HDFS client), which reads the column chunks into the library's
 * buffers. The same rows as Iceberg's stock {@code IcebergSource}, and every task native.
 */
class NativeHdfsSourceTest {
    @RegisterExtension
    static final MiniClusterExtension CLUSTER = new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
            .setNumberTaskManagers(1)
            .setNumberSlotsPerTaskManager(2)
            .setConfiguration(
                    org.apache.flink.configuration.Configuration.fromMap(Map.of("restart-strategy.type", "none")))
            .build());

    @TempDir
    static Path base;

    private static MiniDFSCluster hdfs;
    private static TestTables tables;

    @BeforeAll
    static void startHdfs() throws IOException {
        Configuration conf = new Configuration();
        conf.set(MiniDFSCluster.HDFS_MINIDFS_BASEDIR, base.resolve("hdfs").toString());
        hdfs = new MiniDFSCluster.Builder(conf).numDataNodes(1).build();
        hdfs.waitActive();
        // A client configuration as a job would have one: nothing but the namenode's address in the URI.
        tables = new TestTables(hdfs.getURI() + "/warehouse", new Configuration());
    }

    @AfterAll
    static void stopHdfs() {
        if (hdfs != null) {
            hdfs.shutdown(true);
        }
    }

    private static List<String> dataFileLocations(Table table) {
        List<String> locations = new ArrayList<>();
        try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
            tasks.forEach(task -> locations.add(task.file().location()));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return locations;
    }

    private static void assertOnHdfs(Table table, int files) {
        List<String> locations = dataFileLocations(table);
        assertEquals(files, locations.size(), "data files " + locations);
        assertTrue(locations.stream().allMatch(l -> l.startsWith("hdfs://")), "data files on HDFS: " + locations);
    }

    private static List<List<Object>> assertSameRows(
            String name,
            NativeIcebergSource.Builder nativeBuilder,
            IcebergSource.Builder<RowData> stockBuilder,
            Schema schema) {
        List<List<Object>> expected = NativeIcebergSourceTest.run(
                stockBuilder.tableLoader(tables.loader(name)).build(), schema, 2);
        List<List<Object>> actual = NativeIcebergSourceTest.run(
                nativeBuilder.tableLoader(tables.loader(name)).build(), schema, 2);
        assertFalse(expected.isEmpty(), "the test must read something");
        ReadResults.assertSameRows(expected, actual);
        return actual;
    }

    @Test
    void everyFlatTypeReadThroughTheFileIo() {
        // Format 3 for nanosecond timestamps.
        Table table = tables.create(
                "every_type",
                RandomRecords.EVERY_TYPE,
                PartitionSpec.unpartitioned(),
                Map.of(TableProperties.FORMAT_VERSION, "3"));
        RandomRecords random = new RandomRecords(17, 0.15);
        TestTables.append(table, random.records(RandomRecords.EVERY_TYPE, 3_000));
        TestTables.append(table, random.records(RandomRecords.EVERY_TYPE, 2_000));
        assertOnHdfs(table, 2);

        long fallbacks = NativeSourceCounters.fallbackTasks();
        long nativeTasks = NativeSourceCounters.nativeTasks();
        List<List<Object>> rows = assertSameRows(
                "every_type",
                NativeIcebergSource.forRowData().batchSize(1_000).strict(true),
                IcebergSource.forRowData(),
                RandomRecords.EVERY_TYPE);
        assertEquals(5_000, rows.size());
        assertEquals(fallbacks, NativeSourceCounters.fallbackTasks(), "no task fell back");
        assertTrue(NativeSourceCounters.nativeTasks() >= nativeTasks + 2, "both files were read natively");
    }

    /**
     * Small row groups and a filter that rules most of them out: the row groups left are read as
     * ranged reads of their column chunks over HDFS, several per file.
     */
    @Test
    void rowGroupsPrunedAndRangesReadOverHdfs() {
        Table table = tables.create(
                "row_groups",
                SampleTable.SCHEMA,
                PartitionSpec.unpartitioned(),
                Map.of("write.parquet.row-group-size-bytes", "8192"));
        TestTables.append(table, SampleTable.records(0, 4_000));
        TestTables.append(table, SampleTable.records(4_000, 2_000));
        assertOnHdfs(table, 2);

        Schema projection = SampleTable.SCHEMA.select("id", "category", "ts", "amount", "payload");
        // Ids are written in order, so row groups have disjoint id ranges: two ranges, one per file.
        List<Expression> filters = List.of(Expressions.or(
                Expressions.and(Expressions.greaterThanOrEqual("id", 1_000), Expressions.lessThan("id", 2_500)),
                Expressions.and(Expressions.greaterThanOrEqual("id", 4_500), Expressions.lessThan("id", 5_200))));
        long fallbacks = NativeSourceCounters.fallbackTasks();
        long nativeTasks = NativeSourceCounters.nativeTasks();
        long read = NativeSourceCounters.rowGroupsRead();
        long pruned = NativeSourceCounters.rowGroupsPruned();
        List<List<Object>> rows = assertSameRows(
                "row_groups",
                NativeIcebergSource.forRowData()
                        .project(projection)
                        .filters(filters)
                        .batchSize(500)
                        .strict(true),
                IcebergSource.forRowData().project(projection).filters(filters),
                projection);
        assertEquals(1_500 + 700, rows.size());
        assertEquals(fallbacks, NativeSourceCounters.fallbackTasks(), "no task fell back");
        assertTrue(NativeSourceCounters.nativeTasks() >= nativeTasks + 2, "both files were read natively");
        // About 200 rows a row group: 30 in all, 12 of them holding ids in the ranges.
        long groupsRead = NativeSourceCounters.rowGroupsRead() - read;
        long groupsPruned = NativeSourceCounters.rowGroupsPruned() - pruned;
        assertTrue(groupsRead >= 4, "several row groups read per file: " + groupsRead);
        assertTrue(
                groupsPruned > groupsRead,
                "most row groups pruned: " + groupsPruned + " pruned, " + groupsRead + " read");
    }
}
