package dev.isthmus.iceberg.sink.parquet;

import dev.isthmus.arrow.builder.BufferAllocator;
import dev.isthmus.arrow.builder.FinishedArray;
import dev.isthmus.arrow.cdata.ArrowExporter;
import dev.isthmus.arrow.flink.TypeMapping;
import dev.isthmus.arrow.flink.builder.RowDataAppender;
import dev.isthmus.arrow.memory.MemoryTracker;
import dev.isthmus.ffm.NativeCall;
import dev.isthmus.ffm.NativeErrors;
import dev.isthmus.ffm.NativeException;
import dev.isthmus.ffm.NativeLibrary;
import dev.isthmus.ffm.gen.ArrowArray;
import dev.isthmus.ffm.gen.isthmus_h;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;
import org.apache.iceberg.Metrics;
import org.apache.iceberg.MetricsConfig;
import org.apache.iceberg.Schema;
import org.apache.iceberg.io.FileAppender;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.io.PositionOutputStream;

/**
 * An Iceberg {@link FileAppender} of Flink rows whose Parquet file is encoded by the native
 * library ({@code docs/encoder.md}). Rows of any {@link RowData} implementation are appended to
 * an Arrow batch; every full batch is copied into native buffers, exported and moved into the
 * library, and the
 * byte ranges it finishes (a row group at a time) are written to the {@link OutputFile}'s
 * stream, so any {@code FileIO} works and at most one row group is held in memory. As Iceberg's
 * writer, it creates the file only when the first batch is written: a writer closed without
 * rows leaves no file, and its metrics are Iceberg's empty ones (0 rows, no maps). A local
 * path ({@link NativeParquet#write(Path)}) is written by the library itself instead, under a
 * temporary name until {@link #close()} moves it into place.
 *
 * <p>{@link #length()} is the library's estimate of the file (written bytes plus the open row
 * group) plus the rows of the current Java batch at the bytes per row seen so far, which is what
 * rolling at {@code write.target-file-size-bytes} needs. Until the library has seen rows there is
 * nothing to go by, so the first call with rows waiting hands them over early (Iceberg's rolling
 * writers ask every 1,000 rows, so a file with a small target still rolls at the first check
 * that can tell). After {@link #close()} it is the
 * exact file size, and {@link #metrics()} and {@link #splitOffsets()} are available.
 *
 * <p><b>Failure.</b> A row that does not fit the schema (a null in a required column, a wrong
 * arity, a value the library refuses) throws an {@link IllegalArgumentException} naming the
 * column. Any failure fails the writer for good: the native writer is aborted, the output
 * stream closed, and the file deleted (through the FileIO given to the builder, directly when
 * it is local, or by the library for a path it writes), so no partial file is left to be
 * committed; every later call but {@link #abort()} and {@link #close()} throws
 * {@link IllegalStateException}. {@link #abort()} does the same on request (an aborted
 * checkpoint, a cancelled task).
 *
 * <p><b>Threads.</b> Calls are meant to come from one thread, as for Iceberg's writers; they are
 * serialized on the writer's monitor, so a {@link #close()} or {@link #abort()} from another thread
 * (a cancelled task) waits for the call in flight to return and then completes or gives up the
 * file, and calls after it throw {@link IllegalStateException}. A monitor rather than a lease
 * ({@link dev.isthmus.ffm.NativeHandle}): the calls change Java state that must not interleave
 * either (the batch being appended frees its old string buffers as they grow), not only the native
 * writer.
 * Uncontended, it costs two atomic operations per call.
 */
public final class NativeParquetWriter implements FileAppender<RowData> {
    /** Time spent handing batches to the library (export, encoding, output) by every writer in this JVM. */
    private static final LongAdder ENCODE_NANOS = new LongAdder();

    /** Bytes copied from native output to the stream per write, so a row group needs no heap array of its size. */
    private static final int COPY_CHUNK = 1 << 20;
    /** The library's option that lets a path writer replace an existing file. */
    private static final String OVERWRITE_OPTION = "isthmus.overwrite";

