package dev.isthmus.bench.nexmark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import org.junit.jupiter.api.Test;

class NexmarkConfigTest {
    @Test
    void defaultsAreTwoMillionEventsAtTenThousandPerSecondInFortyStripes() {
        NexmarkConfig config = NexmarkConfig.defaults();
        assertThat(config.events()).isEqualTo(2_000_000);
        assertThat(config.seed()).isEqualTo(42);
        assertThat(config.eventsPerSecond()).isEqualTo(10_000);
        assertThat(Instant.ofEpochMilli(config.baseTimeMillis())).isEqualTo(Instant.parse("2026-01-01T00:00:00Z"));
        assertThat(config.stripeEvents()).isEqualTo(50_000);
        assertThat(config.stripes()).isEqualTo(40);
        assertThat(config.withEvents(7).withSeed(9))
                .isEqualTo(new NexmarkConfig(7, 9, 10_000, config.baseTimeMillis(), 50_000));
    }

    @Test
    void twoMillionEventsAre40kPeople120kAuctionsAnd1840kBids() {
        NexmarkConfig config = NexmarkConfig.defaults();
        assertThat(config.people()).isEqualTo(40_000);
        assertThat(config.auctions()).isEqualTo(120_000);
        assertThat(config.bids()).isEqualTo(1_840_000);
    }

    @Test
    void twentyThousandEventsAre400People1200AuctionsAnd18400Bids() {
        NexmarkConfig config = NexmarkConfig.defaults().withEvents(20_000);
        assertThat(config.people()).isEqualTo(400);
        assertThat(config.auctions()).isEqualTo(1_200);
        assertThat(config.bids()).isEqualTo(18_400);
    }

    @Test
    void countsOfAPartialEpochFollowTheMix() {
        long[][] expected = {
            {1, 1, 0, 0},
            {2, 1, 1, 0},
            {4, 1, 3, 0},
            {5, 1, 3, 1},
            {50, 1, 3, 46},
            {51, 2, 3, 46},
            {53, 2, 5, 46},
            {60, 2, 6, 52}
        };
        for (long[] e : expected) {
            NexmarkConfig config = NexmarkConfig.defaults().withEvents(e[0]);
            assertThat(new long[] {config.people(), config.auctions(), config.bids()})
                    .as("%d events", e[0])
                    .containsExactly(e[1], e[2], e[3]);
        }
    }

    @Test
    void eventTimeIsBasePlusTheFlooredOffsetAtTheRate() {
        NexmarkConfig config = new NexmarkConfig(100, 1, 3_000, 1_000, 3_000);
        assertThat(config.eventTimeMillis(0)).isEqualTo(1_000);
        assertThat(config.eventTimeMillis(2)).isEqualTo(1_000);
        assertThat(config.eventTimeMillis(3)).isEqualTo(1_001);
        assertThat(config.eventTimeMillis(3_000)).isEqualTo(2_000);
        assertThat(NexmarkConfig.defaults().eventTimeMillis(1_999_999)
                        - NexmarkConfig.defaults().baseTimeMillis())
                .isEqualTo(199_999);
    }

    @Test
    void rejectsConfigsItCannotGenerate() {
        long base = NexmarkConfig.defaults().baseTimeMillis();
        assertThatThrownBy(() -> new NexmarkConfig(0, 1, 10_000, base, 50_000))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("events must be in 1..");
        assertThatThrownBy(() -> new NexmarkConfig(1L << 41, 1, 10_000, base, 50_000))
                .hasMessageContaining("events must be in 1..");
        assertThatThrownBy(() -> new NexmarkConfig(10, 1, 0, base, 50_000))
                .hasMessageContaining("eventsPerSecond must be positive: 0");
        assertThatThrownBy(() -> new NexmarkConfig(10, 1, 10_000, base, 0))
                .hasMessageContaining("stripeEvents must be positive: 0");
        assertThatThrownBy(() -> new NexmarkConfig(10, 1, 10_000, base, 5))
                .hasMessageContaining("does not span a whole number of milliseconds");
        assertThatThrownBy(() -> new NexmarkConfig(1L << 40, 1, 1_000, base, 1))
                .hasMessageContaining("stripes of 1 events");
    }
}
