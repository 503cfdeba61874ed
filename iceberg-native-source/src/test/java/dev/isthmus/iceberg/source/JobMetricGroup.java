package dev.isthmus.iceberg.source;

import java.util.HashMap;
import java.util.Map;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;

/**
 * An operator's metric group as Flink gives it, without a cluster: the job's id among its
 * variables, and its gauges (of every subgroup) kept to be read.
 */
public final class JobMetricGroup extends UnregisteredMetricsGroup {
    private final Map<String, Gauge<?>> gauges;
    private final String jobId;
    /** The path of this group below the operator's, with a trailing dot; empty for the operator's. */
    private final String prefix;

    public JobMetricGroup(String jobId) {
        this(jobId, new HashMap<>(), "");
    }

    private JobMetricGroup(String jobId, Map<String, Gauge<?>> gauges, String prefix) {
        this.jobId = jobId;
        this.gauges = gauges;
        this.prefix = prefix;
    }

    /** Every gauge registered, by its path below the operator's group ({@code isthmus.jvm.liveBatches}). */
    public Map<String, Gauge<?>> gauges() {
        return gauges;
    }

    @Override
    public Map<String, String> getAllVariables() {
        return Map.of(NativeReaderFunction.JOB_ID_VARIABLE, jobId);
    }

    @Override
    public MetricGroup addGroup(String name) {
        return new JobMetricGroup(jobId, gauges, prefix + name + ".");
    }

    @Override
    public MetricGroup addGroup(String key, String value) {
        return new JobMetricGroup(jobId, gauges, prefix + key + "." + value + ".");
    }

    @Override
    public <T, G extends Gauge<T>> G gauge(String name, G gauge) {
        gauges.put(prefix + name, gauge);
        return gauge;
    }
}
