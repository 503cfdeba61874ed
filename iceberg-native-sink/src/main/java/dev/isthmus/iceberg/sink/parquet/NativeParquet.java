package dev.isthmus.iceberg.sink.parquet;

import dev.isthmus.arrow.memory.MemoryTracker;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.apache.iceberg.MetricsConfig;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.OutputFile;

/**
 * Entry point of the native Parquet writer, shaped like Iceberg's
 * {@code Parquet.write(file).schema(..).setAll(properties).metricsConfig(..).overwrite().build()}
 * so that code building an Iceberg appender can build a native one the same way.
 */
public final class NativeParquet {
    /** Rows per Arrow batch handed to the library: large enough to amortise a call, small enough to stay in cache. */
    public static final int DEFAULT_BATCH_SIZE = 8192;

    private NativeParquet() {}

    /**
     * Why a writer of {@code schema} cannot be built (an unknown, variant or geo column, named), or
     * empty if it can: for callers that write such tables another way instead of failing.
     */
    public static Optional<String> unsupported(Schema schema) {
        return WriterSchema.unsupported(schema);
    }

    public static WriteBuilder write(OutputFile file) {
        return new WriteBuilder(Objects.requireNonNull(file, "file"), null);
    }

    /**
     * A local file the library writes itself, without copying through Java: under a hidden
     * temporary name next to it, moved to {@code path} only when the writer closes, so a failed,
     * aborted or crashed writer leaves nothing at the path. An existing file makes {@code build()}
     * fail unless {@link WriteBuilder#overwrite()}.
     */
    public static WriteBuilder write(Path path) {
        return new WriteBuilder(null, Objects.requireNonNull(path, "path").toAbsolutePath());
    }

    /** Collects what a {@link NativeParquetWriter} needs; {@link #build()} opens it. */
    public static final class WriteBuilder {
        private final OutputFile file;
        private final Path path;
        private Schema schema;
        private final Map<String, String> properties = new LinkedHashMap<>();
        private MetricsConfig metricsConfig = MetricsConfig.getDefault();
        private boolean overwrite;
        private int batchSize = DEFAULT_BATCH_SIZE;
        private FileIO io;
        private MemoryTracker tracker = MemoryTracker.root();

        private WriteBuilder(OutputFile file, Path path) {
            this.file = file;
            this.path = path;
        }

        /** The schema, table properties, metrics config and FileIO of {@code table}, as Iceberg's {@code forTable}. */
        public WriteBuilder forTable(Table table) {
            return schema(table.schema())
                    .setAll(table.properties())
                    .metricsConfig(MetricsConfig.forTable(table))
                    .deleteWith(table.io());
        }

        /** The table schema: any nesting of structs, lists and maps of Iceberg's primitive types but unknown. */
        public WriteBuilder schema(Schema newSchema) {
            this.schema = Objects.requireNonNull(newSchema, "schema");
            return this;
        }

        /**
         * A table property or writer option, passed to the library as it is: it knows Iceberg's
         * {@code write.parquet.*} keys and defaults and ignores keys it does not know.
         */
        public WriteBuilder set(String key, String value) {
            properties.put(Objects.requireNonNull(key, "key"), Objects.requireNonNull(value, "value"));
            return this;
        }

        public WriteBuilder setAll(Map<String, String> newProperties) {
            newProperties.forEach(this::set);
            return this;
        }

        /** Which metrics to keep per column; Iceberg's default (truncate(16)) unless set. */
        public WriteBuilder metricsConfig(MetricsConfig config) {
            this.metricsConfig = Objects.requireNonNull(config, "metricsConfig");
            return this;
        }

        /** Replace an existing file ({@code OutputFile.createOrOverwrite()}) instead of failing. */
        public WriteBuilder overwrite() {
            return overwrite(true);
        }

        public WriteBuilder overwrite(boolean enabled) {
            this.overwrite = enabled;
            return this;
        }

        /** Rows per Arrow batch; {@value NativeParquet#DEFAULT_BATCH_SIZE} unless set. */
        public WriteBuilder batchSize(int rows) {
            if (rows <= 0) {
                throw new IllegalArgumentException("batchSize must be positive, got " + rows);
            }
            this.batchSize = rows;
            return this;
        }

        /**
         * The FileIO that deletes the file when the writer fails or is aborted. Without one, only
         * a local file (a path or {@code file:} location) can be deleted. Not needed for
         * {@link NativeParquet#write(Path)}: the library deletes its own temporary file.
         */
        public WriteBuilder deleteWith(FileIO fileIo) {
            this.io = Objects.requireNonNull(fileIo, "io");
            return this;
        }

        /** The tracker under which the writer counts its Arrow memory; the JVM-wide root unless set. */
        public WriteBuilder memoryTracker(MemoryTracker parent) {
            this.tracker = Objects.requireNonNull(parent, "tracker");
            return this;
        }

        /**
         * Opens the writer and creates the file.
         *
         * @throws UnsupportedOperationException for a nested column, naming it
         * @throws dev.isthmus.ffm.NativeException if the library refuses the schema or an option
         * @throws dev.isthmus.ffm.NativeException.Io for a local path that exists without {@link #overwrite()}
         */
        public NativeParquetWriter build() {
            if (schema == null) {
                throw new IllegalStateException("a schema is required");
            }
            return NativeParquetWriter.open(
                    file, path, schema, Map.copyOf(properties), metricsConfig, overwrite, batchSize, io, tracker);
        }
    }
}
