package dev.isthmus.iceberg.source;

import dev.isthmus.arrow.cdata.ArenaRuns;
import dev.isthmus.arrow.flink.vector.BinaryRowTransposer;
import dev.isthmus.arrow.memory.MemoryTracker;
import dev.isthmus.ffm.NativeException;
import dev.isthmus.ffm.NativeLibrary;
import dev.isthmus.ffm.NativeLibraryException;
import dev.isthmus.iceberg.source.parquet.ExportedProjections;
import dev.isthmus.iceberg.source.parquet.ScanMemory;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.flink.connector.base.source.reader.RecordsWithSplitIds;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.MetadataColumns;
import org.apache.iceberg.Schema;
import org.apache.iceberg.encryption.EncryptionManager;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.flink.FlinkSchemaUtil;
import org.apache.iceberg.flink.data.RowDataUtil;
import org.apache.iceberg.flink.source.reader.ReaderFunction;
import org.apache.iceberg.flink.source.reader.RecordAndPosition;
import org.apache.iceberg.flink.source.split.IcebergSourceSplit;
import org.apache.iceberg.io.CloseableIterator;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.mapping.NameMapping;
import org.apache.iceberg.mapping.NameMappingParser;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.TypeUtil;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.PartitionUtil;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Iceberg's FLIP-27 {@code ReaderFunction} with Parquet decoded natively: the drop-in
 * replacement of its {@code RowDataReaderFunction}, with the same results and the same split
 * positions. Each file scan task of a split is read by the native decoder when it can be, and
 * otherwise by Iceberg's stock reader (equality deletes on columns it cannot hash, ORC and Avro,
 * encrypted files, the {@code _partition} metadata column, defaults of nested types, types or
 * files the decoder refuses, and every task when the native library cannot load in this JVM); in
 * strict mode such a task fails the read instead.
 *
 * <p>{@link NativeIcebergSource} builds an {@code IcebergSource} with it and hands it each reader's
 * metric group.
 */
public final class NativeReaderFunction implements ReaderFunction<RowData> {
    private static final long serialVersionUID = 1L;
    private static final Logger LOG = LoggerFactory.getLogger(NativeReaderFunction.class);
    /** The metric-group variable holding the job's id. */
    static final String JOB_ID_VARIABLE = "<job_id>";
    /** Each kind of fallback is logged once per job and table; the counters count every one. */
    static final FallbackLog FALLBACKS = new FallbackLog(LOG, 4096);
    /** Imported batches are owned by the source until Flink recycles them, possibly after the split closed. */
    private static final MemoryTracker TRACKER = MemoryTracker.root().child("iceberg-native-source");

    private final Schema tableSchema;
    private final Schema readSchema;
    private final String nameMapping;
    private final NameMapping parsedNameMapping;
    private final boolean caseSensitive;
    private final FileIO io;
    private final EncryptionManager encryption;
    private final List<Expression> filters;
    private final long limit;
    private final NativeReadOptions options;
    /** The row type of binary rows, or {@code null} for columnar rows. */
    private RowType binaryRowType;
    /** Fields nested in structs emitted as columns of their own, or {@code null} for rows of {@link #readSchema}. */
    private NestedProjection nested;
    /** Why every task needs the stock reader for this projection's defaults, or {@code null}. */
    private final String nestedDefault;
    /** The table's name for the fallback log, or {@code null} when not given. */
    private String table;

    /** The job's id from the reader's metric group; {@code null} until given one. */
    private transient String jobId;

    private transient RecordLimiter limiter;
    private transient NativeReaderMetrics metrics;
    private transient BinaryRowBuffers binaryRows;
    /** This reader's batches, under {@link #TRACKER}, capped at {@link NativeReadOptions#maxNativeBytes()}. */
    private transient MemoryTracker tracker;
    /** What {@link #tracker} is called: the table and the subtask, for the cap's message. */
    private String name = "native reader";

    /**
     * The arguments of Iceberg's {@code RowDataReaderFunction}, plus the native options.
     *
     * @param projectedSchema the columns to read, or {@code null} for the whole table
     * @param limit records to read at most per reader (as Iceberg applies it), or a non-positive
     *     number for no limit
     */
    public NativeReaderFunction(
            Schema tableSchema,
            Schema projectedSchema,
            String nameMapping,
            boolean caseSensitive,
            FileIO io,
            EncryptionManager encryption,
            List<Expression> filters,
            long limit,
            NativeReadOptions options) {
        this.tableSchema = java.util.Objects.requireNonNull(tableSchema, "tableSchema");
        this.readSchema = projectedSchema == null ? tableSchema : projectedSchema;
        this.nestedDefault = nestedDefault(readSchema);
        this.nameMapping = nameMapping;
        this.parsedNameMapping = nameMapping == null ? null : NameMappingParser.fromJson(nameMapping);
        this.caseSensitive = caseSensitive;
        this.io = io;
        this.encryption = encryption;
        this.filters = filters == null ? List.of() : List.copyOf(filters);
        this.limit = limit;
        this.options = options;
        this.binaryRowType = binaryRowType(FlinkSchemaUtil.convert(readSchema), options);
    }

