package dev.isthmus.arrow;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.GenericArrayData;
import org.apache.flink.table.data.GenericMapData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.types.logical.ArrayType;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.BinaryType;
import org.apache.flink.table.types.logical.BooleanType;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.MapType;
import org.apache.flink.table.types.logical.NullType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.TimestampType;
import org.apache.flink.table.types.logical.VarCharType;
import org.junit.jupiter.api.Test;

/** The oracle against vectors computed by hand (and checked with an independent FNV-1a script). */
class ArrowChecksumTest {

    @Test
    void fnv1aMatchesThePublishedVectors() {
        assertEquals(0xcbf29ce484222325L, new ArrowChecksum.Fnv1a().value());
        assertEquals(
                0xaf63dc4c8601ec8cL,
                new ArrowChecksum.Fnv1a()
                        .add("a".getBytes(StandardCharsets.US_ASCII))
                        .value());
        assertEquals(
                0x85944171f73967e8L,
                new ArrowChecksum.Fnv1a()
                        .add("foobar".getBytes(StandardCharsets.US_ASCII))
                        .value());
    }

    private static final RowType FLAT = RowType.of(
            new LogicalType[] {
                new IntType(false), new VarCharType(VarCharType.MAX_LENGTH), new BigIntType(),
            },
            new String[] {"i", "s", "l"});

    @Test
    void anEmptyBatchHashesToTheOffsetBasis() {
        assertEquals(0xcbf29ce484222325L, ArrowChecksum.of(List.of(), FLAT));
    }

    @Test
    void flatRows() {
        // 01 | 01 01000000 | 01 0200000000000000 6162 | 00
        GenericRowData first = GenericRowData.of(1, StringData.fromString("ab"), null);
        assertEquals(0x0b64d25263a66e40L, ArrowChecksum.of(List.of(first), FLAT));
        // then 01 | 01 feffffff | 01 0000000000000000 | 01 0700000000000000
        GenericRowData second = GenericRowData.of(-2, StringData.fromString(""), 7L);
        assertEquals(0x59ab29f670211282L, ArrowChecksum.of(List.of(first, second), FLAT));
    }

    @Test
    void nestedRow() {
        RowType type = RowType.of(
                new LogicalType[] {
                    new DecimalType(5, 2), new TimestampType(6), new ArrayType(new BooleanType()),
                    new MapType(new VarCharType(false, 10), new IntType()), new BinaryType(2), new NullType(),
                },
                new String[] {"d", "ts", "flags", "m", "b", "n"});
        Map<Object, Object> map = new LinkedHashMap<>();
        map.put(StringData.fromString("k"), 5);
        GenericRowData row = GenericRowData.of(
                DecimalData.fromBigDecimal(new BigDecimal("-1.50"), 5, 2), // 16 bytes of -150
                TimestampData.fromEpochMillis(-1, 999_000), // -1 microsecond
                new GenericArrayData(new Object[] {true, null}), // count 2, 01 01, 00
                new GenericMapData(map), // count 1, entry 01, key 01 len 1 'k', value 01 05000000
                new byte[] {1, 2}, // 01 0102: fixed-size binary has no length
                null); // 00
        assertEquals(0x5328e30c0886e97cL, ArrowChecksum.of(List.of(row), type));
    }
}
