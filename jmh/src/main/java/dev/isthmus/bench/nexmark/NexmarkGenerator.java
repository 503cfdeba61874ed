package dev.isthmus.bench.nexmark;

import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;

/**
 * The Nexmark events of a {@link NexmarkConfig} as records of the three {@link InputTables}, drawn
 * from the distributions of the public Nexmark Flink generator (github.com/nexmark/nexmark,
 * Apache-2.0) but reproducible: upstream draws from unseeded randoms, so its tables differ on every
 * run.
 *
 * <p>Ids, event types and times are pure functions of the event number. Everything else of stripe
 * {@code k} is drawn from a SplitMix64 stream seeded by {@code (seed, k)}, so a stripe can be
 * generated without the ones before it. What upstream draws once into static caches (the hot
 * channels' urls, the 10,000 other channels' urls, the text {@code extra} is cut from) is drawn
 * once per generator from a stream seeded by the seed alone.
 */
final class NexmarkGenerator {
    /** Bump whenever the records of some config change: prepared tables record it. */
    static final int VERSION = 1;

    private static final long FIRST_PERSON_ID = 1000;
    private static final long FIRST_AUCTION_ID = 1000;
    private static final long FIRST_CATEGORY_ID = 10;
    private static final int CATEGORIES = 5;
    /** A hot id is the first (a hot bidder the second) of the newest block of this many ids. */
    private static final int HOT_BLOCK = 100;
    /** Cold people are drawn among the newest this many, plus {@link #ID_LEAD} not yet created. */
    private static final int ACTIVE_PEOPLE = 1000;
    /** Cold auctions are drawn among the newest this many, plus {@link #ID_LEAD} not yet created. */
    private static final int IN_FLIGHT_AUCTIONS = 100;

    private static final int ID_LEAD = 10;
    /** An auction lasts on average as long as it takes to create {@link #IN_FLIGHT_AUCTIONS} more. */
    private static final long HORIZON_EVENTS =
            (long) IN_FLIGHT_AUCTIONS * NexmarkConfig.EPOCH / NexmarkConfig.AUCTIONS_PER_EPOCH;

    private static final int PERSON_BYTES = 200;
    private static final int AUCTION_BYTES = 500;
    private static final int BID_BYTES = 100;
    private static final int CHANNELS = 10_000;
    private static final int EXTRA_TEXT_CHARS = 1 << 20;

    private static final String[] HOT_CHANNELS = {"Google", "Facebook", "Baidu", "Apple"};
    private static final String[] STATES = {"AZ", "CA", "ID", "OR", "WA", "WY"};
    private static final String[] CITIES = {
        "Phoenix", "Los Angeles", "San Francisco", "Boise", "Portland", "Bend", "Redmond", "Seattle", "Kent", "Cheyenne"
    };
    private static final String[] FIRST_NAMES = {
        "Peter", "Paul", "Luke", "John", "Saul", "Vicky", "Kate", "Julie", "Sarah", "Deiter", "Walter"
    };
    private static final String[] LAST_NAMES = {
        "Shultz", "Abrams", "Spencer", "White", "Bartels", "Walton", "Smith", "Jones", "Noris"
    };

    /** One stripe's records of each table, each list in event order. */
    record Stripe(int index, List<Record> people, List<Record> auctions, List<Record> bids) {}

    private final NexmarkConfig config;
    private final String[] hotUrls = new String[HOT_CHANNELS.length];
    private final String[] channels = new String[CHANNELS];
    private final String[] channelUrls = new String[CHANNELS];
    private final String extraText;
    private final GenericRecord person = GenericRecord.create(InputTables.PERSON_SCHEMA);
    private final GenericRecord auction = GenericRecord.create(InputTables.AUCTION_SCHEMA);
    private final GenericRecord bid = GenericRecord.create(InputTables.BID_SCHEMA);

    NexmarkGenerator(NexmarkConfig config) {
        this.config = Objects.requireNonNull(config, "config");
        SplitMix64 random = new SplitMix64(streamSeed(config.seed(), 0));
        for (int i = 0; i < hotUrls.length; i++) {
            hotUrls[i] = url(random);
        }
        for (int i = 0; i < CHANNELS; i++) {
            channels[i] = "channel-" + i;
            String url = url(random);
            channelUrls[i] = random.nextInt(10) > 0 ? url + "&channel_id=" + Math.abs(Integer.reverse(i)) : url;
        }
        // Upstream takes the remainder of a signed int, so about half of this text is 'H'..'a' and
        // the other half 'a'..'z'; kept, since q14 counts a character of extra.
        StringBuilder text = new StringBuilder(EXTRA_TEXT_CHARS);
        while (text.length() < EXTRA_TEXT_CHARS) {
            int bits = random.nextInt();
            for (int i = 0; i < 6 && text.length() < EXTRA_TEXT_CHARS; i++, bits /= 26) {
                text.append((char) ('a' + bits % 26));
            }
        }
        extraText = text.toString();
    }

