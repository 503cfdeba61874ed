package dev.isthmus.iceberg.sink;

import dev.isthmus.arrow.memory.MemoryTracker;
import dev.isthmus.iceberg.sink.write.DataFileAppenders;
import dev.isthmus.iceberg.sink.write.SinkTaskWriterFactory;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.LongStream;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.serialization.SerializerConfigImpl;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.jobgraph.OperatorID;
import org.apache.flink.runtime.operators.testutils.MockEnvironment;
import org.apache.flink.runtime.operators.testutils.MockEnvironmentBuilder;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.types.RowKind;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SerializableTable;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.flink.TableLoader;
import org.apache.iceberg.io.TaskWriter;
import org.apache.iceberg.io.WriteResult;
import org.apache.iceberg.types.Types;

/**
 * Committers over one table in Flink's operator test harness, all with the same operator id (as
 * the restarts of one job's committer), and the writers' files they receive.
 */
final class CommitterHarness {
    static final Schema SCHEMA = new Schema(
            List.of(
                    Types.NestedField.required(1, "id", Types.LongType.get()),
                    Types.NestedField.required(2, "region", Types.StringType.get())),
            Set.of(1, 2));
    static final PartitionSpec BY_REGION =
            PartitionSpec.builderFor(SCHEMA).identity("region").build();

    final Table table;
    final OperatorID operatorId = new OperatorID();
    private long nextId;
    private int writerAttempt;

    CommitterHarness(Table table) {
        this.table = table;
    }

    /** A checkpoint's id and the committer's state in it, which a restore gets both of. */
    record Checkpoint(long id, OperatorSubtaskState state) {}

    static Checkpoint checkpoint(OneInputStreamOperatorTestHarness<FlushedFiles, Void> committer, long id)
            throws Exception {
        return new Checkpoint(id, committer.snapshot(id, id));
    }

    /** A committer started without state, or restored from {@code checkpoint}, in a new job. */
    OneInputStreamOperatorTestHarness<FlushedFiles, Void> open(
            TableLoader loader, boolean overwrite, Map<String, String> properties, String branch, Checkpoint checkpoint)
            throws Exception {
        return open(new JobID(), loader, overwrite, properties, branch, checkpoint);
    }

    /** The same in the first attempt of a job with this id. */
    OneInputStreamOperatorTestHarness<FlushedFiles, Void> open(
            JobID jobId,
            TableLoader loader,
            boolean overwrite,
            Map<String, String> properties,
            String branch,
            Checkpoint checkpoint)
            throws Exception {
        CommitterOperator operator = new CommitterOperator(loader, overwrite, properties, branch, table.spec(), 1);
        MockEnvironment environment = new MockEnvironmentBuilder()
                .setJobID(jobId)
                .setTaskName("committer")
                .setMaxParallelism(1)
                .setParallelism(1)
                .setSubtaskIndex(0)
                .build();
        var harness = new OneInputStreamOperatorTestHarness<>(
                operator,
                TypeInformation.of(FlushedFiles.class).createSerializer(new SerializerConfigImpl()),
                environment);
        harness.getStreamConfig().setOperatorID(operatorId);
        harness.setup();
        if (checkpoint == null) {
            harness.initializeEmptyState();
        } else {
            harness.setRestoredCheckpointId(checkpoint.id());
            harness.initializeState(checkpoint.state());
        }
        harness.open();
        return harness;
    }

    /** {@code rows} new rows in one data file of {@code region}, flushed for {@code checkpointId}. */
    StreamRecord<FlushedFiles> files(long checkpointId, int rows, String region) throws Exception {
        StreamRecord<FlushedFiles> files = files(checkpointId, LongStream.range(nextId, nextId + rows), region);
        nextId += rows;
        return files;
    }

    /** The rows with these ids, written again (as a replay after a restore writes them) and flushed. */
    StreamRecord<FlushedFiles> files(long checkpointId, LongStream ids, String region) throws Exception {
        List<RowData> data = new ArrayList<>();
        ids.forEach(id -> data.add(row(RowKind.INSERT, id, region)));
        return new StreamRecord<>(FlushedFiles.of(checkpointId, write(false, data)));
    }

    /** Writes the rows as one writer task attempt would, with equality deletes when {@code delta}. */
    WriteResult write(boolean delta, List<RowData> rows) throws Exception {
        Table copy = SerializableTable.copyOf(table);
        SinkTaskWriterFactory factory = new SinkTaskWriterFactory(
                () -> copy,
                SinkTests.flinkType(SCHEMA),
                FileFormat.PARQUET,
                128 << 20,
                new HashMap<>(),
                delta ? List.of(1, 2) : List.of(),
                false,
                DataFileAppenders.ICEBERG_JAVA,
                MemoryTracker.NO_LIMIT);
        factory.initialize(0, writerAttempt++);
        TaskWriter<RowData> writer = factory.create();
        for (RowData row : rows) {
            writer.write(row);
        }
        return writer.complete();
    }

    static RowData row(RowKind kind, long id, String region) {
        return GenericRowData.ofKind(kind, id, StringData.fromString(region));
    }

    List<Snapshot> snapshots() {
        table.refresh();
        List<Snapshot> snapshots = new ArrayList<>();
        table.snapshots().forEach(snapshots::add);
        return snapshots;
    }

    int rowCount() {
        return SinkTests.size(SinkTests.rows(table));
    }
}
