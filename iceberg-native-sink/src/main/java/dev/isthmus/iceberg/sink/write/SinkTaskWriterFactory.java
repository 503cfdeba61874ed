package dev.isthmus.iceberg.sink.write;

import dev.isthmus.arrow.memory.MemoryTracker;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableUtil;
import org.apache.iceberg.flink.sink.FlinkAppenderFactory;
import org.apache.iceberg.flink.sink.TaskWriterFactory;
import org.apache.iceberg.io.FileWriterFactory;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.io.TaskWriter;
import org.apache.iceberg.io.UnpartitionedWriter;
import org.apache.iceberg.io.WriteResult;
import org.apache.iceberg.types.TypeUtil;
import org.apache.iceberg.util.SerializableSupplier;

/**
 * The task writers of the sink: appends to unpartitioned or partitioned tables (a rolling writer
 * per partition, files rolled at {@code write.target-file-size-bytes}), and upsert or full
 * changelog delta writers when equality fields are given. Data files come from
 * {@link DataFileAppenders}; delete files from Iceberg's {@link FlinkAppenderFactory}.
 */
public final class SinkTaskWriterFactory implements TaskWriterFactory<RowData> {
    private static final long serialVersionUID = 1L;

    private final SerializableSupplier<Table> table;
    private final Schema schema;
    private final RowType flinkType;
    private final PartitionSpec spec;
    private final FileFormat format;
    private final long targetFileSize;
    private final HashMap<String, String> writeProperties;
    private final ArrayList<Integer> equalityFieldIds;
    private final boolean upsert;
    private final DataFileAppenders dataFiles;
    private final RequiredColumns requiredColumns;
    private final RequiredColumns requiredKeyColumns;
    private final long maxNativeBytes;

    private transient OutputFileFactory outputFiles;
    private transient FileWriterFactory<RowData> fileWriters;
    private transient boolean useDv;
    private transient MemoryTracker memory;

    /**
     * @param table the table, serialisable (for example {@code SerializableTable.copyOf})
     * @param flinkType the type of the incoming rows, matching the table's schema
     * @param equalityFieldIds the key for delta writes; empty for appends
     * @param upsert whether +I/+U replace the row of the same key (only with equality fields)
     * @param maxNativeBytes the native memory each writer subtask's data files may hold at once
     *     (Arrow batches being built, row-group pages buffered), {@link MemoryTracker#NO_LIMIT} for
     *     no cap
     */
    public SinkTaskWriterFactory(
            SerializableSupplier<Table> table,
            RowType flinkType,
            FileFormat format,
            long targetFileSize,
            Map<String, String> writeProperties,
            List<Integer> equalityFieldIds,
            boolean upsert,
            DataFileAppenders dataFiles,
            long maxNativeBytes) {
        Table loaded = table.get();
        this.maxNativeBytes = MemoryTracker.requireValidLimit(maxNativeBytes);
        if (upsert && equalityFieldIds.isEmpty()) {
            throw new IllegalArgumentException("Upsert needs equality fields: the table " + loaded.name()
                    + " has no identifier fields and none were given");
        }
        this.table = table;
        this.schema = loaded.schema();
        this.spec = loaded.spec();
        this.flinkType = flinkType;
        this.format = format;
        this.targetFileSize = targetFileSize;
        this.writeProperties = new HashMap<>(writeProperties);
        this.equalityFieldIds = new ArrayList<>(equalityFieldIds);
        this.upsert = upsert;
        this.dataFiles = dataFiles;
        this.requiredColumns = RequiredColumns.of(schema, null);
        this.requiredKeyColumns = RequiredColumns.of(schema, new HashSet<>(equalityFieldIds));
    }

    @Override
    public void initialize(int taskId, int attemptId) {
        initialize(null, taskId, attemptId);
    }

