package dev.isthmus.bench.nexmark;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.ToDoubleFunction;
import java.util.stream.IntStream;
import org.apache.iceberg.data.Record;
import org.junit.jupiter.api.Test;

class NexmarkGeneratorTest {
    /** 20,000 events in 4 stripes of 5,000 (500 ms each). */
    static final NexmarkConfig SMALL =
            new NexmarkConfig(20_000, 42, 10_000, NexmarkConfig.defaults().baseTimeMillis(), 5_000);

    private static final Set<String> HOT_CHANNELS = Set.of("Google", "Facebook", "Baidu", "Apple");

    private static List<NexmarkGenerator.Stripe> all(NexmarkConfig config) {
        NexmarkGenerator generator = new NexmarkGenerator(config);
        List<NexmarkGenerator.Stripe> stripes = new ArrayList<>();
        for (int k = 0; k < config.stripes(); k++) {
            stripes.add(generator.stripe(k));
        }
        return stripes;
    }

    private static List<Record> rows(List<NexmarkGenerator.Stripe> stripes, int table) {
        List<Record> rows = new ArrayList<>();
        for (NexmarkGenerator.Stripe s : stripes) {
            rows.addAll(List.of(s.people(), s.auctions(), s.bids()).get(table));
        }
        return rows;
    }

    private static long millis(Record r, String field) {
        return ((LocalDateTime) r.getField(field)).toInstant(ZoneOffset.UTC).toEpochMilli();
    }

    /** Calls {@code check} with each event number and its record, in event order. */
    private static void forEachEvent(List<NexmarkGenerator.Stripe> stripes, EventCheck check) {
        long n = 0;
        for (NexmarkGenerator.Stripe s : stripes) {
            int[] next = new int[3];
            List<List<Record>> tables = List.of(s.people(), s.auctions(), s.bids());
            long end = n + SMALL.stripeEvents();
            for (; n < end; n++) {
                long slot = n % 50;
                int table = slot == 0 ? 0 : slot <= 3 ? 1 : 2;
                check.accept(n, table, tables.get(table).get(next[table]++));
            }
            for (int t = 0; t < 3; t++) {
                assertThat(next[t])
                        .as("records of table %d in stripe %d", t, s.index())
                        .isEqualTo(tables.get(t).size());
            }
        }
    }

    private interface EventCheck {
        void accept(long n, int table, Record r);
    }

    private static double mean(List<Record> rows, ToDoubleFunction<Record> f) {
        return rows.stream().mapToDouble(f).average().orElseThrow();
    }

    @Test
    void sameConfigGivesIdenticalRecordsAndAStripeNeedsNoneBeforeIt() {
        List<NexmarkGenerator.Stripe> first = all(SMALL);
        assertThat(all(SMALL)).isEqualTo(first);
        NexmarkGenerator fresh = new NexmarkGenerator(SMALL);
        assertThat(fresh.stripe(3)).isEqualTo(first.get(3));
        assertThat(fresh.stripe(1)).isEqualTo(first.get(1));
        // Each stripe draws from a stream of its own, not a replay of stripe 0's.
        List<Record> bids0 = first.get(0).bids();
        List<Record> bids1 = first.get(1).bids();
        assertThat(IntStream.range(0, bids0.size())
                        .filter(i -> bids0.get(i)
                                .getField("extra")
                                .equals(bids1.get(i).getField("extra")))
                        .count())
                .isLessThan(bids0.size() / 100);
    }

    @Test
    void outputIsPinnedSoThatAChangeBumpsTheVersion() throws Exception {
        MessageDigest sha = MessageDigest.getInstance("SHA-256");
        for (int t = 0; t < 3; t++) {
            for (Record r : rows(all(SMALL), t)) {
                for (int i = 0; i < r.size(); i++) {
                    sha.update((r.get(i) + "\u0000").getBytes(StandardCharsets.UTF_8));
                }
            }
        }
        assertThat(HexFormat.of().formatHex(sha.digest()))
                .as("the generator's output changed: bump NexmarkGenerator.VERSION, then pin the new digest")
                .isEqualTo("74715813dc509b5a5ab3631fe5dc63be1af0d34195f645c69641cf89349d762f");
        assertThat(NexmarkGenerator.VERSION).isEqualTo(1);
    }

