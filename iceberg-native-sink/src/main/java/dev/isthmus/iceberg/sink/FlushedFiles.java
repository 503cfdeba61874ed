package dev.isthmus.iceberg.sink;

import java.io.IOException;
import java.io.UncheckedIOException;
import org.apache.flink.core.io.SimpleVersionedSerialization;
import org.apache.iceberg.flink.sink.WriteResultSerializer;
import org.apache.iceberg.io.WriteResult;

/**
 * The files one writer subtask completed for one checkpoint, on their way to the committer.
 * The {@link WriteResult} travels as bytes written by Iceberg's {@link WriteResultSerializer}, so
 * Flink serialises this record as a POJO: no Kryo, hence no {@code --add-opens} for the sink.
 *
 * @param checkpointId the checkpoint whose barrier flushed the files, or
 *     {@link WriterOperator#END_OF_INPUT} for the final flush of bounded input
 * @param writeResult the serialised {@link WriteResult}
 */
public record FlushedFiles(long checkpointId, byte[] writeResult) {

    static FlushedFiles of(long checkpointId, WriteResult result) {
        try {
            return new FlushedFiles(
                    checkpointId,
                    SimpleVersionedSerialization.writeVersionAndSerialize(new WriteResultSerializer(), result));
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot serialise the files of checkpoint " + checkpointId, e);
        }
    }

    WriteResult result() {
        try {
            return SimpleVersionedSerialization.readVersionAndDeSerialize(new WriteResultSerializer(), writeResult);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot read the files of checkpoint " + checkpointId, e);
        }
    }
}
