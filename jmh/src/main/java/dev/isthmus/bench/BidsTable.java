package dev.isthmus.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.AppendFiles;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetWriter;
import org.apache.iceberg.flink.CatalogLoader;
import org.apache.iceberg.flink.TableLoader;
import org.apache.iceberg.hadoop.HadoopCatalog;
import org.apache.iceberg.io.FileAppender;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.parquet.Parquet;

/**
 * The source benchmarks' input: unpartitioned Iceberg tables of Nexmark-like bids in a Hadoop
 * catalog under the temp directory, written by Iceberg's own Parquet writer with a table's
 * defaults. {@link #ensure(long)} makes the table of {@link #FILES} data files with a split size
 * that makes each file a split of its own, so that a second reader has work;
 * {@link #ensureSmallFiles(long, int)} one of many small files and a new table's defaults, as
 * streaming ingestion leaves them. Cached by row count (and file count): a complete table is
 * reused.
 */
final class BidsTable {
    static final int FILES = 8;
    static final Namespace NAMESPACE = Namespace.of("bench");

    private BidsTable() {}

    /** The Hadoop catalog's warehouse the tables live in. */
    static Path warehouse() {
        return Path.of(System.getProperty("java.io.tmpdir"), "isthmus-bench", "warehouse");
    }

    /** A loader of the table of {@code rows} bids in {@link #FILES} files, created now if it does not exist yet. */
    static TableLoader ensure(long rows) {
        return ensure("bids_" + rows, rows, FILES, Map.of(TableProperties.SPLIT_SIZE, String.valueOf(4L << 20)));
    }

    /**
     * A loader of the table of {@code rows} bids in {@code files} files and no table property
     * but the format version, so Iceberg's planner packs small files into tasks of its default
     * split size; created now if it does not exist yet.
     */
    static TableLoader ensureSmallFiles(long rows, int files) {
        return ensure(smallFilesName(rows, files), rows, files, Map.of());
    }

    /** The name of {@link #ensureSmallFiles}'s table in {@link #NAMESPACE}. */
    static String smallFilesName(long rows, int files) {
        return "bids_" + rows + "_in_" + files + "_files";
    }

    private static TableLoader ensure(String name, long rows, int files, Map<String, String> properties) {
        Map<String, String> catalogProperties = Map.of("warehouse", warehouse().toUri().toString());
        CatalogLoader catalogLoader = CatalogLoader.hadoop("bench", new Configuration(), catalogProperties);
        TableIdentifier id = TableIdentifier.of(NAMESPACE, name);
        try (HadoopCatalog catalog = (HadoopCatalog) catalogLoader.loadCatalog()) {
            if (!complete(catalog, id, rows, files)) {
                catalog.dropTable(id, true);
                create(catalog, id, rows, files, properties);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return TableLoader.fromCatalog(catalogLoader, id);
    }

    /** Whether a previous run left the whole table (it commits all files at once, at the end). */
    private static boolean complete(HadoopCatalog catalog, TableIdentifier id, long rows, int files) {
        if (!catalog.tableExists(id)) {
            return false;
        }
        var snapshot = catalog.loadTable(id).currentSnapshot();
        return snapshot != null
                && String.valueOf(rows).equals(snapshot.summary().get("total-records"))
                && String.valueOf(files).equals(snapshot.summary().get("total-data-files"));
    }

    private static void create(HadoopCatalog catalog, TableIdentifier id, long rows, int files,
            Map<String, String> properties) throws IOException {
        Map<String, String> tableProperties = new HashMap<>(properties);
        tableProperties.put(TableProperties.FORMAT_VERSION, "2");
        Table table = catalog.createTable(id, BidsParquetFile.SCHEMA, PartitionSpec.unpartitioned(), tableProperties);
        SplittableRandom random = new SplittableRandom(1);
        GenericRecord template = GenericRecord.create(BidsParquetFile.SCHEMA);
        AppendFiles append = table.newAppend();
        long event = 0;
        for (int f = 0; f < files; f++) {
            long end = rows * (f + 1) / files;
            OutputFile out = table.io().newOutputFile(table.locationProvider().newDataLocation("bids-" + f + ".parquet"));
            FileAppender<Record> appender = Parquet.write(out)
                    .schema(table.schema())
                    .setAll(table.properties())
                    .createWriterFunc(GenericParquetWriter::create)
                    .build();
            try (appender) {
                for (; event < end; event++) {
                    appender.add(BidsParquetFile.bid(template, random, event));
                }
            }
            DataFile file = DataFiles.builder(table.spec())
                    .withPath(out.location())
                    .withFormat(FileFormat.PARQUET)
                    .withFileSizeInBytes(appender.length())
                    .withMetrics(appender.metrics())
                    .withSplitOffsets(appender.splitOffsets())
                    .build();
            append.appendFile(file);
        }
        append.commit();
    }
}
