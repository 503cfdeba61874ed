package dev.isthmus.bench;

import java.util.SplittableRandom;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.iceberg.Schema;

/**
 * The main job's bids as Flink rows: bid {@code event} depends only on the event number and the
 * seed (not on which task generates it), with {@link BidsParquetFile}'s distributions, and a
 * per-row hash whose sum over a table checks a read without caring for row order.
 */
final class NexmarkBidRows {
    static final Schema SCHEMA = BidsParquetFile.SCHEMA;

    private static final StringData[] CHANNELS = {
        StringData.fromString("Google"),
        StringData.fromString("Facebook"),
        StringData.fromString("Baidu"),
        StringData.fromString("Apple")
    };
    private static final String[] CHANNEL_PATHS = {"google", "facebook", "baidu", "apple"};
    /** 2026-11-30T00:00 in epoch milliseconds. */
    private static final long BASE_MILLIS = 1_795_996_800_000L;

    private NexmarkBidRows() {}

    static RowData bid(long event, long seed) {
        SplittableRandom random = new SplittableRandom(seed * 0x9E37_79B9_7F4A_7C15L + event);
        int channel = random.nextInt(CHANNELS.length);
        long auction = 1000 + (random.nextInt(10) == 0 ? random.nextLong(100_000) : random.nextLong(100));
        long bidder = 1000 + random.nextLong(1_000_000);
        long price = 100 + random.nextLong(10_000_000);
        String url = "https://www.nexmark.com/" + CHANNEL_PATHS[channel] + "/item.htm?query=1&channel_id="
                + random.nextInt(1 << 20);
        TimestampData dateTime = TimestampData.fromEpochMillis(BASE_MILLIS + event * 10 + random.nextInt(10));
        char[] extra = new char[random.nextInt(24)];
        for (int i = 0; i < extra.length; i++) {
            extra[i] = (char) ('a' + random.nextInt(26));
        }
        return GenericRowData.of(
                auction,
                bidder,
                price,
                CHANNELS[channel],
                StringData.fromString(url),
                dateTime,
                StringData.fromString(new String(extra)));
    }

    /** The sum of {@link #hash} over the first {@code rows} bids. */
    static long checksum(long rows, long seed) {
        long sum = 0;
        for (long event = 0; event < rows; event++) {
            sum += hash(bid(event, seed));
        }
        return sum;
    }

    /** A hash of every value of a bid row, from whatever RowData implementation holds it. */
    static long hash(RowData row) {
        long h = 0x243F_6A88_85A3_08D3L;
        for (int field = 0; field < 3; field++) {
            h = mix(h, row.isNullAt(field) ? -1 : row.getLong(field));
        }
        h = mix(h, text(row, 3));
        h = mix(h, text(row, 4));
        if (row.isNullAt(5)) {
            h = mix(h, -1);
        } else {
            TimestampData t = row.getTimestamp(5, 6);
            h = mix(h, t.getMillisecond() * 1_000_000L + t.getNanoOfMillisecond());
        }
        return mix(h, text(row, 6));
    }

    /** The string's own hash (Murmur over its UTF-8 bytes, whatever holds them), without copying it. */
    private static long text(RowData row, int field) {
        return row.isNullAt(field) ? -1 : row.getString(field).hashCode();
    }

    private static long mix(long h, long value) {
        long x = (h ^ value) * 0x9E37_79B9_7F4A_7C15L;
        return x ^ (x >>> 29);
    }
}
