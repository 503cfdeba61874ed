package dev.isthmus.iceberg.source;

import dev.isthmus.arrow.flink.vector.ArrowColumnarBatch;
import dev.isthmus.arrow.memory.MemoryTracker;
import dev.isthmus.iceberg.source.parquet.NativeParquetFile;
import dev.isthmus.iceberg.source.parquet.NativeParquetScan;
import dev.isthmus.iceberg.source.parquet.ScanOptions;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.stream.IntStream;
import org.apache.flink.table.data.columnar.vector.BytesColumnVector;
import org.apache.flink.table.data.columnar.vector.ColumnVector;
import org.apache.flink.table.data.columnar.vector.LongColumnVector;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.MetadataColumns;
import org.apache.iceberg.Schema;
import org.apache.iceberg.deletes.PositionDeleteIndex;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.IOUtil;
import org.apache.iceberg.util.ContentFileUtil;

/**
 * The rows of one data file that its task's position delete files delete: their positions,
 * sorted and distinct, decoded natively from Parquet delete files' {@code file_path} and
 * {@code pos} columns, or taken from a deletion vector (format v3: a Roaring bitmap in a Puffin
 * blob, which Iceberg's {@code PositionDeleteIndex} deserializes). Iceberg's planning has already
 * applied the sequence-number rules, so every delete file of the task applies; a file that
 * deletes rows of several data files contributes only the rows of this one.
 *
 * <p>Batches take their live rows from {@link #live} as a selection, so a deleted row is never
 * materialized, and a row group whose rows are all deleted is skipped before decoding
 * ({@link #deletesAll}).
 */
final class PositionDeletes {
    static final PositionDeletes NONE = new PositionDeletes(new long[0], 0);
    private static final Schema PATH_AND_POSITION =
            new Schema(MetadataColumns.DELETE_FILE_PATH, MetadataColumns.DELETE_FILE_POS);
    private static final Schema POSITION = new Schema(MetadataColumns.DELETE_FILE_POS);

    private final long[] positions;
    private final int rowGroupsPruned;

    private PositionDeletes(long[] positions, int rowGroupsPruned) {
        this.positions = positions;
        this.rowGroupsPruned = rowGroupsPruned;
    }

    /**
     * Why the native reader cannot apply {@code deletes}, of either kind, or {@code null} if it may
     * ({@link EqualityDeletes#refusal} checks the equality deletes' columns).
     */
    static String refusal(List<DeleteFile> deletes) {
        for (DeleteFile delete : deletes) {
            if (delete.keyMetadata() != null) {
                return "it has encrypted delete files";
            }
            if (delete.format() == FileFormat.PUFFIN) {
                if (delete.content() != FileContent.POSITION_DELETES
                        || delete.contentOffset() == null
                        || delete.contentSizeInBytes() == null
                        || delete.referencedDataFile() == null) {
                    return "it has a Puffin delete file that is not a deletion vector of one data file";
                }
            } else if (delete.format() != FileFormat.PARQUET) {
                return "it has " + delete.format() + " delete files";
            }
        }
        return null;
    }

