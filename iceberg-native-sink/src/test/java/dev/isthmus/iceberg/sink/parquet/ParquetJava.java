package dev.isthmus.iceberg.sink.parquet;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.types.logical.RowType;
import org.apache.iceberg.Files;
import org.apache.iceberg.MetricsConfig;
import org.apache.iceberg.Schema;
import org.apache.iceberg.flink.data.FlinkParquetWriters;
import org.apache.iceberg.io.FileAppender;
import org.apache.iceberg.parquet.Parquet;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.parquet.ParquetReadOptions;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.ColumnReader;
import org.apache.parquet.column.impl.ColumnReadStoreImpl;
import org.apache.parquet.column.page.PageReadStore;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.convert.GroupRecordConverter;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.io.ColumnIOFactory;
import org.apache.parquet.io.LocalInputFile;
import org.apache.parquet.io.RecordReader;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType;

/**
 * parquet-java's side of the checks: its own record reader (example {@link Group}s, page CRCs
 * verified), its footer, and Iceberg's Flink writer (the stock path) on the same rows.
 */
final class ParquetJava {
    private ParquetJava() {}

    private static ParquetFileReader open(Path file) throws IOException {
        return ParquetFileReader.open(
                new LocalInputFile(file),
                ParquetReadOptions.builder().usePageChecksumVerification(true).build());
    }

