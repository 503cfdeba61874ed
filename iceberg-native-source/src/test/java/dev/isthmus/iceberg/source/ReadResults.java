package dev.isthmus.iceberg.source;

import dev.isthmus.arrow.FlinkValues;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.connector.base.source.reader.RecordsWithSplitIds;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;
import org.apache.iceberg.flink.source.reader.ReaderFunction;
import org.apache.iceberg.flink.source.reader.RecordAndPosition;
import org.apache.iceberg.flink.source.split.IcebergSourceSplit;
import org.apache.iceberg.io.CloseableIterator;

/** What a reader function emits for a split, and multisets of rows. */
final class ReadResults {
    private ReadResults() {}

    /** One emitted record: its values and the position after it. */
    record Emitted(List<Object> values, int fileOffset, long recordOffset) {}

    static List<Emitted> read(ReaderFunction<RowData> function, IcebergSourceSplit split, RowType type) {
        List<Emitted> out = new ArrayList<>();
        try (CloseableIterator<RecordsWithSplitIds<RecordAndPosition<RowData>>> batches = function.apply(split)) {
            while (batches.hasNext()) {
                RecordsWithSplitIds<RecordAndPosition<RowData>> batch = batches.next();
                try {
                    while (batch.nextSplit() != null) {
                        RecordAndPosition<RowData> r;
                        while ((r = batch.nextRecordFromSplit()) != null) {
                            out.add(new Emitted(FlinkValues.row(r.record(), type), r.fileOffset(), r.recordOffset()));
                        }
                    }
                } finally {
                    batch.recycle();
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out;
    }

    static Map<List<Object>, Integer> multiset(List<List<Object>> rows) {
        Map<List<Object>, Integer> counts = new HashMap<>();
        rows.forEach(row -> counts.merge(row, 1, Integer::sum));
        return counts;
    }

    /** Fails naming a few rows whose counts differ, rather than printing both multisets. */
    static void assertSameRows(List<List<Object>> expected, List<List<Object>> actual) {
        Map<List<Object>, Integer> difference = multiset(expected);
        actual.forEach(row -> difference.merge(row, -1, Integer::sum));
        difference.values().removeIf(n -> n == 0);
        if (!difference.isEmpty()) {
            throw new AssertionError(difference.size() + " rows differ (count expected minus actual), e.g. "
                    + difference.entrySet().stream().limit(5).toList() + "; " + expected.size() + " rows expected, "
                    + actual.size() + " read");
        }
    }
}
