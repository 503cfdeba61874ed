package dev.isthmus.iceberg.sink;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.typeinfo.BasicTypeInfo;
import org.apache.flink.api.common.typeinfo.PrimitiveArrayTypeInfo;
import org.apache.flink.core.io.SimpleVersionedSerialization;
import org.apache.flink.runtime.state.StateInitializationContext;
import org.apache.flink.runtime.state.StateSnapshotContext;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.BoundedOneInput;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.table.runtime.typeutils.SortedMapTypeInfo;
import org.apache.iceberg.AppendFiles;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.ReplacePartitions;
import org.apache.iceberg.RowDelta;
import org.apache.iceberg.SnapshotUpdate;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableUtil;
import org.apache.iceberg.flink.TableLoader;
import org.apache.iceberg.flink.sink.DeltaManifests;
import org.apache.iceberg.flink.sink.DeltaManifestsSerializer;
import org.apache.iceberg.flink.sink.FlinkManifestUtil;
import org.apache.iceberg.flink.sink.ManifestOutputFileFactory;
import org.apache.iceberg.flink.sink.SinkUtil;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.io.WriteResult;
import org.apache.iceberg.types.Comparators;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.PropertyUtil;
import org.apache.iceberg.util.ThreadPools;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Commits the writers' files to Iceberg exactly once, with parallelism 1.
 *
 * <p>At each checkpoint the files received for it are written to manifests, and the serialised
 * manifests of every checkpoint not yet committed are the operator's state. When a checkpoint
 * completes, everything pending up to it is committed, with the job id, the operator id and the
 * checkpoint id in the snapshot summary. On restore, the table's history says which checkpoint
 * of the restored job was committed last; pending checkpoints after it are committed then,
 * the others were committed already. The state has the names and types of Iceberg's own
 * committer's state. Files no commit can reference are deleted: those received for a checkpoint
 * not yet snapshotted when the task ends, and those of an attempt that replays input whose end
 * was committed. docs/sink.md lists what each failure leaves.
 *
 * <p>Mirrors the committer of Iceberg 1.11's v1 Flink sink, {@code IcebergFilesCommitter}
 * (package-private in {@code org.apache.iceberg.flink.sink}): the same state descriptors
 * ({@code iceberg-files-committer-state}, holding the serialised {@code DeltaManifests} per
 * checkpoint, and {@code iceberg-flink-job-id}), the same snapshot summary keys ({@code SinkUtil}'s
 * {@code flink.max-committed-checkpoint-id}, {@code flink.job-id}, {@code flink.operator-id}), one
 * {@code AppendFiles} for pending checkpoints without deletes and a {@code RowDelta} per checkpoint
 * with them, and an empty commit after the table property {@value #MAX_CONTINUOUS_EMPTY_COMMITS}
 * (10 by default) of checkpoints without files. It differs where Iceberg's loses or repeats rows:
 * end-of-input files that arrive over several checkpoints are merged into one entry rather than
 * replacing it, and an attempt that replays committed end-of-input rows commits nothing. Parity is
 * pinned by {@code CommitterTest} (the protocol step by step, reading the bookkeeping of Iceberg's
 * own sink) and {@code StockSinkStateTest} (state restored across the two sinks, both ways);
 * docs/architecture.md, "Upgrading Iceberg or Flink", says what to compare on an upgrade.
 */
public final class CommitterOperator extends AbstractStreamOperator<Void>
        implements OneInputStreamOperator<FlushedFiles, Void>, BoundedOneInput {
    private static final long serialVersionUID = 1L;
    private static final Logger LOG = LoggerFactory.getLogger(CommitterOperator.class);
    private static final byte[] NO_FILES = new byte[0];

    /** Table property: commit an empty snapshot after this many checkpoints without files. */
    public static final String MAX_CONTINUOUS_EMPTY_COMMITS = "flink.max-continuous-empty-commits";

    private static final ListStateDescriptor<String> JOB_ID_STATE =
            new ListStateDescriptor<>("iceberg-flink-job-id", BasicTypeInfo.STRING_TYPE_INFO);
    // The comparator is part of the state serializer's snapshot: Iceberg's, serialisable and the
    // same class as in Iceberg's committer state.
    private static final ListStateDescriptor<SortedMap<Long, byte[]>> PENDING_STATE = new ListStateDescriptor<>(
            "iceberg-files-committer-state",
            new SortedMapTypeInfo<>(
                    BasicTypeInfo.LONG_TYPE_INFO,
                    PrimitiveArrayTypeInfo.BYTE_PRIMITIVE_ARRAY_TYPE_INFO,
                    Comparators.forType(Types.LongType.get())));

    private final TableLoader tableLoader;
    private final boolean overwrite;
    private final HashMap<String, String> snapshotProperties;
    private final String branch;
    private final PartitionSpec spec;
    private final int workerPoolSize;

    private transient Table table;
    private transient String jobId;
    private transient String operatorId;
    private transient ManifestOutputFileFactory manifestFiles;
    private transient ExecutorService workerPool;
    private transient CommitterMetrics metrics;
    private transient ListState<SortedMap<Long, byte[]>> pendingState;
    private transient ListState<String> jobIdState;
    /** Serialised DeltaManifests per checkpoint not yet committed; empty bytes for no files. */
    private transient NavigableMap<Long, byte[]> pending;

    private transient Map<Long, List<WriteResult>> sinceLastSnapshot;
    /** Manifests replaced by a rewrite with more files, per checkpoint; deleted when it is committed. */
    private transient NavigableMap<Long, List<ManifestFile>> superseded;

    private transient long maxCommittedCheckpointId;
    /**
     * The last checkpoint this committer (or the one it was restored from) snapshotted: files
     * received for a later checkpoint are in no checkpoint's state.
     */
    private transient long lastSnapshotId;

    private transient int emptyCheckpoints;
    private transient int maxEmptyCheckpoints;

    public CommitterOperator(
            TableLoader tableLoader,
            boolean overwrite,
            Map<String, String> snapshotProperties,
            String branch,
            PartitionSpec spec,
            int workerPoolSize) {
        this.tableLoader = tableLoader;
        this.overwrite = overwrite;
        this.snapshotProperties = new HashMap<>(snapshotProperties);
        this.branch = branch;
        this.spec = spec;
        this.workerPoolSize = workerPoolSize;
    }

    @Override
    public void initializeState(StateInitializationContext context) throws Exception {
        super.initializeState(context);
        this.jobId = getContainingTask().getEnvironment().getJobID().toString();
        this.operatorId = getRuntimeContext().getOperatorUniqueID();
        tableLoader.open();
        this.table = tableLoader.loadTable();
        this.metrics = new CommitterMetrics(getMetricGroup(), table.name());
        this.workerPool = ThreadPools.newFixedThreadPool("isthmus-committer-" + operatorId, workerPoolSize);
        this.maxEmptyCheckpoints = PropertyUtil.propertyAsInt(table.properties(), MAX_CONTINUOUS_EMPTY_COMMITS, 10);
        if (maxEmptyCheckpoints <= 0) {
            throw new IllegalArgumentException(MAX_CONTINUOUS_EMPTY_COMMITS + " must be positive");
        }
        this.manifestFiles = FlinkManifestUtil.createOutputFileFactory(
                () -> table,
                table.properties(),
                jobId,
                operatorId,
                getRuntimeContext().getTaskInfo().getIndexOfThisSubtask(),
                getRuntimeContext().getTaskInfo().getAttemptNumber());
        this.pending = new TreeMap<>();
        this.sinceLastSnapshot = new HashMap<>();
        this.superseded = new TreeMap<>();
        this.maxCommittedCheckpointId = CommitHistory.NONE;
        this.lastSnapshotId = context.getRestoredCheckpointId().orElse(CommitHistory.NONE);
        this.pendingState = context.getOperatorStateStore().getListState(PENDING_STATE);
        this.jobIdState = context.getOperatorStateStore().getListState(JOB_ID_STATE);

        if (context.isRestored()) {
            Iterator<String> jobIds = jobIdState.get().iterator();
            if (!jobIds.hasNext()) {
                LOG.warn(
                        "No committer state for operator {}: was its uid changed? Set uidPrefix so that it is "
                                + "stable; files pending in the lost state are not committed.",
                        operatorId);
                return;
            }
            String restoredJobId = jobIds.next();
            // Checkpoint ids continue from the restored job's, so its committed maximum holds for
            // this job too.
            this.maxCommittedCheckpointId =
                    CommitHistory.maxCommittedCheckpointId(table, restoredJobId, operatorId, branch);
            Iterator<SortedMap<Long, byte[]>> restored = pendingState.get().iterator();
            NavigableMap<Long, byte[]> restoredPending =
                    restored.hasNext() ? new TreeMap<>(restored.next()) : new TreeMap<>();
            deleteManifestsOfCommitted(restoredPending.headMap(maxCommittedCheckpointId, true), restoredJobId);
            NavigableMap<Long, byte[]> uncommitted = restoredPending.tailMap(maxCommittedCheckpointId, false);
            if (endOfInputCommitted()) {
                LOG.warn(
                        "Job {} committed its end of input after the checkpoint restored: the rows this attempt "
                                + "receives replay rows that commit holds, so their files are deleted instead of committed",
                        restoredJobId);
            }
            if (!uncommitted.isEmpty()) {
                LOG.info(
                        "Committing {} of job {}, restored as uncommitted",
                        uncommitted.keySet().stream()
                                .map(CommitterOperator::describe)
                                .toList(),
                        restoredJobId);
                commitUpTo(uncommitted, restoredJobId, uncommitted.lastKey());
            }
        } else if (getRuntimeContext().getTaskInfo().getAttemptNumber() > 0
                && CommitHistory.maxCommittedCheckpointId(table, jobId, operatorId, branch)
                        == WriterOperator.END_OF_INPUT) {
            // A restart without a checkpoint replays the input from the start, all of which this
            // job's end-of-input commit holds. Only a restart: a first attempt may reuse the job id
            // of an earlier run (application mode derives it from the cluster id), with new rows.
            this.maxCommittedCheckpointId = WriterOperator.END_OF_INPUT;
            LOG.warn(
                    "Job {} committed its end of input before this restart without a checkpoint: the rows this "
                            + "attempt receives replay rows that commit holds, so their files are deleted instead of "
                            + "committed",
                    jobId);
        }
    }

    /**
     * The commit of these checkpoints went through, but the task that made it ended before it
     * deleted their manifests (the commit's state was unknown, or the process died after the
     * metadata swap); without a restore of them, nothing else would.
     */
    private void deleteManifestsOfCommitted(NavigableMap<Long, byte[]> committed, String committingJobId)
            throws IOException {
        List<ManifestFile> manifests = new ArrayList<>();
        for (byte[] serialized : committed.values()) {
            if (serialized.length > 0) {
                manifests.addAll(readManifests(serialized).manifests());
            }
        }
        if (!committed.isEmpty()) {
            FlinkManifestUtil.deleteCommittedManifests(table, manifests, committingJobId, committed.lastKey());
        }
    }

    /**
     * Only the start of an attempt sets the committed maximum to the end of input: that of the job
     * restored, or of this job before a restart without a checkpoint.
     */
    private boolean endOfInputCommitted() {
        return maxCommittedCheckpointId == WriterOperator.END_OF_INPUT;
    }

    @Override
    public void processElement(StreamRecord<FlushedFiles> element) {
        FlushedFiles files = element.getValue();
        if (endOfInputCommitted()) {
            deleteFiles(files.checkpointId(), List.of(files.result()));
            return;
        }
        sinceLastSnapshot
                .computeIfAbsent(files.checkpointId(), id -> new ArrayList<>())
                .add(files.result());
    }

    @Override
    public void snapshotState(StateSnapshotContext context) throws Exception {
        super.snapshotState(context);
        writeManifests(context.getCheckpointId());
        pendingState.update(List.of(new TreeMap<>(pending)));
        jobIdState.update(List.of(jobId));
        this.lastSnapshotId = context.getCheckpointId();
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) throws Exception {
        super.notifyCheckpointComplete(checkpointId);
        // A later checkpoint's notification may come first; it committed this one's files too.
        if (checkpointId > maxCommittedCheckpointId) {
            commitUpTo(pending, jobId, checkpointId);
            this.maxCommittedCheckpointId = checkpointId;
        }
        table.refresh();
    }

    @Override
    public void endInput() throws IOException {
        if (endOfInputCommitted()) {
            return;
        }
        writeManifests(WriterOperator.END_OF_INPUT);
        commitUpTo(pending, jobId, WriterOperator.END_OF_INPUT);
    }

    /**
     * Moves the files received since the last checkpoint into manifests, one set per checkpoint.
     * All or nothing: a failure deletes the manifests written so far and leaves the files to the
     * next checkpoint, which would otherwise merge them with their own partial manifests.
     */
    private void writeManifests(long checkpointId) throws IOException {
        Map<Long, byte[]> written = new HashMap<>();
        Map<Long, List<ManifestFile>> replaced = new HashMap<>();
        List<String> created = new ArrayList<>();
        try {
            for (Map.Entry<Long, List<WriteResult>> entry : sinceLastSnapshot.entrySet()) {
                long id = entry.getKey();
                WriteResult.Builder merged = WriteResult.builder().addAll(entry.getValue());
                byte[] earlier = pending.get(id);
                if (earlier != null && earlier.length > 0) {
                    // Only the end-of-input files arrive over several checkpoints: a writer that
                    // finished early sent its files before a checkpoint the others still ran into.
                    DeltaManifests manifests = readManifests(earlier);
                    merged.add(FlinkManifestUtil.readCompletedFiles(manifests, table.io(), table.specs()));
                    replaced.put(id, manifests.manifests());
                }
                DeltaManifests manifests = FlinkManifestUtil.writeCompletedFiles(
                        merged.build(),
                        () -> {
                            OutputFile file = manifestFiles.create(id);
                            created.add(file.location());
                            return file;
                        },
                        spec,
                        TableUtil.formatVersion(table));
                written.put(
                        id,
                        SimpleVersionedSerialization.writeVersionAndSerialize(
                                DeltaManifestsSerializer.INSTANCE, manifests));
            }
        } catch (IOException | RuntimeException e) {
            for (String location : created) {
                try {
                    table.io().deleteFile(location);
                } catch (RuntimeException cleanup) {
                    e.addSuppressed(cleanup);
                }
            }
            throw e;
        }
        pending.putIfAbsent(checkpointId, NO_FILES);
        pending.putAll(written);
        replaced.forEach((id, manifests) ->
                superseded.computeIfAbsent(id, k -> new ArrayList<>()).addAll(manifests));
        sinceLastSnapshot.clear();
    }

    private static DeltaManifests readManifests(byte[] serialized) throws IOException {
        return SimpleVersionedSerialization.readVersionAndDeSerialize(DeltaManifestsSerializer.INSTANCE, serialized);
    }

    /** Deletes files no commit will reference: a failed attempt's, or a replay of committed rows. */
    private void deleteFiles(long checkpointId, Iterable<WriteResult> results) {
        for (WriteResult result : results) {
            List<ContentFile<?>> files = new ArrayList<>(Arrays.asList(result.dataFiles()));
            files.addAll(Arrays.asList(result.deleteFiles()));
            for (ContentFile<?> file : files) {
                try {
                    table.io().deleteFile(file.location());
                } catch (RuntimeException e) {
                    LOG.warn(
                            "Cannot delete {}, written for {} and never to be committed: orphan-file "
                                    + "removal will find it",
                            file.location(),
                            describe(checkpointId),
                            e);
                }
            }
        }
    }

    /** Commits every checkpoint in {@code from} up to and including {@code checkpointId}, and forgets them. */
    private void commitUpTo(NavigableMap<Long, byte[]> from, String committingJobId, long checkpointId)
            throws IOException {
        NavigableMap<Long, byte[]> due = from.headMap(checkpointId, true);
        NavigableMap<Long, WriteResult> results = new TreeMap<>();
        List<ManifestFile> manifests = new ArrayList<>();
        for (Map.Entry<Long, byte[]> entry : due.entrySet()) {
            if (entry.getValue().length == 0) {
                continue;
            }
            DeltaManifests delta = readManifests(entry.getValue());
            results.put(entry.getKey(), FlinkManifestUtil.readCompletedFiles(delta, table.io(), table.specs()));
            manifests.addAll(delta.manifests());
        }
        commit(results, committingJobId, checkpointId);
        due.clear();
        // Superseded manifests were only needed to restore checkpoints now committed.
        NavigableMap<Long, List<ManifestFile>> obsolete = superseded.headMap(checkpointId, true);
        obsolete.values().forEach(manifests::addAll);
        obsolete.clear();
        FlinkManifestUtil.deleteCommittedManifests(table, manifests, committingJobId, checkpointId);
    }

    private void commit(NavigableMap<Long, WriteResult> results, String committingJobId, long checkpointId) {
        long dataFiles =
                results.values().stream().mapToLong(r -> r.dataFiles().length).sum();
        long deleteFiles =
                results.values().stream().mapToLong(r -> r.deleteFiles().length).sum();
        emptyCheckpoints = dataFiles + deleteFiles == 0 ? emptyCheckpoints + 1 : 0;
        // An empty snapshot now and then keeps the committed checkpoint id in the table current.
        if (dataFiles + deleteFiles == 0 && emptyCheckpoints % maxEmptyCheckpoints != 0) {
            LOG.info("{}: no files, nothing committed", describe(checkpointId));
            return;
        }
        emptyCheckpoints = 0;
        if (overwrite) {
            if (deleteFiles > 0) {
                throw new IllegalStateException("Cannot overwrite partitions with delete files");
            }
            ReplacePartitions replace = table.newReplacePartitions().scanManifestsWith(workerPool);
            results.values().forEach(r -> Arrays.stream(r.dataFiles()).forEach(replace::addFile));
            commit(replace, results.values(), committingJobId, checkpointId);
        } else if (deleteFiles == 0) {
            AppendFiles append = table.newAppend().scanManifestsWith(workerPool);
            results.values().forEach(r -> Arrays.stream(r.dataFiles()).forEach(append::appendFile));
            commit(append, results.values(), committingJobId, checkpointId);
        } else {
            // One snapshot per checkpoint: the equality deletes of a checkpoint must apply to the
            // data files of the checkpoints before it, which a single merged snapshot would not do.
            for (Map.Entry<Long, WriteResult> entry : results.entrySet()) {
                WriteResult result = entry.getValue();
                RowDelta delta = table.newRowDelta().scanManifestsWith(workerPool);
                Arrays.stream(result.dataFiles()).forEach(delta::addRows);
                Arrays.stream(result.deleteFiles()).forEach(delta::addDeletes);
                commit(delta, List.of(result), committingJobId, entry.getKey());
            }
        }
    }

    private void commit(
            SnapshotUpdate<?> update, Iterable<WriteResult> results, String committingJobId, long checkpointId) {
        snapshotProperties.forEach(update::set);
        // Set last: the sink's own keys win over user properties of the same name.
        update.set(SinkUtil.MAX_COMMITTED_CHECKPOINT_ID, Long.toString(checkpointId));
        update.set(SinkUtil.FLINK_JOB_ID, committingJobId);
        update.set(SinkUtil.OPERATOR_ID, operatorId);
        update.toBranch(branch);
        long start = System.nanoTime();
        update.commit();
        long nanos = System.nanoTime() - start;
        long dataFiles = 0;
        long deleteFiles = 0;
        long rows = 0;
        for (WriteResult result : results) {
            dataFiles += result.dataFiles().length;
            deleteFiles += result.deleteFiles().length;
            rows += Arrays.stream(result.dataFiles())
                    .mapToLong(ContentFile::recordCount)
                    .sum();
        }
        metrics.committed(checkpointId, dataFiles, deleteFiles, rows, nanos);
        LOG.info(
                "Committed {} of job {} to {} (branch {}): {} data files, {} delete files in {} ms",
                describe(checkpointId),
                committingJobId,
                table.name(),
                branch,
                dataFiles,
                deleteFiles,
                nanos / 1_000_000);
    }

    /**
     * What a log line calls the files of {@code checkpointId}: those flushed at the end of bounded
     * input carry {@link WriterOperator#END_OF_INPUT}, a number that means nothing to a reader.
     */
    static String describe(long checkpointId) {
        return checkpointId == WriterOperator.END_OF_INPUT ? "end of input" : "checkpoint " + checkpointId;
    }

    @Override
    public void close() throws Exception {
        try {
            if (sinceLastSnapshot != null) {
                deleteUnsnapshotted();
            }
            if (workerPool != null) {
                workerPool.shutdown();
            }
            tableLoader.close();
        } finally {
            super.close();
        }
    }

    /**
     * The files received for checkpoints after the last snapshot are in no checkpoint's state
     * when the task ends without one (it failed or was cancelled), so no restore commits them.
     * Files of earlier checkpoints can still arrive after their snapshot (unaligned
     * checkpoints keep them in the channel state), and so can the end-of-input files of a writer
     * that finished early; those are kept.
     */
    private void deleteUnsnapshotted() {
        sinceLastSnapshot.forEach((id, results) -> {
            if (id > lastSnapshotId && id != WriterOperator.END_OF_INPUT) {
                LOG.info("Deleting the files received for checkpoint {}, which was never snapshotted", id);
                deleteFiles(id, results);
            }
        });
        sinceLastSnapshot.clear();
    }
}
