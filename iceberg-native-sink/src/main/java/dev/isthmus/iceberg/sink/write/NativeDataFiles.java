package dev.isthmus.iceberg.sink.write;

import dev.isthmus.arrow.memory.MemoryTracker;
import dev.isthmus.ffm.NativeLibrary;
import dev.isthmus.ffm.NativeLibraryException;
import dev.isthmus.iceberg.sink.parquet.NativeParquet;
import dev.isthmus.iceberg.sink.parquet.NativeParquetWriter;
import dev.isthmus.iceberg.source.FallbackLog;
import dev.isthmus.iceberg.source.NativeReadOptions;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.io.FileAppenderFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Parquet data files encoded natively ({@link NativeParquet}); the sink's default. A table the
 * encoder cannot write is written by Iceberg's Java writers instead ({@link DataFileAppenders#ICEBERG_JAVA}),
 * whole, never file by file: another data file format, an unknown column, or input rows whose
 * Flink types differ from the ones the encoder lays the table's columns out with (a TINYINT
 * column written into an Iceberg int, say), and every table when the native library cannot load
 * in this JVM. Each such fallback is counted, and logged once per job, table and reason;
 * {@link #strict()} makes it fail instead.
 */
public final class NativeDataFiles implements DataFileAppenders {
    private static final Logger LOG = LoggerFactory.getLogger(NativeDataFiles.class);
    private static final FallbackLog LOGGED = new FallbackLog(LOG, 4096);
    private static final AtomicLong FALLBACKS = new AtomicLong();
    /**
     * The native memory of the sink's writers, JVM-wide: the Arrow batches being built and the
     * library's buffered row-group pages, each writer subtask's in a child.
     */
    private static final MemoryTracker BATCHES = MemoryTracker.root().child("isthmus-sink");

    private static final NativeDataFiles LENIENT = new NativeDataFiles(false);
    private static final NativeDataFiles STRICT = new NativeDataFiles(true);

    private final boolean strict;

    private NativeDataFiles(boolean strict) {
        this.strict = strict;
    }

    /** Native where possible, Iceberg's Java writers for the rest. */
    public static NativeDataFiles lenient() {
        return LENIENT;
    }

    /** Native or a failure naming why not: for jobs and benchmarks that must not fall back. */
    public static NativeDataFiles strict() {
        return STRICT;
    }

    /**
     * Off-heap bytes the sink's native writers hold in this JVM: the Arrow batches being built
     * (their string bytes, and a batch whole while it is copied out and encoded) and the library's
     * buffered row-group pages.
     */
    public static long liveNativeBytes() {
        return BATCHES.liveBytes();
    }

    /** A writer subtask's tracker under the sink's JVM-wide one, capped at {@code maxNativeBytes}. */
    static MemoryTracker writerMemory(String name, long maxNativeBytes) {
        return BATCHES.child(name, maxNativeBytes, NativeReadOptions.MAX_NATIVE_BYTES_OPTIONS);
    }

    /** Writer subtasks of this JVM that fell back to Iceberg's Java writers. */
    public static long fallbacks() {
        return FALLBACKS.get();
    }

    @Override
    public FileAppenderFactory<RowData> create(DataFileContext context) {
        // Before anything of the table touches native code: without the library every table falls back.
        Optional<NativeLibraryException> noLibrary = NativeLibrary.unavailable();
        Optional<String> refusal = noLibrary.isPresent()
                ? Optional.of("the native library cannot be loaded: "
                        + noLibrary.get().getMessage())
                : refusal(context);
        if (refusal.isPresent()) {
            String table = context.table().name();
            String reason = "table " + table + ": " + refusal.get();
            if (strict) {
                throw new UnsupportedOperationException(
                        "cannot write data files natively: " + reason, noLibrary.orElse(null));
            }
            FALLBACKS.incrementAndGet();
            LOGGED.warn(
                    context.jobId(), table, refusal.get(), "Writing data files with Iceberg's Java writers: " + reason);
            return ICEBERG_JAVA.create(context);
        }
        // forTable sets the table's schema, metrics config, FileIO and properties; the write
        // properties add the job's options (codec, level) on top.
        return new ProducedAppenders(
                context,
                (ctx, file) -> NativeParquet.write(file)
                        .forTable(ctx.table())
                        .schema(ctx.schema())
                        .setAll(ctx.writeProperties())
                        .memoryTracker(ctx.memory())
                        .overwrite()
                        .build());
    }

    private static Optional<String> refusal(DataFileContext context) {
        if (context.format() != FileFormat.PARQUET) {
            return Optional.of("the data file format is " + context.format() + ", not PARQUET");
        }
        Optional<String> schema = NativeParquet.unsupported(context.schema());
        if (schema.isPresent()) {
            return schema;
        }
        List<RowType.RowField> input = context.flinkType().getFields();
        List<RowType.RowField> laidOut =
                NativeParquetWriter.flinkType(context.schema()).getFields();
        if (input.size() != laidOut.size()) {
            return Optional.of("the input rows have " + input.size() + " fields, the table " + laidOut.size());
        }
        for (int i = 0; i < input.size(); i++) {
            LogicalType in = input.get(i).getType();
            LogicalType out = laidOut.get(i).getType();
            if (!sameLayout(in, out)) {
                return Optional.of("column '" + laidOut.get(i).getName() + "' arrives as " + in.asSummaryString()
                        + ", the native writer writes it from " + out.asSummaryString());
            }
        }
        return Optional.empty();
    }

    /**
     * Whether rows of type {@code in} can be read as the writer reads {@code out}: the same types
     * all the way down, whatever their nullability (a null where the table requires a value fails
     * the write, naming the column) and the names of nested fields (read by position).
     */
    private static boolean sameLayout(LogicalType in, LogicalType out) {
        List<LogicalType> inChildren = in.getChildren();
        List<LogicalType> outChildren = out.getChildren();
        if (inChildren.isEmpty() && outChildren.isEmpty()) {
            return in.copy(true).equals(out.copy(true));
        }
        if (in.getTypeRoot() != out.getTypeRoot() || inChildren.size() != outChildren.size()) {
            return false;
        }
        for (int i = 0; i < inChildren.size(); i++) {
            if (!sameLayout(inChildren.get(i), outChildren.get(i))) {
                return false;
            }
        }
        return true;
    }
}
