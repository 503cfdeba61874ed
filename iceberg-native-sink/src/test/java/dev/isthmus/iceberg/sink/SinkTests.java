package dev.isthmus.iceberg.sink;

import dev.isthmus.iceberg.source.NativeIcebergSource;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.runtime.testutils.InMemoryReporter;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.RowKind;
import org.apache.flink.util.CloseableIterator;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.ManifestContent;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.ManifestFiles;
import org.apache.iceberg.ManifestReader;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.flink.TableLoader;
import org.apache.iceberg.flink.source.IcebergSource;
import org.apache.iceberg.hadoop.HadoopCatalog;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/** Shared pieces of the sink's MiniCluster tests: cluster, warehouse, row conversion, read-back. */
final class SinkTests {
    /** How Iceberg's {@code ManifestOutputFileFactory} names the committer's manifests. */
    private static final Pattern COMMITTER_MANIFEST =
            Pattern.compile("[0-9a-f]{32}-[0-9a-f]{32}-\\d{5}-\\d+-\\d+-\\d{5}\\.avro");

    private SinkTests() {}

    /** Two slots, no restarts: a failing job fails the test instead of restarting forever. */
    static MiniClusterExtension miniCluster() {
        return miniCluster(new Configuration());
    }

    /** The same, reporting the jobs' metrics to {@code reporter}. */
    static MiniClusterExtension miniCluster(InMemoryReporter reporter) {
        return miniCluster(reporter.addToConfiguration(new Configuration()));
    }

