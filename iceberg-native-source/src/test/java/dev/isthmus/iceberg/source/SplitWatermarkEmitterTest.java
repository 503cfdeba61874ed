package dev.isthmus.iceberg.source;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.eventtime.Watermark;
import org.apache.flink.api.connector.source.SourceOutput;
import org.apache.iceberg.BaseCombinedScanTask;
import org.apache.iceberg.BaseFileScanTask;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.PartitionSpecParser;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SchemaParser;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.expressions.ResidualEvaluator;
import org.apache.iceberg.flink.source.reader.RecordAndPosition;
import org.apache.iceberg.flink.source.reader.SerializableRecordEmitter;
import org.apache.iceberg.flink.source.reader.SplitWatermarkExtractor;
import org.apache.iceberg.flink.source.split.IcebergSourceSplit;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

/** The native reader's watermark emitter emits what Iceberg's does, record for record. */
class SplitWatermarkEmitterTest {
    private static IcebergSourceSplit split(String path) {
        Schema schema = new Schema(Types.NestedField.optional(1, "x", Types.LongType.get()));
        FileScanTask task = new BaseFileScanTask(
                DataFiles.builder(PartitionSpec.unpartitioned())
                        .withPath(path)
                        .withFileSizeInBytes(10)
                        .withRecordCount(3)
                        .build(),
                new DeleteFile[0],
                SchemaParser.toJson(schema),
                PartitionSpecParser.toJson(PartitionSpec.unpartitioned()),
                ResidualEvaluator.unpartitioned(Expressions.alwaysTrue()));
        return IcebergSourceSplit.fromCombinedScanTask(new BaseCombinedScanTask(List.of(task)));
    }

    /** What a source output receives, in order. */
    private static final class Recording implements SourceOutput<String> {
        final List<String> events = new ArrayList<>();

        @Override
        public void collect(String record) {
            events.add(record);
        }

        @Override
        public void collect(String record, long timestamp) {
            events.add(record + "@" + timestamp);
        }

        @Override
        public void emitWatermark(Watermark watermark) {
            events.add("wm " + watermark.getTimestamp());
        }

        @Override
        public void markIdle() {
            events.add("idle");
        }

        @Override
        public void markActive() {
            events.add("active");
        }
    }

    private static List<String> emit(SerializableRecordEmitter<String> emitter, List<IcebergSourceSplit> splits)
            throws Exception {
        Recording output = new Recording();
        long offset = 0;
        for (IcebergSourceSplit split : splits) {
            RecordAndPosition<String> element = new RecordAndPosition<>();
            element.set("row " + offset + " of " + split.splitId().length(), 0, ++offset);
            emitter.emitRecord(element, output, split);
            output.events.add("position " + split.recordOffset());
        }
        return output.events;
    }

    @Test
    void watermarksAndRecordsAreIcebergsOnSplitsInAnyOrder() throws Exception {
        IcebergSourceSplit a = split("/a.parquet");
        IcebergSourceSplit b = split("/b.parquet");
        IcebergSourceSplit c = split("/c.parquet");
        IcebergSourceSplit aAgain = split("/a.parquet"); // another object with a's id, as after a restore
        Map<IcebergSourceSplit, Long> watermarks =
                new IdentityHashMap<>(Map.of(a, 100L, b, 50L, c, 200L, aAgain, 100L));
        SplitWatermarkExtractor extractor = watermarks::get;
        // b's watermark is lower than a's: neither emitter emits it.
        List<IcebergSourceSplit> order = List.of(a, a, a, b, b, c, aAgain, aAgain, c);

        List<String> expected = emit(SerializableRecordEmitter.emitterWithWatermark(extractor), order);
        for (IcebergSourceSplit split : List.of(a, b, c, aAgain)) {
            split.updatePosition(0, 0);
        }
        List<String> actual = emit(new SplitWatermarkEmitter<>(extractor), order);

        assertThat(actual).isEqualTo(expected).contains("wm 99", "wm 199").doesNotContain("wm 49");
    }
}
