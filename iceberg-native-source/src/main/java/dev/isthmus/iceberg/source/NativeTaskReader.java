package dev.isthmus.iceberg.source;

import dev.isthmus.arrow.cdata.ArenaRuns;
import dev.isthmus.arrow.flink.vector.ArrowColumnarBatch;
import dev.isthmus.arrow.flink.vector.ArrowRowData;
import dev.isthmus.arrow.flink.vector.BinaryRowTransposer;
import dev.isthmus.arrow.flink.vector.BinaryRows;
import dev.isthmus.arrow.memory.MemoryTracker;
import dev.isthmus.iceberg.source.parquet.ExportedProjections;
import dev.isthmus.iceberg.source.parquet.NativeParquetFile;
import dev.isthmus.iceberg.source.parquet.NativeParquetScan;
import dev.isthmus.iceberg.source.parquet.ScanMemory;
import dev.isthmus.iceberg.source.parquet.ScanOptions;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.IntPredicate;
import org.apache.flink.connector.base.source.reader.RecordsWithSplitIds;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.columnar.vector.ColumnVector;
import org.apache.flink.table.data.columnar.vector.VectorizedColumnBatch;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.MetadataColumns;
import org.apache.iceberg.Schema;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.flink.FlinkSourceFilter;
import org.apache.iceberg.flink.data.RowDataUtil;
import org.apache.iceberg.flink.source.reader.RecordAndPosition;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.mapping.NameMapping;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.TypeUtil;
import org.apache.iceberg.types.Types;

/**
 * One Parquet file scan task read by the native decoder, with the stock reader's semantics:
 *
 * <ul>
 *   <li>the row groups are those whose midpoint lies in the task's byte range, as parquet-java
 *       selects them for a split ({@code ParquetMetadataConverter.filterFileMetaDataByMidpoint});
 *   <li>columns the task supplies as constants (identity-partition values, {@code _file},
 *       {@code _spec_id}) are constant vectors, whatever the file holds, as in Iceberg's readers;
 *       the row-lineage columns ({@code _row_id}, {@code _last_updated_sequence_number}) are
 *       decoded and filled in from the data file's first row id and sequence number ({@link RowLineage});
 *       fields the file lacks that have an initial default read it: top-level ones as constant
 *       vectors, nested ones filled into their structs ({@link NestedDefaults}); a top-level
 *       struct none of whose projected fields the file holds is built from its defaults
 *       ({@link DefaultedStructVector});
 *   <li>when the task's residual filter is not trivially true, row groups its statistics or,
 *       where every value is dictionary-encoded, its dictionaries rule out are skipped (as
 *       Iceberg's Parquet reader skips them) and rows are filtered with the source's filters, as
 *       Iceberg's {@code FlinkSourceFilter} filters them;
 *   <li>rows the task's position delete files delete ({@link PositionDeletes}) are left out of
 *       each batch's selection, and a row group they delete whole is not decoded; so are rows
 *       whose key its equality delete files hold ({@link EqualityDeletes}), their key columns
 *       decoded whether projected or not;
 *   <li>positions count emitted records, as Iceberg's {@code DataIterator} counts them (after
 *       deletes and the filter), so a position taken by either reader resumes in the other.
 * </ul>
 *
 * <p>Rows are emitted as {@code ArrowRowData} over each batch, or, given binary-row buffers,
 * transposed into {@code BinaryRowData} ({@link NativeReadOptions.RowFormat}).
 */
final class NativeTaskReader implements TaskReader {
    private static final int CONSTANT = -1;
    private static final int POSITION = -2;

    private final String splitId;
    private final int fileOffset;
    private final NativeParquetFile file;
    private final NativeParquetScan scan;
    private final ColumnVector[] constants;
    /** Per projected column: its index in the decoded batch, {@link #CONSTANT} or {@link #POSITION}. */
    private final int[] scanColumn;
    /** Per projected column: how a row-lineage column fills in what its decoded column lacks, else {@code null}. */
    private final RowLineage[] lineage;

