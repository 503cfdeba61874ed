package dev.isthmus.bench.nexmark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class NexmarkQueryTest {
    @Test
    void areTheTwentyThreeWithoutQ6() {
        assertThat(Arrays.stream(NexmarkQuery.values()).map(NexmarkQuery::id))
                .containsExactlyElementsOf(IntStream.rangeClosed(0, 23)
                        .filter(i -> i != 6)
                        .mapToObj(i -> "q" + i)
                        .toList());
        assertThat(NexmarkQuery.class.getClassLoader().getResource("nexmark/q6.sql"))
                .isNull();
    }

    @ParameterizedTest
    @EnumSource(NexmarkQuery.class)
    void sqlNamesItsSourceAndChanges(NexmarkQuery query) {
        assertThat(query.sql())
                .startsWith("-- Nexmark " + query.id() + " (nexmark/nexmark@6b3646c, Apache-2.0); changes:");
        assertThat(query.sinkTable()).isEqualTo("nexmark_" + query.id());
    }

    @Test
    void updatingQueriesAndTheirKeys() {
        assertThat(Arrays.stream(NexmarkQuery.values()).filter(NexmarkQuery::updating))
                .containsExactly(
                        NexmarkQuery.Q4,
                        NexmarkQuery.Q9,
                        NexmarkQuery.Q15,
                        NexmarkQuery.Q16,
                        NexmarkQuery.Q17,
                        NexmarkQuery.Q18,
                        NexmarkQuery.Q19);
        assertThat(NexmarkQuery.Q16.upsertKeys()).containsExactly("channel", "day");
        assertThat(NexmarkQuery.Q0.upsertKeys()).isEmpty();
    }

    @Test
    void onlyQ12DependsOnProcessingTime() {
        assertThat(Arrays.stream(NexmarkQuery.values()).filter(NexmarkQuery::processingTime))
                .containsExactly(NexmarkQuery.Q12);
    }

    @Test
    void inputsComeInTheirOrder() {
        assertThat(NexmarkQuery.Q23.inputs()).containsExactly("person", "auction", "bid");
        assertThat(NexmarkQuery.Q0.inputs()).containsExactly("bid");
    }

    @Test
    void ofAcceptsEitherCase() {
        assertThat(NexmarkQuery.of("q4")).isEqualTo(NexmarkQuery.Q4);
        assertThat(NexmarkQuery.of(" Q23 ")).isEqualTo(NexmarkQuery.Q23);
        assertThatThrownBy(() -> NexmarkQuery.of("q6"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("q6 is not run");
        assertThatThrownBy(() -> NexmarkQuery.of("q24"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("Unknown Nexmark query 'q24'")
                .hasMessageContaining("q0,q1,q2,q3,q4,q5,q7");
    }

    @Test
    void parsesListsAndAll() {
        assertThat(NexmarkQuery.parse("all")).hasSize(23);
        assertThat(NexmarkQuery.parse(" ALL ")).containsExactly(NexmarkQuery.values());
        assertThat(NexmarkQuery.parse("q13, Q0,q4"))
                .isEqualTo(List.of(NexmarkQuery.Q13, NexmarkQuery.Q0, NexmarkQuery.Q4));
        assertThatThrownBy(() -> NexmarkQuery.parse("q1,,q2")).hasMessageContaining("Empty entry");
        assertThatThrownBy(() -> NexmarkQuery.parse("")).hasMessageContaining("Empty entry");
        assertThatThrownBy(() -> NexmarkQuery.parse("q1,Q1")).hasMessageContaining("q1 is listed twice");
        assertThatThrownBy(() -> NexmarkQuery.parse("q1,q6")).hasMessageContaining("q6 is not run");
    }
}
