package dev.isthmus.arrow;

import dev.isthmus.arrow.builder.BufferAllocator;
import dev.isthmus.arrow.builder.FinishedArray;
import dev.isthmus.arrow.cdata.ArrowExporter;
import dev.isthmus.arrow.cdata.ImportedArray;
import dev.isthmus.arrow.flink.builder.RowDataAppender;
import dev.isthmus.arrow.flink.vector.ArrowColumnarBatch;
import dev.isthmus.arrow.memory.MemoryTracker;
import dev.isthmus.ffm.Diagnostics;
import dev.isthmus.ffm.gen.ArrowArray;
import dev.isthmus.ffm.gen.ArrowSchema;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;

/**
 * Rows as a batch the native library produced: Java builders -> export ->
 * {@code isthmus_arrow_echo} (which validates, copies and re-exports) -> import.
 */
public final class NativeRoundTrip {
    private NativeRoundTrip() {}

    /** The rows as one Java-built batch, not yet exported. */
    public static FinishedArray build(List<? extends RowData> rows, RowType type, MemoryTracker tracker) {
        try (RowDataAppender appender = new RowDataAppender(type, new BufferAllocator(tracker))) {
            rows.forEach(appender::append);
            return appender.finish();
        }
    }

    public static ArrowColumnarBatch batch(List<? extends RowData> rows, RowType type, MemoryTracker tracker) {
        FinishedArray finished = build(rows, type, tracker);
        try (Arena call = Arena.ofConfined()) {
            MemorySegment array = ArrowArray.allocate(call);
            MemorySegment schema = ArrowSchema.allocate(call);
            ArrowExporter.export(finished, array, schema);
            return new ArrowColumnarBatch(ImportedArray.receive(
                    tracker, (outArray, outSchema) -> Diagnostics.arrowEcho(array, schema, outArray, outSchema)));
        }
    }

    /**
     * The rows as a Java-built batch imported straight back with the struct sliced to rows
     * {@code [offset, offset + length)}: the struct's offset must carry into every column.
     */
    public static ArrowColumnarBatch sliced(
            List<? extends RowData> rows, RowType type, int offset, int length, MemoryTracker tracker) {
        FinishedArray finished = build(rows, type, tracker);
        try (Arena call = Arena.ofConfined()) {
            MemorySegment array = ArrowArray.allocate(call);
            MemorySegment schema = ArrowSchema.allocate(call);
            ArrowExporter.export(finished, array, schema);
            ArrowArray.offset(array, offset);
            ArrowArray.length(array, length);
            return new ArrowColumnarBatch(ImportedArray.receive(tracker, (outArray, outSchema) -> {
                MemorySegment.copy(array, 0, outArray, 0, ArrowArray.sizeof());
                ArrowArray.release(array, MemorySegment.NULL);
                MemorySegment.copy(schema, 0, outSchema, 0, ArrowSchema.sizeof());
                ArrowSchema.release(schema, MemorySegment.NULL);
            }));
        }
    }
}