    private enum State {
        OPEN,
        CLOSED,
        FAILED
    }

    /** The Iceberg file written through its stream, or {@code null} for a local path the library writes. */
    private final OutputFile file;

    private final String location;
    private final boolean overwrite;
    private final Schema schema;
    private final Map<String, String> properties;
    private final MetricsConfig metricsConfig;
    private final int batchSize;
    private final FileIO io;
    private final MemoryTracker tracker;
    private final RowDataAppender appender;
    private final MemorySegment writer;
    private final Arena scratch = Arena.ofShared();
    private final MemorySegment error = NativeErrors.allocate(scratch);
    private final MemorySegment array = ArrowArray.allocate(scratch);
    private final MemorySegment outData = scratch.allocate(ValueLayout.ADDRESS);
    private final MemorySegment outLength = scratch.allocate(ValueLayout.JAVA_LONG);
    private final MemorySegment sizeWritten = scratch.allocate(ValueLayout.JAVA_LONG);
    private final MemorySegment sizeEstimated = scratch.allocate(ValueLayout.JAVA_LONG);
    /** Bytes the library holds for this writer's open row group, as counted in {@link #tracker}. */
    private long buffered;
    /** Allocated with the first output: a writer of a local path never needs it. */
    private byte[] copyBuffer;

    private PositionOutputStream out;
    /** Rows moved into the library: what the bytes-per-row estimate of {@link #length()} divides by. */
    private long encodedRows;

    private State state = State.OPEN;
    private RuntimeException failure;
    private WrittenFile result;

    private NativeParquetWriter(
            OutputFile file,
            String location,
            boolean overwrite,
            Schema schema,
            Map<String, String> properties,
            MetricsConfig metricsConfig,
            int batchSize,
            FileIO io,
            MemoryTracker tracker,
            RowDataAppender appender,
            MemorySegment writer) {
        this.file = file;
        this.location = location;
        this.overwrite = overwrite;
        this.schema = schema;
        this.properties = properties;
        this.metricsConfig = metricsConfig;
        this.batchSize = batchSize;
        this.io = io;
        this.tracker = tracker;
        this.appender = appender;
        this.writer = writer;
    }

    /**
     * Opens a writer of {@code file}, or, when {@code file} is null, of the local {@code path},
     * which the library writes itself: under a hidden temporary name, moved into place by
     * {@link #close()}, so not even a crash leaves a partial file at the path.
     */
    static NativeParquetWriter open(
            OutputFile file,
            Path path,
            Schema schema,
            Map<String, String> properties,
            MetricsConfig metricsConfig,
            boolean overwrite,
            int batchSize,
            FileIO io,
            MemoryTracker parent) {
        WriterSchema.requireWritable(schema);
        NativeLibrary.require();
        String location = file != null ? file.location() : path.toString();
        MemorySegment writer = openNative(file == null ? path : null, schema, properties, overwrite, parent);
        MemoryTracker tracker = null;
        RowDataAppender appender = null;
        try {
            tracker = parent.child("parquet-writer " + location);
            appender = new RowDataAppender(flinkType(schema), new BufferAllocator(tracker));
            return new NativeParquetWriter(
                    file,
                    location,
                    overwrite,
                    schema,
                    properties,
                    metricsConfig,
                    batchSize,
                    io,
                    tracker,
                    appender,
                    writer);
        } catch (RuntimeException | Error e) {
            isthmus_h.isthmus_writer_free(writer);
            if (appender != null) {
                appender.close();
            }
            if (tracker != null) {
                tracker.close();
            }
            throw e;
        }
    }

