package dev.isthmus.iceberg.source;

import dev.isthmus.arrow.cdata.ArenaRuns;
import dev.isthmus.iceberg.source.parquet.ExportedProjections;
import dev.isthmus.iceberg.source.parquet.ScanMemory;
import java.util.List;
import java.util.Locale;
import java.util.NoSuchElementException;
import org.apache.flink.connector.base.source.reader.RecordsWithSplitIds;
import org.apache.flink.table.data.RowData;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.flink.source.reader.RecordAndPosition;
import org.apache.iceberg.flink.source.split.IcebergSourceSplit;
import org.apache.iceberg.io.CloseableIterator;

/**
 * The batches of one split: its file scan tasks in order from the split's position, each read
 * by the task reader the function picks. Iceberg's split reader finishes the split when this
 * has no more batches.
 */
final class NativeSplitIterator implements CloseableIterator<RecordsWithSplitIds<RecordAndPosition<RowData>>> {
    private final NativeReaderFunction function;
    private final String splitId;
    private final List<FileScanTask> tasks;
    /** The split's batches share arenas across its files: one arena close per run, not per small file. */
    private final ArenaRuns runs = ArenaRuns.forBatches();
    /** The split's files share their projection: built and exported once, not per file. */
    private final ExportedProjections projections;
    /** The split's scans share the library's memory: a file decodes into what an earlier one left mapped. */
    private final ScanMemory memory = new ScanMemory();

    private final int startFileOffset;
    /** The next file's index in the split: what positions report. */
    private int fileOffset;
    /**
     * Whether a file of this read has had records. Until one has, the records to skip carry over
     * files without records, as Iceberg's {@code DataIterator.seek} passes over them.
     */
    private boolean pastEmptyFiles;

    private long recordOffset;
    private TaskReader current;
    private RecordsWithSplitIds<RecordAndPosition<RowData>> pending;

    NativeSplitIterator(NativeReaderFunction function, IcebergSourceSplit split) {
        this.function = function;
        this.splitId = split.splitId();
        this.tasks = List.copyOf(split.task().files());
        if (split.fileOffset() >= tasks.size()) {
            throw new IllegalStateException(String.format(
                    Locale.ROOT,
                    "Invalid starting file offset %d for combined scan task with %d files: %s",
                    split.fileOffset(),
                    tasks.size(),
                    split.task()));
        }
        this.startFileOffset = split.fileOffset();
        this.fileOffset = split.fileOffset();
        this.recordOffset = split.recordOffset();
        this.projections = new ExportedProjections(function.tracker());
    }

    @Override
    public boolean hasNext() {
        while (pending == null) {
            if (current == null) {
                // Past the limit, Iceberg's reader ends the split without opening further files.
                if (fileOffset >= tasks.size() || function.limitReached()) {
                    if (!pastEmptyFiles && recordOffset > 0 && fileOffset >= tasks.size()) {
                        // As DataIterator.seek fails when no file from the position has the records to skip.
                        throw new IllegalStateException(String.format(
                                Locale.ROOT,
                                "Invalid starting record offset %d for split %s: no file from offset %d has records",
                                recordOffset,
                                splitId,
                                startFileOffset));
                    }
                    return false;
                }
                current = function.openTask(
                        splitId, fileOffset, recordOffset, tasks.get(fileOffset), runs, projections, memory);
            }
            pending = current.next();
            if (pending == null) {
                TaskReader done = current;
                current = null;
                fileOffset++;
                boolean empty = done.empty();
                done.close();
                if (pastEmptyFiles || !empty) {
                    pastEmptyFiles = true;
                    recordOffset = 0;
                }
            } else {
                pastEmptyFiles = true;
            }
        }
        return true;
    }

    @Override
    public RecordsWithSplitIds<RecordAndPosition<RowData>> next() {
        if (!hasNext()) {
            throw new NoSuchElementException("split " + splitId + " has no more records");
        }
        RecordsWithSplitIds<RecordAndPosition<RowData>> records = pending;
        pending = null;
        return records;
    }

    @Override
    public void close() {
        try {
            if (pending != null) {
                pending.recycle();
                pending = null;
            }
        } finally {
            try {
                if (current != null) {
                    current.close();
                    current = null;
                }
            } finally {
                try {
                    runs.close();
                } finally {
                    try {
                        projections.close();
                    } finally {
                        memory.close();
                    }
                }
            }
        }
    }
}
