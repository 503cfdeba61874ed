package dev.isthmus.bench.nexmark;

import dev.isthmus.bench.nexmark.OutputCheck.Fingerprint;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;

/**
 * q12's check. Which window a bid falls in depends on the wall clock, so the legs are compared on
 * what does not: each bidder's committed count, which must also be the input's.
 */
final class BidderCounts {
    private final Map<Long, Long> input;

    /** Counts the input's bids per bidder, once for every q12 run. */
    BidderCounts(Table bids) {
        this.input = counts(bids, null);
    }

    /** The fingerprint of q12's output: per bidder, the sum of its windows' counts. */
    static Fingerprint fingerprint(Map<Long, Long> counts) {
        StringBuilder text = new StringBuilder();
        counts.forEach(
                (bidder, count) -> text.append(bidder).append('=').append(count).append('\n'));
        String digest = HexFormat.of()
                .formatHex(OutputCheck.sha256().digest(text.toString().getBytes(StandardCharsets.UTF_8)));
        return new Fingerprint(
                counts.values().stream().mapToLong(Long::longValue).sum(), digest);
    }

    /** Per bidder, the sum of q12's {@code bid_count}. */
    static Map<Long, Long> of(Table output) {
        return counts(output, "bid_count");
    }

    /**
     * What failed of: per bidder the committed counts add up to the input's, no window of a bidder
     * appears twice, and every window is an aligned 10 s window; empty when all hold.
     */
    List<String> check(Table output, Map<Long, Long> committed) {
        List<String> failed = new ArrayList<>();
        if (!committed.equals(input)) {
            failed.add("per-bidder counts differ from the input's");
        }
        Set<String> windows = new HashSet<>();
        try (CloseableIterable<Record> rows = IcebergGenerics.read(output).build()) {
            for (Record row : rows) {
                LocalDateTime start = (LocalDateTime) row.getField("starttime");
                LocalDateTime end = (LocalDateTime) row.getField("endtime");
                if (!windows.add(row.getField("bidder") + "@" + start)) {
                    failed.add("bidder " + row.getField("bidder") + " has two windows at " + start);
                    break;
                }
                if (!start.plusSeconds(10).equals(end) || start.getSecond() % 10 != 0 || start.getNano() != 0) {
                    failed.add("window " + start + " - " + end + " is not a 10 s tumbling window");
                    break;
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("reading " + output.name(), e);
        }
        return failed;
    }

    /** Per bidder, the sum of {@code countColumn}, or the number of rows when it is null. */
    private static Map<Long, Long> counts(Table table, String countColumn) {
        Map<Long, Long> counts = new TreeMap<>();
        table.refresh();
        String[] columns = countColumn == null ? new String[] {"bidder"} : new String[] {"bidder", countColumn};
        try (CloseableIterable<Record> rows =
                IcebergGenerics.read(table).select(columns).build()) {
            for (Record row : rows) {
                long n = countColumn == null ? 1 : ((Number) row.getField(countColumn)).longValue();
                counts.merge((Long) row.getField("bidder"), n, Long::sum);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("reading " + table.name(), e);
        }
        return counts;
    }
}