    /**
     * Decodes the positions the position delete files among {@code deletes} delete from
     * {@code dataFile}; the delete files must be ones {@link #refusal} accepts.
     *
     * @param limit how many positions it may hold
     * @throws DeleteLimitException past {@code limit}, naming the data file and the limit
     */
    static PositionDeletes load(
            String dataFile,
            List<DeleteFile> deletes,
            FileIO io,
            NativeReadOptions options,
            MemoryTracker tracker,
            long limit) {
        if (deletes.stream().noneMatch(d -> d.content() == FileContent.POSITION_DELETES)) {
            return NONE;
        }
        byte[] path = dataFile.getBytes(StandardCharsets.UTF_8);
        long[] positions = new long[16];
        int count = 0;
        int pruned = 0;
        boolean sorted = true;
        for (DeleteFile delete : deletes) {
            if (delete.content() != FileContent.POSITION_DELETES) {
                continue;
            }
            if (delete.format() == FileFormat.PUFFIN) {
                if (!dataFile.equals(delete.referencedDataFile())) {
                    // Planning attaches a vector to the file it names: anything else would lose deletes.
                    throw new IllegalStateException("The deletion vector in " + delete.location() + " names "
                            + delete.referencedDataFile() + ", not the task's data file " + dataFile);
                }
                long cardinality = delete.recordCount();
                if (count + cardinality > limit) {
                    throw tooMany(dataFile, limit);
                }
                if (count + cardinality > positions.length) {
                    positions = Arrays.copyOf(positions, (int) (count + cardinality));
                }
                long[] into = positions;
                int[] at = {count};
                readDeletionVector(delete, io).forEach(position -> {
                    if (at[0] == into.length) {
                        throw new IllegalStateException("The deletion vector in " + delete.location() + " for "
                                + dataFile + " holds more positions than its record count, " + cardinality);
                    }
                    into[at[0]++] = position;
                });
                for (int i = Math.max(count, 1); i < at[0]; i++) {
                    sorted &= positions[i] >= positions[i - 1];
                }
                count = at[0];
                continue;
            }
            // Named by the delete file's metadata, or by its file_path bounds when they are equal:
            // then its paths, most of what it holds, need not be decoded.
            boolean onlyThisFile = dataFile.equals(ContentFileUtil.referencedDataFileLocation(delete));
            try (NativeParquetFile file = NativeTaskReader.openFile(delete.location(), io, options)) {
                // A file naming other data files too (its metadata does not scope it, as with
                // Spark's partition-scoped deletes) is read only in the row groups whose
                // file_path bounds may hold this one; its rows are sorted by path, so most go.
                int[] groups = onlyThisFile ? null : rowGroupsNaming(file, dataFile);
                if (groups != null) {
                    pruned += file.rowGroupCount() - groups.length;
                    if (groups.length == 0) {
                        continue;
                    }
                }
                ScanOptions scanOptions = new ScanOptions(
                        onlyThisFile ? POSITION : PATH_AND_POSITION, groups, 0, options.batchSize(), false);
                try (NativeParquetScan scan = file.scan(scanOptions, tracker)) {
                    while (scan.hasNext()) {
                        try (ArrowColumnarBatch batch = scan.next()) {
                            ColumnVector[] columns = batch.batch().columns;
                            BytesColumnVector paths = onlyThisFile ? null : (BytesColumnVector) columns[0];
                            LongColumnVector pos = (LongColumnVector) columns[columns.length - 1];
                            int rows = batch.numRows();
                            for (int i = 0; i < rows; i++) {
                                if (!onlyThisFile && !samePath(paths.getBytes(i), path)) {
                                    continue;
                                }
                                if (count == positions.length) {
                                    if (count >= limit) {
                                        throw tooMany(dataFile, limit);
                                    }
                                    positions = Arrays.copyOf(positions, (int)
                                            Math.min(limit, Math.min((long) count * 2, Integer.MAX_VALUE - 8)));
                                }
                                long position = pos.getLong(i);
                                sorted &= count == 0 || position >= positions[count - 1];
                                positions[count++] = position;
                            }
                        }
                    }
                }
            }
        }
        if (count > limit) {
            throw tooMany(dataFile, limit);
        }
        long[] kept = Arrays.copyOf(positions, count);
        if (!sorted) {
            Arrays.sort(kept);
        }
        return new PositionDeletes(distinct(kept), pruned);
    }

    /** The deletion vector's blob, read through the table's FileIO and deserialized by Iceberg. */
    private static PositionDeleteIndex readDeletionVector(DeleteFile delete, FileIO io) {
        long size = delete.contentSizeInBytes();
        if (size < 0 || size > Integer.MAX_VALUE - 8) {
            throw new IllegalStateException(
                    "The deletion vector in " + delete.location() + " claims " + size + " bytes");
        }
        byte[] blob = new byte[(int) size];
        try {
            IOUtil.readFully(io.newInputFile(delete.location()), delete.contentOffset(), blob, 0, blob.length);
            return PositionDeleteIndex.deserialize(blob, delete);
        } catch (IOException e) {
            throw new UncheckedIOException(
                    "Cannot read the deletion vector at offset " + delete.contentOffset() + " of " + delete.location(),
                    e);
        } catch (RuntimeException e) {
            throw new IllegalStateException(
                    "Cannot read the deletion vector at offset " + delete.contentOffset() + " of " + delete.location()
                            + ": " + e.getMessage(),
                    e);
        }
    }

