package dev.isthmus.bench;

import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;

/**
 * Deterministic Nexmark-like bid events (auction, bidder, price, channel, url, dateTime, extra),
 * the workload every Isthmus benchmark shares. Here rendered as CSV text, which is what a
 * codec sees of such rows before the Parquet layers exist.
 */
final class NexmarkBids {
    private static final String[] CHANNELS = {"Google", "Facebook", "Baidu", "Apple", "channel-4021", "channel-7731"};
    private static final long BASE_MILLIS = 1_764_460_800_000L; // 2025-11-30T00:00:00Z

    private NexmarkBids() {}

    /** Fills {@code target} with whole CSV lines (the tail is padded with newlines). */
    static void fillCsv(MemorySegment target, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        StringBuilder line = new StringBuilder(256);
        long pos = 0;
        long event = 0;
        while (true) {
            line.setLength(0);
            appendBid(line, random, event++);
            byte[] bytes = line.toString().getBytes(StandardCharsets.UTF_8);
            if (pos + bytes.length > target.byteSize()) {
                target.asSlice(pos).fill((byte) '\n');
                return;
            }
            MemorySegment.copy(MemorySegment.ofArray(bytes), 0, target, pos, bytes.length);
            pos += bytes.length;
        }
    }

    private static void appendBid(StringBuilder out, SplittableRandom random, long event) {
        long auction = 1000 + random.nextLong(10_000);
        long bidder = 1000 + random.nextLong(100_000);
        long price = 100 + random.nextLong(10_000_000);
        String channel = CHANNELS[random.nextInt(CHANNELS.length)];
        out.append(auction)
                .append(',')
                .append(bidder)
                .append(',')
                .append(price)
                .append(',')
                .append(channel)
                .append(",https://www.nexmark.com/")
                .append(channel.toLowerCase())
                .append("/item.htm?query=1&channel_id=")
                .append(random.nextInt(1 << 20))
                .append(',')
                .append(BASE_MILLIS + event * 10 + random.nextInt(10))
                .append(',');
        int extra = random.nextInt(16);
        for (int i = 0; i < extra; i++) {
            out.append((char) ('a' + random.nextInt(26)));
        }
        out.append('\n');
    }
}
