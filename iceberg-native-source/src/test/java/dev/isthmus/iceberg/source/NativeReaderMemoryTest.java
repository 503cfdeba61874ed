package dev.isthmus.iceberg.source;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.isthmus.arrow.LeakCheckExtension;
import dev.isthmus.arrow.memory.MemoryLimitExceededException;
import dev.isthmus.ffm.NativeArrowStats;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.stream.Stream;
import org.apache.flink.connector.base.source.reader.RecordsWithSplitIds;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.testutils.MetricListener;
import org.apache.flink.table.data.RowData;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Table;
import org.apache.iceberg.flink.FlinkSchemaUtil;
import org.apache.iceberg.flink.source.FlinkSplitPlanner;
import org.apache.iceberg.flink.source.ScanContext;
import org.apache.iceberg.flink.source.reader.RecordAndPosition;
import org.apache.iceberg.flink.source.split.IcebergSourceSplit;
import org.apache.iceberg.io.CloseableIterator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** Each reader's own native memory: its gauges, and the cap that fails a reader holding too much. */
@ExtendWith(LeakCheckExtension.class)
class NativeReaderMemoryTest {
    @TempDir
    Path dir;

    private Table table() {
        Table table = new TestTables(dir)
                .create(
                        "memory",
                        SampleTable.SCHEMA,
                        PartitionSpec.unpartitioned(),
                        Map.of("write.parquet.row-group-size-bytes", "8192"));
        TestTables.append(table, SampleTable.records(0, 3_000));
        return table;
    }