    @Test
    void anotherSeedDrawsOtherValuesForTheSameIdsTypesAndTimes() {
        List<NexmarkGenerator.Stripe> a = all(SMALL);
        List<NexmarkGenerator.Stripe> b = all(SMALL.withSeed(43));
        for (int t = 0; t < 3; t++) {
            List<Record> x = rows(a, t);
            List<Record> y = rows(b, t);
            assertThat(y).hasSameSizeAs(x);
            int differing = 0;
            for (int i = 0; i < x.size(); i++) {
                assertThat(y.get(i).getField("dateTime")).isEqualTo(x.get(i).getField("dateTime"));
                if (t < 2) {
                    assertThat(y.get(i).getField("id")).isEqualTo(x.get(i).getField("id"));
                }
                differing += y.get(i).getField("extra").equals(x.get(i).getField("extra")) ? 0 : 1;
            }
            assertThat(differing).as("table %d", t).isGreaterThan(x.size() * 99 / 100);
        }
        assertThat(rows(b, 2))
                .extracting(r -> r.getField("price"))
                .isNotEqualTo(rows(a, 2).stream().map(r -> r.getField("price")).toList());
    }

    @Test
    void eventsHaveTheirTypeByTheMixAndTheirTimeByTheRate() {
        List<NexmarkGenerator.Stripe> stripes = all(SMALL);
        assertThat(rows(stripes, 0)).hasSize((int) SMALL.people());
        assertThat(rows(stripes, 1)).hasSize((int) SMALL.auctions());
        assertThat(rows(stripes, 2)).hasSize((int) SMALL.bids());
        forEachEvent(stripes, (n, table, r) -> {
            assertThat(millis(r, "dateTime")).as("event %d", n).isEqualTo(SMALL.eventTimeMillis(n));
            if (table == 0) {
                assertThat(r.getField("id")).isEqualTo(1000 + n / 50);
            } else if (table == 1) {
                assertThat(r.getField("id")).isEqualTo(1000 + n / 50 * 3 + n % 50 - 1);
            }
        });
    }

    @Test
    void stripesNeverShareAMillisecond() {
        List<NexmarkGenerator.Stripe> stripes = all(SMALL);
        for (int k = 1; k < stripes.size(); k++) {
            long previousLast = millis(stripes.get(k - 1).bids().getLast(), "dateTime");
            long first = millis(stripes.get(k).people().getFirst(), "dateTime");
            assertThat(first).isGreaterThan(previousLast).isEqualTo(SMALL.baseTimeMillis() + 500L * k);
        }
    }

    @Test
    void biddersAndSellersAreRealPersonIdsOrAtMostTenAhead() {
        int[] hot = new int[2];
        forEachEvent(all(SMALL), (n, table, r) -> {
            if (table == 0) {
                return;
            }
            long lastPerson = 1000 + n / 50;
            long person = (Long) r.getField(table == 1 ? "seller" : "bidder");
            // With upstream's double offset, bidders would start at 2000.
            assertThat(person).as("event %d", n).isBetween(Math.max(1000, lastPerson - 1000), lastPerson + 10);
            long hotPerson = 1000 + (n / 50) / 100 * 100 + (table == 1 ? 0 : 1);
            hot[table - 1] += person == hotPerson ? 1 : 0;
        });
        assertThat(hot[0] / (double) SMALL.auctions()).isBetween(0.72, 0.80);
        assertThat(hot[1] / (double) SMALL.bids()).isBetween(0.72, 0.78);
    }

    @Test
    void halfOfTheBidsAreForTheHotAuctionTheRestForRecentOnes() {
        int[] hot = new int[1];
        forEachEvent(all(SMALL), (n, table, r) -> {
            if (table != 2) {
                return;
            }
            long last = n / 50 * 3 + 2;
            long auction = (Long) r.getField("auction") - 1000;
            assertThat(auction).as("event %d", n).isBetween(Math.max(0, last - 100), last + 10);
            hot[0] += auction == last / 100 * 100 ? 1 : 0;
        });
        assertThat(hot[0] / (double) SMALL.bids()).isBetween(0.48, 0.53);
    }

    @Test
    void pricesAreLogUniformCentsFrom100To100Million() {
        List<Record> bids = rows(all(SMALL), 2);
        assertThat(bids).allSatisfy(r -> assertThat((Long) r.getField("price")).isBetween(100L, 100_000_000L));
        // log10(price) is uniform on [2, 8): a quarter of the prices lie below 10^3.5 cents.
        assertThat(bids.stream().filter(r -> (Long) r.getField("price") < 3_162).count() / (double) bids.size())
                .isBetween(0.23, 0.27);
        assertThat(mean(bids, r -> Math.log10((Long) r.getField("price")))).isBetween(4.95, 5.05);
        assertThat(rows(all(SMALL), 1)).allSatisfy(r -> {
            assertThat((Long) r.getField("initialBid")).isBetween(100L, 100_000_000L);
            assertThat((Long) r.getField("reserve") - (Long) r.getField("initialBid"))
                    .isBetween(100L, 100_000_000L);
        });
    }