    private static MemorySegment openNative(
            Path path, Schema schema, Map<String, String> tableProperties, boolean overwrite, MemoryTracker tracker) {
        Map<String, String> properties = tableProperties;
        if (path != null && overwrite) {
            properties = new java.util.HashMap<>(tableProperties);
            properties.put(OVERWRITE_OPTION, "true");
        }
        try (NativeCall call = NativeCall.open()) {
            Arena arena = call.arena();
            MemorySegment keys = arena.allocate(ValueLayout.ADDRESS, Math.max(1, properties.size()));
            MemorySegment values = arena.allocate(ValueLayout.ADDRESS, Math.max(1, properties.size()));
            int i = 0;
            for (Map.Entry<String, String> e : properties.entrySet()) {
                keys.setAtIndex(ValueLayout.ADDRESS, i, arena.allocateFrom(e.getKey()));
                values.setAtIndex(ValueLayout.ADDRESS, i, arena.allocateFrom(e.getValue()));
                i++;
            }
            MemorySegment out = call.pointer();
            int count = properties.size();
            MemorySegment nativePath = path == null ? MemorySegment.NULL : call.string(path.toString());
            WriterSchema.withSchema(
                    schema,
                    tracker,
                    arrowSchema -> call.check(
                            path == null
                                    ? isthmus_h.isthmus_writer_open_buffered(
                                            arrowSchema, keys, values, count, out, call.error())
                                    : isthmus_h.isthmus_writer_open_path(
                                            nativePath, arrowSchema, keys, values, count, out, call.error())));
            return NativeCall.address(out);
        }
    }

    /**
     * The Flink row type of the rows a writer of {@code schema} takes: the one Iceberg's Flink
     * connector uses ({@code FlinkSchemaUtil}); also the layout of batches for {@link #write(FinishedArray)}.
     */
    public static RowType flinkType(Schema schema) {
        return (RowType) TypeMapping.toFlink(schema.asStruct(), false);
    }

    /** Where the file is being written. */
    public String location() {
        return location;
    }

    @Override
    public synchronized void add(RowData row) {
        requireOpen();
        try {
            appender.append(row);
        } catch (IllegalArgumentException e) {
            throw failWith(new IllegalArgumentException("cannot write to " + location + ": " + e.getMessage(), e));
        } catch (RuntimeException e) {
            throw failWith(e);
        } catch (Error e) {
            throw failWith(e);
        }
        if (appender.rowCount() >= batchSize) {
            flushBatch();
        }
    }

    /**
     * Appends a batch that is already Arrow, as a {@link RowDataAppender} of
     * {@link #flinkType(Schema)} lays it out, after any rows added before; the batch's buffers
     * are taken (moved into the library) whatever happens. A batch of another layout fails the
     * writer as a bad row does.
     */
    public synchronized void write(FinishedArray batch) {
        try {
            requireOpen();
            if (appender.rowCount() > 0) {
                flushBatch();
            }
        } catch (RuntimeException | Error e) {
            batch.close();
            throw e;
        }
        writeBatch(batch);
    }

    /**
     * Moves the current batch into the library and writes out whatever it finished. Finishing
     * copies the batch into native buffers, so it can meet the tracker's cap too.
     */
    private void flushBatch() {
        FinishedArray batch;
        try {
            batch = appender.finish();
        } catch (RuntimeException e) {
            throw failWith(e);
        } catch (Error e) {
            throw failWith(e);
        }
        writeBatch(batch);
    }

    private void writeBatch(FinishedArray batch) {
        int length = batch.length();
        long start = System.nanoTime();
        try {
            try {
                ArrowExporter.exportArray(batch, array);
            } catch (RuntimeException | Error e) {
                batch.close();
                throw e;
            }
            // The library releases the array before returning, success or not; the writer's own
            // schema says what the columns are, so none is passed with each batch.
            check(isthmus_h.isthmus_writer_write(writer, array, MemorySegment.NULL, error));
            encodedRows += length;
            drainOutput();
            noteBuffered();
        } catch (RuntimeException e) {
            throw failWith(e);
        } catch (Error e) {
            throw failWith(e);
        } finally {
            ENCODE_NANOS.add(System.nanoTime() - start);
        }
    }

