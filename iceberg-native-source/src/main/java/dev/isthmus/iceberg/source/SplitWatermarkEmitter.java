package dev.isthmus.iceberg.source;

import org.apache.flink.api.common.eventtime.Watermark;
import org.apache.flink.api.connector.source.SourceOutput;
import org.apache.iceberg.flink.source.reader.RecordAndPosition;
import org.apache.iceberg.flink.source.reader.SerializableRecordEmitter;
import org.apache.iceberg.flink.source.reader.SplitWatermarkExtractor;
import org.apache.iceberg.flink.source.split.IcebergSourceSplit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Iceberg's watermark emitter (the split's watermark, minus one, before its first record, when it
 * is not below the last), without its cost per record: Iceberg's compares the split's id with
 * the last one on every record, and {@code IcebergSourceSplit.splitId()} builds that id from
 * the split's files each time; on a bid table that was a large share of a native scan's time
 * (docs/nexmark.md). A reader hands every record of a split with the same split object, so the
 * id is compared only when that object changes.
 */
final class SplitWatermarkEmitter<T> implements SerializableRecordEmitter<T> {
    private static final long serialVersionUID = 1L;
    private static final Logger LOG = LoggerFactory.getLogger(SplitWatermarkEmitter.class);

    private final SplitWatermarkExtractor extractor;
    private transient IcebergSourceSplit lastSplit;
    private String lastSplitId;
    private long watermark = Long.MIN_VALUE;

    SplitWatermarkEmitter(SplitWatermarkExtractor extractor) {
        this.extractor = extractor;
    }

    @Override
    public void emitRecord(RecordAndPosition<T> element, SourceOutput<T> output, IcebergSourceSplit split) {
        if (split != lastSplit) {
            lastSplit = split;
            String splitId = split.splitId();
            if (!splitId.equals(lastSplitId)) {
                long splitWatermark = extractor.extractWatermark(split);
                long next = splitWatermark > Long.MIN_VALUE ? splitWatermark - 1 : Long.MIN_VALUE;
                if (next < watermark) {
                    LOG.info(
                            "Split {} has a lower watermark ({}) than the last one, {} ({}): not emitted",
                            splitId,
                            next,
                            lastSplitId,
                            watermark);
                } else {
                    watermark = next;
                    output.emitWatermark(new Watermark(watermark));
                }
                lastSplitId = splitId;
            }
        }
        output.collect(element.record());
        split.updatePosition(element.fileOffset(), element.recordOffset());
    }
}