    /**
     * Emits the fields of {@code projection}'s paths as columns of their own; the function's
     * projected schema must be the projection's {@link NestedProjection#readSchema()}.
     */
    NativeReaderFunction flattening(NestedProjection projection) {
        if (!projection.readSchema().sameSchema(readSchema)) {
            throw new IllegalArgumentException("the nested projection reads " + projection.readSchema()
                    + ", not the function's projection " + readSchema);
        }
        this.nested = projection;
        this.binaryRowType = binaryRowType(projection.rowType(), options);
        return this;
    }

    /**
     * Why the projection's defaults need the stock reader: the native reader supplies defaults of
     * primitive fields only, as whole top-level columns or within their structs. Refuses a column
     * of Iceberg's {@code unknown} type, which Iceberg's own reader cannot read either: its Flink
     * type, NULL, has no serializer.
     *
     * @return the reason, or {@code null} when the native reader can supply every default
     */
    private static String nestedDefault(Schema readSchema) {
        String reason = null;
        for (Types.NestedField field : TypeUtil.indexById(readSchema.asStruct()).values()) {
            if (field.type().typeId() == Type.TypeID.UNKNOWN) {
                throw new IllegalArgumentException("column " + readSchema.findColumnName(field.fieldId())
                        + " has Iceberg's type unknown, which Iceberg's Flink reader cannot read either (Flink has"
                        + " no serializer for its NULL type): leave it out of the projection");
            }
            boolean topLevel = readSchema.columns().stream().anyMatch(c -> c.fieldId() == field.fieldId());
            if (reason == null
                    && field.initialDefault() != null
                    && !field.type().isPrimitiveType()) {
                reason = (topLevel ? "the nested column " : "the nested field ")
                        + readSchema.findColumnName(field.fieldId()) + " has a default value";
            }
        }
        return reason;
    }

    /** Binary rows when asked for and the emitted rows are flat; columnar rows otherwise. */
    private static RowType binaryRowType(RowType type, NativeReadOptions options) {
        if (options.rowFormat() != NativeReadOptions.RowFormat.BINARY) {
            return null;
        }
        if (!BinaryRowTransposer.supports(type)) {
            LOG.info(
                    "Binary rows hold flat columns only; {} has nested ones, so native tasks emit columnar rows", type);
            return null;
        }
        return type;
    }

    @Override
    public CloseableIterator<RecordsWithSplitIds<RecordAndPosition<RowData>>> apply(IcebergSourceSplit split) {
        if (limiter == null) {
            limiter = new RecordLimiter(limit);
        }
        if (metrics == null) {
            metrics = NativeReaderMetrics.unregistered();
        }
        if (tracker == null) {
            // Never registered: used inside a plain IcebergSource, whose reader will not say when it
            // closes. Closed from the start, the tracker is among the source's only while it holds
            // memory, so the readers of finished jobs leave nothing behind.
            tracker = newTracker(name);
            tracker.close();
        }
        if (binaryRows == null && binaryRowType != null) {
            binaryRows = new BinaryRowBuffers(binaryRowType);
        }
        return new NativeSplitIterator(this, split);
    }

    /**
     * Names the table read, for the reader's tracker (and so the memory cap's message) and for
     * the fallback log.
     */
    NativeReaderFunction named(String tableName) {
        this.name = "reader of " + tableName;
        this.table = tableName;
        return this;
    }

    /**
     * Reports this reader's metrics under {@code group}; called by {@link NativeIcebergSource}
     * when Flink creates the reader, before any split is read.
     */
    void registerReader(MetricGroup group, int subtask) {
        tracker = newTracker(name + " (subtask " + subtask + ")");
        metrics = NativeReaderMetrics.register(group, tracker, TRACKER);
        jobId = group.getAllVariables().get(JOB_ID_VARIABLE);
    }

    /**
     * Closed by {@link #readerClosed()}; it leaves {@link #TRACKER} once Flink has recycled the
     * last of its batches, which may be after the reader closed. A function used without
     * {@link NativeIcebergSource} is never told its reader closed, so {@link #apply} closes its
     * tracker at once: it joins {@link #TRACKER} whenever it holds memory and leaves when drained.
     */
    private MemoryTracker newTracker(String trackerName) {
        return TRACKER.child(trackerName, options.maxNativeBytes(), NativeReadOptions.MAX_NATIVE_BYTES_OPTIONS);
    }

    /** The reader closed: no new batches; its tracker goes once those still held are released. */
    void readerClosed() {
        if (tracker != null) {
            tracker.close();
        }
    }

    /** The JVM-wide tracker every reader's is a child of. */
    static MemoryTracker sourceMemory() {
        return TRACKER;
    }

    /** This reader's tracker: its batches' native memory, and their count. */
    MemoryTracker tracker() {
        return tracker;
    }

