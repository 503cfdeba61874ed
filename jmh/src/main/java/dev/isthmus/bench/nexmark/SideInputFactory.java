package dev.isthmus.bench.nexmark;

import java.util.Collection;
import java.util.List;
import java.util.Set;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.connector.source.DynamicTableSource;
import org.apache.flink.table.connector.source.LookupTableSource;
import org.apache.flink.table.connector.source.lookup.LookupFunctionProvider;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.factories.DynamicTableSourceFactory;
import org.apache.flink.table.factories.FactoryUtil;
import org.apache.flink.table.functions.LookupFunction;
import org.apache.flink.table.types.DataType;
import org.apache.flink.table.types.logical.LogicalTypeRoot;

/**
 * Nexmark q13's side input, {@code 'connector' = 'nexmark-side-input'}: the rows {@code (i, "i")}
 * for {@code 0 <= i < rows}, served by key to a {@code FOR SYSTEM_TIME AS OF} lookup join. Upstream
 * reads them from a CSV file through Flink's legacy filesystem descriptor, which Flink 2 removed,
 * and neither the filesystem connector nor Iceberg is a lookup source. The side input is not part of
 * the I/O under test, so it is computed in memory, the same in every run and in both legs.
 */
public final class SideInputFactory implements DynamicTableSourceFactory {
    static final String IDENTIFIER = "nexmark-side-input";

    static final ConfigOption<Integer> ROWS = ConfigOptions.key("rows")
            .intType()
            .defaultValue(10_000)
            .withDescription("How many rows (i, \"i\") the side input holds, i from 0.");

    @Override
    public String factoryIdentifier() {
        return IDENTIFIER;
    }

    @Override
    public Set<ConfigOption<?>> requiredOptions() {
        return Set.of();
    }

    @Override
    public Set<ConfigOption<?>> optionalOptions() {
        return Set.of(ROWS);
    }

    @Override
    public DynamicTableSource createDynamicTableSource(Context context) {
        FactoryUtil.TableFactoryHelper helper = FactoryUtil.createTableFactoryHelper(this, context);
        helper.validate();
        int rows = helper.getOptions().get(ROWS);
        if (rows < 0) {
            throw new ValidationException("'" + ROWS.key() + "' of " + IDENTIFIER + " must be >= 0, not " + rows);
        }
        List<DataType> fields = DataType.getFieldDataTypes(context.getPhysicalRowDataType());
        if (fields.size() != 2
                || !fields.get(0).getLogicalType().is(LogicalTypeRoot.BIGINT)
                || !fields.get(1).getLogicalType().is(LogicalTypeRoot.VARCHAR)) {
            throw new ValidationException(IDENTIFIER + " serves rows (BIGINT, STRING), not "
                    + context.getPhysicalRowDataType() + " (table " + context.getObjectIdentifier() + ")");
        }
        return new Source(rows);
    }

    /** The lookup source; only its first column can be the join key. */
    static final class Source implements LookupTableSource {
        private final int rows;

        Source(int rows) {
            this.rows = rows;
        }

        @Override
        public LookupRuntimeProvider getLookupRuntimeProvider(LookupContext context) {
            int[][] keys = context.getKeys();
            if (keys.length != 1 || keys[0].length != 1 || keys[0][0] != 0) {
                throw new ValidationException(IDENTIFIER + " is looked up by its first column only");
            }
            return LookupFunctionProvider.of(new Lookup(rows));
        }

        @Override
        public DynamicTableSource copy() {
            return new Source(rows);
        }

        @Override
        public String asSummaryString() {
            return IDENTIFIER + "(rows=" + rows + ")";
        }
    }

    /** The row of a key, computed rather than stored: a key outside {@code [0, rows)} has none. */
    public static final class Lookup extends LookupFunction {
        private final int rows;

        Lookup(int rows) {
            this.rows = rows;
        }

        @Override
        public Collection<RowData> lookup(RowData keyRow) {
            if (keyRow.isNullAt(0)) {
                return List.of();
            }
            long key = keyRow.getLong(0);
            if (key < 0 || key >= rows) {
                return List.of();
            }
            return List.of(GenericRowData.of(key, StringData.fromString(Long.toString(key))));
        }
    }
}
