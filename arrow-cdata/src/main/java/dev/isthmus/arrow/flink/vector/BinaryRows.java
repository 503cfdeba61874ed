package dev.isthmus.arrow.flink.vector;

import org.apache.flink.core.memory.MemorySegment;
import org.apache.flink.core.memory.MemorySegmentFactory;
import org.apache.flink.table.data.binary.BinaryRowData;

/**
 * Rows in Flink's {@link BinaryRowData} layout, back to back in one heap array, as
 * {@link BinaryRowTransposer} writes them. A {@code BinaryRowData} pointed at one of them
 * ({@link #pointTo}) is an ordinary binary row: Flink copies it with one array copy and
 * serializes it as its bytes.
 *
 * <p>The arrays are kept and overwritten by the next transpose into this object, so rows pointed
 * at it are valid until then. Not thread-safe.
 */
public final class BinaryRows {
    private byte[] data = new byte[0];
    private MemorySegment segment = MemorySegmentFactory.wrap(data);
    /** Row {@code i} is {@code [starts[i], starts[i + 1])}. */
    private int[] starts = new int[1];

    private int count;

    public int count() {
        return count;
    }

    /** The bytes this object holds on to, which the next transpose reuses. */
    public int capacityInBytes() {
        return data.length;
    }

    /** Points {@code row}, whose arity must be the rows', at row {@code index}. */
    public void pointTo(BinaryRowData row, int index) {
        if (index < 0 || index >= count) {
            throw new IndexOutOfBoundsException("row " + index + " of " + count);
        }
        int start = starts[index];
        row.pointTo(segment, start, starts[index + 1] - start);
    }

    /** Room for the starts of {@code rows} rows; the contents are the caller's to write. */
    int[] startsFor(int rows) {
        if (starts.length < rows + 1) {
            starts = new int[Math.max(rows + 1, starts.length + (starts.length >> 1))];
        }
        count = 0;
        return starts;
    }

    /** Room for {@code bytes} bytes of rows; the old contents are not kept. */
    byte[] dataFor(int bytes) {
        if (data.length < bytes) {
            long grown = Math.max(bytes, data.length + (long) (data.length >> 1));
            data = new byte[(int) Math.min(grown, BinaryRowTransposer.MAX_BYTES)];
            segment = MemorySegmentFactory.wrap(data);
        }
        return data;
    }

    void filled(int rows) {
        count = rows;
    }
}
