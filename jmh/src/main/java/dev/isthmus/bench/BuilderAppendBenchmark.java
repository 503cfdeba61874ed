package dev.isthmus.bench;

import dev.isthmus.arrow.builder.BufferAllocator;
import dev.isthmus.arrow.builder.FinishedArray;
import dev.isthmus.arrow.flink.builder.RowDataAppender;
import dev.isthmus.arrow.memory.MemoryTracker;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.TimestampType;
import org.apache.flink.table.types.logical.VarCharType;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Appending Nexmark-like bids (auction, bidder, price, channel, url, dateTime, extra) to the
 * Arrow builders, as the sink does: batches of {@value #BATCH} rows, from Flink's generic
 * or binary rows. Scores are rows per second.
 *
 * <ul>
 *   <li>{@code appendAndFinish}: a batch per invocation, copied into native buffers and freed as
 *       an export's last release would.</li>
 *   <li>{@code appendAndReset}: the appends alone, the batch discarded.</li>
 * </ul>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(
        value = 1,
        jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED"})
public class BuilderAppendBenchmark {
    static final int BATCH = 8192;
    static final RowType BID = RowType.of(
            new LogicalType[] {
                new BigIntType(false),
                new BigIntType(false),
                new BigIntType(false),
                new VarCharType(VarCharType.MAX_LENGTH),
                new VarCharType(VarCharType.MAX_LENGTH),
                new TimestampType(3),
                new VarCharType(VarCharType.MAX_LENGTH),
            },
            new String[] {"auction", "bidder", "price", "channel", "url", "dateTime", "extra"});
    private static final String[] CHANNELS = {"Google", "Facebook", "Baidu", "Apple", "channel-4021", "channel-7731"};
    private static final long BASE_MILLIS = 1_764_460_800_000L; // 2025-11-30T00:00:00Z

    @Param({"generic", "binary"})
    public String rowFormat;

    private MemoryTracker tracker;
    private RowDataAppender appender;
    private RowData[] rows;

    @Setup(Level.Trial)
    public void setUp() {
        List<RowData> bids = bids(BATCH, 1);
        rows = (rowFormat.equals("binary") ? binary(bids) : bids).toArray(RowData[]::new);
        tracker = MemoryTracker.root().child("BuilderAppendBenchmark");
        appender = new RowDataAppender(BID, new BufferAllocator(tracker));
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        appender.close();
        tracker.close();
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public int appendAndFinish() {
        for (RowData row : rows) {
            appender.append(row);
        }
        try (FinishedArray batch = appender.finish()) {
            return batch.length();
        }
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public int appendAndReset() {
        for (RowData row : rows) {
            appender.append(row);
        }
        int appended = appender.rowCount();
        appender.reset();
        return appended;
    }

    /** The bids of {@link NexmarkBids}, as Flink rows. */
    static List<RowData> bids(int count, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        List<RowData> bids = new ArrayList<>(count);
        for (int event = 0; event < count; event++) {
            String channel = CHANNELS[random.nextInt(CHANNELS.length)];
            String url = "https://www.nexmark.com/" + channel.toLowerCase() + "/item.htm?query=1&channel_id="
                    + random.nextInt(1 << 20);
            StringBuilder extra = new StringBuilder();
            for (int i = random.nextInt(16); i > 0; i--) {
                extra.append((char) ('a' + random.nextInt(26)));
            }
            bids.add(GenericRowData.of(
                    1000 + random.nextLong(10_000),
                    1000 + random.nextLong(100_000),
                    100 + random.nextLong(10_000_000),
                    StringData.fromString(channel),
                    StringData.fromString(url),
                    TimestampData.fromEpochMillis(BASE_MILLIS + event * 10L + random.nextInt(10)),
                    StringData.fromString(extra.toString())));
        }
        return bids;
    }

    private static List<RowData> binary(List<RowData> rows) {
        RowDataSerializer serializer = new RowDataSerializer(BID);
        List<RowData> binary = new ArrayList<>(rows.size());
        for (RowData row : rows) {
            binary.add(serializer.toBinaryRow(row).copy());
        }
        return binary;
    }
}
