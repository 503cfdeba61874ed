package dev.isthmus.bench.nexmark;

import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * The source fetcher threads Flink 2.1 leaves waiting forever (FLINK-40660). When a reader shuts
 * an idle fetcher down while the fetcher of its next split fills the element queue, the idle
 * one's closing batch is refused and dropped, so it waits for that batch's recycling without
 * end, and the reader's close then waits {@code source.reader.close.timeout} (30 s by default)
 * before it moves on: the task cannot take a checkpoint meanwhile, and the job ends 30 s late.
 * Any source built on Flink's {@code SourceReaderBase} can hit it, Iceberg's and Isthmus's alike;
 * the harness's MiniCluster runs in this JVM, so its threads show which runs did.
 */
final class StalledFetchers {
    private static final String FETCHER = "org.apache.flink.connector.base.source.reader.fetcher.SplitFetcher";

    private StalledFetchers() {}

    /** The ids of the fetcher threads now waiting, at the end of their run, for a batch that never comes back. */
    static Set<Long> now() {
        Set<Long> ids = new HashSet<>();
        for (Map.Entry<Thread, StackTraceElement[]> thread :
                Thread.getAllStackTraces().entrySet()) {
            if (thread.getKey().getState() == Thread.State.WAITING && waitsInFetcherRun(thread.getValue())) {
                ids.add(thread.getKey().threadId());
            }
        }
        return ids;
    }

    /** How many fetchers stalled since {@code before} (a set {@link #now()} gave). */
    static int since(Set<Long> before) {
        Set<Long> now = now();
        now.removeAll(before);
        return now.size();
    }

    /** Whether the stack is a fetcher's {@code run} waiting on its latch, not one of its fetches. */
    private static boolean waitsInFetcherRun(StackTraceElement[] stack) {
        boolean latch = false;
        for (StackTraceElement frame : stack) {
            if (frame.getClassName().equals("java.util.concurrent.CountDownLatch")
                    && frame.getMethodName().equals("await")) {
                latch = true;
            } else if (frame.getClassName().equals(FETCHER)) {
                return latch && frame.getMethodName().equals("run");
            }
        }
        return false;
    }
}
