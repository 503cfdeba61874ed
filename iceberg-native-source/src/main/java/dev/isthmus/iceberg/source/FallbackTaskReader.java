package dev.isthmus.iceberg.source;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.apache.flink.connector.base.source.reader.RecordsWithSplitIds;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.iceberg.BaseCombinedScanTask;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Schema;
import org.apache.iceberg.encryption.EncryptionManager;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.flink.FlinkSchemaUtil;
import org.apache.iceberg.flink.source.DataIterator;
import org.apache.iceberg.flink.source.RowDataFileScanTaskReader;
import org.apache.iceberg.flink.source.reader.RecordAndPosition;
import org.apache.iceberg.io.FileIO;

/**
 * One file scan task read by Iceberg's stock reader, exactly as its {@code RowDataReaderFunction}
 * reads it (delete files, other formats, name mapping, filters), seeked to the same position:
 * Iceberg's {@code DataIterator} over a combined task of just this file; with a
 * {@link NestedProjection}, its rows flattened as the native reader emits them.
 */
final class FallbackTaskReader implements TaskReader {
    private final String splitId;
    private final int fileOffset;
    private final DataIterator<RowData> rows;
    private final RowDataSerializer copier;
    /** {@code null} for rows of the read schema. */
    private final NestedProjection nested;

    private final RecordLimiter limiter;
    private final int batchSize;
    private final boolean empty;

    FallbackTaskReader(
            String splitId,
            int fileOffset,
            long recordOffset,
            FileScanTask task,
            Schema tableSchema,
            Schema readSchema,
            String nameMapping,
            boolean caseSensitive,
            List<Expression> filters,
            FileIO io,
            EncryptionManager encryption,
            int batchSize,
            RecordLimiter limiter,
            NestedProjection nested) {
        this.splitId = splitId;
        this.fileOffset = fileOffset;
        this.limiter = limiter;
        this.batchSize = batchSize;
        this.nested = nested;
        this.copier = new RowDataSerializer(FlinkSchemaUtil.convert(readSchema));
        this.rows = new DataIterator<>(
                new RowDataFileScanTaskReader(tableSchema, readSchema, nameMapping, caseSensitive, filters),
                new BaseCombinedScanTask(task),
                io,
                encryption);
        try {
            // DataIterator.seek's skip, done here so that a file without records can say so.
            rows.seek(0, 0);
            long skipped = 0;
            while (skipped < recordOffset && rows.hasNext()) {
                rows.next();
                skipped++;
            }
            if (skipped > 0 && skipped < recordOffset) {
                throw new IllegalStateException(String.format(
                        Locale.ROOT,
                        "Invalid starting record offset %d for file %d of its split: %s",
                        recordOffset,
                        fileOffset,
                        task));
            }
            this.empty = skipped == 0 && !rows.hasNext();
        } catch (RuntimeException e) {
            try {
                close();
            } catch (RuntimeException closing) {
                e.addSuppressed(closing);
            }
            throw e;
        }
    }

    @Override
    public boolean empty() {
        return empty;
    }

    @Override
    public RecordsWithSplitIds<RecordAndPosition<RowData>> next() {
        List<RowData> batch = new ArrayList<>();
        while (batch.size() < batchSize && !limiter.reached() && rows.hasNext()) {
            if (limiter.take(1) == 1) {
                RowData copy = copier.copy(rows.next());
                batch.add(nested == null ? copy : nested.row(copy));
            }
        }
        if (batch.isEmpty()) {
            return null;
        }
        return new RowListRecords(splitId, batch, fileOffset, rows.recordOffset() - batch.size());
    }

    @Override
    public void close() {
        try {
            rows.close();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
