package dev.isthmus.arrow.builder;

import dev.isthmus.arrow.types.ArrowField;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

/**
 * Arrow {@code utf8} and {@code binary}: int32 offsets (one more than the values) into a data
 * buffer. The bytes are taken as given; for {@code utf8} they must be UTF-8, as Flink's strings
 * are.
 *
 * <p>The offsets are staged on the heap like every builder's slots. The bytes go to a native data
 * buffer, counted by the allocator's tracker, through a small heap array: values shorter than it
 * are gathered there and copied into the data buffer when it fills (a bulk copy per few
 * kilobytes, not a native write per value); longer ones are copied straight in.
 *
 * <p>Int32 offsets cap a batch at 2 GiB - 1 bytes of data per field; an append past that fails,
 * naming the field, and leaves the batch as it was, so the caller can finish the batch and retry
 * the value in the next one.
 *
 * <p>Copies come either from a heap {@code byte[]} or from a native segment, through separate
 * methods: one copy site that sees both kinds of segment is several times slower.
 */
public final class VarBinaryBuilder extends ArrowBuilder {
    /** The largest data end an int32 offset can hold. */
    static final long MAX_DATA_BYTES = Integer.MAX_VALUE;

    private static final long MIN_DATA_CAPACITY = 1024;

    /** The heap array values pass through on their way to the data buffer. */
    static final int PENDING_BYTES = 16 * 1024;

    /** The staged offsets, one more than the slots; the first is always 0. */
    private int[] offsets = new int[1];
    /** The native data buffer: bytes {@code [0, flushedEnd)} of the batch. */
    private NativeBuffer dataBuffer;

    private MemorySegment data;
    /** Bytes {@code [flushedEnd, dataEnd)} of the batch, made on the first append. */
    private byte[] pending;

    private long flushedEnd;
    /** Bytes of data in the current batch: the last offset. */
    private long dataEnd;
    /**
     * The data capacity to start the next batch with: the last finished batch's bytes and a
     * quarter more, so that a steady stream of batches rarely grows (and copies) its buffer, and
     * one large batch does not size every batch after it.
     */
    private long dataCapacityHint = MIN_DATA_CAPACITY;

    VarBinaryBuilder(ArrowField field, String path, BufferAllocator allocator) {
        super(field, path, allocator);
    }

    /** Appends {@code value} as UTF-8, encoded by the JDK into a new array, then copied. */
    public void append(String value) {
        append(value.getBytes(StandardCharsets.UTF_8));
    }

    public void append(byte[] value) {
        append(value, 0, value.length);
    }

    /** Appends {@code length} bytes of {@code source} from {@code offset}. */
    public void append(byte[] source, int offset, int length) {
        long end = checkedEnd(length);
        int staged = pendingRoom(length);
        if (staged >= 0) {
            System.arraycopy(source, offset, pending, staged, length);
            endValue(end);
        } else {
            reserveData(end);
            MemorySegment.copy(source, offset, data, ValueLayout.JAVA_BYTE, dataEnd, length);
            endValue(end);
            flushedEnd = end;
        }
    }

    /** Appends the bytes of a native segment (off-heap Flink memory, another Arrow buffer). */
    public void append(MemorySegment nativeSource) {
        if (!nativeSource.isNative()) {
            throw new IllegalArgumentException(
                    "append(MemorySegment) takes native segments; use append(byte[]) for heap data");
        }
        long length = nativeSource.byteSize();
        long end = checkedEnd(length);
        int staged = pendingRoom(length);
        if (staged >= 0) {
            MemorySegment.copy(nativeSource, ValueLayout.JAVA_BYTE, 0, pending, staged, (int) length);
            endValue(end);
        } else {
            reserveData(end);
            MemorySegment.copy(nativeSource, 0, data, dataEnd, length);
            endValue(end);
            flushedEnd = end;
        }
    }

    /** Where the value goes, checked against int32 offsets. */
    private long checkedEnd(long bytes) {
        long end = dataEnd + bytes;
        if (end > MAX_DATA_BYTES) {
            throw new IllegalArgumentException("field '" + displayPath() + "' would hold " + end
                    + " bytes in this batch, more than the 2 GiB that int32 offsets address; finish the batch (it holds "
                    + length + " values) and append this " + bytes + "-byte value to the next");
        }
        return end;
    }

    /**
     * Where in {@link #pending} a value of {@code bytes} bytes goes, flushing it first if the
     * value does not fit behind what it holds; -1 (after flushing, so that the bytes keep their
     * order) for a value longer than it, which the caller copies straight into the data buffer.
     * The caller claims the value's slot before it moves {@link #flushedEnd}, so a failed claim
     * leaves the batch as it was.
     */
    private int pendingRoom(long bytes) {
        if (pending == null) {
            pending = new byte[PENDING_BYTES];
        }
        int held = (int) (dataEnd - flushedEnd);
        if (held + bytes <= PENDING_BYTES) {
            return held;
        }
        flush();
        return bytes <= PENDING_BYTES ? 0 : -1;
    }

    /** Moves the gathered bytes into the data buffer. */
    private void flush() {
        int held = (int) (dataEnd - flushedEnd);
        if (held > 0) {
            reserveData(dataEnd);
            MemorySegment.copy(pending, 0, data, ValueLayout.JAVA_BYTE, flushedEnd, held);
            flushedEnd = dataEnd;
        }
    }

    /** Makes the data buffer at least {@code end} bytes long, keeping its bytes up to {@link #flushedEnd}. */
    private void reserveData(long end) {
        if (dataBuffer == null) {
            dataBuffer = allocator.allocate(Math.max(end, dataCapacityHint));
            data = dataBuffer.segment();
        } else if (end > data.byteSize()) {
            dataBuffer.grow(Math.min(Math.max(end, data.byteSize() * 2), MAX_DATA_BYTES), flushedEnd);
            data = dataBuffer.segment();
        }
    }

    private void endValue(long end) {
        int slot = appendValidSlot();
        offsets[slot + 1] = (int) end;
        dataEnd = end;
    }

    @Override
    void appendEmpty() {
        endValue(dataEnd);
    }

    @Override
    void writeNullSlot(int slot) {
        offsets[slot + 1] = (int) dataEnd;
    }

    @Override
    void growSlots(int newCapacity) {
        offsets = Arrays.copyOf(offsets, newCapacity + 1);
    }

    @Override
    void resetContents() {
        dataEnd = 0;
        flushedEnd = 0;
    }

    @Override
    void truncateContents(int newLength) {
        dataEnd = offsets[newLength];
        flushedEnd = Math.min(flushedEnd, dataEnd);
    }

    /**
     * The offsets copied out; the data buffer itself handed over once the gathered bytes are in
     * it. A batch whose bytes all wait in the staging gets a buffer of their size (a batch without
     * bytes gets one too: consumers expect a non-NULL pointer).
     */
    @Override
    void copyBuffers(List<NativeBuffer> buffers) {
        buffers.add(copyValidity());
        buffers.add(OffsetListBuilder.copyOffsets(allocator, offsets, length));
        if (dataBuffer == null) {
            dataBuffer = allocator.allocate(dataEnd);
            data = dataBuffer.segment();
        }
        flush();
        buffers.add(dataBuffer);
        dataCapacityHint = Math.max(dataEnd + dataEnd / 4, MIN_DATA_CAPACITY);
        dataBuffer = null;
        data = null;
    }

    @Override
    void freeBuffers() {
        offsets = new int[1];
        pending = null;
        if (dataBuffer != null) {
            dataBuffer.free();
            dataBuffer = null;
            data = null;
        }
    }
}
