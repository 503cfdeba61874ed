package dev.isthmus.iceberg.source;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.slf4j.Logger;

/**
 * Logs a fallback to Iceberg's own readers or writers once per job, table and reason, however
 * many tasks or subtasks of that job fall back for it; the source's and the sink's counters
 * count every one. Keyed by job as well as by reason so that each job on a long-lived
 * TaskManager says in its own log why it falls back, not only the first job that did.
 *
 * <p>It remembers the most recently logged keys only (a least-recently-used set of
 * {@code capacity} keys), so a TaskManager that runs job after job keeps a bounded set; a key
 * pushed out by that many newer ones is logged again when it recurs.
 */
public final class FallbackLog {
    private final Logger log;
    private final Map<List<String>, Boolean> logged;

    /** Logs through {@code log}, remembering at most {@code capacity} keys. */
    public FallbackLog(Logger log, int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity must be positive: " + capacity);
        }
        this.log = Objects.requireNonNull(log, "log");
        this.logged = new LinkedHashMap<>(16, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<List<String>, Boolean> eldest) {
                return size() > capacity;
            }
        };
    }

    /**
     * Logs {@code message} at WARN if this job has not yet logged this reason for this table.
     *
     * @param jobId the job's id, or {@code null} when unknown (keyed as one job)
     * @param table the table's name, or {@code null} when unknown
     * @return whether it logged
     */
    public boolean warn(String jobId, String table, String reason, String message) {
        List<String> key = List.of(Objects.toString(jobId, ""), Objects.toString(table, ""), reason);
        synchronized (logged) {
            if (logged.putIfAbsent(key, Boolean.TRUE) != null) {
                return false;
            }
        }
        log.warn("{} (job {}; logged once per job, table and reason)", message, jobId == null ? "unknown" : jobId);
        return true;
    }

    /** The keys it remembers (job, table, reason), least recently logged or seen first. */
    List<List<String>> keys() {
        synchronized (logged) {
            return List.copyOf(logged.keySet());
        }
    }

    /** How many keys it remembers now. */
    int size() {
        synchronized (logged) {
            return logged.size();
        }
    }
}
