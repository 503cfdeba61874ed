package dev.isthmus.bench.nexmark;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.util.HadoopInputFile;

/**
 * What a run committed, read back independently of both legs: Iceberg's generic Java reader
 * (deletes applied) for the rows, parquet-java for the files' footers.
 */
final class OutputCheck {
    private static final Configuration HADOOP = new Configuration();

    private OutputCheck() {}

    /**
     * The rows of the table's current snapshot as a count and an order-independent digest: each
     * row's values in canonical text form are hashed to 128 bits, and the sorted hashes hashed
     * again, so two tables agree only if they hold the same multiset of rows.
     */
    record Fingerprint(long rows, String digest) {}

    static Fingerprint fingerprint(Table table) {
        table.refresh();
        if (table.currentSnapshot() == null) {
            return digest(new byte[0][], 0);
        }
        byte[][] hashes = new byte[1024][];
        int n = 0;
        MessageDigest sha = sha256();
        List<String> columns = columns(table);
        try (CloseableIterable<Record> rows = IcebergGenerics.read(table).build()) {
            for (Record row : rows) {
                if (n == hashes.length) {
                    hashes = Arrays.copyOf(hashes, n * 2);
                }
                hashes[n++] = Arrays.copyOf(sha.digest(canonical(row, columns).getBytes(StandardCharsets.UTF_8)), 16);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("reading " + table.name(), e);
        }
        return digest(hashes, n);
    }

    private static Fingerprint digest(byte[][] hashes, int n) {
        Arrays.sort(hashes, 0, n, Arrays::compareUnsigned);
        MessageDigest sha = sha256();
        for (int i = 0; i < n; i++) {
            sha.update(hashes[i]);
        }
        return new Fingerprint(n, HexFormat.of().formatHex(sha.digest()));
    }

    /**
     * The table's own columns: with position deletes to apply, Iceberg's generic reader adds
     * the row's position in its file to the records it returns, which differs between writers.
     */
    private static List<String> columns(Table table) {
        return table.schema().columns().stream()
                .map(org.apache.iceberg.types.Types.NestedField::name)
                .toList();
    }

    /** Type-tagged, so that a string "1" and a long 1 differ; a decimal keeps its scale. */
    static String canonical(Record row, List<String> columns) {
        StringBuilder text = new StringBuilder();
        for (String column : columns) {
            Object value = row.getField(column);
            if (value == null) {
                text.append("N");
            } else if (value instanceof BigDecimal decimal) {
                text.append("D").append(decimal.unscaledValue()).append('e').append(decimal.scale());
            } else {
                text.append(value.getClass().getSimpleName().charAt(0)).append(value);
            }
            text.append('\u0001');
        }
        return text.toString();
    }

    /** Up to {@code limit} rows that only {@code a} holds and as many that only {@code b} holds. */
    static String difference(Table a, Table b, int limit) {
        Map<String, Integer> counts = new HashMap<>();
        rows(a).forEach(row -> counts.merge(row, 1, Integer::sum));
        rows(b).forEach(row -> counts.merge(row, -1, Integer::sum));
        List<String> onlyA = new ArrayList<>();
        List<String> onlyB = new ArrayList<>();
        counts.forEach((row, n) -> {
            if (n > 0 && onlyA.size() < limit) {
                onlyA.add(n + " x " + row);
            } else if (n < 0 && onlyB.size() < limit) {
                onlyB.add(-n + " x " + row);
            }
        });
        return "only in " + a.name() + ": " + onlyA + "; only in " + b.name() + ": " + onlyB;
    }

    private static List<String> rows(Table table) {
        List<String> rows = new ArrayList<>();
        List<String> columns = columns(table);
        try (CloseableIterable<Record> records = IcebergGenerics.read(table).build()) {
            records.forEach(row -> rows.add(canonical(row, columns).replace('\u0001', '|')));
        } catch (IOException e) {
            throw new UncheckedIOException("reading " + table.name(), e);
        }
        return rows;
    }

    /** The output's files by the {@code created_by} of their footers. */
    record Files(
            Map<String, Integer> dataWriters,
            Map<String, Integer> deleteWriters,
            int dataFiles,
            long dataBytes,
            int deleteFiles) {
        boolean allDataBy(String writerPrefix) {
            return dataWriters.keySet().stream().allMatch(w -> w.startsWith(writerPrefix));
        }

        boolean noDataBy(String writerPrefix) {
            return dataWriters.keySet().stream().noneMatch(w -> w.startsWith(writerPrefix));
        }

        boolean allDeletesBy(String writerPrefix) {
            return deleteWriters.keySet().stream().allMatch(w -> w.startsWith(writerPrefix));
        }
    }

    /**
     * When the newest committed data file was last modified, in epoch milliseconds; -1 if the
     * table has none or they are not local files.
     */
    static long lastDataFileWritten(Table table) {
        table.refresh();
        long last = -1;
        if (table.currentSnapshot() == null) {
            return last;
        }
        try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
            for (FileScanTask task : tasks) {
                URI location = URI.create(task.file().location());
                if (!"file".equals(location.getScheme())) {
                    return -1;
                }
                last = Math.max(
                        last,
                        java.nio.file.Files.getLastModifiedTime(Path.of(location))
                                .toMillis());
            }
        } catch (IOException e) {
            throw new UncheckedIOException("planning " + table.name(), e);
        }
        return last;
    }

    static Files files(Table table) {
        table.refresh();
        Map<String, Integer> data = new TreeMap<>();
        Map<String, Integer> deletes = new TreeMap<>();
        Map<String, Boolean> seenDeletes = new HashMap<>();
        int dataFiles = 0;
        long dataBytes = 0;
        if (table.currentSnapshot() != null) {
            try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
                for (FileScanTask task : tasks) {
                    dataFiles++;
                    dataBytes += task.file().fileSizeInBytes();
                    data.merge(writer(task.file()), 1, Integer::sum);
                    for (ContentFile<?> delete : task.deletes()) {
                        if (seenDeletes.putIfAbsent(delete.location(), true) == null) {
                            deletes.merge(writer(delete), 1, Integer::sum);
                        }
                    }
                }
            } catch (IOException e) {
                throw new UncheckedIOException("planning " + table.name(), e);
            }
        }
        return new Files(data, deletes, dataFiles, dataBytes, seenDeletes.size());
    }

    /** The footer's {@code created_by}, up to its first space after the name ("isthmus", "parquet-mr"). */
    private static String writer(ContentFile<?> file) {
        try (ParquetFileReader reader = ParquetFileReader.open(
                HadoopInputFile.fromPath(new org.apache.hadoop.fs.Path(file.location()), HADOOP))) {
            String createdBy = reader.getFooter().getFileMetaData().getCreatedBy();
            return createdBy == null ? "unknown" : createdBy.split(" ", 2)[0];
        } catch (IOException e) {
            throw new UncheckedIOException("reading the footer of " + file.location(), e);
        }
    }

    static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
