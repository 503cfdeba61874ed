package dev.isthmus.arrow.builder;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.isthmus.arrow.LeakCheckExtension;
import dev.isthmus.arrow.memory.MemoryLimitExceededException;
import dev.isthmus.arrow.memory.MemoryTracker;
import dev.isthmus.arrow.types.ArrowField;
import dev.isthmus.arrow.types.ArrowType;
import dev.isthmus.arrow.types.ArrowType.TimeUnit;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

@ExtendWith(LeakCheckExtension.class)
class PrimitiveBuildersTest extends BuilderTestSupport {

    @Test
    void int64ValuesAndNullsLandInTheirSlots() {
        try (Int64Builder b = builder("n", new ArrowType.Int(64, true), true)) {
            b.append(1);
            b.appendNull();
            b.append(Long.MIN_VALUE);
            try (FinishedArray a = b.finish()) {
                assertEquals(3, a.length());
                assertEquals(1, a.nullCount());
                assertEquals(2, a.buffers().size());
                assertTrue(isValid(a, 0));
                assertFalse(isValid(a, 1));
                assertTrue(isValid(a, 2));
                assertEquals(1, data(a, 1).getAtIndex(ValueLayout.JAVA_LONG, 0));
                assertEquals(0, data(a, 1).getAtIndex(ValueLayout.JAVA_LONG, 1), "a null slot holds zeros");
                assertEquals(Long.MIN_VALUE, data(a, 1).getAtIndex(ValueLayout.JAVA_LONG, 2));
            }
        }
    }

    @Test
    void smallIntegersAndFloatsKeepTheirBits() {
        try (Int8Builder i8 = builder("i8", new ArrowType.Int(8, true), false);
                Int16Builder i16 = builder("i16", new ArrowType.Int(16, true), false);
                Int32Builder i32 = builder("i32", new ArrowType.Int(32, false), false);
                Float32Builder f32 = builder("f32", new ArrowType.Float32(), false);
                Float64Builder f64 = builder("f64", new ArrowType.Float64(), false)) {
            i8.append((byte) -128);
            i16.append((short) -2);
            i32.append(-1); // unsigned 2^32 - 1: the bits are stored as given
            float nanWithPayload = Float.intBitsToFloat(0x7fc0_1234);
            f32.append(nanWithPayload);
            f64.append(-0.0);
            try (FinishedArray a8 = i8.finish();
                    FinishedArray a16 = i16.finish();
                    FinishedArray a32 = i32.finish();
                    FinishedArray af = f32.finish();
                    FinishedArray ad = f64.finish()) {
                assertEquals(-128, data(a8, 1).get(ValueLayout.JAVA_BYTE, 0));
                assertEquals(-2, data(a16, 1).get(ValueLayout.JAVA_SHORT, 0));
                assertEquals(-1, data(a32, 1).get(ValueLayout.JAVA_INT, 0));
                assertEquals(0x7fc0_1234, data(af, 1).get(ValueLayout.JAVA_INT, 0));
                assertEquals(Double.doubleToRawLongBits(-0.0), data(ad, 1).get(ValueLayout.JAVA_LONG, 0));
                for (FinishedArray a : List.of(a8, a16, a32, af, ad)) {
                    assertNull(a.buffers().get(0), "no validity bitmap without nulls");
                }
            }
        }
    }

    @Test
    void booleansArePackedLsbFirst() {
        try (BoolBuilder b = builder("flag", new ArrowType.Bool(), true)) {
            boolean[] values = {true, false, true, true, false, false, false, true, true};
            for (boolean v : values) {
                b.append(v);
            }
            b.appendNull();
            try (FinishedArray a = b.finish()) {
                assertEquals((byte) 0b1000_1101, data(a, 1).get(ValueLayout.JAVA_BYTE, 0));
                for (int i = 0; i < values.length; i++) {
                    assertEquals(values[i], bit(data(a, 1), i));
                    assertTrue(isValid(a, i));
                }
                assertFalse(isValid(a, 9));
                assertEquals(1, a.nullCount());
            }
        }
    }