    @Test
    void halfOfTheBidsComeFromFourHotChannelsWithFixedUrls() {
        List<Record> bids = rows(all(SMALL), 2);
        Map<String, String> urls = new HashMap<>();
        long hot = 0;
        for (Record r : bids) {
            String channel = (String) r.getField("channel");
            String url = (String) r.getField("url");
            assertThat(urls.computeIfAbsent(channel, c -> url)).as(channel).isEqualTo(url);
            assertThat(url)
                    .matches("https://www\\.nexmark\\.com/([a-z_]{3,4}/){3}item\\.htm\\?query=1(&channel_id=-?\\d+)?");
            if (HOT_CHANNELS.contains(channel)) {
                hot++;
                assertThat(url).doesNotContain("channel_id");
            } else {
                int i = Integer.parseInt(channel.substring("channel-".length()));
                assertThat(i).isBetween(0, 9_999);
                assertThat(url.endsWith("/item.htm?query=1")
                                || url.endsWith("&channel_id=" + Math.abs(Integer.reverse(i))))
                        .as(url)
                        .isTrue();
            }
        }
        assertThat(hot / (double) bids.size()).isBetween(0.48, 0.52);
        assertThat(urls.keySet()).containsAll(HOT_CHANNELS);
        long cold = urls.size() - HOT_CHANNELS.size();
        long withId =
                urls.values().stream().filter(u -> u.contains("&channel_id=")).count();
        assertThat(cold).isGreaterThan(5_000);
        assertThat(withId / (double) cold).isBetween(0.87, 0.93);
    }

    @Test
    void extraPadsRecordsToTheirAverageSizesWithinTwentyPercent() {
        List<NexmarkGenerator.Stripe> stripes = all(SMALL);
        List<Record> bids = rows(stripes, 2);
        assertThat(bids)
                .allSatisfy(
                        r -> assertThat(((String) r.getField("extra")).length()).isBetween(54, 81));
        assertThat(mean(bids, r -> 32 + ((String) r.getField("extra")).length()))
                .isBetween(99.0, 101.0);
        assertThat(mean(
                        rows(stripes, 1),
                        r -> 48
                                + ((String) r.getField("itemName")).length()
                                + ((String) r.getField("description")).length()
                                + ((String) r.getField("extra")).length()))
                .isBetween(490.0, 510.0);
        assertThat(mean(
                        rows(stripes, 0),
                        r -> 8
                                + List.of("name", "emailAddress", "creditCard", "city", "state", "extra").stream()
                                        .mapToInt(f -> ((String) r.getField(f)).length())
                                        .sum()))
                .isBetween(195.0, 205.0);
        assertThat(bids)
                .extracting(r -> (String) r.getField("extra"))
                .allSatisfy(e -> assertThat(e).matches("[H-z]*"));
    }

    @Test
    void peopleAndAuctionsDrawFromUpstreamsDomains() {
        List<NexmarkGenerator.Stripe> stripes = all(SMALL);
        assertThat(rows(stripes, 0)).allSatisfy(r -> {
            assertThat((String) r.getField("name")).matches("[A-Z][a-z]+ [A-Z][a-z]+");
            assertThat((String) r.getField("emailAddress")).matches("[a-z ]{0,6}@[a-z ]{0,4}\\.com");
            assertThat((String) r.getField("creditCard")).matches("\\d{4} \\d{4} \\d{4} \\d{4}");
            assertThat((String) r.getField("state")).isIn("AZ", "CA", "ID", "OR", "WA", "WY");
            assertThat((String) r.getField("city"))
                    .isIn(
                            "Phoenix",
                            "Los Angeles",
                            "San Francisco",
                            "Boise",
                            "Portland",
                            "Bend",
                            "Redmond",
                            "Seattle",
                            "Kent",
                            "Cheyenne");
        });
        assertThat(rows(stripes, 1)).allSatisfy(r -> {
            assertThat((Long) r.getField("category")).isBetween(10L, 14L);
            // Upstream's horizon: the time of the next 1,666 events, 166 or 167 ms at 10,000 events/s.
            assertThat(millis(r, "expires") - millis(r, "dateTime")).isBetween(1L, 334L);
            // Trimmed, so rarely (all spaces) even empty.
            assertThat((String) r.getField("itemName")).matches("[a-z ]{0,19}").doesNotStartWith(" ");
            assertThat(((String) r.getField("description")).length()).isLessThan(100);
        });
        assertThat(mean(rows(stripes, 1), r -> millis(r, "expires") - millis(r, "dateTime")))
                .isBetween(155.0, 178.0);
    }
}