    private static IcebergSourceSplit split(Table table) throws Exception {
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
            return FlinkSplitPlanner.planIcebergSourceSplits(
                            table, ScanContext.builder().build(), pool)
                    .get(0);
        } finally {
            pool.shutdown();
        }
    }

    private static NativeReaderFunction function(Table table, NativeReadOptions options) {
        return new NativeReaderFunction(
                        table.schema(),
                        null,
                        null,
                        true,
                        table.io(),
                        table.encryption(),
                        List.of(),
                        -1,
                        options.withBatchSize(500)
                                .withRowFormat(NativeReadOptions.RowFormat.COLUMNAR)
                                .withStrict(true))
                .named(table.name());
    }

    private static long gauge(MetricListener metrics, String... path) {
        Gauge<Long> gauge = metrics.<Long>getGauge(path).orElseThrow(() -> new AssertionError(String.join(".", path)));
        return gauge.getValue();
    }

    @Test
    void aReaderCountsOnlyTheBatchesItHolds() throws Exception {
        Table table = table();
        MetricListener holding = new MetricListener();
        MetricListener idle = new MetricListener();
        NativeReaderFunction holder = function(table, NativeReadOptions.defaults());
        NativeReaderFunction other = function(table, NativeReadOptions.defaults());
        holder.registerReader(holding.getMetricGroup(), 0);
        other.registerReader(idle.getMetricGroup(), 1);

        try (CloseableIterator<RecordsWithSplitIds<RecordAndPosition<RowData>>> batches = holder.apply(split(table))) {
            RecordsWithSplitIds<RecordAndPosition<RowData>> held = batches.next();
            assertEquals(1, gauge(holding, "isthmus", "liveBatches"), "columnar rows hold their batch");
            assertTrue(gauge(holding, "isthmus", "liveNativeBytes") >= 500 * 8, "at least the ids of 500 rows");
            assertEquals(0, gauge(idle, "isthmus", "liveBatches"), "the other reader read nothing");
            assertEquals(0, gauge(idle, "isthmus", "liveNativeBytes"));
            assertTrue(gauge(idle, "isthmus", "jvm", "liveBatches") >= 1, "the JVM-wide gauge sees the held batch");
            assertTrue(gauge(idle, "isthmus", "jvm", "liveNativeBytes") > 0);
            held.recycle();
        }
        assertEquals(0, gauge(holding, "isthmus", "liveBatches"));
        assertEquals(0, gauge(holding, "isthmus", "liveNativeBytes"));
    }

    @Test
    void aClosedReadersTrackerLeavesTheSourcesOnceFlinkReleasesItsLastBatch() throws Exception {
        Table table = table();
        int before = NativeReaderFunction.sourceMemory().children().size();
        NativeReaderFunction reader = function(table, NativeReadOptions.defaults());
        reader.registerReader(new MetricListener().getMetricGroup(), 0);
        assertEquals(before + 1, NativeReaderFunction.sourceMemory().children().size());
        try (CloseableIterator<RecordsWithSplitIds<RecordAndPosition<RowData>>> batches = reader.apply(split(table))) {
            RecordsWithSplitIds<RecordAndPosition<RowData>> held = batches.next();
            reader.readerClosed();
            assertTrue(
                    NativeReaderFunction.sourceMemory().children().contains(reader.tracker()),
                    "Flink still holds a batch of the closed reader: its tracker stays");
            assertEquals(1, reader.tracker().liveArrays());
            held.recycle();
        }
        assertFalse(NativeReaderFunction.sourceMemory().children().contains(reader.tracker()));
        assertEquals(before, NativeReaderFunction.sourceMemory().children().size(), "no tracker left behind");

        NativeReaderFunction idle = function(table, NativeReadOptions.defaults());
        idle.registerReader(new MetricListener().getMetricGroup(), 1);
        idle.readerClosed();
        assertEquals(before, NativeReaderFunction.sourceMemory().children().size(), "an idle reader leaves at once");
    }

    @Test
    void aFunctionNeverRegisteredHoldsATrackerOnlyWhileItHoldsBatches() throws Exception {
        Table table = table();
        int before = NativeReaderFunction.sourceMemory().children().size();
        // As inside a plain IcebergSource: no NativeIcebergSource registers it or says it closed.
        NativeReaderFunction reader = function(table, NativeReadOptions.defaults());
        for (int round = 0; round < 2; round++) {
            try (CloseableIterator<RecordsWithSplitIds<RecordAndPosition<RowData>>> batches =
                    reader.apply(split(table))) {
                RecordsWithSplitIds<RecordAndPosition<RowData>> held = batches.next();
                assertTrue(
                        NativeReaderFunction.sourceMemory().children().contains(reader.tracker()),
                        "holding a batch: counted under the source's tracker (round " + round + ")");
                assertEquals(1, reader.tracker().liveArrays());
                held.recycle();
            }
            assertEquals(0, reader.tracker().liveBytes());
            assertFalse(
                    NativeReaderFunction.sourceMemory().children().contains(reader.tracker()),
                    "drained: gone (round " + round + ")");
            assertEquals(before, NativeReaderFunction.sourceMemory().children().size(), "no tracker left behind");
        }
    }

    /**
     * The files of one split share one export of their projection: kept (in the reader's tracker)
     * from the split's first file to its end, neither exported again per file nor released early.
     */
    @Test
    void aSplitsFilesShareOneExportOfTheirProjection() throws Exception {
        Table table = new TestTables(dir).create("shared", SampleTable.SCHEMA, PartitionSpec.unpartitioned(), Map.of());
        for (int f = 0; f < 3; f++) {
            TestTables.append(table, SampleTable.records(f * 100, 100));
        }
        IcebergSourceSplit split = split(table);
        assertEquals(3, split.task().files().size(), "one split of the three files");
        NativeReaderFunction reader = function(table, NativeReadOptions.defaults());
        reader.registerReader(new MetricListener().getMetricGroup(), 3);
        long kept = -1;
        long batchBytes = 0;
        int batches = 0;
        try (CloseableIterator<RecordsWithSplitIds<RecordAndPosition<RowData>>> records = reader.apply(split)) {
            while (records.hasNext()) {
                RecordsWithSplitIds<RecordAndPosition<RowData>> held = records.next();
                long holding = reader.tracker().liveBytes();
                held.recycle();
                batchBytes += holding - reader.tracker().liveBytes();
                batches++;
                if (kept < 0) {
                    kept = reader.tracker().liveBytes();
                    assertTrue(kept > 0, "the projection's export is kept once its batch is released");
                }
                assertEquals(kept, reader.tracker().liveBytes(), "one export for the split (batch " + batches + ")");
            }
            assertEquals(kept + batchBytes, reader.tracker().allocatedBytes(), "exported once, not per file");
        }
        assertTrue(batches >= 3, "a batch a file at least");
        try {
            assertEquals(0, reader.tracker().liveBytes(), "released at the split's end");
        } finally {
            reader.readerClosed();
        }
    }

    @Test
    void aCapReachedWhileBatchesAreHeldLeavesNothingOnceTheyAreReleased() throws Exception {
        Table table = table();
        IcebergSourceSplit split = split(table);
        long firstBatch;
        NativeReaderFunction probe = function(table, NativeReadOptions.defaults());
        try (CloseableIterator<RecordsWithSplitIds<RecordAndPosition<RowData>>> batches = probe.apply(split)) {
            RecordsWithSplitIds<RecordAndPosition<RowData>> held = batches.next();
            firstBatch = probe.tracker().liveBytes();
            held.recycle();
        }

        // Room for the first batch, not for a second one beside it.
        NativeReaderFunction capped =
                function(table, NativeReadOptions.defaults().withMaxNativeBytes(firstBatch + 1));
        capped.registerReader(new MetricListener().getMetricGroup(), 2);
        try (CloseableIterator<RecordsWithSplitIds<RecordAndPosition<RowData>>> batches = capped.apply(split)) {
            RecordsWithSplitIds<RecordAndPosition<RowData>> held = batches.next();
            assertEquals(1, capped.tracker().liveArrays(), "Flink holds the first batch");
            long exported = NativeArrowStats.read().exportedLive();
            Exception e = assertThrows(RuntimeException.class, batches::next);
            assertTrue(
                    Stream.<Throwable>iterate(e, t -> t != null, Throwable::getCause)
                            .anyMatch(MemoryLimitExceededException.class::isInstance),
                    "the second batch passed the cap");
            assertEquals(
                    exported,
                    NativeArrowStats.read().exportedLive(),
                    "the library got the refused batch back (it was never the tracker's)");
            assertEquals(1, capped.tracker().liveArrays(), "the held batch is still held");
            assertEquals(firstBatch, capped.tracker().liveBytes());
            held.recycle();
        }
        capped.readerClosed();
        assertEquals(0, capped.tracker().liveArrays());
        assertEquals(0, capped.tracker().liveBytes());
    }

    @Test
    void aReadPastItsCapFailsNamingTheCapAndLeaksNothing() throws Exception {
        Table table = table();
        IcebergSourceSplit split = split(table);
        NativeReaderFunction capped =
                function(table, NativeReadOptions.defaults().withMaxNativeBytes(1024));
        capped.registerReader(new MetricListener().getMetricGroup(), 3);
        Exception e = assertThrows(
                RuntimeException.class, () -> ReadResults.read(capped, split, FlinkSchemaUtil.convert(table.schema())));
        MemoryLimitExceededException cause = Stream.<Throwable>iterate(e, t -> t != null, Throwable::getCause)
                .filter(MemoryLimitExceededException.class::isInstance)
                .map(MemoryLimitExceededException.class::cast)
                .findFirst()
                .orElseThrow(() -> new AssertionError("not a memory cap failure", e));
        assertTrue(
                cause.getMessage()
                        .contains(
                                "reader of " + table.name() + " (subtask 3) would exceed its native "
                                        + "memory cap of 1024 bytes (maxNativeBytes, or 'isthmus.max-native-bytes' in SQL): asked for "),
                cause.getMessage());
        assertEquals(1024, cause.limit());
        assertEquals(0, capped.tracker().liveBytes(), "the refused batch was released");

        // The same read with room for a batch at a time (the columnar test reader recycles each one).
        NativeReaderFunction roomy =
                function(table, NativeReadOptions.defaults().withMaxNativeBytes(4L << 20));
        NativeReaderFunction uncapped = function(table, NativeReadOptions.defaults());
        assertEquals(
                ReadResults.read(uncapped, split, FlinkSchemaUtil.convert(table.schema())),
                ReadResults.read(roomy, split, FlinkSchemaUtil.convert(table.schema())));
    }
}
