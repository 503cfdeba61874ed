package dev.isthmus.arrow.builder;

import dev.isthmus.arrow.types.ArrowField;
import dev.isthmus.arrow.types.ArrowType;

/** Arrow {@code fixed_size_binary(N)} ({@code w:N}): uuids and Iceberg's {@code fixed(N)}. */
public final class FixedSizeBinaryBuilder extends FixedWidthBuilder {
    FixedSizeBinaryBuilder(ArrowField field, String path, BufferAllocator allocator) {
        super(field, path, allocator, ((ArrowType.FixedSizeBinary) field.type()).byteWidth());
    }

    public int byteWidth() {
        return byteWidth;
    }

    /**
     * @throws IllegalArgumentException naming the field when {@code value} is not exactly
     *     {@link #byteWidth()} bytes long
     */
    public void append(byte[] value) {
        if (value.length != byteWidth) {
            throw new IllegalArgumentException("field '" + displayPath() + "' holds exactly " + byteWidth
                    + " bytes per value (fixed_size_binary(" + byteWidth + ")) but got " + value.length);
        }
        int slot = appendValidSlot();
        System.arraycopy(value, 0, values, slot * byteWidth, byteWidth);
    }
}
