package dev.isthmus.iceberg.sink;

import dev.isthmus.iceberg.sink.write.RowDataStruct;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;

/**
 * The key of hash distribution on a partitioned table: the row's partition path, the very string
 * Iceberg's {@code PartitionKeySelector} (1.11) returns, so that every row goes to the writer
 * subtask it goes to with Iceberg's sink. Iceberg's selector builds and URL-encodes the path for
 * each row, and Flink asks for the key twice a record (to route it, then for the writer's key
 * context); this one keeps the paths of the partitions it has seen, so a row costs its partition
 * transforms and a map lookup. {@code PartitionPathKeySelectorTest} pins the keys to Iceberg's.
 */
final class PartitionPathKeySelector implements KeySelector<RowData, String> {
    private static final long serialVersionUID = 1L;

    /** Paths kept at most, the least recently used dropped first. */
    static final int MAX_PATHS = 4096;

    private final PartitionSpec spec;
    private final Schema schema;
    private final RowType flinkType;

    private transient PartitionKey key;
    private transient RowDataStruct wrapper;
    private transient LinkedHashMap<PartitionKey, String> paths;

    PartitionPathKeySelector(PartitionSpec spec, Schema schema, RowType flinkType) {
        this.spec = spec;
        this.schema = schema;
        this.flinkType = flinkType;
    }

    @Override
    public String getKey(RowData row) {
        if (key == null) {
            key = new PartitionKey(spec, schema);
            wrapper = new RowDataStruct(flinkType, schema.asStruct());
            paths = new LinkedHashMap<>(16, 0.75f, true) {
                @Override
                protected boolean removeEldestEntry(Map.Entry<PartitionKey, String> eldest) {
                    return size() > MAX_PATHS;
                }
            };
        }
        key.partition(wrapper.wrap(row));
        String path = paths.get(key);
        if (path == null) {
            path = key.toPath();
            paths.put(key.copy(), path);
        }
        return path;
    }
}
