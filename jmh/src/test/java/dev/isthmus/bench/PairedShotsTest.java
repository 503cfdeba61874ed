package dev.isthmus.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

class PairedShotsTest {
    /** What the fixtures below saw, in order. */
    static final List<String> EVENTS = new ArrayList<>();

    @State(Scope.Benchmark)
    public static class Legs {
        @Param("7")
        public int size;

        @Param("plain")
        public String label;

        @Setup(Level.Trial)
        public void setUp() {
            EVENTS.add("trial setup " + size + " " + label);
        }

        @Benchmark
        public long first() {
            EVENTS.add("first");
            return size;
        }

        @Benchmark
        public long second(Input input) {
            EVENTS.add("second " + input.value);
            input.value = -1;
            return input.value;
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            EVENTS.add("trial teardown");
        }
    }

    /** A per-invocation input built from the benchmark's state, as {@code EncodeBenchmark}'s batches are. */
    @State(Scope.Thread)
    public static class Input {
        int value;

        @Setup(Level.Invocation)
        public void build(Legs legs) {
            value = legs.size * 2;
            EVENTS.add("input setup");
        }

        @TearDown(Level.Invocation)
        public void free() {
            EVENTS.add("input teardown " + value);
        }
    }

    @BeforeEach
    void clear() {
        EVENTS.clear();
    }

    @Test
    void legsRunInTheirRoundsOrderWithTheirFixtures() throws Exception {
        List<String> lines = new ArrayList<>();
        List<double[]> rounds = PairedShots.run(
                List.of("PairedShotsTest$Legs.first", "PairedShotsTest$Legs.second"),
                Map.of("size", "5"),
                1,
                2,
                lines::add);

        assertThat(rounds).hasSize(2).allSatisfy(r -> assertThat(r).hasSize(2));
        assertThat(lines).hasSize(3);
        assertThat(lines.get(0)).startsWith("PairedShots round 1 (warm-up):");
        assertThat(lines.get(2)).startsWith("PairedShots round 3:");
        // Each leg once per round, in the order the round's line reports, with its fixtures.
        List<String> expected = new ArrayList<>(List.of("trial setup 5 plain"));
        for (String line : lines) {
            String[] order =
                    line.substring(line.indexOf("order") + "order ".length()).split(" ");
            assertThat(order).containsExactlyInAnyOrder("1", "2");
            for (String leg : order) {
                expected.addAll(
                        leg.equals("1") ? List.of("first") : List.of("input setup", "second 10", "input teardown -1"));
            }
        }
        expected.add("trial teardown");
        assertThat(EVENTS).containsExactlyElementsOf(expected);
    }

    @Test
    void theOrderChangesFromRoundToRound() throws Exception {
        List<String> lines = new ArrayList<>();
        PairedShots.run(
                List.of("PairedShotsTest$Legs.first", "PairedShotsTest$Legs.second"), Map.of(), 0, 12, lines::add);
        assertThat(lines.stream().map(l -> l.substring(l.indexOf("order"))).distinct())
                .containsExactlyInAnyOrder("order 1 2", "order 2 1");
    }

    @Test
    void unknownParametersAreRefused() {
        assertThatThrownBy(() ->
                        PairedShots.run(List.of("PairedShotsTest$Legs.first"), Map.of("sise", "5"), 0, 1, l -> {}))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("sise");
        assertThat(EVENTS).isEmpty();
    }

    @Test
    void unknownLegsAreNamed() {
        assertThatThrownBy(() -> PairedShots.run(List.of("PairedShotsTest$Legs.third"), Map.of(), 0, 1, l -> {}))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("PairedShotsTest$Legs.third");
        assertThatThrownBy(() -> PairedShots.run(List.of("first"), Map.of(), 0, 1, l -> {}))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("CLASS.METHOD");
    }

    @Test
    void summaryTakesTheMedianOfEachRoundsRatio() {
        // The rounds' ratios (ref / leg) are 2.0, 2.5, 1.33 and 1.25: their median is 1.67, where
        // the ratio of the legs' medians (150 / 100) would be 1.50.
        List<double[]> rounds = List.of(
                new double[] {100, 50}, new double[] {100, 40}, new double[] {200, 150}, new double[] {200, 160});
        String summary = PairedShots.summary(List.of("A.ref", "A.fast"), rounds, List.of(0, 0, 1, 1), 2, 0);

        assertThat(summary).contains("4 rounds in 2 forks");
        // leg, median, fork medians, ref/leg, leg/ref
        assertThat(summary.lines()
                        .filter(l -> l.startsWith("A.fast"))
                        .findFirst()
                        .orElseThrow())
                .matches("A\\.fast +100 +45, 155 +1\\.67x +0\\.63x");
        assertThat(PairedShots.summary(List.of("A.ref", "A.fast"), rounds, List.of(0, 0, 1, 1), 2, 1)
                        .lines()
                        .filter(l -> l.startsWith("A.ref"))
                        .findFirst()
                        .orElseThrow())
                .matches("A\\.ref +150 +100, 200 +0\\.63x +1\\.67x");
    }

    @Test
    void medianOfEvenAndOddCounts() {
        assertThat(PairedShots.median(new double[] {3, 1, 2})).isEqualTo(2);
        assertThat(PairedShots.median(new double[] {4, 1, 3, 2})).isEqualTo(2.5);
    }
}
