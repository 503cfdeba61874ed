package dev.isthmus.bench.nexmark;

import java.util.List;

/**
 * One run of one leg, as a line of the results CSV, and its job's timeline for the timeline
 * CSV beside it; {@code pair} 0 is the warm-up pair, which is recorded (and checked) but not
 * measured.
 */
record Observation(
        Mode mode,
        NexmarkQuery query,
        int pair,
        Leg leg,
        int position,
        long millis,
        long rows,
        String digest,
        boolean parity,
        String proof,
        int dataFiles,
        long dataBytes,
        int deleteFiles,
        long nativeTasks,
        long fallbackTasks,
        JobTimeline timeline) {
    static final String HEADER = "mode,query,pair,leg,position,millis,rows,digest,parity,proof,data_files,"
            + "data_bytes,delete_files,native_tasks,fallback_tasks";

    Observation withParity(boolean pairParity) {
        return new Observation(
                mode,
                query,
                pair,
                leg,
                position,
                millis,
                rows,
                digest,
                pairParity,
                proof,
                dataFiles,
                dataBytes,
                deleteFiles,
                nativeTasks,
                fallbackTasks,
                timeline);
    }

    /** The timeline's rows, each keyed by this run's mode, query, pair and leg. */
    List<String> timelineCsv() {
        return timeline.csvRows(String.join(
                ",",
                mode.toString(),
                query.id(),
                Integer.toString(pair),
                leg.name().toLowerCase(java.util.Locale.ROOT)));
    }

    String csv() {
        return String.join(
                ",",
                List.of(
                        mode.toString(),
                        query.id(),
                        Integer.toString(pair),
                        leg.name().toLowerCase(java.util.Locale.ROOT),
                        Integer.toString(position),
                        Long.toString(millis),
                        Long.toString(rows),
                        digest,
                        parity ? "pass" : "fail",
                        '"' + proof.replace("\"", "'").replaceAll("\\s+", " ") + '"',
                        Integer.toString(dataFiles),
                        Long.toString(dataBytes),
                        Integer.toString(deleteFiles),
                        Long.toString(nativeTasks),
                        Long.toString(fallbackTasks)));
    }
}
