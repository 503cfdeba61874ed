package dev.isthmus.bench;

import com.github.luben.zstd.Zstd;
import java.io.IOException;
import java.io.InputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import org.apache.parquet.format.ColumnChunk;
import org.apache.parquet.format.ColumnMetaData;
import org.apache.parquet.format.CompressionCodec;
import org.apache.parquet.format.FileMetaData;
import org.apache.parquet.format.PageHeader;
import org.apache.parquet.format.RowGroup;
import org.apache.parquet.format.Util;

/**
 * The zstd pages of the bids file, read into memory for the floor benchmarks: each page's
 * compressed bytes (on the heap and in native memory), its decompressed bytes, and the size its
 * header promises.
 */
final class BidsPages {
    private BidsPages() {}

    /** One page; {@code uncompressed} is what its compressed bytes decompress to. */
    record Page(
            byte[] compressed,
            MemorySegment nativeCompressed,
            byte[] uncompressed,
            MemorySegment nativeUncompressed,
            int uncompressedSize) {}

    /** Every page of every column chunk (dictionary pages included), checked to be zstd. */
    static List<Page> read(Path file, Arena arena) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
            FileMetaData footer = readFooter(channel);
            List<Page> pages = new ArrayList<>();
            for (RowGroup group : footer.getRow_groups()) {
                for (ColumnChunk chunk : group.getColumns()) {
                    ColumnMetaData column = chunk.getMeta_data();
                    if (column.getCodec() != CompressionCodec.ZSTD) {
                        throw new IllegalStateException(file + ": column " + column.getPath_in_schema() + " is "
                                + column.getCodec() + ", not ZSTD");
                    }
                    long start = column.isSetDictionary_page_offset()
                            ? column.getDictionary_page_offset()
                            : column.getData_page_offset();
                    ByteBuffer bytes = read(channel, start, Math.toIntExact(column.getTotal_compressed_size()));
                    try (InputStream in = new ByteBufferInput(bytes)) {
                        while (bytes.hasRemaining()) {
                            PageHeader header = Util.readPageHeader(in);
                            byte[] body = new byte[header.getCompressed_page_size()];
                            bytes.get(body);
                            byte[] raw = Zstd.decompress(body, header.getUncompressed_page_size());
                            pages.add(new Page(
                                    body,
                                    offHeap(body, arena),
                                    raw,
                                    offHeap(raw, arena),
                                    header.getUncompressed_page_size()));
                        }
                    }
                }
            }
            return pages;
        }
    }

    private static MemorySegment offHeap(byte[] bytes, Arena arena) {
        MemorySegment copy = arena.allocate(Math.max(1, bytes.length), 64).asSlice(0, bytes.length);
        MemorySegment.copy(MemorySegment.ofArray(bytes), 0, copy, 0, bytes.length);
        return copy;
    }

    private static FileMetaData readFooter(FileChannel channel) throws IOException {
        long size = channel.size();
        ByteBuffer tail = read(channel, size - 8, 8).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        int footerLength = tail.getInt();
        try (InputStream in = new ByteBufferInput(read(channel, size - 8 - footerLength, footerLength))) {
            return Util.readFileMetaData(in);
        }
    }

    private static ByteBuffer read(FileChannel channel, long position, int length) throws IOException {
        ByteBuffer buffer = ByteBuffer.allocate(length);
        while (buffer.hasRemaining()) {
            if (channel.read(buffer, position + buffer.position()) < 0) {
                throw new IOException("unexpected end of file at " + (position + buffer.position()));
            }
        }
        return buffer.flip();
    }

    /** A stream over a buffer that advances it, so page bodies can be sliced after each header. */
    private static final class ByteBufferInput extends InputStream {
        private final ByteBuffer buffer;

        ByteBufferInput(ByteBuffer buffer) {
            this.buffer = buffer;
        }

        @Override
        public int read() {
            return buffer.hasRemaining() ? buffer.get() & 0xff : -1;
        }

        @Override
        public int read(byte[] target, int offset, int length) {
            if (!buffer.hasRemaining()) {
                return -1;
            }
            int n = Math.min(length, buffer.remaining());
            buffer.get(target, offset, n);
            return n;
        }
    }
}
