package dev.isthmus.bench.nexmark;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.runtime.checkpoint.AbstractCheckpointStats;
import org.apache.flink.runtime.checkpoint.CheckpointStatsStatus;
import org.apache.flink.runtime.execution.ExecutionState;
import org.apache.flink.runtime.executiongraph.AccessExecutionGraph;
import org.apache.flink.runtime.executiongraph.AccessExecutionJobVertex;
import org.apache.flink.runtime.executiongraph.AccessExecutionVertex;

/**
 * Where a run's time went, from Flink's own record of the job: when its tasks were running, when
 * each operator chain finished, and when each checkpoint was triggered and completed (with the
 * state it held), all in milliseconds from just before the INSERT was submitted; and when the
 * last committed data file was written, which for bounded input is the sink's flush at the end
 * of its input (or, if no row came after the last checkpoint's barrier, that checkpoint's
 * flush). Every task of a bounded job waits for a checkpoint after its input is done, so a short
 * job's time is read here rather than guessed from the total; unless a fetcher of one of its
 * sources stalled at its close ({@link StalledFetchers}), which holds its task, and the
 * checkpoints, for the close's timeout.
 */
record JobTimeline(
        long running,
        long tasksRunning,
        List<Phase> vertices,
        List<Checkpoint> checkpoints,
        long lastDataFile,
        long finished,
        int stalledFetchers) {
    /** An operator chain, its subtasks, and when its last subtask finished. */
    record Phase(String name, int parallelism, long finished) {}

    /**
     * A completed checkpoint: when it was triggered, when its last acknowledgement came, and the
     * size of the state it holds (the whole state for the heap backend, whose snapshots are full).
     */
    record Checkpoint(long triggered, long completed, long stateBytes) {}

    /** A run whose job Flink has no record of (it failed before it ran). */
    static final JobTimeline UNKNOWN = new JobTimeline(-1, -1, List.of(), List.of(), -1, -1, 0);

    /**
     * @param lastDataFileAt the epoch millisecond the last committed data file was written, or -1
     * @param stalledFetchers how many of the job's source fetchers stalled at their close
     */
    static JobTimeline of(AccessExecutionGraph graph, long submittedAt, long lastDataFileAt, int stalledFetchers) {
        long tasksRunning = -1;
        List<Phase> vertices = new ArrayList<>();
        for (AccessExecutionJobVertex vertex : graph.getVerticesTopologically()) {
            long finished = -1;
            for (AccessExecutionVertex task : vertex.getTaskVertices()) {
                tasksRunning =
                        Math.max(tasksRunning, since(submittedAt, task.getStateTimestamp(ExecutionState.RUNNING)));
                finished = Math.max(finished, since(submittedAt, task.getStateTimestamp(ExecutionState.FINISHED)));
            }
            vertices.add(new Phase(vertex.getName(), vertex.getParallelism(), finished));
        }
        List<Checkpoint> checkpoints = new ArrayList<>();
        if (graph.getCheckpointStatsSnapshot() != null) {
            for (AbstractCheckpointStats stats :
                    graph.getCheckpointStatsSnapshot().getHistory().getCheckpoints()) {
                if (stats.getStatus() == CheckpointStatsStatus.COMPLETED) {
                    checkpoints.add(new Checkpoint(
                            since(submittedAt, stats.getTriggerTimestamp()),
                            since(submittedAt, stats.getLatestAckTimestamp()),
                            stats.getStateSize()));
                }
            }
        }
        checkpoints.sort(Comparator.comparingLong(Checkpoint::triggered));
        return new JobTimeline(
                since(submittedAt, graph.getStatusTimestamp(JobStatus.RUNNING)),
                tasksRunning,
                List.copyOf(vertices),
                List.copyOf(checkpoints),
                since(submittedAt, lastDataFileAt),
                since(submittedAt, graph.getStatusTimestamp(JobStatus.FINISHED)),
                stalledFetchers);
    }

    private static long since(long origin, long timestamp) {
        return timestamp <= 0 ? -1 : timestamp - origin;
    }

    /** The last checkpoint, the one the job's end waited for; null when none completed. */
    Checkpoint last() {
        return checkpoints.isEmpty() ? null : checkpoints.get(checkpoints.size() - 1);
    }

    /** One line for the terminal. */
    String summary() {
        String chains = vertices.stream()
                .map(v -> shortName(v.name()) + " x" + v.parallelism() + " " + v.finished())
                .collect(Collectors.joining(", "));
        String marks = checkpoints.stream()
                .map(c -> c.triggered() + "-" + c.completed() + " (" + c.stateBytes() / (1024 * 1024) + " MiB)")
                .collect(Collectors.joining(", "));
        return String.format(
                Locale.ROOT,
                "running %d, tasks running %d; last data file %d; checkpoints %s;" + " finished: %s; job %d%s",
                running,
                tasksRunning,
                lastDataFile,
                marks.isEmpty() ? "none" : marks,
                chains,
                finished,
                stalledFetchers == 0 ? "" : "; " + stalledFetchers + " source fetchers stalled at close");
    }

    /** The rows of the timeline CSV, one per mark, each prefixed with the run's key. */
    List<String> csvRows(String key) {
        List<String> rows = new ArrayList<>();
        rows.add(key + ",running,," + running);
        rows.add(key + ",tasks_running,," + tasksRunning);
        for (Phase vertex : vertices) {
            rows.add(key + ",vertex_finished,\"" + vertex.name().replace("\"", "'") + " (parallelism "
                    + vertex.parallelism() + ")\"," + vertex.finished());
        }
        for (int i = 0; i < checkpoints.size(); i++) {
            rows.add(key + ",checkpoint_triggered," + (i + 1) + ","
                    + checkpoints.get(i).triggered());
            rows.add(key + ",checkpoint_completed," + (i + 1) + ","
                    + checkpoints.get(i).completed());
            rows.add(key + ",checkpoint_bytes," + (i + 1) + ","
                    + checkpoints.get(i).stateBytes());
        }
        rows.add(key + ",last_data_file,," + lastDataFile);
        rows.add(key + ",job_finished,," + finished);
        if (stalledFetchers > 0) {
            rows.add(key + ",stalled_fetchers,," + stalledFetchers);
        }
        return rows;
    }

    /** An operator chain's name without its long operator list: the first operator's. */
    private static String shortName(String name) {
        int arrow = name.indexOf(" -> ");
        String first = arrow < 0 ? name : name.substring(0, arrow);
        return first.length() > 40 ? first.substring(0, 40) : first;
    }
}