    private final RowPositions positions;
    private final PositionDeletes deletes;
    private final EqualityDeletes equalityDeletes;
    /** The decoded batch's column of each equality key, by field id. */
    private final Map<Integer, Integer> keyColumns;

    private final FlinkSourceFilter rowFilter;
    /** {@code null} for rows of the read schema. */
    private final NestedProjection nested;
    /** Defaults of nested fields the file lacks, or {@code null} if it lacks none. */
    private final NestedDefaults defaults;
    /** Per projected column decoded whole: its whole type and the projection's; else {@code null}. */
    private final Type[][] pruned;

    private final RecordLimiter limiter;
    private final NativeReaderMetrics metrics;
    /** {@code null} for columnar rows. */
    private final BinaryRowBuffers binaryRows;
    /** For binary rows: the task thread's transposer, which {@link BinaryRowRecords} run, and this (the fetcher) thread's. */
    private final BinaryRowTransposer transposer;

    private final BinaryRowTransposer fetcherTransposer;
    /** Rows of the selected row groups, or -1 when rows are selected (then {@link #selectedRows} counts). */
    private final long rowsInGroups;
    /** Records to skip before the first one emitted, when rows are selected. */
    private long skip;
    /** Rows selected so far, the skipped ones included. */
    private long selectedRows;

    private long emitted;

    private NativeTaskReader(
            String splitId,
            int fileOffset,
            NativeParquetFile file,
            NativeParquetScan scan,
            ColumnVector[] constants,
            int[] scanColumn,
            RowLineage[] lineage,
            RowPositions positions,
            PositionDeletes deletes,
            EqualityDeletes equalityDeletes,
            Map<Integer, Integer> keyColumns,
            FlinkSourceFilter rowFilter,
            NestedProjection nested,
            NestedDefaults defaults,
            Type[][] pruned,
            RecordLimiter limiter,
            NativeReaderMetrics metrics,
            BinaryRowBuffers binaryRows,
            long rowsInGroups,
            long skip,
            long emitted) {
        this.splitId = splitId;
        this.fileOffset = fileOffset;
        this.file = file;
        this.scan = scan;
        this.constants = constants;
        this.scanColumn = scanColumn;
        this.lineage = lineage;
        this.positions = positions;
        this.deletes = deletes;
        this.equalityDeletes = equalityDeletes;
        this.keyColumns = keyColumns;
        this.rowFilter = rowFilter;
        this.nested = nested;
        this.defaults = defaults;
        this.pruned = pruned;
        this.limiter = limiter;
        this.metrics = metrics;
        this.binaryRows = binaryRows;
        this.transposer = binaryRows == null ? null : new BinaryRowTransposer(binaryRows.rowType());
        this.fetcherTransposer = binaryRows == null ? null : new BinaryRowTransposer(binaryRows.rowType());
        this.rowsInGroups = rowsInGroups;
        this.skip = skip;
        this.emitted = emitted;
    }

