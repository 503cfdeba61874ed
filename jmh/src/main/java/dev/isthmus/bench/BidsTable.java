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
import org.apache.iceberg.MetricsConfig;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.RowDelta;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetWriter;
import org.apache.iceberg.deletes.BaseDVFileWriter;
import org.apache.iceberg.deletes.EqualityDeleteWriter;
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
 * without deletes; {@link #ensureWithDeletionVectors(long)} the same deletes as deletion vectors
 * of a v3 table; {@link #ensureUpserted(long)} the first with the same rows' keys updated by
 * one upsert commit (equality deletes), and {@link #ensureUpsertedLiveRows(long)} the rows it
 * keeps, without deletes. Cached by row count (and file count): a complete table is reused.
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
        return ensure(
                "bids_" + rows + "_position_scoped", rows, FILES, ONE_SPLIT_PER_FILE, Layout.WITH_POSITION_DELETES);
    }

    /**
     * As {@link #ensureWithPositionDeletes}, but the delete files written without Iceberg's
     * position delete metrics (as other writers may leave them): their {@code file_path} bounds
     * are truncated, so planning cannot scope them and every task gets all of them.
     */
    static TableLoader ensureWithUnscopedPositionDeletes(long rows) {
        return ensure(
                "bids_" + rows + "_position_unscoped",
                rows,
                FILES,
                ONE_SPLIT_PER_FILE,
                Layout.WITH_UNSCOPED_POSITION_DELETES);
    }

    /**
     * A loader of a format v3 table of {@link #ensure(long)}'s rows in as many files, with the rows
     * {@link #deleted} picks deleted by a deletion vector per data file (one Puffin file).
     */
    static TableLoader ensureWithDeletionVectors(long rows) {
        return ensure(
                "bids_" + rows + "_vector_deleted", rows, FILES, ONE_SPLIT_PER_FILE, Layout.WITH_DELETION_VECTORS);
    }

    /** A loader of the table of the rows {@link #ensureWithPositionDeletes} keeps, without delete files. */
    static TableLoader ensureLiveRows(long rows) {
        return ensure("bids_" + rows + "_live", rows, FILES, ONE_SPLIT_PER_FILE, Layout.LIVE_ONLY);
    }

    /**
     * A loader of the table of {@link #ensure(long)}'s rows in as many files, then one commit as
     * Flink's upsert sink makes it at parallelism 1: an equality delete file on the key
     * ({@code auction}, {@code dateTime}) of the bids {@link #deleted} picks and a data file of
     * their new rows (each one's price plus one).
     */
    static TableLoader ensureUpserted(long rows) {
        return ensure("bids_" + rows + "_upserted", rows, FILES, ONE_SPLIT_PER_FILE, Layout.UPSERTED);
    }

    /** A loader of the table of the rows {@link #ensureUpserted} keeps, without delete files. */
    static TableLoader ensureUpsertedLiveRows(long rows) {
        return ensure("bids_" + rows + "_upserted_live", rows, FILES, ONE_SPLIT_PER_FILE, Layout.UPSERTED_LIVE);
    }

    /** The equality key of the upserted tables: unique, since every bid's {@code dateTime} is. */
    static final List<String> UPSERT_KEY = List.of("auction", "dateTime");

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
    private enum Layout {
        ALL,
        WITH_POSITION_DELETES,
        WITH_UNSCOPED_POSITION_DELETES,
        WITH_DELETION_VECTORS,
        LIVE_ONLY,
        UPSERTED,
        UPSERTED_LIVE;

        /** Its data files: the upserted layouts add one of the new rows. */
        int dataFiles(int files) {
            return this == UPSERTED || this == UPSERTED_LIVE ? files + 1 : files;
        }

        int deleteFiles(int files) {
            return switch (this) {
                case WITH_POSITION_DELETES, WITH_DELETION_VECTORS -> files;
                case UPSERTED -> 1;
                default -> 0;
            };
        }

        /** Its rows: the upserted table holds the old rows of the keys upserted as well. */
        long records(long rows) {
            return switch (this) {
                case LIVE_ONLY -> liveRows(rows);
                case UPSERTED -> rows + (rows - liveRows(rows));
                default -> rows;
            };
        }
    }

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

    private static TableLoader ensure(
            String name, long rows, int files, Map<String, String> properties, Layout layout) {
        Map<String, String> catalogProperties =
                Map.of("warehouse", warehouse().toUri().toString());
        CatalogLoader catalogLoader = CatalogLoader.hadoop("bench", new Configuration(), catalogProperties);
        TableIdentifier id = TableIdentifier.of(NAMESPACE, name);
        try (HadoopCatalog catalog = (HadoopCatalog) catalogLoader.loadCatalog()) {
            if (!complete(catalog, id, rows, files, layout)) {
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
                && String.valueOf(layout.records(rows))
                        .equals(snapshot.summary().get("total-records"))
                && String.valueOf(layout.dataFiles(files))
                        .equals(snapshot.summary().get("total-data-files"))
                && String.valueOf(layout.deleteFiles(files))
                        .equals(snapshot.summary().get("total-delete-files"));
    }

    private static void create(
            HadoopCatalog catalog,
            TableIdentifier id,
            long rows,
            int files,
            Map<String, String> properties,
            Layout layout)
            throws IOException {
        Map<String, String> tableProperties = new HashMap<>(properties);
        tableProperties.put(TableProperties.FORMAT_VERSION, layout == Layout.WITH_DELETION_VECTORS ? "3" : "2");
        Table table = catalog.createTable(id, BidsParquetFile.SCHEMA, PartitionSpec.unpartitioned(), tableProperties);
        SplittableRandom random = new SplittableRandom(1);
        GenericRecord template = GenericRecord.create(BidsParquetFile.SCHEMA);
        AppendFiles append = table.newAppend();
        List<DataFile> dataFiles = new ArrayList<>();
        List<Record> upserted = new ArrayList<>();
        long event = 0;
        for (int f = 0; f < files; f++) {
            long end = rows * (f + 1) / files;
            OutputFile out =
                    table.io().newOutputFile(table.locationProvider().newDataLocation("bids-" + f + ".parquet"));
            FileAppender<Record> appender = appender(table, out);
            try (appender) {
                for (; event < end; event++) {
                    // Every bid is drawn, so that the live table's rows are the other tables' rows.
                    Record bid = BidsParquetFile.bid(template, random, event);
                    boolean upsert = deleted(event);
                    if (upsert && (layout == Layout.UPSERTED || layout == Layout.UPSERTED_LIVE)) {
                        Record updated = bid.copy();
                        updated.setField("price", (Long) bid.getField("price") + 1);
                        upserted.add(updated);
                    }
                    if (!upsert
                            || layout == Layout.ALL
                            || layout == Layout.WITH_POSITION_DELETES
                            || layout == Layout.WITH_UNSCOPED_POSITION_DELETES
                            || layout == Layout.WITH_DELETION_VECTORS
                            || layout == Layout.UPSERTED) {
                        appender.add(bid);
                    }
                }
            }
            dataFiles.add(dataFile(table, out, appender));
        }
        if (layout == Layout.UPSERTED_LIVE) {
            dataFiles.add(write(table, "bids-upserted.parquet", upserted));
        }
        dataFiles.forEach(append::appendFile);
        append.commit();
        if (layout == Layout.WITH_POSITION_DELETES || layout == Layout.WITH_UNSCOPED_POSITION_DELETES) {
            deletePositions(table, dataFiles, rows, layout == Layout.WITH_POSITION_DELETES);
        }
        if (layout == Layout.WITH_DELETION_VECTORS) {
            deleteWithVectors(table, dataFiles, rows);
        }
        if (layout == Layout.UPSERTED) {
            upsert(table, upserted);
        }
    }

    /** A deletion vector per data file, in one Puffin file as one writer task writes them, committed after them. */
    private static void deleteWithVectors(Table table, List<DataFile> dataFiles, long rows) throws IOException {
        OutputFile out = table.io().newOutputFile(table.locationProvider().newDataLocation("deletes.puffin"));
        BaseDVFileWriter writer = new BaseDVFileWriter(() -> out, path -> null);
        long first = 0;
        try (writer) {
            for (int f = 0; f < dataFiles.size(); f++) {
                DataFile file = dataFiles.get(f);
                long end = rows * (f + 1) / dataFiles.size();
                for (long event = first; event < end; event++) {
                    if (deleted(event)) {
                        writer.delete(file.location(), event - first, table.spec(), null);
                    }
                }
                first = end;
            }
        }
        RowDelta delta = table.newRowDelta();
        writer.result().deleteFiles().forEach(delta::addDeletes);
        delta.commit();
    }

    private static DataFile write(Table table, String name, List<Record> records) throws IOException {
        OutputFile out = table.io().newOutputFile(table.locationProvider().newDataLocation(name));
        FileAppender<Record> appender = appender(table, out);
        try (appender) {
            records.forEach(appender::add);
        }
        return dataFile(table, out, appender);
    }

    private static FileAppender<Record> appender(Table table, OutputFile out) throws IOException {
        return Parquet.write(out)
                .schema(table.schema())
                .setAll(table.properties())
                .createWriterFunc(GenericParquetWriter::create)
                .build();
    }

    /** The data file {@code appender}, closed, wrote to {@code out}. */
    private static DataFile dataFile(Table table, OutputFile out, FileAppender<Record> appender) {
        return DataFiles.builder(table.spec())
                .withPath(out.location())
                .withFormat(FileFormat.PARQUET)
                .withFileSizeInBytes(appender.length())
                .withMetrics(appender.metrics())
                .withSplitOffsets(appender.splitOffsets())
                .build();
    }

    /**
     * One upsert commit: the keys of {@code updated}'s rows deleted by one equality delete file
     * holding just the key columns, and the new rows in one data file beside it (the same
     * sequence number, so the delete leaves them).
     */
    private static void upsert(Table table, List<Record> updated) throws IOException {
        Schema keySchema = table.schema().select(UPSERT_KEY);
        OutputFile out = table.io().newOutputFile(table.locationProvider().newDataLocation("eq-deletes.parquet"));
        EqualityDeleteWriter<Record> writer = Parquet.writeDeletes(out)
                .setAll(table.properties())
                .withSpec(table.spec())
                .rowSchema(keySchema)
                .createWriterFunc(GenericParquetWriter::create)
                .equalityFieldIds(UPSERT_KEY.stream()
                        .mapToInt(f -> table.schema().findField(f).fieldId())
                        .toArray())
                .overwrite()
                .buildEqualityWriter();
        try (writer) {
            GenericRecord key = GenericRecord.create(keySchema);
            for (Record row : updated) {
                Record k = key.copy();
                UPSERT_KEY.forEach(f -> k.setField(f, row.getField(f)));
                writer.write(k);
            }
        }
        table.newRowDelta()
                .addRows(write(table, "bids-upserted.parquet", updated))
                .addDeletes(writer.toDeleteFile())
                .commit();
    }

    /** One position delete file per data file, committed after them, sorted as Iceberg's writers sort. */
    private static void deletePositions(Table table, List<DataFile> dataFiles, long rows, boolean scoped)
            throws IOException {
        RowDelta delta = table.newRowDelta();
        long first = 0;
        for (int f = 0; f < dataFiles.size(); f++) {
            DataFile file = dataFiles.get(f);
            long end = rows * (f + 1) / dataFiles.size();
            OutputFile out =
                    table.io().newOutputFile(table.locationProvider().newDataLocation("deletes-" + f + ".parquet"));
            // Iceberg's own writers keep file_path's bounds exact, which scopes each file to its
            // data file at planning; without them every task gets all eight files.
            PositionDeleteWriter<Record> writer = Parquet.writeDeletes(out)
                    .setAll(table.properties())
                    .metricsConfig(scoped ? MetricsConfig.forPositionDelete(table) : MetricsConfig.getDefault())
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
