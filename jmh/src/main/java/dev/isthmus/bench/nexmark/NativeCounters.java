package dev.isthmus.bench.nexmark;

import dev.isthmus.iceberg.sink.write.NativeDataFiles;
import dev.isthmus.iceberg.source.NativeSourceCounters;

/**
 * Isthmus's JVM-wide counters, read before and after a run: the MiniCluster runs in this JVM, so
 * the difference is what the run's tasks did.
 */
record NativeCounters(long nativeTasks, long fallbackTasks, long rows, long sinkFallbacks) {
    static NativeCounters now() {
        return new NativeCounters(
                NativeSourceCounters.nativeTasks(),
                NativeSourceCounters.fallbackTasks(),
                NativeSourceCounters.rows(),
                NativeDataFiles.fallbacks());
    }

    NativeCounters since(NativeCounters before) {
        return new NativeCounters(
                nativeTasks - before.nativeTasks,
                fallbackTasks - before.fallbackTasks,
                rows - before.rows,
                sinkFallbacks - before.sinkFallbacks);
    }
}