    /**
     * As {@link #initialize(int, int)}, for a subtask of job {@code jobId} (its
     * {@code JobID#toHexString()}, or {@code null} when not known): the data-file writers are
     * told the job, so that each job logs its own fallbacks.
     */
    public void initialize(String jobId, int taskId, int attemptId) {
        Table loaded = table.get();
        this.outputFiles = OutputFileFactory.builderFor(loaded, taskId, attemptId)
                .format(format)
                .defaultSpec(spec)
                .build();
        // Closed by closeMemory() when the operator closes (or here, should a factory be
        // initialised twice); it leaves the sink's tracker once the last of its memory is given back.
        closeMemory();
        this.memory = NativeDataFiles.writerMemory(
                "writer of " + loaded.name() + " (subtask " + taskId + ")", maxNativeBytes);
        DataFileContext context =
                new DataFileContext(loaded, schema, flinkType, spec, format, writeProperties, memory, jobId);
        this.fileWriters = new SinkFileWriters(dataFiles.create(context), format, deleteFiles(loaded), format);
        this.useDv = TableUtil.formatVersion(loaded) > 2;
    }

    /** The subtask's native memory, once {@link #initialize} has run. */
    public MemoryTracker memory() {
        return memory;
    }

    /**
     * The subtask is done writing (its writers completed or aborted): closes its tracker, which
     * leaves the JVM-wide one once it holds nothing, so restarts and finished jobs leave none behind.
     */
    public void closeMemory() {
        if (memory != null) {
            memory.close();
        }
    }

    @SuppressWarnings("deprecation") // FlinkAppenderFactory: the public entry to Iceberg's Flink delete writers
    private FlinkAppenderFactory deleteFiles(Table loaded) {
        if (equalityFieldIds.isEmpty()) {
            return new FlinkAppenderFactory(loaded, schema, flinkType, writeProperties, spec, null, null);
        }
        int[] ids = equalityFieldIds.stream().mapToInt(Integer::intValue).toArray();
        // Upsert deletes by key alone (the deleted row's other columns are unknown), so its
        // equality delete files hold the key columns; a full changelog deletes whole rows.
        Schema deleteRowSchema = upsert ? TypeUtil.select(schema, new HashSet<>(equalityFieldIds)) : schema;
        return new FlinkAppenderFactory(loaded, schema, flinkType, writeProperties, spec, ids, deleteRowSchema);
    }

    @Override
    public TaskWriter<RowData> create() {
        if (outputFiles == null) {
            throw new IllegalStateException("initialize(taskId, attemptId) must be called before create()");
        }
        Table loaded = table.get();
        if (equalityFieldIds.isEmpty()) {
            TaskWriter<RowData> writer = spec.isUnpartitioned()
                    ? new UnpartitionedWriter<>(spec, format, fileWriters, outputFiles, loaded.io(), targetFileSize)
                    : new PartitionedAppendWriter(
                            spec, format, fileWriters, outputFiles, loaded.io(), targetFileSize, schema, flinkType);
            return new Checked(writer, requiredColumns, requiredColumns, false);
        }
        Set<Integer> keys = new HashSet<>(equalityFieldIds);
        TaskWriter<RowData> writer = spec.isUnpartitioned()
                ? new DeltaTaskWriter.Unpartitioned(
                        spec,
                        format,
                        fileWriters,
                        outputFiles,
                        loaded.io(),
                        targetFileSize,
                        schema,
                        flinkType,
                        keys,
                        upsert,
                        useDv)
                : new DeltaTaskWriter.Partitioned(
                        spec,
                        format,
                        fileWriters,
                        outputFiles,
                        loaded.io(),
                        targetFileSize,
                        schema,
                        flinkType,
                        keys,
                        upsert,
                        useDv);
        return new Checked(writer, requiredColumns, requiredKeyColumns, upsert);
    }

    /**
     * Checks required columns before a row reaches any file. Upsert's -U and -D only use the key,
     * so only the key's required columns are checked for them.
     */
    private record Checked(TaskWriter<RowData> delegate, RequiredColumns whole, RequiredColumns key, boolean upsert)
            implements TaskWriter<RowData> {
        @Override
        public void write(RowData row) throws IOException {
            boolean keyOnly = upsert
                    && switch (row.getRowKind()) {
                        case UPDATE_BEFORE, DELETE -> true;
                        case INSERT, UPDATE_AFTER -> false;
                    };
            (keyOnly ? key : whole).check(row);
            delegate.write(row);
        }

        @Override
        public void abort() throws IOException {
            delegate.abort();
        }

        @Override
        public WriteResult complete() throws IOException {
            return delegate.complete();
        }

        @Override
        public void close() throws IOException {
            delegate.close();
        }
    }
}