    boolean limitReached() {
        return limiter.reached();
    }

    /**
     * Opens file {@code fileOffset} of {@code split} at record {@code recordOffset}, natively if it can,
     * its batches in the split's arena {@code runs}, its projection from the split's {@code projections},
     * its memory from the split's {@code memory}.
     */
    TaskReader openTask(
            String splitId,
            int fileOffset,
            long recordOffset,
            FileScanTask task,
            ArenaRuns runs,
            ExportedProjections projections,
            ScanMemory memory) {
        Map<Integer, ?> constants = PartitionUtil.constantsMap(task, RowDataUtil::convertConstant);
        // Before anything of the task touches native code: without the library every task falls back.
        Optional<NativeLibraryException> noLibrary = NativeLibrary.unavailable();
        String refusal = noLibrary.isPresent() ? "the native library cannot be loaded" : refusal(task, constants);
        Throwable cause = noLibrary.orElse(null);
        if (refusal == null) {
            try {
                PositionDeletes deletes = PositionDeletes.load(
                        task.file().location(), task.deletes(), io, options, tracker, options.maxDeletePositions());
                EqualityDeletes equalityDeletes = EqualityDeletes.load(
                        task.deletes(), tableSchema, io, options, tracker, options.maxEqualityDeleteBytes());
                return NativeTaskReader.open(
                        splitId,
                        fileOffset,
                        recordOffset,
                        task,
                        constants,
                        tableSchema,
                        readSchema,
                        parsedNameMapping,
                        combinedFilter(),
                        caseSensitive,
                        io,
                        options,
                        limiter,
                        metrics,
                        nested,
                        binaryRows,
                        tracker,
                        runs,
                        projections,
                        memory,
                        deletes,
                        equalityDeletes);
            } catch (DeleteLimitException e) {
                refusal = e.refusal();
                cause = e;
            } catch (NativeException.Unsupported | UnsupportedOperationException e) {
                refusal = "the native decoder does not support it";
                cause = e;
            }
        }
        String message = task.file().location() + " cannot be read natively: " + refusal
                + (cause == null ? "" : " (" + cause.getMessage() + ")");
        if (options.strict()) {
            throw new NativeReadRefusedException("strict native read: " + message, cause);
        }
        metrics.fallbackTask();
        // The library's reason is in the key: it names the flag or path to fix, the same for every task.
        FALLBACKS.warn(
                jobId,
                table,
                noLibrary.isPresent() ? refusal + ": " + cause.getMessage() : refusal,
                message + "; reading such tasks with Iceberg's stock reader");
        return new FallbackTaskReader(
                splitId,
                fileOffset,
                recordOffset,
                task,
                tableSchema,
                readSchema,
                nameMapping,
                caseSensitive,
                filters,
                io,
                encryption,
                options.batchSize(),
                limiter,
                nested);
    }

    /** Why the task needs the stock reader, or {@code null} if the native reader may try it. */
    private String refusal(FileScanTask task, Map<Integer, ?> constants) {
        String deletes = PositionDeletes.refusal(task.deletes());
        if (deletes == null) {
            deletes = EqualityDeletes.refusal(task.deletes(), tableSchema);
        }
        if (deletes != null) {
            return deletes;
        }
        if (task.file().format() != FileFormat.PARQUET) {
            return "it is " + task.file().format();
        }
        if (task.file().keyMetadata() != null) {
            return "it is encrypted";
        }
        for (Types.NestedField field : readSchema.columns()) {
            int id = field.fieldId();
            boolean computed = id == MetadataColumns.ROW_POSITION.fieldId()
                    || id == MetadataColumns.IS_DELETED.fieldId()
                    || id == MetadataColumns.ROW_ID.fieldId()
                    || id == MetadataColumns.LAST_UPDATED_SEQUENCE_NUMBER.fieldId();
            if (MetadataColumns.isMetadataColumn(id) && !constants.containsKey(id) && !computed) {
                return "the metadata column " + field.name() + " is projected";
            }
            if (id == MetadataColumns.IS_DELETED.fieldId() && !task.deletes().isEmpty()) {
                // It asks for deleted rows to be marked, not dropped, which Iceberg's Flink reader refuses too.
                return "the metadata column " + field.name() + " is projected with delete files";
            }
        }
        if (nestedDefault != null) {
            return nestedDefault;
        }
        // Iceberg's readers put constants into nested fields too; the native reader only replaces whole columns.
        for (Integer id : constants.keySet()) {
            if (readSchema.findField(id) != null
                    && readSchema.columns().stream().noneMatch(f -> f.fieldId() == id)) {
                return "the nested field " + readSchema.findColumnName(id) + " is an identity-partition value";
            }
        }
        return null;
    }

    /** The source's filters as one expression, as Iceberg's reader combines them; {@code null} for none. */
    private Expression combinedFilter() {
        return filters.isEmpty() ? null : filters.stream().reduce(Expressions.alwaysTrue(), Expressions::and);
    }
}
