package dev.isthmus.bench.nexmark;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayDeque;
import java.util.List;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.function.BooleanSupplier;
import org.apache.flink.api.connector.source.SourceSplit;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.connector.base.source.reader.RecordsBySplits;
import org.apache.flink.connector.base.source.reader.RecordsWithSplitIds;
import org.apache.flink.connector.base.source.reader.SourceReaderOptions;
import org.apache.flink.connector.base.source.reader.fetcher.SingleThreadFetcherManager;
import org.apache.flink.connector.base.source.reader.splitreader.SplitReader;
import org.apache.flink.connector.base.source.reader.splitreader.SplitsChange;
import org.junit.jupiter.api.Test;

/**
 * Flink's own fetcher manager, driven as a source reader drives it: an idle fetcher shut down
 * while the element queue is full and a wake-up is left for it stalls for good (FLINK-40660),
 * and one shut down with room in the queue does not.
 */
class StalledFetchersTest {
    private record Split(String splitId) implements SourceSplit {}

    /** Each split's one record and the split's end, in one fetch. */
    private static final class OneRecordSplits implements SplitReader<String, Split> {
        private final Queue<Split> splits = new ArrayDeque<>();
        private final CountDownLatch closed;

        OneRecordSplits(CountDownLatch closed) {
            this.closed = closed;
        }

        @Override
        public RecordsWithSplitIds<String> fetch() {
            RecordsBySplits.Builder<String> records = new RecordsBySplits.Builder<>();
            Split split = splits.poll();
            if (split != null) {
                records.add(split.splitId(), "row of " + split.splitId());
                records.addFinishedSplit(split.splitId());
            }
            return records.build();
        }

        @Override
        public void handleSplitsChanges(SplitsChange<Split> change) {
            splits.addAll(change.splits());
        }

        @Override
        public void wakeUp() {}

        /** The fetcher closes its reader only once past the wait a stalled fetcher never leaves. */
        @Override
        public void close() {
            closed.countDown();
        }
    }

    @Test
    void aFetcherShutDownWithTheQueueFullStalls() throws Exception {
        Set<Long> before = StalledFetchers.now();
        SingleThreadFetcherManager<String, Split> manager = manager(new CountDownLatch(1));
        manager.addSplits(List.of(new Split("a")));
        await(() -> manager.getQueue().size() == 1);
        // A wake-up left unconsumed for the fetcher while its own batch fills the queue.
        manager.getQueue().wakeUpPuttingThread(0);

        // The reader's poll finds the fetcher idle and shuts it down; the fetcher's closing batch is
        // refused, so it waits for good.
        await(manager::maybeShutdownFinishedFetchers);
        await(() -> StalledFetchers.since(before) == 1);
        // Flink's close gives up on it, and so does the test: interrupted, the thread goes through
        // the fetcher's error path, which made the next test's count of stalled threads flaky.
        manager.close(1);
    }

    @Test
    void aFetcherShutDownWithRoomInTheQueueEnds() throws Exception {
        Set<Long> before = StalledFetchers.now();
        CountDownLatch closed = new CountDownLatch(1);
        SingleThreadFetcherManager<String, Split> manager = manager(closed);
        manager.addSplits(List.of(new Split("b")));
        await(() -> manager.getQueue().size() == 1);
        manager.getQueue().wakeUpPuttingThread(0);
        manager.getQueue().poll().recycle();

        // Shut down idle, the fetcher puts its closing batch; recycling it lets the fetcher end.
        // The manager forgets a fetcher as it shuts it down, so only the reader's close shows
        // that the thread has left its wait.
        await(manager::maybeShutdownFinishedFetchers);
        await(() -> manager.getQueue().size() == 1);
        manager.getQueue().poll().recycle();
        await(() -> closed.getCount() == 0);
        assertThat(StalledFetchers.since(before)).isZero();
        manager.close(1_000);
    }

    private static SingleThreadFetcherManager<String, Split> manager(CountDownLatch readerClosed) {
        Configuration conf = new Configuration();
        conf.set(SourceReaderOptions.ELEMENT_QUEUE_CAPACITY, 1);
        return new SingleThreadFetcherManager<>(() -> new OneRecordSplits(readerClosed), conf);
    }

    /** Waits for a state another thread reaches; the bound only keeps a broken build from hanging. */
    private static void await(BooleanSupplier condition) throws InterruptedException {
        for (int i = 0; i < 6_000 && !condition.getAsBoolean(); i++) {
            Thread.sleep(10);
        }
        assertThat(condition.getAsBoolean()).isTrue();
    }
}