    /**
     * Opens {@code task} at record {@code recordOffset}.
     *
     * @param constants the task's constant columns by field id, in Flink's representation
     * @param nameMapping the table's name mapping, for files without field ids, or {@code null}
     * @param filter the source's filters combined, or {@code null} for none
     * @param nested the fields emitted as columns of their own, or {@code null} for rows of {@code readSchema}
     * @param binaryRows where to transpose batches to binary rows, or {@code null} for columnar rows
     * @param runs the arena runs the split's batches share
     * @param projections the projections the split's scans share
     * @param memory the library memory the split's scans share
     * @param deletes the rows of the task's file its position delete files delete
     * @param equalityDeletes the keys its equality delete files delete
     * @throws dev.isthmus.ffm.NativeException.Unsupported if the decoder cannot read the file
     */
    static NativeTaskReader open(
            String splitId,
            int fileOffset,
            long recordOffset,
            FileScanTask task,
            Map<Integer, ?> constants,
            Schema tableSchema,
            Schema readSchema,
            NameMapping nameMapping,
            Expression filter,
            boolean caseSensitive,
            FileIO io,
            NativeReadOptions options,
            RecordLimiter limiter,
            NativeReaderMetrics metrics,
            NestedProjection nested,
            BinaryRowBuffers binaryRows,
            MemoryTracker tracker,
            ArenaRuns runs,
            ExportedProjections projections,
            ScanMemory memory,
            PositionDeletes deletes,
            EqualityDeletes equalityDeletes) {
        NativeParquetFile file = openFile(task.file().location(), io, options);
        try {
            List<NativeParquetFile.Column> columns = file.columns(nameMapping);
            // A file without ids of its own is read through the name mapping.
            boolean byName = file.columns().stream().noneMatch(c -> c.fieldId() >= 0);
            List<Types.NestedField> projected = readSchema.columns();
            ColumnVector[] constantColumns = new ColumnVector[projected.size()];
            int[] scanColumn = new int[projected.size()];
            RowLineage[] lineage = new RowLineage[projected.size()];
            Type[][] prunedColumns = new Type[projected.size()][];
            Set<Integer> fileIds = new HashSet<>();
            columns.forEach(c -> fileIds.add(c.fieldId()));
            List<Types.NestedField> fromFile = new ArrayList<>();
            // The table's struct, not the projection's: the file may hold fields that are not projected.
            IntPredicate structInFile = id -> {
                Types.NestedField whole = tableSchema.findField(id);
                return whole != null
                        && whole.type().isNestedType()
                        && NestedDefaults.holdsAny(whole.type(), fileIds::contains);
            };
            for (int i = 0; i < projected.size(); i++) {
                Types.NestedField field = projected.get(i);
                int id = field.fieldId();
                if (id == MetadataColumns.ROW_ID.fieldId()
                        || id == MetadataColumns.LAST_UPDATED_SEQUENCE_NUMBER.fieldId()) {
                    // As Iceberg's readers: null unless the data file has a first row id (and a sequence number).
                    Long firstRowId = (Long) constants.get(MetadataColumns.ROW_ID.fieldId());
                    Long base = (Long) constants.get(id);
                    if (firstRowId == null || base == null) {
                        constantColumns[i] = new ConstantVector(null);
                        scanColumn[i] = CONSTANT;
                    } else {
                        lineage[i] = id == MetadataColumns.ROW_ID.fieldId()
                                ? RowLineage.rowId(base)
                                : RowLineage.lastUpdated(base);
                        scanColumn[i] = fromFile.size();
                        fromFile.add(field);
                    }
                } else if (constants.containsKey(id)) {
                    constantColumns[i] = new ConstantVector(constants.get(id));
                    scanColumn[i] = CONSTANT;
                } else if (id == MetadataColumns.IS_DELETED.fieldId()) {
                    // With delete files it is the stock reader's task, so no row emitted here is deleted.
                    constantColumns[i] = new ConstantVector(false);
                    scanColumn[i] = CONSTANT;
                } else if (id == MetadataColumns.ROW_POSITION.fieldId()) {
                    scanColumn[i] = POSITION;
                } else if (field.initialDefault() != null && !holds(columns, id)) {
                    // A file written before the column was added: Iceberg reads its initial default.
                    constantColumns[i] =
                            new ConstantVector(RowDataUtil.convertConstant(field.type(), field.initialDefault()));
                    scanColumn[i] = CONSTANT;
                } else if (field.type() instanceof Types.StructType struct
                        && !NestedDefaults.holdsAny(struct, fileIds::contains)
                        && structInFile.test(id)) {
                    // The decoder reads no struct without a projected field in the file.
                    constantColumns[i] = NestedDefaults.structWithoutFileFields(field.name(), struct);
                    scanColumn[i] = CONSTANT;
                } else {
                    Types.NestedField read = field;
                    if (byName && field.type().isNestedType()) {
                        // Decoded as the table has it (its fields matched by position), then pruned.
                        Types.NestedField whole = tableSchema.findField(id);
                        if (whole != null
                                && !whole.type().equals(field.type())
                                && PrunedStructs.supports(whole.type(), field.type())) {
                            read = whole;
                            prunedColumns[i] = new Type[] {whole.type(), field.type()};
                        }
                        requireSameLeaves(columns, read);
                    }
                    scanColumn[i] = fromFile.size();
                    fromFile.add(read);
                }
            }
            NestedDefaults defaults = NestedDefaults.of(fromFile, fileIds::contains, structInFile);
            Map<Integer, Integer> keyColumns = keyColumns(equalityDeletes, fromFile, constants, columns);
            boolean filterRows = filter != null && !isAlwaysTrue(task.residual());
            // Either way the position to resume at counts selected rows, not the file's.
            boolean selecting = filterRows || deletes.size() > 0 || !equalityDeletes.isEmpty();
            RowGroupPruner pruner =
                    filterRows ? RowGroupPruner.of(file, columns, tableSchema, task.residual(), caseSensitive) : null;
            DictionaryPruner dictionaries = filterRows
                    ? DictionaryPruner.of(file, columns, tableSchema, task.residual(), caseSensitive, tracker)
                    : null;
            List<Integer> groups = new ArrayList<>();
            int pruned = 0;
            int prunedByDictionary = 0;
            int deleted = 0;
            long rows = 0;
            for (int rg : rowGroupsInRange(file, task.start(), task.length())) {
                NativeParquetFile.RowGroup group = file.rowGroup(rg);
                if (deletes.deletesAll(group.firstRow(), group.rowCount())) {
                    deleted++;
                } else if (pruner != null && !pruner.mightMatch(rg)) {
                    pruned++;
                } else if (dictionaries != null && !dictionaries.mightMatch(rg)) {
                    // Only row groups the statistics kept: their dictionary page is one small read.
                    prunedByDictionary++;
                } else {
                    groups.add(rg);
                    rows += group.rowCount();
                }
            }
            // A file without rows leaves the skip to the next file (NativeSplitIterator).
            if (!selecting && rows > 0 && recordOffset > rows) {
                throw new IllegalStateException(String.format(
                        Locale.ROOT,
                        "Invalid starting record offset %d for file %d (%s, %d rows in its range)",
                        recordOffset,
                        fileOffset,
                        task.file().location(),
                        rows));
            }
            ScanOptions scanOptions = new ScanOptions(
                            projections.schema(fromFile),
                            groups.stream().mapToInt(Integer::intValue).toArray(),
                            selecting ? 0 : recordOffset,
                            options.batchSize(),
                            false)
                    .withNameMapping(nameMapping);
            FlinkSourceFilter rowFilter = filterRows ? new FlinkSourceFilter(readSchema, filter, caseSensitive) : null;
            NativeParquetScan scan = file.scan(scanOptions, tracker, runs, projections, memory);
            try {
                metrics.nativeTask(
                        groups.size(),
                        pruned,
                        prunedByDictionary,
                        chunkBytes(file, columns, groups, scanOptions.projection()));
                metrics.positionDeletes(
                        (int) task.deletes().stream()
                                .filter(d -> d.content() == FileContent.POSITION_DELETES)
                                .count(),
                        deletes.size(),
                        deleted,
                        deletes.rowGroupsPruned());
                metrics.equalityDeletes(equalityDeletes.files(), equalityDeletes.keys(), equalityDeletes.cacheHits());
                RowPositions positions = new RowPositions(file, groups, selecting ? 0 : recordOffset);
                return new NativeTaskReader(
                        splitId,
                        fileOffset,
                        file,
                        scan,
                        constantColumns,
                        scanColumn,
                        lineage,
                        positions,
                        deletes,
                        equalityDeletes,
                        keyColumns,
                        rowFilter,
                        nested,
                        defaults,
                        prunedColumns,
                        limiter,
                        metrics,
                        binaryRows,
                        selecting ? -1 : rows,
                        selecting ? recordOffset : 0,
                        recordOffset);
            } catch (RuntimeException e) {
                closeAfter(e, scan);
                throw e;
            }
        } catch (RuntimeException e) {
            closeAfter(e, file);
            throw e;
        }
    }