    /** Stripe {@code index} of {@link NexmarkConfig#stripes()}; the same records on every call. */
    Stripe stripe(int index) {
        Objects.checkIndex(index, config.stripes());
        long first = (long) index * config.stripeEvents();
        long end = Math.min(first + config.stripeEvents(), config.events());
        int epochs = (int) ((end - first) / NexmarkConfig.EPOCH) + 1;
        int auctions = NexmarkConfig.AUCTIONS_PER_EPOCH;
        Stripe stripe = new Stripe(
                index,
                new ArrayList<>(epochs),
                new ArrayList<>(epochs * auctions),
                new ArrayList<>(epochs * (NexmarkConfig.EPOCH - 1 - auctions)));
        SplitMix64 random = new SplitMix64(streamSeed(config.seed(), index + 1L));
        for (long n = first; n < end; n++) {
            long millis = config.eventTimeMillis(n);
            LocalDateTime time = time(millis);
            long slot = n % NexmarkConfig.EPOCH;
            if (slot == 0) {
                stripe.people().add(person(n, time, random));
            } else if (slot <= NexmarkConfig.AUCTIONS_PER_EPOCH) {
                stripe.auctions().add(auction(n, millis, time, random));
            } else {
                stripe.bids().add(bid(n, time, random));
            }
        }
        return stripe;
    }

    private Record person(long n, LocalDateTime time, SplitMix64 random) {
        String name =
                FIRST_NAMES[random.nextInt(FIRST_NAMES.length)] + " " + LAST_NAMES[random.nextInt(LAST_NAMES.length)];
        String email = string(random, 7, ' ') + "@" + string(random, 5, ' ') + ".com";
        StringBuilder card = new StringBuilder(19);
        for (int i = 0; i < 4; i++) {
            String group = Integer.toString(10_000 + random.nextInt(10_000));
            card.append(i == 0 ? "" : " ").append(group, 1, 5);
        }
        String city = CITIES[random.nextInt(CITIES.length)];
        String state = STATES[random.nextInt(STATES.length)];
        int size = 8 + name.length() + email.length() + card.length() + city.length() + state.length();
        Record r = person.copy();
        r.set(0, lastPerson(n) + FIRST_PERSON_ID);
        r.set(1, name);
        r.set(2, email);
        r.set(3, card.toString());
        r.set(4, city);
        r.set(5, state);
        r.set(6, time);
        r.set(7, extra(random, size, PERSON_BYTES));
        return r;
    }

    private Record auction(long n, long millis, LocalDateTime time, SplitMix64 random) {
        long seller = random.nextInt(4) > 0 ? lastPerson(n) / HOT_BLOCK * HOT_BLOCK : coldPerson(n, random);
        long category = FIRST_CATEGORY_ID + random.nextInt(CATEGORIES);
        long initialBid = price(random);
        long horizon = config.eventTimeMillis(n + HORIZON_EVENTS) - millis;
        long expires = millis + 1 + random.nextInt((int) Math.max(2 * horizon, 1));
        String itemName = string(random, 20, ' ');
        String description = string(random, 100, ' ');
        long reserve = initialBid + price(random);
        Record r = auction.copy();
        r.set(0, lastAuction(n) + FIRST_AUCTION_ID);
        r.set(1, itemName);
        r.set(2, description);
        r.set(3, initialBid);
        r.set(4, reserve);
        r.set(5, time);
        r.set(6, time(expires));
        r.set(7, seller + FIRST_PERSON_ID);
        r.set(8, category);
        r.set(9, extra(random, 8 + itemName.length() + description.length() + 40, AUCTION_BYTES));
        return r;
    }

    private Record bid(long n, LocalDateTime time, SplitMix64 random) {
        // Upstream's odds: the hot auction 1 in 2, the hot bidder (and seller) 3 in 4, a hot channel 1 in 2.
        long auctionId = random.nextInt(2) > 0 ? lastAuction(n) / HOT_BLOCK * HOT_BLOCK : coldAuction(n, random);
        long bidder = random.nextInt(4) > 0 ? lastPerson(n) / HOT_BLOCK * HOT_BLOCK + 1 : coldPerson(n, random);
        long price = price(random);
        String channel;
        String url;
        if (random.nextInt(2) > 0) {
            int i = random.nextInt(HOT_CHANNELS.length);
            channel = HOT_CHANNELS[i];
            url = hotUrls[i];
        } else {
            int i = random.nextInt(CHANNELS);
            channel = channels[i];
            url = channelUrls[i];
        }
        Record r = bid.copy();
        r.set(0, auctionId + FIRST_AUCTION_ID);
        // Upstream's BidGenerator adds FIRST_PERSON_ID twice, which points bidders 1000 people past
        // the real ones; added once here, as Beam's generator does, so bids join their bidders.
        r.set(1, bidder + FIRST_PERSON_ID);
        r.set(2, price);
        r.set(3, channel);
        r.set(4, url);
        r.set(5, time);
        r.set(6, extra(random, 32, BID_BYTES));
        return r;
    }

