package dev.isthmus.arrow.flink.builder;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.isthmus.arrow.ArrowChecksum;
import dev.isthmus.arrow.CDataChecksum;
import dev.isthmus.arrow.LeakCheckExtension;
import dev.isthmus.arrow.RandomRows;
import dev.isthmus.arrow.builder.BuilderTestSupport;
import dev.isthmus.arrow.builder.FinishedArray;
import dev.isthmus.arrow.builder.VarBinaryBuilder;
import dev.isthmus.arrow.types.ArrowType;
import java.lang.foreign.ValueLayout;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.apache.flink.core.memory.MemorySegment;
import org.apache.flink.core.memory.MemorySegmentFactory;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.data.binary.BinarySegmentUtils;
import org.apache.flink.table.data.binary.BinaryStringData;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.RowType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

@ExtendWith(LeakCheckExtension.class)
class FieldWritersTest extends BuilderTestSupport {

    @Test
    void javaStringsGetTheBytesOfFlinksEncoder() {
        List<String> strings = new ArrayList<>(List.of(
                "",
                "ascii",
                "h\u00e9llo",
                "\u65e5\u672c",
                "\u20ac",
                "\ud83d\ude00",
                "x\ud83dy",
                "x\ude00y",
                "\ud83d",
                "\ude00",
                "a\ud83d\ud83d\ude00b",
                "\ude00\ud83d",
                "\u0000nul",
                "\u007f\u0080\u07ff\u0800\uffff"));
        SplittableRandom random = new SplittableRandom(7);
        for (int i = 0; i < 2_000; i++) {
            StringBuilder text = new StringBuilder();
            int length = random.nextInt(40);
            for (int c = 0; c < length; c++) {
                // Mostly ASCII, then any char: two-byte, three-byte, and surrogates paired or not.
                text.append((char) (random.nextInt(4) == 0 ? random.nextInt(0x10000) : random.nextInt(0x80)));
            }
            strings.add(text.toString());
        }
        try (VarBinaryBuilder b = builder("text", new ArrowType.Utf8(false), false)) {
            for (String text : strings) {
                BinaryStringData value = (BinaryStringData) StringData.fromString(text);
                FieldWriters.appendUtf8(b, value);
                assertNull(value.getBinarySection(), "the string is left unencoded");
            }
            try (FinishedArray a = b.finish()) {
                for (int i = 0; i < strings.size(); i++) {
                    byte[] appended = data(a, 2)
                            .asSlice(offset(a, i), offset(a, i + 1) - offset(a, i))
                            .toArray(ValueLayout.JAVA_BYTE);
                    assertArrayEquals(
                            StringData.fromString(strings.get(i)).toBytes(),
                            appended,
                            "string " + i + ": "
                                    + strings.get(i)
                                            .chars()
                                            .mapToObj(Integer::toHexString)
                                            .toList());
                }
            }
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {19, 20, 28, 38})
    void wideDecimalsOfBinaryRowsAppendAsTheirValues(int precision) {
        RowType type = RowType.of(new DecimalType(precision, 3));
        BigInteger max = BigInteger.TEN.pow(precision).subtract(BigInteger.ONE);
        List<BigInteger> values = new ArrayList<>(List.of(
                BigInteger.ZERO,
                BigInteger.ONE,
                BigInteger.ONE.negate(),
                BigInteger.valueOf(127),
                BigInteger.valueOf(-128),
                BigInteger.valueOf(128),
                BigInteger.valueOf(-129),
                BigInteger.valueOf(Long.MAX_VALUE),
                BigInteger.valueOf(Long.MIN_VALUE),
                BigInteger.ONE.shiftLeft(64),
                BigInteger.ONE.shiftLeft(64).negate(),
                max,
                max.negate()));
        values.removeIf(v -> v.abs().compareTo(max) > 0);
        SplittableRandom random = new SplittableRandom(precision);
        for (int i = 0; i < 500; i++) {
            BigInteger value = new BigInteger(128, new java.util.Random(random.nextLong()))
                    .mod(BigInteger.TEN.pow(random.nextInt(1, precision + 1)));
            values.add(random.nextBoolean() ? value : value.negate());
        }
        List<GenericRowData> rows = new ArrayList<>();
        for (BigInteger value : values) {
            DecimalData decimal = DecimalData.fromBigDecimal(new BigDecimal(value, 3), precision, 3);
            assertNotNull(decimal, value + " fits DECIMAL(" + precision + ", 3)");
            rows.add(GenericRowData.of(decimal));
        }
        rows.add(GenericRowData.of((Object) null));
        List<RowData> binary = RandomRows.binary(rows, type);
        // The same rows at an offset into a larger segment, and split over two segments.
        List<RowData> moved = new ArrayList<>();
        for (int i = 0; i < binary.size(); i++) {
            BinaryRowData source = (BinaryRowData) binary.get(i);
            byte[] bytes =
                    BinarySegmentUtils.copyToBytes(source.getSegments(), source.getOffset(), source.getSizeInBytes());
            BinaryRowData row = new BinaryRowData(1);
            if (i % 2 == 0) {
                byte[] padded = new byte[bytes.length + 24];
                System.arraycopy(bytes, 0, padded, 16, bytes.length);
                row.pointTo(MemorySegmentFactory.wrap(padded), 16, bytes.length);
            } else {
                int cut = bytes.length - 5;
                MemorySegment[] halves = {
                    MemorySegmentFactory.wrap(Arrays.copyOfRange(bytes, 0, cut)),
                    MemorySegmentFactory.wrap(Arrays.copyOfRange(bytes, cut, bytes.length + cut))
                };
                row.pointTo(halves, 0, bytes.length);
            }
            moved.add(row);
        }
        for (List<RowData> input : List.of(binary, moved)) {
            try (RowDataAppender appender = new RowDataAppender(type, allocator)) {
                for (RowData row : input) {
                    appender.append(row);
                }
                assertEquals(ArrowChecksum.of(rows, type), CDataChecksum.ofExported(appender.finish()));
            }
        }
    }
}