    /**
     * Where each equality key column is in the decoded batch, adding to {@code fromFile} the key
     * columns not read already. A key column the task supplies as a constant (an identity-partition
     * value) is read from the file too, which holds the same value; a column the file lacks is
     * decoded as nulls, as Iceberg reads it, unless Iceberg would give it a value.
     *
     * @throws UnsupportedOperationException if the file lacks a key column that is a constant or
     *     has a default
     */
    private static Map<Integer, Integer> keyColumns(
            EqualityDeletes equalityDeletes,
            List<Types.NestedField> fromFile,
            Map<Integer, ?> constants,
            List<NativeParquetFile.Column> fileColumns) {
        if (equalityDeletes.isEmpty()) {
            return Map.of();
        }
        Map<Integer, Integer> columns = new HashMap<>();
        for (int i = 0; i < fromFile.size(); i++) {
            columns.put(fromFile.get(i).fieldId(), i);
        }
        for (Types.NestedField key : equalityDeletes.keyFields()) {
            boolean filled = constants.containsKey(key.fieldId()) || key.initialDefault() != null;
            if (filled && !holds(fileColumns, key.fieldId())) {
                throw new UnsupportedOperationException("the data file does not hold the equality key column "
                        + key.name() + ", which is a partition value or has a default");
            }
            if (!columns.containsKey(key.fieldId())) {
                columns.put(key.fieldId(), fromFile.size());
                fromFile.add(key);
            }
        }
        return columns;
    }

