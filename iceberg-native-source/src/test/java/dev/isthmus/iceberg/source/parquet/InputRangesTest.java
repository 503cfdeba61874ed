package dev.isthmus.iceberg.source.parquet;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.EOFException;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.SplittableRandom;
import org.apache.iceberg.io.RangeReadable;
import org.apache.iceberg.io.SeekableInputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class InputRangesTest {
    private static byte[] content(int size) {
        byte[] bytes = new byte[size];
        new SplittableRandom(3).nextBytes(bytes);
        return bytes;
    }

    @Test
    void readsRangesLargerThanItsChunkThroughASeekableStream(@TempDir Path dir) throws IOException {
        byte[] bytes = content(3 * InputRanges.CHUNK + 123);
        Path file = Files.write(dir.resolve("data.bin"), bytes);
        try (SeekableInputStream in =
                        org.apache.iceberg.Files.localInput(file.toFile()).newStream();
                Arena arena = Arena.ofConfined()) {
            InputRanges ranges = new InputRanges(in, file.toString());
            MemorySegment target = arena.allocate(2 * InputRanges.CHUNK + 7);
            ranges.read(InputRanges.CHUNK - 5, target);
            assertArrayEquals(
                    Arrays.copyOfRange(bytes, InputRanges.CHUNK - 5, 3 * InputRanges.CHUNK + 2),
                    target.toArray(ValueLayout.JAVA_BYTE));
            MemorySegment tail = arena.allocate(10);
            ranges.read(bytes.length - 10, tail);
            assertArrayEquals(
                    Arrays.copyOfRange(bytes, bytes.length - 10, bytes.length), tail.toArray(ValueLayout.JAVA_BYTE));
            var e = assertThrows(EOFException.class, () -> ranges.read(bytes.length - 3, arena.allocate(8)));
            assertTrue(e.getMessage().contains(file.toString()), e.getMessage());
        }
    }

    /** A FileIO stream that reads at positions (as S3's does): seek must not be needed. */
    private static final class PositionalStream extends SeekableInputStream implements RangeReadable {
        private final byte[] bytes;

        PositionalStream(byte[] bytes) {
            this.bytes = bytes;
        }

        @Override
        public long getPos() {
            throw new UnsupportedOperationException("positional reads only");
        }

        @Override
        public void seek(long newPos) {
            throw new UnsupportedOperationException("positional reads only");
        }

        @Override
        public int read() {
            throw new UnsupportedOperationException("positional reads only");
        }

        @Override
        public void readFully(long position, byte[] buffer, int offset, int length) throws IOException {
            if (position + length > bytes.length) {
                throw new EOFException("past the end");
            }
            System.arraycopy(bytes, (int) position, buffer, offset, length);
        }

        @Override
        public int readTail(byte[] buffer, int offset, int length) {
            System.arraycopy(bytes, bytes.length - length, buffer, offset, length);
            return length;
        }
    }

    @Test
    void usesPositionalReadsWhenTheStreamHasThem() throws IOException {
        byte[] bytes = content(InputRanges.CHUNK + 1000);
        try (PositionalStream in = new PositionalStream(bytes);
                Arena arena = Arena.ofConfined()) {
            MemorySegment target = arena.allocate(InputRanges.CHUNK + 10);
            new InputRanges(in, "s3://bucket/key").read(500, target);
            assertArrayEquals(
                    Arrays.copyOfRange(bytes, 500, 500 + InputRanges.CHUNK + 10),
                    target.toArray(ValueLayout.JAVA_BYTE));
        }
    }
}