    static ParquetMetadata footer(Path file) {
        try (ParquetFileReader reader = open(file)) {
            return reader.getFooter();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Every row as parquet-java reads it, each value in the comparable form of {@link #expected}. */
    static List<List<Object>> read(Path file, Schema schema) {
        List<List<Object>> rows = new ArrayList<>();
        try (ParquetFileReader reader = open(file)) {
            MessageType type = reader.getFooter().getFileMetaData().getSchema();
            PageReadStore pages;
            while ((pages = reader.readNextRowGroup()) != null) {
                RecordReader<Group> records =
                        new ColumnIOFactory().getColumnIO(type).getRecordReader(pages, new GroupRecordConverter(type));
                for (long r = 0; r < pages.getRowCount(); r++) {
                    Group group = records.read();
                    List<Object> row = new ArrayList<>();
                    for (int i = 0; i < schema.columns().size(); i++) {
                        row.add(
                                group.getFieldRepetitionCount(i) == 0
                                        ? null
                                        : physical(
                                                group,
                                                i,
                                                type.getType(i).asPrimitiveType(),
                                                schema.columns().get(i).type()));
                    }
                    rows.add(row);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return rows;
    }

    /**
     * Every leaf column's values as parquet-java's column readers see them, row group after row
     * group: {@code repetition/definition/value} per level slot ({@code -} where the slot holds
     * no value), keyed by the column's path.
     */
    static Map<String, List<String>> levels(Path file) {
        Map<String, List<String>> columns = new LinkedHashMap<>();
        try (ParquetFileReader reader = open(file)) {
            MessageType type = reader.getFooter().getFileMetaData().getSchema();
            String createdBy = reader.getFooter().getFileMetaData().getCreatedBy();
            PageReadStore pages;
            while ((pages = reader.readNextRowGroup()) != null) {
                ColumnReadStoreImpl store = new ColumnReadStoreImpl(
                        pages, new GroupRecordConverter(type).getRootConverter(), type, createdBy);
                for (ColumnDescriptor column : type.getColumns()) {
                    ColumnReader values = store.getColumnReader(column);
                    List<String> out =
                            columns.computeIfAbsent(String.join(".", column.getPath()), k -> new ArrayList<>());
                    for (long i = 0; i < values.getTotalValueCount(); i++) {
                        int definition = values.getCurrentDefinitionLevel();
                        String value = definition == column.getMaxDefinitionLevel() ? value(values, column) : "-";
                        out.add(values.getCurrentRepetitionLevel() + "/" + definition + "/" + value);
                        values.consume();
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return columns;
    }

    private static String value(ColumnReader values, ColumnDescriptor column) {
        return switch (column.getPrimitiveType().getPrimitiveTypeName()) {
            case BOOLEAN -> Boolean.toString(values.getBoolean());
            case INT32 -> Integer.toString(values.getInteger());
            case INT64 -> Long.toString(values.getLong());
            case FLOAT -> Integer.toHexString(Float.floatToRawIntBits(values.getFloat()));
            case DOUBLE -> Long.toHexString(Double.doubleToRawLongBits(values.getDouble()));
            default -> HexFormat.of().formatHex(values.getBinary().getBytes());
        };
    }

    private static Object physical(Group group, int i, PrimitiveType parquet, Type iceberg) {
        return switch (parquet.getPrimitiveTypeName()) {
            case BOOLEAN -> group.getBoolean(i, 0);
            case INT32 ->
                iceberg instanceof Types.DecimalType d
                        ? BigDecimal.valueOf(group.getInteger(i, 0), d.scale())
                        : (Object) group.getInteger(i, 0);
            case INT64 ->
                iceberg instanceof Types.DecimalType d
                        ? BigDecimal.valueOf(group.getLong(i, 0), d.scale())
                        : (Object) group.getLong(i, 0);
            case FLOAT -> "f" + Integer.toHexString(Float.floatToRawIntBits(group.getFloat(i, 0)));
            case DOUBLE -> "d" + Long.toHexString(Double.doubleToRawLongBits(group.getDouble(i, 0)));
            case BINARY, FIXED_LEN_BYTE_ARRAY ->
                switch (iceberg.typeId()) {
                    case STRING -> group.getBinary(i, 0).toStringUsingUTF8();
                    case DECIMAL ->
                        new BigDecimal(
                                new BigInteger(group.getBinary(i, 0).getBytes()),
                                ((Types.DecimalType) iceberg).scale());
                    default -> HexFormat.of().formatHex(group.getBinary(i, 0).getBytes());
                };
            default -> throw new IllegalArgumentException("unexpected " + parquet);
        };
    }

    /** The values of {@code rows} as Parquet stores them (micros, nanos, unscaled digits), comparable to {@link #read}. */
    static List<List<Object>> expected(List<RowData> rows, Schema schema) {
        List<List<Object>> all = new ArrayList<>();
        for (RowData row : rows) {
            List<Object> values = new ArrayList<>();
            for (int i = 0; i < schema.columns().size(); i++) {
                values.add(
                        row.isNullAt(i)
                                ? null
                                : expected(row, i, schema.columns().get(i).type()));
            }
            all.add(values);
        }
        return all;
    }

    private static Object expected(RowData row, int i, Type type) {
        return switch (type.typeId()) {
            case BOOLEAN -> row.getBoolean(i);
            case INTEGER, DATE -> row.getInt(i);
            case LONG -> row.getLong(i);
            case FLOAT -> "f" + Integer.toHexString(Float.floatToRawIntBits(row.getFloat(i)));
            case DOUBLE -> "d" + Long.toHexString(Double.doubleToRawLongBits(row.getDouble(i)));
            case DECIMAL ->
                row.getDecimal(i, ((Types.DecimalType) type).precision(), ((Types.DecimalType) type).scale())
                        .toBigDecimal();
            case TIME -> row.getInt(i) * 1_000L;
            case TIMESTAMP -> {
                TimestampData t = row.getTimestamp(i, 6);
                yield t.getMillisecond() * 1_000 + t.getNanoOfMillisecond() / 1_000;
            }
            case TIMESTAMP_NANO -> {
                TimestampData t = row.getTimestamp(i, 9);
                yield t.getMillisecond() * 1_000_000 + t.getNanoOfMillisecond();
            }
            case STRING -> row.getString(i).toString();
            case UUID, FIXED, BINARY -> HexFormat.of().formatHex(row.getBinary(i));
            default -> throw new IllegalArgumentException("unexpected " + type);
        };
    }

    /** Iceberg's own Parquet writer with its Flink value writers, as Iceberg's Flink sink writes a data file. */
    static FileAppender<RowData> stockWriter(
            Path file, Schema schema, Map<String, String> properties, MetricsConfig metricsConfig) {
        RowType rowType = NativeParquetWriter.flinkType(schema);
        try {
            return Parquet.write(Files.localOutput(file.toFile()))
                    .schema(schema)
                    .createWriterFunc(messageType -> FlinkParquetWriters.buildWriter(rowType, messageType))
                    .setAll(properties)
                    .metricsConfig(metricsConfig)
                    .overwrite()
                    .build();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
