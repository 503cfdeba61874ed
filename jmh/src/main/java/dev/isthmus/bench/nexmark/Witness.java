package dev.isthmus.bench.nexmark;

import java.util.ArrayList;
import java.util.List;

/**
 * Proof of which path a run took, so that a native number is never a silent fallback and a
 * stock number never has Isthmus in it: Isthmus's counters, the execution plan's operators, and
 * the writers named in the committed files' footers.
 */
final class Witness {
    /** How Isthmus's writer names itself in a footer's {@code created_by}. */
    static final String ISTHMUS_WRITER = "isthmus";
    /** parquet-java's name there: Iceberg's Java writers. */
    static final String JAVA_WRITER = "parquet-mr";

    private Witness() {}

    /** Every check that failed; empty when the run took its leg's path. */
    static List<String> check(Leg leg, NexmarkQuery query, QueryRun.Result run, OutputCheck.Files files) {
        List<String> failed = new ArrayList<>();
        NativeCounters counters = run.counters();
        String plan = run.executionPlan();
        if (leg == Leg.NATIVE) {
            if (counters.fallbackTasks() != 0) {
                failed.add(counters.fallbackTasks() + " source tasks fell back");
            }
            if (counters.sinkFallbacks() != 0) {
                failed.add(counters.sinkFallbacks() + " writers fell back to Iceberg's");
            }
            if (counters.nativeTasks() == 0) {
                failed.add("no native read task");
            }
            for (String input : query.inputs()) {
                if (!plan.contains("Source: IsthmusIcebergSource default_catalog.default_database." + input + "_src")) {
                    failed.add("the plan reads " + input + " without IsthmusIcebergSource");
                }
            }
            if (!plan.contains("IsthmusIcebergWriter") || !plan.contains("IsthmusIcebergCommitter")) {
                failed.add("the plan has no IsthmusIcebergWriter and IsthmusIcebergCommitter");
            }
            if (!files.allDataBy(ISTHMUS_WRITER)) {
                failed.add("data files by " + files.dataWriters());
            }
        } else {
            if (counters.nativeTasks() != 0 || counters.rows() != 0) {
                failed.add(counters.nativeTasks() + " native read tasks read " + counters.rows() + " rows");
            }
            if (plan.contains("Isthmus")) {
                failed.add("the plan has Isthmus operators");
            }
            if (!files.noDataBy(ISTHMUS_WRITER)) {
                failed.add("data files by " + files.dataWriters());
            }
        }
        if (files.dataFiles() == 0) {
            failed.add(
                    "no data file committed"); // every query has output at the sizes run, and the file checks need some
        }
        if (!files.allDeletesBy(JAVA_WRITER)) {
            failed.add("delete files by " + files.deleteWriters());
        }
        return failed;
    }
}
