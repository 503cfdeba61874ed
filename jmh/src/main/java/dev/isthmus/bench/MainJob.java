package dev.isthmus.bench;

import dev.isthmus.ffm.Codec;
import dev.isthmus.ffm.NativeLibrary;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The README's main job, at the stage the project has reached: it generates a file of
 * Nexmark-like bids, maps it off-heap and round-trips it through every native codec, checking
 * the bytes and printing ratios and throughput. It grows into the full Flink write/read job as
 * the source and sink land (docs/roadmap.md).
 */
public final class MainJob {
    private MainJob() {}

    record Options(long sizeMiB, List<Codec> codecs, Path dir, long seed) {}

    public static void main(String[] args) throws IOException {
        Options options = parse(args);
        System.out.printf(Locale.ROOT, "Isthmus %s main job: codec round trip over %d MiB of Nexmark bids%n",
                NativeLibrary.version(), options.sizeMiB());
        Files.createDirectories(options.dir());
        Path file = options.dir().resolve("bids-" + options.sizeMiB() + "MiB-seed" + options.seed() + ".csv");
        long size = options.sizeMiB() << 20;
        boolean failed = false;
        try (Arena arena = Arena.ofShared()) {
            if (!Files.exists(file) || Files.size(file) != size) {
                System.out.println("generating " + file + " ...");
                MemorySegment staging = arena.allocate(size, 64);
                NexmarkBids.fillCsv(staging, options.seed());
                try (FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                        StandardOpenOption.TRUNCATE_EXISTING)) {
                    ch.write(staging.asByteBuffer());
                }
            }
            MemorySegment data;
            try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
                data = ch.map(FileChannel.MapMode.READ_ONLY, 0, size, arena);
            }
            data.load();
            MemorySegment restored = arena.allocate(size, 64);
            System.out.printf(Locale.ROOT, "%-12s %8s %14s %14s %s%n", "codec", "ratio", "compress MB/s",
                    "decompress MB/s", "check");
            for (Codec codec : options.codecs()) {
                MemorySegment compressed = arena.allocate(codec.maxCompressedSize(size), 64);
                long t0 = System.nanoTime();
                long compressedSize = codec.compress(Codec.DEFAULT_LEVEL, data, compressed);
                long t1 = System.nanoTime();
                long restoredSize = codec.decompress(compressed.asSlice(0, compressedSize), restored);
                long t2 = System.nanoTime();
                boolean same = restoredSize == size && data.mismatch(restored) == -1;
                failed |= !same;
                System.out.printf(Locale.ROOT, "%-12s %8.2f %14.0f %14.0f %s%n", codec.name().toLowerCase(Locale.ROOT),
                        (double) size / compressedSize, mbPerSecond(size, t1 - t0), mbPerSecond(size, t2 - t1),
                        same ? "identical" : "MISMATCH");
            }
        }
        if (failed) {
            System.err.println("FAILED: a codec did not reproduce the input");
            System.exit(1);
        }
    }

    private static double mbPerSecond(long bytes, long nanos) {
        return bytes / 1e6 / (nanos / 1e9);
    }

    static Options parse(String[] args) {
        long sizeMiB = 256;
        List<Codec> codecs = new ArrayList<>(List.of(Codec.ZSTD, Codec.LZ4_RAW, Codec.SNAPPY, Codec.GZIP, Codec.BROTLI));
        Path dir = Path.of(System.getProperty("java.io.tmpdir"), "isthmus-main-job");
        long seed = 1;
        for (int i = 0; i < args.length; i++) {
            String arg = args[i];
            switch (arg) {
                case "--size-mib" -> sizeMiB = Long.parseLong(value(args, ++i, arg));
                case "--codecs" -> {
                    codecs.clear();
                    for (String name : value(args, ++i, arg).split(",")) {
                        codecs.add(Codec.byName(name));
                    }
                }
                case "--dir" -> dir = Path.of(value(args, ++i, arg));
                case "--seed" -> seed = Long.parseLong(value(args, ++i, arg));
                case "--help", "-h" -> {
                    System.out.println("usage: MainJob [--size-mib N (256)] [--codecs zstd,lz4_raw,snappy,gzip,brotli]"
                            + " [--dir DIR] [--seed N]");
                    System.exit(0);
                }
                default -> throw new IllegalArgumentException("unknown argument " + arg + " (try --help)");
            }
        }
        if (sizeMiB <= 0) {
            throw new IllegalArgumentException("--size-mib must be positive, got " + sizeMiB);
        }
        return new Options(sizeMiB, codecs, dir, seed);
    }

    private static String value(String[] args, int i, String flag) {
        if (i >= args.length) {
            throw new IllegalArgumentException(flag + " needs a value");
        }
        return args[i];
    }
}
