package dev.isthmus.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.SplittableRandom;
import org.apache.iceberg.Schema;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetWriter;
import org.apache.iceberg.io.FileAppender;
import org.apache.iceberg.parquet.Parquet;
import org.apache.iceberg.types.Types;

/**
 * The decode benchmarks' input: Nexmark-like bids written by Iceberg's own Parquet writer with
 * a table's default properties (zstd, 128 MB row groups, 1 MB pages, dictionaries on), cached
 * by row count and seed under the temp directory so repeated runs reuse it. The codec is set
 * explicitly: {@code Parquet.write} without table properties falls back to gzip, while tables
 * default to zstd ({@code write.parquet.compression-codec}).
 */
public final class BidsParquetFile {
    public static final Schema SCHEMA = new Schema(
            Types.NestedField.optional(1, "auction", Types.LongType.get()),
            Types.NestedField.optional(2, "bidder", Types.LongType.get()),
            Types.NestedField.optional(3, "price", Types.LongType.get()),
            Types.NestedField.optional(4, "channel", Types.StringType.get()),
            Types.NestedField.optional(5, "url", Types.StringType.get()),
            Types.NestedField.optional(6, "dateTime", Types.TimestampType.withoutZone()),
            Types.NestedField.optional(7, "extra", Types.StringType.get()));

    private static final String[] CHANNELS = {"Google", "Facebook", "Baidu", "Apple"};
    private static final LocalDateTime BASE = LocalDateTime.of(2026, 11, 30, 0, 0);

    private BidsParquetFile() {}

    /** The file for {@code rows} bids, written now if it does not exist yet. */
    public static Path ensure(long rows, long seed) {
        Path dir = Path.of(System.getProperty("java.io.tmpdir"), "isthmus-bench");
        Path file = dir.resolve("bids-" + rows + "-seed" + seed + "-zstd.parquet");
        if (Files.exists(file)) {
            return file;
        }
        try {
            Files.createDirectories(dir);
            Path partial = dir.resolve(file.getFileName() + ".partial");
            Files.deleteIfExists(partial);
            write(partial, rows, seed);
            Files.move(partial, file);
            return file;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static void write(Path file, long rows, long seed) throws IOException {
        SplittableRandom random = new SplittableRandom(seed);
        GenericRecord template = GenericRecord.create(SCHEMA);
        try (FileAppender<Record> appender = Parquet.write(org.apache.iceberg.Files.localOutput(file.toFile()))
                .schema(SCHEMA)
                .createWriterFunc(GenericParquetWriter::create)
                .set(TableProperties.PARQUET_COMPRESSION, TableProperties.PARQUET_COMPRESSION_DEFAULT_SINCE_1_4_0)
                .overwrite()
                .build()) {
            for (long event = 0; event < rows; event++) {
                appender.add(bid(template, random, event));
            }
        }
    }

    /** One bid; the distributions follow Nexmark's generator loosely (hot auctions, few channels). */
    static Record bid(GenericRecord template, SplittableRandom random, long event) {
        Record r = template.copy();
        String channel = CHANNELS[random.nextInt(CHANNELS.length)];
        r.set(0, 1000 + (random.nextInt(10) == 0 ? random.nextLong(100_000) : random.nextLong(100)));
        r.set(1, 1000 + random.nextLong(1_000_000));
        r.set(2, 100 + random.nextLong(10_000_000));
        r.set(3, channel);
        r.set(
                4,
                "https://www.nexmark.com/" + channel.toLowerCase() + "/item.htm?query=1&channel_id="
                        + random.nextInt(1 << 20));
        r.set(5, BASE.plusNanos((event * 10 + random.nextInt(10)) * 1_000_000L));
        StringBuilder extra = new StringBuilder();
        int n = random.nextInt(24);
        for (int i = 0; i < n; i++) {
            extra.append((char) ('a' + random.nextInt(26)));
        }
        r.set(6, extra.toString());
        return r;
    }

    static long epochMicros(LocalDateTime t) {
        return t.toEpochSecond(ZoneOffset.UTC) * 1_000_000L + t.getNano() / 1_000;
    }
}