    /**
     * Requires the file's column for the nested {@code field}, if it has one, to hold exactly the
     * field's leaves, in order, for a file read through a name mapping: the decoder matches the
     * fields of such a file's structs by position (it matches them by id in files that have ids),
     * while Iceberg matches them by mapped name, so a file whose nested fields were reordered,
     * renamed away or replaced is left to Iceberg's reader. (A projection of some of the fields
     * decodes the table's whole column and prunes it, {@link PrunedStructs}.)
     *
     * @throws UnsupportedOperationException if the file's leaves under the column differ
     */
    private static void requireSameLeaves(List<NativeParquetFile.Column> columns, Types.NestedField field) {
        List<Integer> expected = new ArrayList<>();
        leafIds(field.type(), expected);
        Set<String> tops = new HashSet<>();
        for (NativeParquetFile.Column column : columns) {
            if (expected.contains(column.fieldId())) {
                tops.add(topLevelName(column));
            }
        }
        if (tops.isEmpty()) {
            return; // The file lacks the column: it reads as null.
        }
        List<Integer> actual = columns.stream()
                .filter(c -> tops.contains(topLevelName(c)))
                .map(NativeParquetFile.Column::fieldId)
                .toList();
        if (!actual.equals(expected)) {
            throw new UnsupportedOperationException("the file's nested column " + field.name() + " holds the fields "
                    + actual + " where the table's has " + expected + " (nested fields are matched by position)");
        }
    }

    private static String topLevelName(NativeParquetFile.Column column) {
        int dot = column.path().indexOf('.');
        return dot < 0 ? column.path() : column.path().substring(0, dot);
    }

    /** The ids of {@code type}'s primitive leaves in Parquet's column order. */
    private static void leafIds(org.apache.iceberg.types.Type type, List<Integer> out) {
        for (Types.NestedField child : type.asNestedType().fields()) {
            if (child.type().isPrimitiveType()) {
                out.add(child.fieldId());
            } else {
                leafIds(child.type(), out);
            }
        }
    }

    /** Whether a file of {@code columns} holds the primitive column {@code fieldId}. */
    private static boolean holds(List<NativeParquetFile.Column> columns, int fieldId) {
        return columns.stream().anyMatch(c -> c.fieldId() == fieldId);
    }

    /** Closes {@code resource} after {@code failure}, which a failure to close must not hide. */
    private static void closeAfter(RuntimeException failure, AutoCloseable resource) {
        try {
            resource.close();
        } catch (Exception closing) {
            failure.addSuppressed(closing);
        }
    }

