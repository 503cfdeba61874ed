package example;

import dev.isthmus.iceberg.sink.NativeIcebergSink;
import dev.isthmus.iceberg.sink.write.NativeDataFiles;
import dev.isthmus.iceberg.source.NativeIcebergSource;
import java.util.Map;
import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.data.RowData;
import org.apache.flink.util.CloseableIterator;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.flink.CatalogLoader;
import org.apache.iceberg.flink.TableLoader;

/**
 * A DataStream job as the README shows one: {@code db.<from>} of a Hadoop catalog is read with
 * {@code NativeIcebergSource} and written into a new table {@code db.<to>} of the same schema
 * with {@code NativeIcebergSink}, both strict (nothing falls back to Iceberg's reader or
 * writer); then the copy is read back natively and its row count and the sum of its first
 * column, a {@code BIGINT}, are printed as {@code copied <count> <sum>}.
 *
 * <p>{@code flink run -c example.DataStreamCopy job.jar <warehouse> <from> <to>}
 */
public final class DataStreamCopy {
    private DataStreamCopy() {}

    public static void main(String[] args) throws Exception {
        if (args.length != 3) {
            throw new IllegalArgumentException("usage: DataStreamCopy warehouse from-table to-table");
        }
        long[] copied = copy(args[0], args[1], args[2]);
        System.out.println("copied " + copied[0] + " " + copied[1]);
    }

    /** Copies the table and returns the copy's row count and the sum of its first column. */
    static long[] copy(String warehouse, String from, String to) throws Exception {
        CatalogLoader catalogLoader = CatalogLoader.hadoop("lake", new org.apache.hadoop.conf.Configuration(),
                Map.of("warehouse", warehouse));
        Catalog catalog = catalogLoader.loadCatalog();
        Table source = catalog.loadTable(TableIdentifier.of("db", from));
        catalog.createTable(TableIdentifier.of("db", to), source.schema(), source.spec());

        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setRuntimeMode(RuntimeExecutionMode.BATCH);
        NativeIcebergSink.forRowData(read(env, catalogLoader, from))
                .tableLoader(TableLoader.fromCatalog(catalogLoader, TableIdentifier.of("db", to)))
                .dataFileAppenders(NativeDataFiles.strict())
                .append();
        env.execute("copy db." + from + " to db." + to);

        StreamExecutionEnvironment check = StreamExecutionEnvironment.getExecutionEnvironment();
        check.setRuntimeMode(RuntimeExecutionMode.BATCH);
        long count = 0;
        long sum = 0;
        try (CloseableIterator<RowData> it = read(check, catalogLoader, to).executeAndCollect("read db." + to)) {
            while (it.hasNext()) {
                RowData row = it.next();
                count++;
                sum += row.getLong(0);
            }
        }
        return new long[] {count, sum};
    }

    /** The rows of {@code db.<table>}, read natively (strict: nothing falls back). */
    private static DataStream<RowData> read(StreamExecutionEnvironment env, CatalogLoader catalog, String table) {
        NativeIcebergSource source = NativeIcebergSource.forRowData()
                .tableLoader(TableLoader.fromCatalog(catalog, TableIdentifier.of("db", table)))
                .strict(true)
                .build();
        return env.fromSource(source, WatermarkStrategy.noWatermarks(), table, source.getProducedType());
    }
}