    @Test
    void datesAndTimesUseArrowUnits() {
        try (Date32Builder date = builder("d", new ArrowType.Date(true), false);
                Time64Builder micros = builder("t", new ArrowType.Time(TimeUnit.MICROSECOND), false);
                Time64Builder nanos = builder("tn", new ArrowType.Time(TimeUnit.NANOSECOND), false)) {
            date.appendDays(-719_162);
            micros.appendMillisOfDay(86_399_999);
            nanos.appendMillisOfDay(1);
            try (FinishedArray d = date.finish();
                    FinishedArray t = micros.finish();
                    FinishedArray tn = nanos.finish()) {
                assertEquals(-719_162, data(d, 1).get(ValueLayout.JAVA_INT, 0));
                assertEquals(86_399_999_000L, data(t, 1).get(ValueLayout.JAVA_LONG, 0));
                assertEquals(1_000_000L, data(tn, 1).get(ValueLayout.JAVA_LONG, 0));
            }
        }
    }

    @Test
    void timestampsConvertMillisAndNanosWithFloorSemantics() {
        try (TimestampBuilder us = builder("us", new ArrowType.Timestamp(TimeUnit.MICROSECOND, null), false);
                TimestampBuilder ns = builder("ns", new ArrowType.Timestamp(TimeUnit.NANOSECOND, "UTC"), false);
                TimestampBuilder s = builder("s", new ArrowType.Timestamp(TimeUnit.SECOND, null), false);
                TimestampBuilder ms = builder("ms", new ArrowType.Timestamp(TimeUnit.MILLISECOND, null), false)) {
            // One nanosecond before the epoch: millis -1, 999_999 nanos into that millisecond.
            us.append(-1, 999_999);
            ns.append(-1, 999_999);
            s.append(-1, 999_999);
            ms.append(-1, 999_999);
            us.append(1_700_000_000_123L, 456_789);
            ns.append(1_700_000_000_123L, 456_789);
            try (FinishedArray aus = us.finish();
                    FinishedArray ans = ns.finish();
                    FinishedArray as = s.finish();
                    FinishedArray ams = ms.finish()) {
                assertEquals(-1, data(aus, 1).getAtIndex(ValueLayout.JAVA_LONG, 0), "floor, not truncation");
                assertEquals(-1, data(ans, 1).getAtIndex(ValueLayout.JAVA_LONG, 0));
                assertEquals(-1, data(as, 1).getAtIndex(ValueLayout.JAVA_LONG, 0));
                assertEquals(-1, data(ams, 1).getAtIndex(ValueLayout.JAVA_LONG, 0));
                assertEquals(1_700_000_000_123_456L, data(aus, 1).getAtIndex(ValueLayout.JAVA_LONG, 1));
                assertEquals(1_700_000_000_123_456_789L, data(ans, 1).getAtIndex(ValueLayout.JAVA_LONG, 1));
            }
        }
    }