    private static MiniClusterExtension miniCluster(Configuration config) {
        config.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
        return new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
                .setNumberTaskManagers(1)
                .setNumberSlotsPerTaskManager(2)
                .setConfiguration(config)
                .build());
    }

    /** A Hadoop catalog in a temporary directory. */
    static final class Warehouse {
        private final HadoopCatalog catalog;

        Warehouse(Path dir) {
            this.catalog = new HadoopCatalog(
                    new org.apache.hadoop.conf.Configuration(), dir.toUri().toString());
        }

        Table create(String name, Schema schema, PartitionSpec spec, Map<String, String> properties) {
            Map<String, String> props = new HashMap<>(properties);
            props.putIfAbsent("format-version", "2");
            return catalog.createTable(TableIdentifier.of("db", name), schema, spec, props);
        }

        Table load(String name) {
            return catalog.loadTable(TableIdentifier.of("db", name));
        }
    }

    static TableLoader loader(Table table) {
        return TableLoader.fromHadoopTable(table.location(), new org.apache.hadoop.conf.Configuration());
    }

    /** The rows of the table's main branch as a multiset of plain values. */
    static Map<List<Object>, Integer> rows(Table table) {
        table.refresh();
        return rows(IcebergGenerics.read(table).build(), table.schema());
    }

    static Map<List<Object>, Integer> rows(CloseableIterable<Record> records, Schema schema) {
        Map<List<Object>, Integer> counts = new HashMap<>();
        try (records) {
            for (Record record : records) {
                List<Object> values = new ArrayList<>();
                for (int i = 0; i < schema.columns().size(); i++) {
                    values.add(plain(record.get(i)));
                }
                counts.merge(values, 1, Integer::sum);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return counts;
    }

    /** The live data files of the table's current snapshot. */
    static List<DataFile> dataFiles(Table table) {
        table.refresh();
        List<DataFile> files = new ArrayList<>();
        for (ManifestFile manifest : table.currentSnapshot().dataManifests(table.io())) {
            try (ManifestReader<DataFile> reader = ManifestFiles.read(manifest, table.io(), table.specs())) {
                reader.forEach(file -> files.add(file.copy()));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return files;
    }

    /**
     * The live delete files of the table's current snapshot, including those that apply to no
     * data file (an upsert's equality deletes of keys new in its own commit).
     */
    static List<DeleteFile> deleteFiles(Table table) {
        table.refresh();
        List<DeleteFile> files = new ArrayList<>();
        for (ManifestFile manifest : table.currentSnapshot().deleteManifests(table.io())) {
            try (ManifestReader<DeleteFile> reader =
                    ManifestFiles.readDeleteManifest(manifest, table.io(), table.specs())) {
                reader.forEach(file -> files.add(file.copy()));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return files;
    }

    /**
     * The files under the table's {@code data/} directory that no snapshot references: what a
     * failure left behind for orphan-file removal.
     */
    static Set<Path> unreferencedDataFiles(Table table) {
        table.refresh();
        Set<Path> referenced = new HashSet<>();
        for (Snapshot snapshot : table.snapshots()) {
            for (ManifestFile manifest : snapshot.allManifests(table.io())) {
                try (ManifestReader<? extends ContentFile<?>> reader = manifest.content() == ManifestContent.DATA
                        ? ManifestFiles.read(manifest, table.io(), table.specs())
                        : ManifestFiles.readDeleteManifest(manifest, table.io(), table.specs())) {
                    reader.forEach(file -> referenced.add(localPath(file.location())));
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }
        }
        Set<Path> unreferenced = new HashSet<>(files(localPath(table.location()).resolve("data")));
        unreferenced.removeAll(referenced);
        return unreferenced;
    }

    /**
     * The manifests the committer wrote (named job-operator-subtask-attempt-checkpoint-count by
     * Iceberg's {@code ManifestOutputFileFactory}) still in the table's metadata directory; they
     * are temporary and deleted once their checkpoint is committed.
     */
    static List<String> committerManifests(Table table) {
        return files(localPath(table.location()).resolve("metadata")).stream()
                .map(file -> file.getFileName().toString())
                .filter(name -> COMMITTER_MANIFEST.matcher(name).matches())
                .toList();
    }

    /** The regular files under {@code dir}, without Hadoop's hidden checksum files. */
    private static List<Path> files(Path dir) {
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            return paths.filter(Files::isRegularFile)
                    .filter(file -> !file.getFileName().toString().startsWith("."))
                    .toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static Path localPath(String location) {
        return location.startsWith("file:") ? Path.of(URI.create(location)) : Path.of(location);
    }

    /**
     * The rows of the table's main branch as a bounded Flink job at parallelism 2 reads them, as a
     * multiset of plain values: with Isthmus's source in strict mode (so no task falls back to
     * Iceberg's reader), or with Iceberg's.
     */
    @SuppressWarnings("try") // closing a collect iterator may be interrupted; a test has nothing to do about it
    static Map<List<Object>, Integer> readBySource(Table table, boolean nativeSource) throws Exception {
        table.refresh();
        RowType type = flinkType(table.schema());
        Source<RowData, ?, ?> source = nativeSource
                ? NativeIcebergSource.forRowData()
                        .tableLoader(loader(table))
                        .strict(true)
                        .build()
                : IcebergSource.forRowData().tableLoader(loader(table)).build();
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2);
        Map<List<Object>, Integer> counts = new HashMap<>();
        try (CloseableIterator<RowData> rows = env.fromSource(
                        source, WatermarkStrategy.noWatermarks(), "read", InternalTypeInfo.of(type))
                .executeAndCollect()) {
            while (rows.hasNext()) {
                RowData row = rows.next();
                List<Object> values = new ArrayList<>();
                for (int i = 0; i < type.getFieldCount(); i++) {
                    Object value =
                            RowData.createFieldGetter(type.getTypeAt(i), i).getFieldOrNull(row);
                    values.add(value instanceof StringData string ? string.toString() : plain(value));
                }
                counts.merge(values, 1, Integer::sum);
            }
        }
        return counts;
    }

    static int size(Map<List<Object>, Integer> multiset) {
        return multiset.values().stream().mapToInt(Integer::intValue).sum();
    }

    private static Object plain(Object value) {
        return switch (value) {
            case ByteBuffer b -> {
                byte[] bytes = new byte[b.remaining()];
                b.duplicate().get(bytes);
                yield HexFormat.of().formatHex(bytes);
            }
            case byte[] b -> HexFormat.of().formatHex(b);
            case null, default -> value;
        };
    }

    /** An Iceberg generic record as the Flink row the table's Flink type describes. */
    static RowData toRowData(Record record, Schema schema, RowKind kind) {
        List<Types.NestedField> columns = schema.columns();
        GenericRowData row = new GenericRowData(kind, columns.size());
        for (int i = 0; i < columns.size(); i++) {
            row.setField(i, flinkValue(record.get(i), columns.get(i).type()));
        }
        return row;
    }

    static List<RowData> toRowData(List<Record> records, Schema schema) {
        return records.stream().map(r -> toRowData(r, schema, RowKind.INSERT)).toList();
    }

    private static Object flinkValue(Object value, Type type) {
        if (value == null) {
            return null;
        }
        return switch (type.typeId()) {
            case BOOLEAN, INTEGER, LONG, FLOAT, DOUBLE -> value;
            case DECIMAL -> {
                Types.DecimalType decimal = (Types.DecimalType) type;
                yield DecimalData.fromBigDecimal((BigDecimal) value, decimal.precision(), decimal.scale());
            }
            case DATE -> (int) ((LocalDate) value).toEpochDay();
            case TIME -> (int) (((LocalTime) value).toNanoOfDay() / 1_000_000);
            case TIMESTAMP, TIMESTAMP_NANO ->
                value instanceof OffsetDateTime t
                        ? TimestampData.fromInstant(t.toInstant())
                        : TimestampData.fromLocalDateTime((LocalDateTime) value);
            case STRING -> StringData.fromString((String) value);
            case UUID -> {
                UUID uuid = (UUID) value;
                yield ByteBuffer.allocate(16)
                        .putLong(uuid.getMostSignificantBits())
                        .putLong(uuid.getLeastSignificantBits())
                        .array();
            }
            case FIXED -> value;
            case BINARY -> {
                ByteBuffer buffer = (ByteBuffer) value;
                byte[] bytes = new byte[buffer.remaining()];
                buffer.duplicate().get(bytes);
                yield bytes;
            }
            default -> throw new IllegalArgumentException("No Flink value for " + type);
        };
    }

    static RowType flinkType(Schema schema) {
        return org.apache.iceberg.flink.FlinkSchemaUtil.convert(schema);
    }
}
