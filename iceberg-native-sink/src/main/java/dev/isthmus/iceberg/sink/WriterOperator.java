package dev.isthmus.iceberg.sink;

import dev.isthmus.iceberg.sink.write.SinkTaskWriterFactory;
import java.io.IOException;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.BoundedOneInput;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.table.data.RowData;
import org.apache.iceberg.io.TaskWriter;
import org.apache.iceberg.io.WriteResult;

/**
 * Writes rows into files and, before each checkpoint barrier and at the end of bounded input,
 * closes them and sends their {@link WriteResult} to the committer, tagged with the checkpoint.
 * Files that were never sent (the task failed or was cancelled) are deleted when the operator
 * closes, through {@link TaskWriter#abort()}.
 *
 * <p>Mirrors the writer of Iceberg 1.11's v1 Flink sink, {@code IcebergStreamWriter} (package-private
 * in {@code org.apache.iceberg.flink.sink}): the files are flushed in {@code prepareSnapshotPreBarrier}
 * and in {@code endInput}, those of the end of input tagged {@link #END_OF_INPUT} as Iceberg's
 * {@code END_INPUT_CHECKPOINT_ID} ({@code Long.MAX_VALUE}), and {@link NativeIcebergSink} gives the
 * operator the uid suffix {@code -writer} Iceberg's {@code FlinkSink} gives it. It differs in two
 * ways: the result travels as {@code WriteResultSerializer} bytes ({@link FlushedFiles}) rather
 * than through Kryo, and files never sent are aborted where Iceberg's writer only closes them.
 * Parity is pinned by {@code AppendParityTest} and {@code DeltaParityTest} (the same rows through
 * both sinks) and by {@code StockSinkStateTest} (a job moving between the two sinks);
 * docs/architecture.md, "Upgrading Iceberg or Flink", says what to compare on an upgrade.
 */
public final class WriterOperator extends AbstractStreamOperator<FlushedFiles>
        implements OneInputStreamOperator<RowData, FlushedFiles>, BoundedOneInput {
    private static final long serialVersionUID = 1L;

    /** The checkpoint id of the files flushed at the end of bounded input (as Iceberg's sink). */
    public static final long END_OF_INPUT = Long.MAX_VALUE;

    private final String tableName;
    private final SinkTaskWriterFactory writers;

    private transient TaskWriter<RowData> writer;
    private transient WriterMetrics metrics;

    public WriterOperator(String tableName, SinkTaskWriterFactory writers) {
        this.tableName = tableName;
        this.writers = writers;
    }

    @Override
    public void open() throws Exception {
        super.open();
        writers.initialize(
                getRuntimeContext().getJobInfo().getJobId().toHexString(),
                getRuntimeContext().getTaskInfo().getIndexOfThisSubtask(),
                getRuntimeContext().getTaskInfo().getAttemptNumber());
        this.metrics = new WriterMetrics(getMetricGroup(), tableName, writers.memory());
        this.writer = writers.create();
    }

    @Override
    public void processElement(StreamRecord<RowData> element) throws Exception {
        writer.write(element.getValue());
        metrics.wrote();
    }

    @Override
    public void prepareSnapshotPreBarrier(long checkpointId) throws Exception {
        super.prepareSnapshotPreBarrier(checkpointId);
        // After end of input the last files have been sent; a checkpoint may still follow.
        if (writer != null) {
            flush(checkpointId);
            this.writer = writers.create();
        }
    }

    @Override
    public void endInput() throws IOException {
        if (writer != null) {
            flush(END_OF_INPUT);
        }
    }

    private void flush(long checkpointId) throws IOException {
        long start = System.nanoTime();
        WriteResult result = writer.complete();
        output.collect(new StreamRecord<>(FlushedFiles.of(checkpointId, result)));
        // Only now: files that failed to complete or to reach the committer are close()'s to delete.
        this.writer = null;
        metrics.flushed(result, System.nanoTime() - start);
    }

    @Override
    public void close() throws Exception {
        try {
            if (writer != null) {
                writer.abort();
                writer = null;
            }
        } finally {
            try {
                writers.closeMemory();
            } finally {
                super.close();
            }
        }
    }

    @Override
    public String toString() {
        return "WriterOperator[" + tableName + "]";
    }
}