    @SuppressWarnings("restricted") // the library's bytes, valid until the next take_output, of the length it reports
    private void drainOutput() {
        if (file == null) {
            return; // the library writes a local path itself
        }
        while (true) {
            check(isthmus_h.isthmus_writer_take_output(writer, outData, outLength, error));
            long length = outLength.get(ValueLayout.JAVA_LONG, 0);
            if (length == 0) {
                return;
            }
            MemorySegment bytes = outData.get(ValueLayout.ADDRESS, 0).reinterpret(length);
            try {
                if (out == null) {
                    out = overwrite ? file.createOrOverwrite() : file.create();
                }
                int chunk = (int) Math.min(COPY_CHUNK, length);
                if (copyBuffer == null || copyBuffer.length < chunk) {
                    copyBuffer = new byte[chunk];
                }
                for (long at = 0; at < length; at += chunk) {
                    int n = (int) Math.min(chunk, length - at);
                    MemorySegment.copy(bytes, ValueLayout.JAVA_BYTE, at, copyBuffer, 0, n);
                    out.write(copyBuffer, 0, n);
                }
            } catch (IOException e) {
                throw new UncheckedIOException("cannot write " + location, e);
            }
        }
    }

    /**
     * The estimated size of the file so far, for rolling (see the class comment); the exact size
     * once closed.
     */
    @Override
    public synchronized long length() {
        if (state == State.CLOSED) {
            return result.fileSize();
        }
        requireOpen();
        if (encodedRows == 0 && appender.rowCount() > 0) {
            flushBatch();
        }
        try {
            check(isthmus_h.isthmus_writer_size(writer, sizeWritten, sizeEstimated, error));
            long encoded = sizeEstimated.get(ValueLayout.JAVA_LONG, 0);
            long waiting = appender.rowCount();
            return encodedRows == 0 ? encoded : encoded + encoded * waiting / encodedRows;
        } catch (RuntimeException e) {
            throw failWith(e);
        } catch (Error e) {
            throw failWith(e);
        }
    }

    /** The file's metrics by the table's {@link MetricsConfig}; only after {@link #close()}, as Iceberg's. */
    @Override
    public synchronized Metrics metrics() {
        requireClosed("metrics");
        return result.metrics();
    }

    /** The row groups' start offsets after {@link #close()}; {@code null} before, as Iceberg's writer. */
    @Override
    public synchronized List<Long> splitOffsets() {
        return state == State.CLOSED ? result.splitOffsets() : null;
    }

    /**
     * Completes the file: the last batch, the footer, the stream closed. A second call does
     * nothing, and so does closing a failed writer (its file is already gone; {@link #length()}
     * and {@link #metrics()} then throw).
     */
    @Override
    public synchronized void close() throws IOException {
        if (state != State.OPEN) {
            return;
        }
        if (encodedRows == 0 && appender.rowCount() == 0) {
            isthmus_h.isthmus_writer_abort(writer, error);
            result = WrittenFile.EMPTY;
            state = State.CLOSED;
            release();
            return;
        }
        try {
            if (appender.rowCount() > 0) {
                flushBatch();
            }
            MemorySegment resultOut = scratch.allocate(ValueLayout.ADDRESS);
            check(isthmus_h.isthmus_writer_close(writer, resultOut, error));
            MemorySegment nativeResult = resultOut.get(ValueLayout.ADDRESS, 0);
            WrittenFile read;
            try {
                drainOutput();
                read = WrittenFile.read(nativeResult, schema, metricsConfig, properties);
            } finally {
                isthmus_h.isthmus_write_result_free(nativeResult);
            }
            long position;
            if (file != null) {
                position = out.getPos();
                out.close();
            } else {
                position = Files.size(Path.of(location));
            }
            if (position != read.fileSize()) {
                throw new IllegalStateException("wrote " + position + " bytes to " + location
                        + " but the library reports a file of " + read.fileSize());
            }
            result = read;
            state = State.CLOSED;
            release();
        } catch (IOException e) {
            throw failWith(new UncheckedIOException("cannot complete " + location, e));
        } catch (RuntimeException e) {
            throw failWith(e);
        } catch (Error e) {
            throw failWith(e);
        }
    }

