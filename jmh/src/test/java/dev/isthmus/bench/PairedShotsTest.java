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
    void legsRunInRotatingOrderWithTheirFixtures() throws Exception {
        List<String> lines = new ArrayList<>();
        List<double[]> rounds = PairedShots.run(
                List.of("PairedShotsTest$Legs.first", "PairedShotsTest$Legs.second"),
                Map.of("size", "5"),
                1,
                2,
                lines::add);

        assertThat(rounds).hasSize(2).allSatisfy(r -> assertThat(r).hasSize(2));
        assertThat(lines).hasSize(3);
        assertThat(lines.get(0)).startsWith("round 1 (warm-up):");
        assertThat(lines.get(2)).startsWith("round 3:");
        assertThat(EVENTS)
                .containsExactly(
                        "trial setup 5 plain",
                        // round 1: first, then second
                        "first",
                        "input setup",
                        "second 10",
                        "input teardown -1",
                        // round 2: second, then first
                        "input setup",
                        "second 10",
                        "input teardown -1",
                        "first",
                        // round 3: first, then second
                        "first",
                        "input setup",
                        "second 10",
                        "input teardown -1",
                        "trial teardown");
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
        // Round by round the second leg takes half the first's time, while both legs' times move
        // by a factor of two between the forks: the ratio of the legs' medians would be 2.0 only
        // by luck, the median of the rounds' ratios is 2.0 whatever the forks did.
        List<double[]> rounds = List.of(
                new double[] {100, 50}, new double[] {110, 55}, new double[] {200, 100}, new double[] {220, 110});
        String summary = PairedShots.summary(List.of("A.ref", "A.fast"), rounds, List.of(0, 0, 1, 1), 2, 0);

        assertThat(summary).contains("4 rounds in 2 forks");
        assertThat(summary.lines()
                        .filter(l -> l.startsWith("A.fast"))
                        .findFirst()
                        .orElseThrow())
                .contains("78") // median of 50, 55, 100, 110 (77.5)
                .contains("53, 105") // fork medians
                .contains("2.00x")
                .contains("0.50x");
        assertThat(PairedShots.summary(List.of("A.ref", "A.fast"), rounds, List.of(0, 0, 1, 1), 2, 1))
                .contains("against A.fast")
                .satisfies(s -> assertThat(s.lines().filter(l -> l.startsWith("A.ref")))
                        .singleElement()
                        .asString()
                        .contains("0.50x")
                        .contains("2.00x"));
    }

    @Test
    void medianOfEvenAndOddCounts() {
        assertThat(PairedShots.median(new double[] {3, 1, 2})).isEqualTo(2);
        assertThat(PairedShots.median(new double[] {4, 1, 3, 2})).isEqualTo(2.5);
    }
}
