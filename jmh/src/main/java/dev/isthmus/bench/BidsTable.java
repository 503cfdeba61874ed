package dev.isthmus.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.AppendFiles;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.RowDelta;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetWriter;
import org.apache.iceberg.deletes.PositionDelete;
import org.apache.iceberg.deletes.PositionDeleteWriter;
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
 * streaming ingestion leaves them; {@link #ensureWithPositionDeletes(long)} the first with about
 * one row in ten deleted by a position delete file per data file, as a rewrite of position
 * deletes leaves them, and {@link #ensureLiveRows(long)} the rows that table keeps, written
 * without deletes. Cached by row count (and file count): a complete table is
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
        return ensure("bids_" + rows, rows, FILES, ONE_SPLIT_PER_FILE, Layout.ALL);
    }

    /**
     * A loader of the table of {@link #ensure(long)}'s rows in as many files, with one position
     * delete file per data file that deletes the rows {@link #deleted} picks.
     */
    static TableLoader ensureWithPositionDeletes(long rows) {
        return ensure("bids_" + rows + "_position_deleted", rows, FILES, ONE_SPLIT_PER_FILE,
                Layout.WITH_POSITION_DELETES);
    }

    /** A loader of the table of the rows {@link #ensureWithPositionDeletes} keeps, without delete files. */
    static TableLoader ensureLiveRows(long rows) {
        return ensure("bids_" + rows + "_live", rows, FILES, ONE_SPLIT_PER_FILE, Layout.LIVE_ONLY);
    }

    /** Whether the merge-on-read tables delete the bid of {@code event}: about one in ten, scattered. */
    static boolean deleted(long event) {
        long z = event * 0x9E3779B97F4A7C15L;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return Long.remainderUnsigned(z ^ (z >>> 31), 10) == 0;
    }

    /** The rows of {@code rows} bids that {@link #deleted} keeps. */
    static long liveRows(long rows) {
        long live = 0;
        for (long event = 0; event < rows; event++) {
            live += deleted(event) ? 0 : 1;
        }
        return live;
    }

    private static final Map<String, String> ONE_SPLIT_PER_FILE =
            Map.of(TableProperties.SPLIT_SIZE, String.valueOf(4L << 20));

    /** Which of the generated bids a table holds, and how. */
    private enum Layout { ALL, WITH_POSITION_DELETES, LIVE_ONLY }

    /**
     * A loader of the table of {@code rows} bids in {@code files} files and no table property
     * but the format version, so Iceberg's planner packs small files into tasks of its default
     * split size; created now if it does not exist yet.
     */
    static TableLoader ensureSmallFiles(long rows, int files) {
        return ensure(smallFilesName(rows, files), rows, files, Map.of(), Layout.ALL);
    }

    /** The name of {@link #ensureSmallFiles}'s table in {@link #NAMESPACE}. */
    static String smallFilesName(long rows, int files) {
        return "bids_" + rows + "_in_" + files + "_files";
    }

    private static TableLoader ensure(String name, long rows, int files, Map<String, String> properties,
            Layout layout) {
        Map<String, String> catalogProperties = Map.of("warehouse", warehouse().toUri().toString());
        CatalogLoader catalogLoader = CatalogLoader.hadoop("bench", new Configuration(), catalogProperties);
        TableIdentifier id = TableIdentifier.of(NAMESPACE, name);
        try (HadoopCatalog catalog = (HadoopCatalog) catalogLoader.loadCatalog()) {
            if (!complete(catalog, id, layout == Layout.LIVE_ONLY ? liveRows(rows) : rows, files, layout)) {
                catalog.dropTable(id, true);
                create(catalog, id, rows, files, properties, layout);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return TableLoader.fromCatalog(catalogLoader, id);
    }

    /** Whether a previous run left the whole table (it commits all files at once, at the end, then the deletes). */
    private static boolean complete(HadoopCatalog catalog, TableIdentifier id, long rows, int files, Layout layout) {
        if (!catalog.tableExists(id)) {
            return false;
        }
        var snapshot = catalog.loadTable(id).currentSnapshot();
        return snapshot != null
                && String.valueOf(rows).equals(snapshot.summary().get("total-records"))
                && String.valueOf(files).equals(snapshot.summary().get("total-data-files"))
                && String.valueOf(layout == Layout.WITH_POSITION_DELETES ? files : 0)
                        .equals(snapshot.summary().get("total-delete-files"));
    }

    private static void create(HadoopCatalog catalog, TableIdentifier id, long rows, int files,
            Map<String, String> properties, Layout layout) throws IOException {
        Map<String, String> tableProperties = new HashMap<>(properties);
        tableProperties.put(TableProperties.FORMAT_VERSION, "2");
        Table table = catalog.createTable(id, BidsParquetFile.SCHEMA, PartitionSpec.unpartitioned(), tableProperties);
        SplittableRandom random = new SplittableRandom(1);
        GenericRecord template = GenericRecord.create(BidsParquetFile.SCHEMA);
        AppendFiles append = table.newAppend();
        List<DataFile> dataFiles = new ArrayList<>();
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
                    // Every bid is drawn, so that the live table's rows are the other tables' rows.
                    Record bid = BidsParquetFile.bid(template, random, event);
                    if (layout != Layout.LIVE_ONLY || !deleted(event)) {
                        appender.add(bid);
                    }
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
            dataFiles.add(file);
        }
        append.commit();
        if (layout == Layout.WITH_POSITION_DELETES) {
            deletePositions(table, dataFiles, rows);
        }
    }

    /** One position delete file per data file, committed after them, sorted as Iceberg's writers sort. */
    private static void deletePositions(Table table, List<DataFile> dataFiles, long rows) throws IOException {
        RowDelta delta = table.newRowDelta();
        long first = 0;
        for (int f = 0; f < dataFiles.size(); f++) {
            DataFile file = dataFiles.get(f);
            long end = rows * (f + 1) / dataFiles.size();
            OutputFile out = table.io().newOutputFile(table.locationProvider().newDataLocation("deletes-" + f + ".parquet"));
            PositionDeleteWriter<Record> writer = Parquet.writeDeletes(out)
                    .setAll(table.properties())
                    .withSpec(table.spec())
                    .overwrite()
                    .buildPositionWriter();
            PositionDelete<Record> delete = PositionDelete.create();
            try (writer) {
                for (long event = first; event < end; event++) {
                    if (deleted(event)) {
                        writer.write(delete.set(file.location(), event - first, null));
                    }
                }
            }
            delta.addDeletes(writer.toDeleteFile());
            first = end;
        }
        delta.commit();
    }
}
