package dev.isthmus.bench.nexmark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Whole cells in, the same cells out; a run's options choose a file of their own. */
class ResultsFileTest {
    @TempDir
    Path dir;

    private static Observation run(Mode mode, NexmarkQuery query, Leg leg, String proof) {
        return new Observation(
                mode, query, 1, leg, 1, 1234, 10, "0123456789abcdef", true, proof, 1, 100, 0, 4, 0, TIMELINE);
    }

    private static final JobTimeline TIMELINE = new JobTimeline(
            40,
            310,
            List.of(
                    new JobTimeline.Phase("Source: bid_src -> Calc", 2, 900),
                    new JobTimeline.Phase("Sink: \"out\"", 1, 1180)),
            List.of(new JobTimeline.Checkpoint(620, 700, 4096), new JobTimeline.Checkpoint(1110, 1170, 8192)),
            1020,
            1190,
            0);

    @Test
    void theCellsAppendedAreTheCompletedOnes() throws Exception {
        ResultsFile results = new ResultsFile(dir.resolve("sub/nexmark.csv"));
        assertThat(results.completedCells()).isEmpty();

        results.append(List.of(
                run(Mode.DEFAULT, NexmarkQuery.Q4, Leg.STOCK, "ok"),
                run(Mode.DEFAULT, NexmarkQuery.Q4, Leg.NATIVE, "ok")));
        results.append(List.of(run(Mode.parse("rocksdb/on"), NexmarkQuery.Q0, Leg.STOCK, "ok")));

        assertThat(results.completedCells()).containsExactlyInAnyOrder("heap/off q4", "rocksdb/on q0");
        List<String> lines = Files.readAllLines(results.path());
        assertThat(lines).first().isEqualTo(Observation.HEADER);
        assertThat(lines).hasSize(4);
    }

    @Test
    void eachRunsTimelineGoesBesideTheResultsOneMarkPerLine() throws Exception {
        ResultsFile results = new ResultsFile(dir.resolve("nexmark.csv"));
        results.append(List.of(run(Mode.DEFAULT, NexmarkQuery.Q3, Leg.NATIVE, "ok")));
        results.append(List.of(run(Mode.DEFAULT, NexmarkQuery.Q4, Leg.STOCK, "ok")));

        assertThat(results.timelinePath()).isEqualTo(dir.resolve("nexmark-timeline.csv"));
        List<String> lines = Files.readAllLines(results.timelinePath());
        assertThat(lines).first().isEqualTo(ResultsFile.TIMELINE_HEADER);
        assertThat(lines).hasSize(1 + 2 * 12);
        assertThat(lines.subList(1, 13))
                .containsExactly(
                        "heap/off,q3,1,native,running,,40",
                        "heap/off,q3,1,native,tasks_running,,310",
                        "heap/off,q3,1,native,vertex_finished,\"Source: bid_src -> Calc (parallelism 2)\",900",
                        "heap/off,q3,1,native,vertex_finished,\"Sink: 'out' (parallelism 1)\",1180",
                        "heap/off,q3,1,native,checkpoint_triggered,1,620",
                        "heap/off,q3,1,native,checkpoint_completed,1,700",
                        "heap/off,q3,1,native,checkpoint_bytes,1,4096",
                        "heap/off,q3,1,native,checkpoint_triggered,2,1110",
                        "heap/off,q3,1,native,checkpoint_completed,2,1170",
                        "heap/off,q3,1,native,checkpoint_bytes,2,8192",
                        "heap/off,q3,1,native,last_data_file,,1020",
                        "heap/off,q3,1,native,job_finished,,1190");
        assertThat(lines.get(13)).startsWith("heap/off,q4,1,stock,running,");
    }

    @Test
    void aRunWithStalledFetchersSaysSoInItsTimeline() {
        JobTimeline stalled = new JobTimeline(40, 310, TIMELINE.vertices(), List.of(), 1020, 31190, 2);
        assertThat(stalled.csvRows("k")).endsWith("k,job_finished,,31190", "k,stalled_fetchers,,2");
        assertThat(stalled.summary()).endsWith("; 2 source fetchers stalled at close");
        assertThat(TIMELINE.csvRows("k")).noneMatch(row -> row.contains("stalled"));
    }

    @Test
    void aReasonStaysOnItsLineAndInItsField() throws Exception {
        ResultsFile results = new ResultsFile(dir.resolve("nexmark.csv"));
        results.append(List.of(run(Mode.DEFAULT, NexmarkQuery.Q0, Leg.NATIVE, "the run failed: \"x\",\n  at y")));

        List<String> lines = Files.readAllLines(results.path());
        assertThat(lines).hasSize(2);
        assertThat(lines.get(1)).contains("\"the run failed: 'x', at y\"");
    }

    @Test
    void optionsAreCheckedAndTheSeedNamesItsOwnFile() {
        assertThat(Nexmark.Options.parse(new String[0]).results().toString())
                .endsWith("docs/benchmarks/nexmark-2000000-p2.csv");
        assertThat(Nexmark.Options.parse(new String[] {"--seed", "7", "--events", "1000"})
                        .results()
                        .toString())
                .endsWith("docs/benchmarks/nexmark-1000-p2-seed7.csv");
        assertThatThrownBy(() -> Nexmark.Options.parse(new String[] {"--event", "10"}))
                .hasMessageContaining("unknown option --event");
        assertThatThrownBy(() -> Nexmark.Options.parse(new String[] {"--pairs", "0"}))
                .hasMessageContaining("--pairs");
    }
}
