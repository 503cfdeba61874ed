package dev.isthmus.iceberg.source.parquet;

import java.io.EOFException;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.apache.iceberg.io.RangeReadable;
import org.apache.iceberg.io.SeekableInputStream;

/**
 * Copies byte ranges of a file opened through Iceberg's {@code FileIO} into native memory the
 * decoder owns. Java decides the I/O (any FileIO: local, HDFS, S3, ...); the library only
 * decodes. Streams that can read at a position ({@link RangeReadable}) are read without seeking.
 */
final class InputRanges {
    /** Big enough to amortise a read call, small enough to stay in cache on the way to native memory. */
    static final int CHUNK = 256 << 10;

    private final SeekableInputStream stream;
    private final String location;
    private final byte[] chunk = new byte[CHUNK];

    InputRanges(SeekableInputStream stream, String location) {
        this.stream = stream;
        this.location = location;
    }

    /** Fills all of {@code target} with the file's bytes starting at {@code position}. */
    void read(long position, MemorySegment target) throws IOException {
        long done = 0;
        long size = target.byteSize();
        if (stream instanceof RangeReadable ranges) {
            while (done < size) {
                int n = (int) Math.min(chunk.length, size - done);
                ranges.readFully(position + done, chunk, 0, n);
                MemorySegment.copy(chunk, 0, target, ValueLayout.JAVA_BYTE, done, n);
                done += n;
            }
            return;
        }
        stream.seek(position);
        while (done < size) {
            int n = stream.read(chunk, 0, (int) Math.min(chunk.length, size - done));
            if (n < 0) {
                throw new EOFException(location + ": end of file at byte " + (position + done) + " while reading "
                        + size + " bytes at " + position);
            }
            MemorySegment.copy(chunk, 0, target, ValueLayout.JAVA_BYTE, done, n);
            done += n;
        }
    }
}