    /** The stored bytes of {@code projection}'s column chunks in {@code groups}: what the decoder reads. */
    static long chunkBytes(
            NativeParquetFile file, List<NativeParquetFile.Column> columns, List<Integer> groups, Schema projection) {
        Set<Integer> ids = TypeUtil.getProjectedIds(projection);
        long bytes = 0;
        if (columns.stream().allMatch(c -> ids.contains(c.fieldId()))) {
            // Every leaf read: the row groups' totals, not a library call per chunk, which opening
            // a small file's task paid per leaf (docs/benchmarks.md, A split's projection, built once).
            for (int rg : groups) {
                bytes += file.rowGroup(rg).compressedSize();
            }
            return bytes;
        }
        for (int leaf = 0; leaf < columns.size(); leaf++) {
            if (ids.contains(columns.get(leaf).fieldId())) {
                for (int rg : groups) {
                    bytes += file.columnChunk(rg, leaf).compressedSize();
                }
            }
        }
        return bytes;
    }

    private static boolean isAlwaysTrue(Expression residual) {
        return residual == null || residual.op() == Expression.Operation.TRUE;
    }

    /** The library reads {@code file:} locations itself; everything else goes through the FileIO. */
    static NativeParquetFile openFile(String location, FileIO io, NativeReadOptions options) {
        if (options.localReads() && location.startsWith("file:")) {
            String path = location.substring("file:".length());
            if (path.startsWith("///")) {
                path = path.substring(2);
            }
            return NativeParquetFile.open(Path.of(path));
        }
        return NativeParquetFile.open(io.newInputFile(location));
    }

    /**
     * The row groups parquet-java gives a split of {@code [start, start + length)}: those whose
     * midpoint (first column chunk's start plus half the chunks' stored size) lies in the range.
     */
    static List<Integer> rowGroupsInRange(NativeParquetFile file, long start, long length) {
        List<Integer> groups = new ArrayList<>();
        for (int rg = 0; rg < file.rowGroupCount(); rg++) {
            if (file.columns().isEmpty()) {
                break;
            }
            long first = file.columnChunk(rg, 0).byteOffset();
            long midpoint = first + file.rowGroup(rg).compressedSize() / 2;
            if (midpoint >= start && midpoint < start + length) {
                groups.add(rg);
            }
        }
        return groups;
    }

    @Override
    public RecordsWithSplitIds<RecordAndPosition<RowData>> next() {
        while (!limiter.reached()) {
            long start = System.nanoTime();
            boolean more = scan.hasNext();
            metrics.decoded(System.nanoTime() - start);
            if (!more) {
                if (skip > 0 && selectedRows > 0) {
                    throw new IllegalStateException(String.format(
                            Locale.ROOT,
                            "Invalid starting record offset %d for file %d (%s, %d records)",
                            emitted,
                            fileOffset,
                            file.name(),
                            selectedRows));
                }
                break;
            }
            ArrowColumnarBatch batch = scan.next();
            RecordsWithSplitIds<RecordAndPosition<RowData>> records;
            try {
                records = select(batch);
            } catch (RuntimeException e) {
                batch.close();
                throw e;
            }
            // The records read the batch until they are recycled (binary ones: until transposed).
            if (records == null) {
                batch.close();
            }
            if (records != null) {
                return records;
            }
        }
        return null;
    }

