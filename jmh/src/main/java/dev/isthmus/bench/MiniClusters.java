package dev.isthmus.bench;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.minicluster.MiniClusterConfiguration;

/** The embedded Flink cluster the jobs of the benchmarks and the main job run on. */
final class MiniClusters {
    private MiniClusters() {}

    /** A started cluster of one task manager with {@code slots} slots; the caller closes it. */
    static MiniCluster start(int slots) throws Exception {
        MiniCluster cluster = new MiniCluster(new MiniClusterConfiguration.Builder()
                .setConfiguration(new Configuration())
                .setNumTaskManagers(1)
                .setNumSlotsPerTaskManager(slots)
                .build());
        cluster.start();
        return cluster;
    }
}
