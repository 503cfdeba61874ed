package dev.isthmus.iceberg.sink;

import java.io.UncheckedIOException;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongPredicate;
import java.util.function.Predicate;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableOperations;
import org.apache.iceberg.encryption.EncryptionManager;
import org.apache.iceberg.flink.TableLoader;
import org.apache.iceberg.flink.sink.SinkUtil;
import org.apache.iceberg.hadoop.HadoopTables;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.LocationProvider;
import org.apache.iceberg.io.OutputFile;

/**
 * The sink tests' fault-injection seam: tables loaded through {@link #loader} commit through
 * {@link #onCommit}'s hook and create files through {@link #refuseOutput}'s. The hooks are static
 * so that they reach the copies a MiniCluster job deserialises; {@link #reset} after each test.
 */
final class FaultInjection {
    private FaultInjection() {}

    /** What a commit of a wrapped table does, given the catalog's own operations. */
    @FunctionalInterface
    interface Commit {
        void run(TableOperations catalog, TableMetadata base, TableMetadata metadata);
    }

    /** The catalog's own commit. */
    static final Commit PASS = TableOperations::commit;

    /** Stands in for the process dying: not a RuntimeException, so Iceberg cleans nothing up. */
    static final class Crash extends Error {
        Crash(String message) {
            super(message);
        }
    }

    private static volatile Commit commit = PASS;
    private static volatile Predicate<String> refusedOutput = location -> false;

    static void onCommit(Commit hook) {
        commit = hook;
    }

    /** New files at the locations the predicate accepts fail to be created. */
    static void refuseOutput(Predicate<String> locations) {
        refusedOutput = locations;
    }

    static void reset() {
        commit = PASS;
        refusedOutput = location -> false;
    }

    /** Runs {@code fault} for the first commit {@code which} accepts, {@link #PASS} for every other. */
    static Commit once(Predicate<TableMetadata> which, Commit fault) {
        AtomicBoolean done = new AtomicBoolean();
        return (catalog, base, metadata) -> {
            if (which.test(metadata) && done.compareAndSet(false, true)) {
                fault.run(catalog, base, metadata);
            } else {
                PASS.run(catalog, base, metadata);
            }
        };
    }

    /** Commits on main whose max-committed-checkpoint-id (a sink's) the predicate accepts. */
    static Predicate<TableMetadata> committingCheckpoint(LongPredicate checkpointIds) {
        return metadata -> {
            Snapshot snapshot = metadata.currentSnapshot();
            String checkpoint = snapshot == null ? null : snapshot.summary().get(SinkUtil.MAX_COMMITTED_CHECKPOINT_ID);
            return checkpoint != null && checkpointIds.test(Long.parseLong(checkpoint));
        };
    }

    /** Refuses every commit {@code which} accepts, as a catalog that is down. */
    static Commit refusing(Predicate<TableMetadata> which) {
        return (catalog, base, metadata) -> {
            if (which.test(metadata)) {
                throw new IllegalStateException("Injected: the catalog refuses the commit");
            }
            PASS.run(catalog, base, metadata);
        };
    }

    /** Loads the Hadoop table at the table's location, wrapped. */
    static TableLoader loader(Table table) {
        return new Loader(table.location());
    }

    private static final class Loader implements TableLoader {
        private static final long serialVersionUID = 1L;
        private final String location;
        private transient HadoopTables tables;

        Loader(String location) {
            this.location = location;
        }

        @Override
        public void open() {
            tables = new HadoopTables(new org.apache.hadoop.conf.Configuration());
        }

        @Override
        public boolean isOpen() {
            return tables != null;
        }

        @Override
        public Table loadTable() {
            Table table = tables.load(location);
            return new BaseTable(new Operations(((HasTableOperations) table).operations()), table.name());
        }

        @Override
        @SuppressWarnings("MethodDoesntCallSuperMethod")
        public TableLoader clone() {
            return new Loader(location);
        }

        @Override
        public void close() {
            tables = null;
        }
    }

    private record Operations(TableOperations catalog) implements TableOperations {
        @Override
        public TableMetadata current() {
            return catalog.current();
        }

        @Override
        public TableMetadata refresh() {
            return catalog.refresh();
        }

        @Override
        public void commit(TableMetadata base, TableMetadata metadata) {
            commit.run(catalog, base, metadata);
        }

        @Override
        public FileIO io() {
            return new IO(catalog.io());
        }

        @Override
        public EncryptionManager encryption() {
            return catalog.encryption();
        }

        @Override
        public String metadataFileLocation(String fileName) {
            return catalog.metadataFileLocation(fileName);
        }

        @Override
        public LocationProvider locationProvider() {
            return catalog.locationProvider();
        }

        @Override
        public long newSnapshotId() {
            return catalog.newSnapshotId();
        }

        @Override
        public boolean requireStrictCleanup() {
            return catalog.requireStrictCleanup();
        }
    }

    private record IO(FileIO files) implements FileIO {
        @Override
        public InputFile newInputFile(String path) {
            return files.newInputFile(path);
        }

        @Override
        public OutputFile newOutputFile(String path) {
            if (refusedOutput.test(path)) {
                throw new UncheckedIOException(new java.io.IOException("Injected failure creating " + path));
            }
            return files.newOutputFile(path);
        }

        @Override
        public void deleteFile(String path) {
            files.deleteFile(path);
        }

        @Override
        public Map<String, String> properties() {
            return files.properties();
        }
    }
}