    @Test
    void aTimestampOutsideTheNanosecondRangeFailsNamingTheField() {
        try (TimestampBuilder ns = builder("event_time", new ArrowType.Timestamp(TimeUnit.NANOSECOND, null), true)) {
            ns.append(0, 0);
            long year3000 = 32_503_680_000_000L;
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ns.append(year3000, 0));
            assertTrue(e.getMessage().contains("'event_time'"), e.getMessage());
            assertEquals(1, ns.length(), "the failed value was not appended");
        }
    }

    @Test
    void decimalsAreLittleEndianTwosComplement() {
        try (Decimal128Builder small = builder("price", new ArrowType.Decimal(9, 2), true);
                Decimal128Builder wide = builder("big", new ArrowType.Decimal(38, 0), false)) {
            small.appendUnscaled(-150L, 2);
            small.appendNull();
            small.appendUnscaled(999_999_999L);
            BigInteger max = BigInteger.TEN.pow(38).subtract(BigInteger.ONE);
            wide.appendUnscaled(max.negate(), 0);
            wide.appendUnscaled(BigInteger.valueOf(Long.MIN_VALUE).subtract(BigInteger.ONE));
            try (FinishedArray s = small.finish();
                    FinishedArray w = wide.finish()) {
                assertEquals(BigInteger.valueOf(-150), decimalAt(s, 0));
                assertEquals(BigInteger.ZERO, decimalAt(s, 1));
                assertEquals(BigInteger.valueOf(999_999_999L), decimalAt(s, 2));
                assertEquals(max.negate(), decimalAt(w, 0));
                assertEquals(BigInteger.valueOf(Long.MIN_VALUE).subtract(BigInteger.ONE), decimalAt(w, 1));
            }
        }
    }

    private static BigInteger decimalAt(FinishedArray array, int i) {
        byte[] littleEndian = data(array, 1).asSlice(16L * i, 16).toArray(ValueLayout.JAVA_BYTE);
        byte[] bigEndian = new byte[16];
        for (int k = 0; k < 16; k++) {
            bigEndian[k] = littleEndian[15 - k];
        }
        return new BigInteger(bigEndian);
    }

    @Test
    void decimalsWithTooManyDigitsOrAnotherScaleFailNamingTheField() {
        try (Decimal128Builder d = builder("amount", new ArrowType.Decimal(5, 2), true)) {
            IllegalArgumentException digits =
                    assertThrows(IllegalArgumentException.class, () -> d.appendUnscaled(100_000L));
            assertTrue(
                    digits.getMessage().contains("'amount'")
                            && digits.getMessage().contains("DECIMAL(5, 2)"),
                    digits.getMessage());
            assertThrows(IllegalArgumentException.class, () -> d.appendUnscaled(BigInteger.valueOf(-100_000L)));
            IllegalArgumentException scale =
                    assertThrows(IllegalArgumentException.class, () -> d.appendUnscaled(1L, 3));
            assertTrue(scale.getMessage().contains("scale 3"), scale.getMessage());
            d.appendUnscaled(-99_999L);
            assertEquals(1, d.length());
        }
    }

    @Test
    void decimalsFromTwoWordsMatchTheirBigIntegerAndKeepTheBound() {
        java.util.SplittableRandom random = new java.util.SplittableRandom(5);
        for (int precision : new int[] {19, 38}) {
            BigInteger bound = BigInteger.TEN.pow(precision);
            try (Decimal128Builder words = builder("w", new ArrowType.Decimal(precision, 0), false);
                    Decimal128Builder big = builder("b", new ArrowType.Decimal(precision, 0), false)) {
                List<BigInteger> values = new ArrayList<>(List.of(
                        BigInteger.ZERO,
                        BigInteger.ONE.negate(),
                        BigInteger.ONE.shiftLeft(64),
                        BigInteger.ONE.shiftLeft(64).negate(),
                        bound.subtract(BigInteger.ONE),
                        bound.subtract(BigInteger.ONE).negate()));
                values.removeIf(v -> v.abs().compareTo(bound) >= 0);
                for (int i = 0; i < 1000; i++) {
                    BigInteger v = new BigInteger(127, new java.util.Random(random.nextLong())).mod(bound);
                    values.add(random.nextBoolean() ? v : v.negate());
                }
                for (BigInteger v : values) {
                    words.appendUnscaled128(v.longValue(), v.shiftRight(64).longValue());
                    big.appendUnscaled(v);
                }
                for (BigInteger outside : List.of(
                        bound, bound.negate(), BigInteger.ONE.shiftLeft(127).negate(), bound.add(BigInteger.TEN))) {
                    IllegalArgumentException e = assertThrows(
                            IllegalArgumentException.class,
                            () -> words.appendUnscaled128(
                                    outside.longValue(), outside.shiftRight(64).longValue()));
                    assertTrue(e.getMessage().contains(outside.toString()), e.getMessage());
                }
                try (FinishedArray w = words.finish();
                        FinishedArray b = big.finish()) {
                    assertEquals(values.size(), w.length());
                    for (int i = 0; i < values.size(); i++) {
                        assertEquals(values.get(i), decimalAt(w, i), "value " + i);
                        assertEquals(decimalAt(b, i), decimalAt(w, i), "value " + i);
                    }
                }
            }
        }
    }

    @Test
    void stringsAndBinaryShareOffsetsIntoOneDataBuffer() {
        try (VarBinaryBuilder s = builder("name", new ArrowType.Utf8(false), true)) {
            s.append("héllo");
            s.appendNull();
            s.append("");
            byte[] padded = "xx日本yy".getBytes(StandardCharsets.UTF_8);
            s.append(padded, 2, padded.length - 4);
            try (FinishedArray a = s.finish()) {
                assertEquals(3, a.buffers().size());
                assertEquals(0, offset(a, 0));
                assertEquals(6, offset(a, 1));
                assertEquals(6, offset(a, 2), "a null repeats the offset");
                assertEquals(6, offset(a, 3));
                assertEquals(12, offset(a, 4));
                assertEquals("héllo", utf8(a, 0));
                assertEquals("日本", utf8(a, 3));
                assertFalse(isValid(a, 1));
            }
        }
    }

    /**
     * Strings Flink holds only as Java strings are encoded by the JDK: the bytes must be exactly
     * those of Flink's own encoder, for any chars, unpaired surrogates included.
     */
    @Test
    void nativeSegmentsAreCopiedAndHeapSegmentsRefused() {
        try (VarBinaryBuilder b = builder("blob", new ArrowType.Binary(false), false);
                Arena arena = Arena.ofConfined()) {
            MemorySegment source = arena.allocateFrom("native bytes");
            b.append(source.asSlice(0, 6));
            assertThrows(IllegalArgumentException.class, () -> b.append(MemorySegment.ofArray(new byte[1])));
            try (FinishedArray a = b.finish()) {
                assertEquals("native", utf8(a, 0));
                assertEquals(1, a.length());
            }
        }
    }

    @Test
    void aBatchPastTwoGibibytesOfStringDataFailsAndKeepsWhatItHas() {
        try (VarBinaryBuilder b = builder("payload", new ArrowType.Binary(false), false);
                Arena arena = Arena.ofConfined()) {
            MemorySegment gibibyte = arena.allocate(1L << 30);
            b.append(gibibyte);
            // 2^31 bytes in all: one past what an int32 offset addresses. Refused before growing or copying.
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> b.append(gibibyte));
            assertTrue(e.getMessage().contains("'payload'") && e.getMessage().contains("2 GiB"), e.getMessage());
            assertEquals(1, b.length());
            try (FinishedArray a = b.finish()) {
                assertEquals(1 << 30, offset(a, 1));
            }
        }
    }

    @Test
    void fixedSizeBinaryRefusesAnotherLengthNamingTheField() {
        try (FixedSizeBinaryBuilder b = builder("uuid", new ArrowType.FixedSizeBinary(4), true)) {
            b.append(new byte[] {1, 2, 3, 4});
            b.appendNull();
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> b.append(new byte[3]));
            assertTrue(
                    e.getMessage().contains("'uuid'")
                            && e.getMessage().contains("exactly 4 bytes")
                            && e.getMessage().contains("got 3"),
                    e.getMessage());
            try (FinishedArray a = b.finish()) {
                assertEquals(2, a.length());
                assertArrayEquals(
                        new byte[] {1, 2, 3, 4, 0, 0, 0, 0},
                        data(a, 1).asSlice(0, 8).toArray(ValueLayout.JAVA_BYTE));
            }
        }
    }

    @Test
    void theNullTypeHasNoBuffers() {
        try (NullBuilder b = builder("unknown", new ArrowType.Null(), true)) {
            b.appendNull();
            b.appendNull();
            try (FinishedArray a = b.finish()) {
                assertEquals(2, a.length());
                assertEquals(2, a.nullCount());
                assertTrue(a.buffers().isEmpty());
            }
        }
    }

    @Test
    void aNullInANotNullFieldFailsNamingTheField() {
        try (Int32Builder b = builder("id", new ArrowType.Int(32, true), false)) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, b::appendNull);
            assertEquals("field 'id' is NOT NULL but got a null", e.getMessage());
            assertEquals(0, b.length());
        }
    }

    static Stream<ArrowType> everyLeafType() {
        return Stream.of(
                new ArrowType.Bool(),
                new ArrowType.Int(8, true),
                new ArrowType.Int(16, true),
                new ArrowType.Int(32, true),
                new ArrowType.Int(64, true),
                new ArrowType.Float32(),
                new ArrowType.Float64(),
                new ArrowType.Decimal(38, 9),
                new ArrowType.Date(true),
                new ArrowType.Time(TimeUnit.MICROSECOND),
                new ArrowType.Timestamp(TimeUnit.NANOSECOND, "UTC"),
                new ArrowType.Utf8(false),
                new ArrowType.Binary(false),
                new ArrowType.FixedSizeBinary(16),
                new ArrowType.Null());
    }

    @ParameterizedTest
    @MethodSource("everyLeafType")
    void anEmptyBatchStillHasEveryBufferButValidity(ArrowType type) {
        try (ArrowBuilder b = builder("empty", type, true);
                FinishedArray a = b.finish()) {
            assertEquals(0, a.length());
            assertEquals(0, a.nullCount());
            if (!(type instanceof ArrowType.Null)) {
                assertNull(a.buffers().get(0));
                for (NativeBuffer buffer : a.buffers().subList(1, a.buffers().size())) {
                    assertNotNull(buffer, "consumers expect non-NULL data and offsets buffers");
                }
            }
            if (type instanceof ArrowType.Utf8 || type instanceof ArrowType.Binary) {
                assertEquals(0, offset(a, 0));
            }
        }
    }

    @ParameterizedTest
    @MethodSource("everyLeafType")
    void allNullBatchesOfEveryType(ArrowType type) {
        try (ArrowBuilder b = builder("nulls", type, true)) {
            for (int i = 0; i < 100; i++) {
                b.appendNull();
            }
            try (FinishedArray a = b.finish()) {
                assertEquals(100, a.length());
                assertEquals(100, a.nullCount());
                for (int i = 0; i < 100 && !(type instanceof ArrowType.Null); i++) {
                    assertFalse(isValid(a, i));
                }
            }
        }
    }

    @Test
    void buffersDoubleAsValuesArriveAndKeepEveryValue() {
        try (Int32Builder b = builder("n", new ArrowType.Int(32, true), true)) {
            for (int i = 0; i < 100_000; i++) {
                if (i % 7 == 3) {
                    b.appendNull();
                } else {
                    b.append(i);
                }
            }
            try (FinishedArray a = b.finish()) {
                assertEquals(100_000 / 7 + (100_000 % 7 > 3 ? 1 : 0), a.nullCount());
                for (int i = 0; i < 100_000; i++) {
                    assertEquals(i % 7 != 3, isValid(a, i));
                    if (i % 7 != 3) {
                        assertEquals(i, data(a, 1).getAtIndex(ValueLayout.JAVA_INT, i));
                    }
                }
                assertTrue(a.buffers().get(1).capacity() >= 400_000);
            }
        }
    }

    @Test
    void resetReusesTheBuffersWithoutAllocating() {
        try (VarBinaryBuilder b = builder("s", new ArrowType.Utf8(false), true)) {
            fill(b, 10_000);
            long allocated = tracker.allocatedBytes();
            assertTrue(allocated > VarBinaryBuilder.PENDING_BYTES, "the bytes went on to native memory");
            b.reset();
            assertEquals(0, b.length());
            fill(b, 10_000);
            assertEquals(allocated, tracker.allocatedBytes(), "the second batch fits the first one's buffers");
            try (FinishedArray a = b.finish()) {
                assertEquals("v9999", utf8(a, 9999));
                assertEquals(10_000 / 10, a.nullCount());
            }
        }
    }

    @Test
    void finishCopiesTheBatchOutAndTheNextBatchStartsAtTheSameCapacity() {
        try (VarBinaryBuilder b = builder("s", new ArrowType.Utf8(false), true)) {
            fill(b, 10_000);
            FinishedArray first = b.finish();
            long allocated = tracker.allocatedBytes();
            try (first) {
                fill(b, 10_000);
                long bytes = offset(first, 10_000);
                assertEquals(
                        allocated + BufferAllocator.alignedSize(bytes + bytes / 4),
                        tracker.allocatedBytes(),
                        "until it is finished, the next batch takes only a data buffer of the last one's bytes"
                                + " and a quarter more");
                try (FinishedArray second = b.finish()) {
                    assertNotEquals(
                            first.buffers().get(2).address(),
                            second.buffers().get(2).address());
                    assertEquals("v5", utf8(first, 5), "appending the next batch does not touch the finished one");
                    assertEquals("v5", utf8(second, 5));
                    assertEquals(0, b.length());
                }
            }
        }
    }

    @Test
    void theDataBufferFollowsTheLastBatchNotTheLargest() {
        try (VarBinaryBuilder b = builder("s", new ArrowType.Binary(false), false)) {
            for (int i = 0; i < 20; i++) {
                b.append(bytes(10_000, i));
            }
            b.finish().close();
            b.append(bytes(10, 1));
            try (FinishedArray small = b.finish()) {
                assertEquals(
                        BufferAllocator.alignedSize(10),
                        small.buffers().get(2).capacity(),
                        "bytes that all waited in the staging get a buffer of their size");
            }
            b.append(bytes(VarBinaryBuilder.PENDING_BYTES + 1, 2));
            try (FinishedArray next = b.finish()) {
                assertTrue(
                        next.buffers().get(2).capacity() < 2 * (VarBinaryBuilder.PENDING_BYTES + 64),
                        "a batch after a small one starts from the small one's size: "
                                + next.buffers().get(2));
            }
            b.finish().close();
        }
    }

    @Test
    void anAppendPastTheCapLeavesTheBatchAsItWas() {
        try (MemoryTracker capped = tracker.child("capped", 64 * 1024, "test.cap")) {
            VarBinaryBuilder b = binaryIn(capped);
            try (b) {
                b.append(bytes(100, 1));
                // Flushes the first value, then cannot grow the data buffer for this one.
                assertThrows(MemoryLimitExceededException.class, () -> b.append(bytes(80 * 1024, 2)));
                assertEquals(1, b.length());
                for (int i = 0; i < 300; i++) {
                    b.append(bytes(100, 3)); // the flush of the staging past 16 KiB fits
                }
                try (FinishedArray a = b.finish()) {
                    assertEquals(301, a.length());
                    assertArrayEquals(bytes(100, 1), data(a, 2).asSlice(0, 100).toArray(ValueLayout.JAVA_BYTE));
                    assertEquals(100, offset(a, 1));
                    assertEquals(301 * 100, offset(a, 301));
                }
            }
            assertEquals(0, capped.liveBytes());
        }
    }

    @Test
    void aClosedBuilderBuildsTheNextBatchFromScratch() {
        Int32Builder b = builder("n", new ArrowType.Int(32, true), true);
        b.append(1);
        b.appendNull();
        b.close();
        assertEquals(0, b.length());
        b.append(7);
        try (FinishedArray a = b.finish()) {
            assertEquals(1, a.length());
            assertEquals(0, a.nullCount());
            assertNull(a.buffers().get(0));
            assertEquals(7, data(a, 1).get(ValueLayout.JAVA_INT, 0));
        } finally {
            b.close();
        }
    }

    private static void fill(VarBinaryBuilder b, int values) {
        for (int i = 0; i < values; i++) {
            if (i % 10 == 1) {
                b.appendNull();
            } else {
                b.append("v" + i);
            }
        }
    }

    @ParameterizedTest(name = "from native memory: {0}")
    @ValueSource(booleans = {false, true})
    void shortAndLongValuesKeepTheirOrderThroughTheStaging(boolean fromNative) {
        int[] lengths = {3, VarBinaryBuilder.PENDING_BYTES - 2, 5, VarBinaryBuilder.PENDING_BYTES + 7, 1, 0, 9};
        try (VarBinaryBuilder b = builder("blob", new ArrowType.Binary(false), false);
                Arena arena = Arena.ofConfined()) {
            for (int round = 0; round < 3; round++) {
                for (int i = 0; i < lengths.length; i++) {
                    byte[] value = bytes(lengths[i], i + round);
                    if (fromNative) {
                        b.append(arena.allocate(Math.max(1, value.length))
                                .copyFrom(MemorySegment.ofArray(value))
                                .asSlice(0, value.length));
                    } else {
                        b.append(value);
                    }
                }
            }
            try (FinishedArray a = b.finish()) {
                for (int round = 0; round < 3; round++) {
                    for (int i = 0; i < lengths.length; i++) {
                        int slot = round * lengths.length + i;
                        assertArrayEquals(
                                bytes(lengths[i], i + round),
                                data(a, 2)
                                        .asSlice(offset(a, slot), offset(a, slot + 1) - offset(a, slot))
                                        .toArray(ValueLayout.JAVA_BYTE),
                                "value " + slot);
                    }
                }
            }
        }
    }

    @Test
    void truncatingBackPastBytesAlreadyInNativeMemoryKeepsWhatCameBefore() {
        try (VarBinaryBuilder b = builder("s", new ArrowType.Utf8(false), true)) {
            fill(b, 5_000);
            assertTrue(tracker.liveBytes() > 0, "some bytes went on to native memory");
            b.truncate(100);
            b.append("after");
            try (FinishedArray a = b.finish()) {
                assertEquals(101, a.length());
                assertEquals("v99", utf8(a, 99));
                assertEquals("after", utf8(a, 100));
                assertEquals(10, a.nullCount());
            }
        }
    }

    @Test
    void aFinishPastTheCapFreesWhatItTookAndDiscardsTheBatch() {
        try (MemoryTracker capped = tracker.child("capped", 12 * 1024, "test.cap")) {
            BufferAllocator small = new BufferAllocator(capped);
            StructBuilder row = (StructBuilder) ArrowBuilder.forField(
                    ArrowField.of(
                            "row",
                            new ArrowType.Struct(),
                            false,
                            ArrowField.of("s", new ArrowType.Utf8(false), true),
                            ArrowField.of("n", new ArrowType.Int(64, true), true)),
                    small);
            try (row) {
                for (int i = 0; i < 1_000; i++) {
                    ((VarBinaryBuilder) row.child(0)).append("v" + i);
                    if (i == 500) {
                        row.child(1).appendNull();
                    } else {
                        ((Int64Builder) row.child(1)).append(i);
                    }
                    row.append();
                }
                assertEquals(0, capped.liveBytes(), "the batch is staged on the heap until it is finished");
                // The strings' offsets and bytes (about 8 KiB) and the longs' validity fit the
                // cap, the longs' 8,000 bytes more do not.
                assertThrows(MemoryLimitExceededException.class, row::finish);
                assertEquals(0, capped.liveBytes(), "nothing the failed finish took stays allocated");
                assertEquals(0, row.length(), "the batch was discarded");
                assertEquals(0, row.child(0).length());
                ((VarBinaryBuilder) row.child(0)).append("next");
                ((Int64Builder) row.child(1)).append(7);
                row.append();
                try (FinishedArray a = row.finish()) {
                    assertEquals(1, a.length());
                    assertEquals("next", utf8(a.children().get(0), 0));
                    assertEquals(7, data(a.children().get(1), 1).get(ValueLayout.JAVA_LONG, 0));
                }
            }
            assertEquals(0, capped.liveBytes());
        }
    }

    @Test
    void aFinishWhoseStagedBytesPassTheCapLeavesTheDataBufferToTheBuilder() {
        try (MemoryTracker capped = tracker.child("capped", 48 * 1024, "test.cap")) {
            VarBinaryBuilder b = binaryIn(capped);
            try (b) {
                b.append(bytes(VarBinaryBuilder.PENDING_BYTES + 1, 1)); // straight to native memory
                long held = capped.liveBytes();
                assertTrue(held > VarBinaryBuilder.PENDING_BYTES, "the builder holds a data buffer: " + capped);
                for (int i = 0; i < 16; i++) {
                    b.append(bytes(1000, i)); // staged: the flush at finish doubles the buffer past the cap
                }
                assertEquals(held, capped.liveBytes());
                assertThrows(MemoryLimitExceededException.class, b::finish);
                assertEquals(held, capped.liveBytes(), "the data buffer stays the builder's, nothing else is left");
                assertEquals(0, b.length(), "the batch was discarded");
                b.append(bytes(10, 7));
                try (FinishedArray a = b.finish()) {
                    assertArrayEquals(bytes(10, 7), data(a, 2).asSlice(0, 10).toArray(ValueLayout.JAVA_BYTE));
                }
            }
            assertEquals(0, capped.liveBytes());
        }
    }

    @Test
    void aBatchExportsValidityOnlyIfItHoldsANullAndItsLastByteEndsWithTheBatch() {
        try (Int64Builder b = builder("n", new ArrowType.Int(64, true), true)) {
            // Slots 1 to 15 valid: their bits stay set in the staging after this batch.
            b.appendNull();
            for (int i = 1; i < 16; i++) {
                b.append(i);
            }
            b.finish().close();
            b.append(1);
            b.append(2);
            try (FinishedArray a = b.finish()) {
                assertNull(a.buffers().get(0), "no null in this batch, so no bitmap");
            }
            for (int i = 0; i < 10; i++) {
                if (i == 8) {
                    b.appendNull();
                } else {
                    b.append(i);
                }
            }
            try (FinishedArray a = b.finish()) {
                assertEquals(1, a.nullCount());
                assertEquals((byte) 0xFF, data(a, 0).get(ValueLayout.JAVA_BYTE, 0));
                assertEquals(
                        (byte) 0b10,
                        data(a, 0).get(ValueLayout.JAVA_BYTE, 1),
                        "slot 9 valid, slot 8 null, the bits past the batch clear");
            }
        }
    }

    /** A non-nullable binary builder whose memory counts in {@code capped}. */
    private static VarBinaryBuilder binaryIn(MemoryTracker capped) {
        return (VarBinaryBuilder) ArrowBuilder.forField(
                ArrowField.of("s", new ArrowType.Binary(false), false), new BufferAllocator(capped));
    }

    private static byte[] bytes(int length, int seed) {
        byte[] bytes = new byte[length];
        for (int i = 0; i < length; i++) {
            bytes[i] = (byte) (seed * 31 + i);
        }
        return bytes;
    }

    @Test
    void closingFreesUnfinishedAndFinishedArraysCloseTwiceSafely() {
        Int64Builder b = builder("n", new ArrowType.Int(64, true), true);
        b.append(1);
        b.appendNull();
        FinishedArray a = b.finish();
        b.append(2);
        b.close();
        a.close();
        a.close();
        assertEquals(0, tracker.liveBytes());
        assertThrows(IllegalStateException.class, a::buffers);
    }

    @Test
    void typesWithoutABuilderAreRefusedNamingTheField() {
        UnsupportedOperationException e = assertThrows(
                UnsupportedOperationException.class, () -> builder("big_text", new ArrowType.Utf8(true), true));
        assertTrue(e.getMessage().contains("'big_text'") && e.getMessage().contains("U"), e.getMessage());
    }
}