    private static DeleteLimitException tooMany(String dataFile, long limit) {
        return new DeleteLimitException(
                "its position deletes exceed maxDeletePositions",
                String.format(
                        Locale.ROOT,
                        "its position delete files delete more than %d rows of %s (maxDeletePositions, or"
                                + " 'isthmus.max-delete-positions' in SQL)",
                        limit,
                        dataFile));
    }

    private static boolean samePath(BytesColumnVector.Bytes value, byte[] path) {
        return value.len == path.length
                && Arrays.equals(value.data, value.offset, value.offset + value.len, path, 0, path.length);
    }

    private static long[] distinct(long[] sorted) {
        int n = 0;
        for (int i = 0; i < sorted.length; i++) {
            if (i == 0 || sorted[i] != sorted[i - 1]) {
                sorted[n++] = sorted[i];
            }
        }
        return n == sorted.length ? sorted : Arrays.copyOf(sorted, n);
    }

    /**
     * The row groups of a position delete file whose {@code file_path} statistics may hold
     * {@code dataFile}, in order: Iceberg's row-group metrics filter decides, on
     * {@code file_path = dataFile} ({@link RowGroupPruner}); {@code null} (all of them) for a file
     * whose columns carry no {@code file_path} id.
     */
    private static int[] rowGroupsNaming(NativeParquetFile file, String dataFile) {
        int pathId = MetadataColumns.DELETE_FILE_PATH.fieldId();
        if (file.columns().stream().noneMatch(c -> c.fieldId() == pathId)) {
            // Without file_path's id the pruner would read the column as missing (all null) and
            // skip every row group; read them all, so the scan refuses the file as it would.
            return null;
        }
        RowGroupPruner pruner = RowGroupPruner.of(
                file,
                file.columns(),
                PATH_AND_POSITION,
                Expressions.equal(MetadataColumns.DELETE_FILE_PATH.name(), dataFile),
                true);
        return IntStream.range(0, file.rowGroupCount())
                .filter(pruner::mightMatch)
                .toArray();
    }

    /** Row groups of the delete files not read because their {@code file_path} bounds leave out the data file. */
    int rowGroupsPruned() {
        return rowGroupsPruned;
    }

    /** How many distinct positions are deleted. */
    int size() {
        return positions.length;
    }

    /** Whether any of the {@code rows} rows from position {@code first} is deleted. */
    boolean deletesAny(long first, long rows) {
        return rows > 0 && lowerBound(first + rows) > lowerBound(first);
    }

    /** Whether every one of the {@code rows} rows from position {@code first} is deleted. */
    boolean deletesAll(long first, long rows) {
        return rows > 0 && lowerBound(first + rows) - lowerBound(first) == rows;
    }

    /**
     * Writes the indexes of the live rows among the {@code rows} rows from position {@code first}
     * into {@code selection}, in order, and returns how many there are.
     */
    int live(long first, int rows, int[] selection) {
        int next = lowerBound(first);
        int selected = 0;
        for (int i = 0; i < rows; i++) {
            if (next < positions.length && positions[next] == first + i) {
                next++;
            } else {
                selection[selected++] = i;
            }
        }
        return selected;
    }

    /** The index of the first position at or after {@code position}. */
    private int lowerBound(long position) {
        int low = 0;
        int high = positions.length;
        while (low < high) {
            int mid = (low + high) >>> 1;
            if (positions[mid] < position) {
                low = mid + 1;
            } else {
                high = mid;
            }
        }
        return low;
    }
}