    /** The newest person's id less {@code FIRST_PERSON_ID} at event {@code n} (its own if a person). */
    private static long lastPerson(long n) {
        return n / NexmarkConfig.EPOCH;
    }

    /** The newest auction's id less {@code FIRST_AUCTION_ID} at event {@code n} (its own if an auction). */
    private static long lastAuction(long n) {
        long slot = n % NexmarkConfig.EPOCH;
        return n / NexmarkConfig.EPOCH * NexmarkConfig.AUCTIONS_PER_EPOCH
                + Math.min(slot, NexmarkConfig.AUCTIONS_PER_EPOCH)
                - 1;
    }

    private static long coldAuction(long n, SplitMix64 random) {
        long last = lastAuction(n);
        long oldest = Math.max(last - IN_FLIGHT_AUCTIONS, 0);
        return oldest + random.nextInt((int) (last - oldest) + 1 + ID_LEAD);
    }

    private static long coldPerson(long n, SplitMix64 random) {
        long people = lastPerson(n) + 1;
        long active = Math.min(people, ACTIVE_PEOPLE);
        return people - active + random.nextInt((int) active + ID_LEAD);
    }

    /** Iceberg's value of a {@code timestamp} (without zone) column, read as UTC. */
    private static LocalDateTime time(long millis) {
        return LocalDateTime.ofEpochSecond(
                Math.floorDiv(millis, 1000), Math.floorMod(millis, 1000) * 1_000_000, ZoneOffset.UTC);
    }

    /** Log-uniform cents from 100 to 10^8; StrictMath, because Math.pow may differ by a JVM's intrinsics. */
    private static long price(SplitMix64 random) {
        return Math.round(StrictMath.pow(10.0, random.nextDouble() * 6.0) * 100.0);
    }

    /** 3 to {@code max - 1} random letters, each one a {@code special} with odds 1 in 13, trimmed. */
    private static String string(SplitMix64 random, int max, char special) {
        char[] chars = new char[3 + random.nextInt(max - 3)];
        for (int i = 0; i < chars.length; i++) {
            chars[i] = random.nextInt(13) == 0 ? special : (char) ('a' + random.nextInt(26));
        }
        return new String(chars).trim();
    }

    private static String url(SplitMix64 random) {
        return "https://www.nexmark.com/" + string(random, 5, '_') + '/' + string(random, 5, '_') + '/'
                + string(random, 5, '_') + "/item.htm?query=1";
    }

    /** Padding that brings a record of {@code size} bytes to {@code average} bytes on average, ±20%. */
    private String extra(SplitMix64 random, int size, int average) {
        if (size > average) {
            return "";
        }
        int target = average - size;
        int delta = (int) Math.round(target * 0.2);
        int length = target - delta + (delta == 0 ? 0 : random.nextInt(2 * delta));
        int offset = random.nextInt(extraText.length() - length);
        return extraText.substring(offset, offset + length);
    }

    /** Seeds of independent streams: 0 for the caches, {@code k + 1} for stripe {@code k}. */
    private static long streamSeed(long seed, long stream) {
        return SplitMix64.mix(SplitMix64.mix(seed) + stream * SplitMix64.GAMMA);
    }

    /**
     * SplitMix64 (Steele, Lea and Flood, 2014) written out, rather than java.util.SplittableRandom,
     * whose output is documented as repeatable only within one program execution.
     */
    private static final class SplitMix64 {
        static final long GAMMA = 0x9E3779B97F4A7C15L;
        private long state;

        SplitMix64(long seed) {
            state = seed;
        }

        static long mix(long z) {
            z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
            z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
            return z ^ (z >>> 31);
        }

        long nextLong() {
            return mix(state += GAMMA);
        }

        int nextInt() {
            return (int) (nextLong() >>> 32);
        }

        /** Uniform in [0, bound), unbiased (Lemire's multiply-and-reject). */
        int nextInt(int bound) {
            long m = (nextLong() >>> 32) * bound;
            if ((m & 0xFFFF_FFFFL) < bound) {
                long threshold = (1L << 32) % bound;
                while ((m & 0xFFFF_FFFFL) < threshold) {
                    m = (nextLong() >>> 32) * bound;
                }
            }
            return (int) (m >>> 32);
        }

        double nextDouble() {
            return (nextLong() >>> 11) * 0x1.0p-53;
        }
    }
}
