package dev.isthmus.iceberg.source;

import java.util.Collection;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.flink.api.connector.source.ReaderOutput;
import org.apache.flink.api.connector.source.SourceEvent;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceSplit;
import org.apache.flink.core.io.InputStatus;

/**
 * Iceberg's source reader, unchanged but for one thing done after its {@link #close()}: the only
 * moment the reader function learns that its reader is done (a {@code ReaderFunction} has no
 * close of its own), so that it can close the reader's memory tracker.
 */
final class ClosingSourceReader<T, SplitT extends SourceSplit> implements SourceReader<T, SplitT> {
    private final SourceReader<T, SplitT> delegate;
    private final Runnable afterClose;

    ClosingSourceReader(SourceReader<T, SplitT> delegate, Runnable afterClose) {
        this.delegate = delegate;
        this.afterClose = afterClose;
    }

    @Override
    public void start() {
        delegate.start();
    }

    @Override
    public InputStatus pollNext(ReaderOutput<T> output) throws Exception {
        return delegate.pollNext(output);
    }

    @Override
    public List<SplitT> snapshotState(long checkpointId) {
        return delegate.snapshotState(checkpointId);
    }

    @Override
    public CompletableFuture<Void> isAvailable() {
        return delegate.isAvailable();
    }

    @Override
    public void addSplits(List<SplitT> splits) {
        delegate.addSplits(splits);
    }

    @Override
    public void notifyNoMoreSplits() {
        delegate.notifyNoMoreSplits();
    }

    @Override
    public void handleSourceEvents(SourceEvent sourceEvent) {
        delegate.handleSourceEvents(sourceEvent);
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) throws Exception {
        delegate.notifyCheckpointComplete(checkpointId);
    }

    @Override
    public void notifyCheckpointAborted(long checkpointId) throws Exception {
        delegate.notifyCheckpointAborted(checkpointId);
    }

    @Override
    public void pauseOrResumeSplits(Collection<String> splitsToPause, Collection<String> splitsToResume) {
        delegate.pauseOrResumeSplits(splitsToPause, splitsToResume);
    }

    /** Closes Iceberg's reader, then runs the close action whether or not that threw. */
    @Override
    public void close() throws Exception {
        try {
            delegate.close();
        } finally {
            afterClose.run();
        }
    }
}
