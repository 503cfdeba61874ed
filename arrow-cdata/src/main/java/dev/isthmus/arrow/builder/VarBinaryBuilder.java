package dev.isthmus.arrow.builder;

import dev.isthmus.arrow.types.ArrowField;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * Arrow {@code utf8} and {@code binary}: int32 offsets (one more than the values) into a data
 * buffer. The bytes are taken as given; for {@code utf8} they must be UTF-8, as Flink's strings
 * are.
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

    private NativeBuffer offsetsBuffer;
    private MemorySegment offsets;
    private NativeBuffer dataBuffer;
    private MemorySegment data;
    /** Bytes of data in the current batch: the last offset. */
    private long dataEnd;
    /** The data capacity to start the next batch with: the last finished batch's. */
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
        long start = reserveData(length);
        MemorySegment.copy(source, offset, data, ValueLayout.JAVA_BYTE, start, length);
        endValue(start + length);
    }

    /** Appends the bytes of a native segment (off-heap Flink memory, another Arrow buffer). */
    public void append(MemorySegment nativeSource) {
        if (!nativeSource.isNative()) {
            throw new IllegalArgumentException(
                    "append(MemorySegment) takes native segments; use append(byte[]) for heap data");
        }
        long length = nativeSource.byteSize();
        long start = reserveData(length);
        MemorySegment.copy(nativeSource, 0, data, start, length);
        endValue(start + length);
    }

    /** Makes room for {@code bytes} more bytes of data and returns where they start. */
    private long reserveData(long bytes) {
        long end = dataEnd + bytes;
        if (end > MAX_DATA_BYTES) {
            throw new IllegalArgumentException("field '" + displayPath() + "' would hold " + end
                    + " bytes in this batch, more than the 2 GiB that int32 offsets address; finish the batch (it holds "
                    + length + " values) and append this " + bytes + "-byte value to the next");
        }
        if (dataBuffer == null) {
            dataBuffer = allocator.allocate(Math.max(end, dataCapacityHint));
            data = dataBuffer.segment();
        } else if (end > data.byteSize()) {
            dataBuffer.grow(Math.min(Math.max(end, data.byteSize() * 2), MAX_DATA_BYTES), dataEnd);
            data = dataBuffer.segment();
        }
        return dataEnd;
    }

    private void endValue(long end) {
        int slot = appendValidSlot();
        offsets.set(ValueLayout.JAVA_INT, (long) (slot + 1) << 2, (int) end);
        dataEnd = end;
    }

    @Override
    void appendEmpty() {
        endValue(dataEnd);
    }

    @Override
    void writeNullSlot(int slot) {
        offsets.set(ValueLayout.JAVA_INT, (long) (slot + 1) << 2, (int) dataEnd);
    }

    @Override
    void growSlots(int newCapacity) {
        long bytes = ((long) newCapacity + 1) << 2;
        if (offsetsBuffer == null) {
            offsetsBuffer = allocator.allocate(bytes);
            offsetsBuffer.segment().set(ValueLayout.JAVA_INT, 0, 0);
        } else {
            offsetsBuffer.grow(bytes, ((long) length + 1) << 2);
        }
        offsets = offsetsBuffer.segment();
    }

    @Override
    void resetContents() {
        dataEnd = 0;
    }

    @Override
    void truncateContents(int newLength) {
        dataEnd = offsets == null ? 0 : offsets.get(ValueLayout.JAVA_INT, (long) newLength << 2);
    }

    /** Also gives an empty batch a data buffer: consumers expect a non-NULL pointer. */
    @Override
    void prepareFinish() {
        super.prepareFinish();
        reserveData(0);
    }

    @Override
    void takeBuffers(List<NativeBuffer> buffers) {
        buffers.add(takeValidity());
        buffers.add(offsetsBuffer);
        buffers.add(dataBuffer);
        dataCapacityHint = Math.max(data.byteSize(), MIN_DATA_CAPACITY);
        offsetsBuffer = null;
        offsets = null;
        dataBuffer = null;
        data = null;
        dataEnd = 0;
    }

    @Override
    void freeBuffers() {
        if (offsetsBuffer != null) {
            offsetsBuffer.free();
            offsetsBuffer = null;
            offsets = null;
        }
        if (dataBuffer != null) {
            dataBuffer.free();
            dataBuffer = null;
            data = null;
        }
    }
}
