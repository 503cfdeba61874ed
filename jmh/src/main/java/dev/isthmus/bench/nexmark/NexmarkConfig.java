package dev.isthmus.bench.nexmark;

import java.time.Instant;

/**
 * Everything the Nexmark input tables are a function of: how many events, the seed of every value
 * drawn, the event-time rate and base, and the stripe (one Iceberg commit) size. Equal configs give
 * identical tables, which is what lets prepared tables be reused and both legs of a comparison read
 * the same input.
 *
 * <p>Event {@code n} (from 0) is a person when {@code n % 50 == 0}, an auction when it is 1 to 3 and
 * a bid otherwise, the upstream generator's 1:3:46 mix. Its time is
 * {@code baseTimeMillis + floor(n * 1000 / eventsPerSecond)}.
 *
 * @param events how many events in all
 * @param seed the seed of every value drawn (ids, types and times do not depend on it)
 * @param eventsPerSecond the event-time rate
 * @param baseTimeMillis the time of event 0, epoch milliseconds
 * @param stripeEvents events per stripe; the last stripe may be shorter
 */
record NexmarkConfig(long events, long seed, int eventsPerSecond, long baseTimeMillis, int stripeEvents) {
    /** Events per epoch of the mix: 1 person, then 3 auctions, then 46 bids. */
    static final int EPOCH = 50;

    static final int AUCTIONS_PER_EPOCH = 3;
    /** Keeps {@code n * 1000} and the auction horizon's look-ahead far from overflow. */
    static final long MAX_EVENTS = 1L << 40;

    public NexmarkConfig {
        if (events <= 0 || events > MAX_EVENTS) {
            throw new IllegalArgumentException("events must be in 1.." + MAX_EVENTS + ": " + events);
        }
        if (eventsPerSecond <= 0) {
            throw new IllegalArgumentException("eventsPerSecond must be positive: " + eventsPerSecond);
        }
        if (stripeEvents <= 0) {
            throw new IllegalArgumentException("stripeEvents must be positive: " + stripeEvents);
        }
        // The tables' reproducible tie order (every millisecond's events in one commit) needs this.
        if (stripeEvents * 1000L % eventsPerSecond != 0) {
            throw new IllegalArgumentException("a stripe of " + stripeEvents + " events at " + eventsPerSecond
                    + " events/s does not span a whole number of milliseconds, so stripes would share one");
        }
        if ((events + stripeEvents - 1) / stripeEvents > Integer.MAX_VALUE) {
            throw new IllegalArgumentException(
                    "more than " + Integer.MAX_VALUE + " stripes of " + stripeEvents + " events: " + events);
        }
    }

    /**
     * 2,000,000 events (200 s of event time from 2026-01-01T00:00:00Z at 10,000 events/s), seed 42,
     * in 40 stripes of 50,000 events.
     */
    public static NexmarkConfig defaults() {
        return new NexmarkConfig(
                2_000_000, 42, 10_000, Instant.parse("2026-01-01T00:00:00Z").toEpochMilli(), 50_000);
    }

    public NexmarkConfig withEvents(long n) {
        return new NexmarkConfig(n, seed, eventsPerSecond, baseTimeMillis, stripeEvents);
    }

    public NexmarkConfig withSeed(long s) {
        return new NexmarkConfig(events, s, eventsPerSecond, baseTimeMillis, stripeEvents);
    }

    /** How many person events there are: 1 in every 50, the first of each 50. */
    public long people() {
        return (events + EPOCH - 1) / EPOCH;
    }

    /** How many auction events there are: 3 in every 50. */
    public long auctions() {
        long partial = Math.clamp(events % EPOCH - 1, 0, AUCTIONS_PER_EPOCH);
        return events / EPOCH * AUCTIONS_PER_EPOCH + partial;
    }

    /** How many bid events there are: the rest, 46 in every 50. */
    public long bids() {
        return events - people() - auctions();
    }

    /** How many stripes (commits) the events make. */
    public int stripes() {
        return (int) ((events + stripeEvents - 1) / stripeEvents);
    }

    /** The event time of event {@code n}, epoch milliseconds. */
    public long eventTimeMillis(long n) {
        return baseTimeMillis + n * 1000 / eventsPerSecond;
    }
}
