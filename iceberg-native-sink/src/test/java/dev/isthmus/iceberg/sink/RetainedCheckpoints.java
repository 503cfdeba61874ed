package dev.isthmus.iceberg.sink;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ExternalizedCheckpointRetention;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Types;

/**
 * Jobs that fail for good and leave their last completed checkpoint behind, and jobs started from
 * such a checkpoint: how a job moves to another parallelism or another sink after a failure.
 */
final class RetainedCheckpoints {
    private RetainedCheckpoints() {}

    /** A job that keeps its checkpoints in {@code dir} when it fails. */
    static Configuration retainedIn(Path dir) {
        Configuration config = new Configuration();
        config.set(CheckpointingOptions.CHECKPOINTS_DIRECTORY, dir.toUri().toString());
        config.set(
                CheckpointingOptions.EXTERNALIZED_CHECKPOINT_RETENTION,
                ExternalizedCheckpointRetention.RETAIN_ON_CANCELLATION);
        return config;
    }

    /** The same, started from {@code checkpoint}. */
    static Configuration restoredFrom(Path checkpoint, Path dir) {
        Configuration config = retainedIn(dir);
        config.set(StateRecoveryOptions.SAVEPOINT_PATH, checkpoint.toUri().toString());
        return config;
    }

    /** The highest completed checkpoint in {@code dir} ({@code <job id>/chk-<n>/_metadata}). */
    static Path latest(Path dir) {
        try (Stream<Path> checkpoints = Files.find(
                dir,
                2,
                (path, attributes) -> attributes.isDirectory()
                        && path.getFileName().toString().startsWith("chk-")
                        && Files.exists(path.resolve("_metadata")))) {
            return checkpoints
                    .max(Comparator.comparingLong(RetainedCheckpoints::id))
                    .orElseThrow(() -> new AssertionError("No completed checkpoint in " + dir));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static long id(Path checkpoint) {
        return Long.parseLong(checkpoint.getFileName().toString().substring("chk-".length()));
    }

    /** The id of the job that took the checkpoint, as the sinks write it into snapshot summaries. */
    static String jobId(Path checkpoint) {
        return checkpoint.getParent().getFileName().toString();
    }

    /** The rows of {@link SlowRows}. */
    static final Schema SCHEMA = new Schema(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.optional(2, "payload", Types.StringType.get()));

    /** {@code count} {@link SlowRows}, with the uids a restored job finds them by. */
    static DataStream<RowData> slowRows(StreamExecutionEnvironment env, long count) {
        return env.fromSequence(0, count - 1)
                .uid("sequence")
                .map(new SlowRows())
                .uid("rows")
                .returns(InternalTypeInfo.of(SinkTests.flinkType(SCHEMA)));
    }

    /** Rows {@code (id, "p" + id)}, slow enough that checkpoints every 100 ms fall between them. */
    static final class SlowRows implements MapFunction<Long, RowData> {
        private transient long seen;

        @Override
        public RowData map(Long id) throws InterruptedException {
            if (++seen % 10 == 0) {
                Thread.sleep(2);
            }
            return GenericRowData.of(id, StringData.fromString("p" + id));
        }
    }
}
