package dev.isthmus.iceberg.source.parquet;

import java.util.Arrays;
import org.apache.iceberg.Schema;
import org.apache.iceberg.mapping.NameMapping;

/**
 * What a {@link NativeParquetScan} reads.
 *
 * @param projection the Iceberg columns to read, in output order; ids the file lacks come back
 *     as null columns (schema evolution)
 * @param rowGroups the row groups to read, in this order, or {@code null} for all
 * @param firstRow rows of that selection to skip first (to resume at a checkpointed position)
 * @param batchSize rows per batch at most
 * @param keepDictionaries keep wholly dictionary-encoded string columns as Arrow dictionary arrays
 * @param maxPageSize the largest uncompressed page, in bytes, the decoder allocates for, or 0 for
 *     the library's default ({@code ISTHMUS_SCAN_DEFAULT_MAX_PAGE_SIZE}, 256 MiB); a page declaring
 *     more fails the scan with {@link dev.isthmus.ffm.NativeException.CorruptData} naming the page
 * @param nameMapping the table's name mapping, by which a file without field ids is read (its
 *     top-level fields by the names the mapping gives each id, as Iceberg's readers read it), or
 *     {@code null}: such a file is then refused with {@link dev.isthmus.ffm.NativeException.Unsupported}
 */
public record ScanOptions(
        Schema projection,
        int[] rowGroups,
        long firstRow,
        int batchSize,
        boolean keepDictionaries,
        long maxPageSize,
        NameMapping nameMapping) {
    public static final int DEFAULT_BATCH_SIZE = 8192;

    public ScanOptions {
        if (firstRow < 0) {
            throw new IllegalArgumentException("firstRow must not be negative, got " + firstRow);
        }
        if (batchSize <= 0) {
            throw new IllegalArgumentException("batchSize must be positive, got " + batchSize);
        }
        if (maxPageSize < 0) {
            throw new IllegalArgumentException("maxPageSize must not be negative, got " + maxPageSize);
        }
        rowGroups = rowGroups == null ? null : rowGroups.clone();
    }

    /** Options with the library's page size limit and no name mapping. */
    public ScanOptions(Schema projection, int[] rowGroups, long firstRow, int batchSize, boolean keepDictionaries) {
        this(projection, rowGroups, firstRow, batchSize, keepDictionaries, 0, null);
    }

    /** A copy: the record must not expose its array. */
    @Override
    public int[] rowGroups() {
        return rowGroups == null ? null : rowGroups.clone();
    }

    /** Every row of every row group, in batches of {@value #DEFAULT_BATCH_SIZE}. */
    public static ScanOptions of(Schema projection) {
        return new ScanOptions(projection, null, 0, DEFAULT_BATCH_SIZE, false);
    }

    public ScanOptions withRowGroups(int... groups) {
        return new ScanOptions(projection, groups, firstRow, batchSize, keepDictionaries, maxPageSize, nameMapping);
    }

    public ScanOptions withFirstRow(long row) {
        return new ScanOptions(projection, rowGroups, row, batchSize, keepDictionaries, maxPageSize, nameMapping);
    }

    public ScanOptions withBatchSize(int rows) {
        return new ScanOptions(projection, rowGroups, firstRow, rows, keepDictionaries, maxPageSize, nameMapping);
    }

    public ScanOptions withDictionaries(boolean keep) {
        return new ScanOptions(projection, rowGroups, firstRow, batchSize, keep, maxPageSize, nameMapping);
    }

    public ScanOptions withMaxPageSize(long bytes) {
        return new ScanOptions(projection, rowGroups, firstRow, batchSize, keepDictionaries, bytes, nameMapping);
    }

    public ScanOptions withNameMapping(NameMapping mapping) {
        return new ScanOptions(projection, rowGroups, firstRow, batchSize, keepDictionaries, maxPageSize, mapping);
    }

    @Override
    public String toString() {
        return "ScanOptions[projection=" + projection.columns().size() + " columns, rowGroups="
                + Arrays.toString(rowGroups) + ", firstRow=" + firstRow + ", batchSize=" + batchSize
                + ", keepDictionaries=" + keepDictionaries + ", maxPageSize=" + maxPageSize + ", nameMapping="
                + (nameMapping != null) + "]";
    }
}
