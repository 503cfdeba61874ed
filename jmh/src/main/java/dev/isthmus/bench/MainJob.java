package dev.isthmus.bench;

import dev.isthmus.ffm.Codec;
import dev.isthmus.ffm.NativeLibrary;
import dev.isthmus.iceberg.source.parquet.NativeParquetFile;
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
 * The README's main job, at the stage the project has reached:
 * <ol>
 *   <li>writes N Nexmark bids (default 2,000,000) with Iceberg's own Parquet writer and reads
 *   them back with Iceberg's Flink reader and with the native decoder (through Flink's columnar
 *   rows), checking that both see the same values and printing the times;</li>
 *   <li>round-trips a generated file of bids through every native codec, checking the bytes.</li>
 * </ol>
 * It grows into the full Flink write/read job as the source and sink land (docs/roadmap.md).
 */
public final class MainJob {
    private MainJob() {}

    record Options(long rows, long sizeMiB, List<Codec> codecs, Path dir, long seed) {}

    public static void main(String[] args) throws IOException {
        Options options = parse(args);
        System.out.printf(Locale.ROOT, "Isthmus %s main job%n", NativeLibrary.version());
        boolean decoded = decode(options);
        boolean coded = codecs(options);
        if (!decoded || !coded) {
            System.err.println("FAILED: see the mismatches above");
            System.exit(1);
        }
    }

    /** Iceberg's Flink reader and the native decoder over the same Iceberg-written file. */
    private static boolean decode(Options options) throws IOException {
        System.out.printf(Locale.ROOT, "%n1. decode %,d bids written by Iceberg (zstd, table defaults)%n", options.rows());
        System.out.println("   writing the file (once; cached under " + System.getProperty("java.io.tmpdir") + ") ...");
        Path file = BidsParquetFile.ensure(options.rows(), options.seed());
        long stockSum = 0;
        long nativeSum = 0;
        long stockBest = Long.MAX_VALUE;
        long nativeBest = Long.MAX_VALUE;
        for (int run = 1; run <= 3; run++) {
            System.out.printf(Locale.ROOT, "   run %d/3 ...%n", run);
            long t0 = System.nanoTime();
            stockSum = DecodeBenchmark.stockRowScan(file);
            long t1 = System.nanoTime();
            try (NativeParquetFile parquet = NativeParquetFile.open(file)) {
                nativeSum = DecodeBenchmark.readAll(parquet, false);
            }
            long t2 = System.nanoTime();
            stockBest = Math.min(stockBest, t1 - t0);
            nativeBest = Math.min(nativeBest, t2 - t1);
        }
        boolean same = stockSum == nativeSum;
        System.out.printf(Locale.ROOT, "   %-44s %8s %12s%n", "reader (best of 3, every value read)", "ms", "rows/s");
        System.out.printf(Locale.ROOT, "   %-44s %8.0f %,12.0f%n", "Iceberg's Flink reader (stock)", stockBest / 1e6,
                options.rows() / (stockBest / 1e9));
        System.out.printf(Locale.ROOT, "   %-44s %8.0f %,12.0f%n", "Isthmus native decoder", nativeBest / 1e6,
                options.rows() / (nativeBest / 1e9));
        System.out.printf(Locale.ROOT, "   native/stock: %.2fx; values %s%n", (double) stockBest / nativeBest,
                same ? "identical (checksum " + nativeSum + ")" : "DIFFER: stock " + stockSum + ", native " + nativeSum);
        return same;
    }

    /** Every native codec over a generated file of bids as CSV text. */
    private static boolean codecs(Options options) throws IOException {
        System.out.printf(Locale.ROOT, "%n2. codec round trip over %d MiB of Nexmark bids%n", options.sizeMiB());
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
        return !failed;
    }

    private static double mbPerSecond(long bytes, long nanos) {
        return bytes / 1e6 / (nanos / 1e9);
    }

    static Options parse(String[] args) {
        long rows = 2_000_000;
        long sizeMiB = 256;
        List<Codec> codecs = new ArrayList<>(List.of(Codec.ZSTD, Codec.LZ4_RAW, Codec.SNAPPY, Codec.GZIP, Codec.BROTLI));
        Path dir = Path.of(System.getProperty("java.io.tmpdir"), "isthmus-main-job");
        long seed = 1;
        for (int i = 0; i < args.length; i++) {
            String arg = args[i];
            switch (arg) {
                case "--rows" -> rows = Long.parseLong(value(args, ++i, arg));
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
                    System.out.println("usage: MainJob [--rows N (2000000)] [--size-mib N (256)]"
                            + " [--codecs zstd,lz4_raw,snappy,gzip,brotli] [--dir DIR] [--seed N]");
                    System.exit(0);
                }
                default -> throw new IllegalArgumentException("unknown argument " + arg + " (try --help)");
            }
        }
        if (sizeMiB <= 0 || rows <= 0) {
            throw new IllegalArgumentException("--rows and --size-mib must be positive, got " + rows + " and " + sizeMiB);
        }
        return new Options(rows, sizeMiB, codecs, dir, seed);
    }

    private static String value(String[] args, int i, String flag) {
        if (i >= args.length) {
            throw new IllegalArgumentException(flag + " needs a value");
        }
        return args[i];
    }
}