    /** The batch's records after the filter, the resume skip and the limit; {@code null} if none are left. */
    private RecordsWithSplitIds<RecordAndPosition<RowData>> select(ArrowColumnarBatch batch) {
        int rows = batch.numRows();
        long firstPosition = positions.next(rows);
        VectorizedColumnBatch columns = columns(batch, firstPosition);
        int[] selection = null;
        int selected = rows;
        // A batch no delete touches, without a filter, needs no selection.
        if (rowFilter != null || !equalityDeletes.isEmpty() || deletes.deletesAny(firstPosition, rows)) {
            selection = new int[rows];
            selected = deletes.live(firstPosition, rows, selection);
            if (!equalityDeletes.isEmpty()) {
                selected = equalityDeletes.live(batch.batch().columns, keyColumns, selection, selected);
            }
            metrics.deletedRows(rows - selected);
            if (rowFilter != null) {
                int kept = 0;
                ArrowRowData row = new ArrowRowData(columns);
                for (int k = 0; k < selected; k++) {
                    row.setRowId(selection[k]);
                    if (rowFilter.filter(row)) {
                        selection[kept++] = selection[k];
                    }
                }
                selected = kept;
            }
        }
        selectedRows += selected;
        // Only readers that select rows skip here; the others start the decoder at the position.
        int skipped = (int) Math.min(skip, selected);
        if (skipped > 0) {
            skip -= skipped;
            if (selection == null) {
                selection = new int[rows - skipped];
                Arrays.setAll(selection, k -> skipped + k);
            } else {
                System.arraycopy(selection, skipped, selection, 0, selected - skipped);
            }
            selected -= skipped;
        }
        int take = limiter.take(selected);
        if (take == 0) {
            return null;
        }
        long first = emitted;
        emitted += take;
        // The filter above read rows of the read schema; the records are the emitted rows.
        if (nested != null) {
            columns = batch.withColumns(nested.columns(columns.columns));
        }
        RecordsWithSplitIds<RecordAndPosition<RowData>> records;
        if (transposer == null) {
            records = ArrowBatchRecords.of(splitId, batch, columns, selection, take, fileOffset, first);
        } else if (binaryRows.taskThreadBehind()) {
            // The transpose (TransposeBenchmark) goes to whichever thread has time for it. With
            // a batch still waiting on the task thread, this thread would soon wait for room in
            // Flink's queue: it transposes the batch itself. Otherwise the task thread, waiting for
            // this batch, transposes it as it emits it while this thread decodes the next.
            BinaryRows transposed = binaryRows.take();
            fetcherTransposer.transpose(columns.columns, selection, take, transposed);
            batch.close();
            records = BinaryRowRecords.transposed(splitId, transposed, binaryRows, fileOffset, first);
            metrics.transposedByFetcher();
        } else {
            records = new BinaryRowRecords(
                    splitId, batch, columns.columns, selection, take, transposer, binaryRows, fileOffset, first);
        }
        metrics.batch(take, transposer != null);
        return records;
    }

    /**
     * The decoded columns with the task's constants in between, in the projection's order; the
     * batch's first row is at {@code firstPosition} in the file.
     */
    private VectorizedColumnBatch columns(ArrowColumnarBatch batch, long firstPosition) {
        ColumnVector[] decoded = defaults == null ? batch.batch().columns : defaults.fill(batch.batch().columns);
        ColumnVector[] all = new ColumnVector[scanColumn.length];
        for (int i = 0; i < all.length; i++) {
            all[i] = switch (scanColumn[i]) {
                case CONSTANT -> constants[i];
                case POSITION -> new PositionVector(firstPosition);
                default ->
                    lineage[i] != null
                            ? lineage[i].over(decoded[scanColumn[i]], firstPosition)
                            : pruned[i] != null
                                    ? PrunedStructs.prune(decoded[scanColumn[i]], pruned[i][0], pruned[i][1])
                                    : decoded[scanColumn[i]];
            };
        }
        return batch.withColumns(all);
    }

    /**
     * The file position of each batch's first row: batches follow the selected row groups in
     * order, after the rows skipped to resume, and never span two of them.
     */
    private static final class RowPositions {
        private final long[] first;
        private final long[] rows;
        private int group;
        private long inGroup;

        RowPositions(NativeParquetFile file, List<Integer> groups, long skipped) {
            first = new long[groups.size()];
            rows = new long[groups.size()];
            for (int i = 0; i < first.length; i++) {
                first[i] = file.rowGroup(groups.get(i)).firstRow();
                rows[i] = file.rowGroup(groups.get(i)).rowCount();
            }
            inGroup = skipped;
            settle();
        }

        /** The position of the first of the next {@code count} rows, which the caller consumes. */
        long next(int count) {
            long position = first[group] + inGroup;
            inGroup += count;
            settle();
            return position;
        }

        private void settle() {
            while (group < rows.length && inGroup >= rows[group]) {
                inGroup -= rows[group];
                group++;
            }
        }
    }

    @Override
    public boolean empty() {
        return rowsInGroups < 0 ? selectedRows == 0 : rowsInGroups == 0;
    }

    @Override
    public void close() {
        try {
            scan.close();
        } finally {
            file.close();
        }
    }
}