    /**
     * Gives the file up: nothing more is written, the file is deleted. Does nothing once the
     * writer is closed (the file is complete; deleting it is the committer's business) or failed.
     */
    public synchronized void abort() {
        if (state == State.OPEN) {
            fail(new IllegalStateException("the writer of " + location + " was aborted"));
        }
    }

    private void check(int status) {
        try {
            NativeErrors.check(status, error);
        } catch (NativeException.InvalidArgument e) {
            throw new IllegalArgumentException("cannot write to " + location + ": " + e.getMessage(), e);
        } catch (NativeException e) {
            throw new IllegalStateException("the native writer of " + location + " failed: " + e.getMessage(), e);
        }
    }

    private void requireOpen() {
        if (state != State.OPEN) {
            throw new IllegalStateException(
                    "the writer of " + location + " is " + (state == State.CLOSED ? "closed" : "failed"), failure);
        }
    }

    private void requireClosed(String what) {
        if (state != State.CLOSED) {
            throw new IllegalStateException(
                    "cannot return " + what + " of " + location + " before it is closed"
                            + (state == State.FAILED ? " (it failed)" : ""),
                    failure);
        }
    }

    /** Fails the writer with {@code e} (keeping the first failure) and returns it, for {@code throw failWith(e)}. */
    private <T extends Throwable> T failWith(T e) {
        if (state == State.OPEN) {
            fail(e);
        }
        return e;
    }

    /** Gives the file up after {@code cause}: native writer aborted, stream closed, file deleted, memory freed. */
    private void fail(Throwable cause) {
        state = State.FAILED;
        failure = cause instanceof RuntimeException r ? r : new IllegalStateException(cause);
        isthmus_h.isthmus_writer_abort(writer, error);
        // Each step runs whatever the others do; their failures travel with the cause.
        try {
            if (out != null) {
                out.close();
            }
        } catch (IOException | RuntimeException e) {
            cause.addSuppressed(e);
        }
        try {
            delete();
        } catch (RuntimeException e) {
            cause.addSuppressed(e);
        }
        try {
            release();
        } catch (RuntimeException e) {
            cause.addSuppressed(e);
        }
    }

    private void delete() {
        if (out == null) {
            return; // never created
        }
        if (io != null) {
            io.deleteFile(location);
            return;
        }
        Path local = localPath(location);
        if (local == null) {
            throw new IllegalStateException("cannot delete the partial file " + location
                    + ": it is not local and the writer was built without deleteWith(FileIO)");
        }
        try {
            Files.deleteIfExists(local);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot delete the partial file " + location, e);
        }
    }

    /** A local file's path from a plain path or a {@code file:} URI; {@code null} for any other scheme. */
    private static Path localPath(String location) {
        if (location.startsWith("file:")) {
            return Path.of(URI.create(location));
        }
        return location.startsWith("/") ? Path.of(location) : null;
    }

    /**
     * Nanoseconds the native writers of this JVM have spent encoding: moving each batch into
     * the library and writing out what it finished, timed per batch rather than per row.
     */
    public static long encodeNanos() {
        return ENCODE_NANOS.sum();
    }

    /**
     * Counts the library's buffered pages in the writer's tracker after a batch went into the
     * library, so that a capped tracker fails the writer whose open row group grows past the cap
     * (the library has the memory by then; the failure frees it).
     */
    private void noteBuffered() {
        check(isthmus_h.isthmus_writer_size(writer, sizeWritten, sizeEstimated, error));
        long now = sizeEstimated.get(ValueLayout.JAVA_LONG, 0) - sizeWritten.get(ValueLayout.JAVA_LONG, 0);
        if (now > buffered) {
            tracker.allocated(now - buffered);
        } else {
            tracker.freed(buffered - now);
        }
        buffered = now;
    }

    private void release() {
        tracker.freed(buffered);
        buffered = 0;
        isthmus_h.isthmus_writer_free(writer);
        try {
            appender.close();
        } finally {
            try {
                scratch.close();
            } finally {
                tracker.close(); // the writer's own tracker: it leaves its parent once drained
            }
        }
    }
}
