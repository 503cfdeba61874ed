package dev.isthmus.arrow.cdata;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.isthmus.arrow.flink.vector.ArrowColumnarBatch;
import dev.isthmus.arrow.flink.vector.ArrowRowData;
import dev.isthmus.arrow.flink.vector.ArrowVectors;
import dev.isthmus.arrow.memory.MemoryLimitExceededException;
import dev.isthmus.arrow.memory.MemoryTracker;
import dev.isthmus.arrow.types.ArrowType;
import dev.isthmus.ffm.gen.ArrowArray;
import dev.isthmus.ffm.gen.ArrowSchema;
import dev.isthmus.ffm.gen.isthmus_h;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.function.BiConsumer;
import org.apache.flink.table.data.ArrayData;
import org.apache.flink.table.data.MapData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.data.binary.BinaryStringData;
import org.apache.flink.table.data.columnar.vector.ArrayColumnVector;
import org.apache.flink.table.data.columnar.vector.BytesColumnVector;
import org.apache.flink.table.data.columnar.vector.DecimalColumnVector;
import org.apache.flink.table.data.columnar.vector.IntColumnVector;
import org.apache.flink.table.data.columnar.vector.LongColumnVector;
import org.apache.flink.table.data.columnar.vector.MapColumnVector;
import org.apache.flink.table.data.columnar.vector.TimestampColumnVector;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Import of arrays from a hand-written producer: views, vectors, release and errors. */
@org.junit.jupiter.api.extension.ExtendWith(dev.isthmus.arrow.LeakCheckExtension.class)
class ImportedArrayTest {
    private static final long NULLABLE = isthmus_h.ARROW_FLAG_NULLABLE();

    private Arena producerMemory;
    private HandMadeArrays producer;
    private MemoryTracker tracker;
    private int arraysReleasedBefore;
    private int schemasReleasedBefore;

    @BeforeEach
    void setUp() {
        producerMemory = Arena.ofShared();
        producer = new HandMadeArrays(producerMemory);
        tracker = MemoryTracker.root().child("import-test");
        arraysReleasedBefore = HandMadeArrays.ARRAY_RELEASES.get();
        schemasReleasedBefore = HandMadeArrays.SCHEMA_RELEASES.get();
    }

    @AfterEach
    void tearDown() {
        tracker.close();
        producerMemory.close();
    }

    private int arrayReleases() {
        return HandMadeArrays.ARRAY_RELEASES.get() - arraysReleasedBefore;
    }

    private int schemaReleases() {
        return HandMadeArrays.SCHEMA_RELEASES.get() - schemasReleasedBefore;
    }

    private BiConsumer<MemorySegment, MemorySegment> produce(MemorySegment array, MemorySegment schema) {
        return (outArray, outSchema) -> {
            HandMadeArrays.move(array, outArray);
            HandMadeArrays.moveSchema(schema, outSchema);
        };
    }

    @Test
    void countsTheBuffersOfAnImportAndACappedTrackerRefusesOneTooBig() {
        MemorySegment schema = producer.schema("l", "price", NULLABLE);
        MemorySegment array = producer.array(4, 1, 1, new MemorySegment[] {
            producer.validity(true, true, false, true, true), producer.longs(9, 1, 2, 3, 4)
        });
        long structs = ArrowArray.sizeof() + ArrowSchema.sizeof();
        try (ImportedArray imported = ImportedArray.receive(tracker, produce(array, schema))) {
            // The view bounds the buffers to offset + length: 1 validity byte, 5 longs.
            assertEquals(structs + 1 + 40, tracker.liveBytes());
        }
        assertEquals(0, tracker.liveBytes());

        MemorySegment schema2 = producer.schema("l", "price", NULLABLE);
        MemorySegment array2 = producer.array(4, 1, 1, new MemorySegment[] {
            producer.validity(true, true, false, true, true), producer.longs(9, 1, 2, 3, 4)
        });
        try (MemoryTracker capped = tracker.child("capped", structs + 8, "test.cap")) {
            MemoryLimitExceededException e = assertThrows(
                    MemoryLimitExceededException.class, () -> ImportedArray.receive(capped, produce(array2, schema2)));
            assertEquals(
                    "isthmus/import-test/capped would exceed its native memory cap of " + (structs + 8)
                            + " bytes (test.cap): asked for 41 bytes while holding " + structs,
                    e.getMessage());
            assertEquals(0, capped.liveBytes(), "the refused array is released at once");
            assertEquals(0, capped.liveArrays());
        }
        assertEquals(2, arrayReleases());
        assertEquals(2, schemaReleases());
    }

    @Test
    void readsSlicedLongsWithNullsInPlaceAndReleasesOnce() {
        MemorySegment schema = producer.schema("l", "price", NULLABLE);
        // Physical [9, 1, 2, 3, 4] with slot 2 null; the array starts at offset 1.
        MemorySegment array = producer.array(4, 1, 1, new MemorySegment[] {
            producer.validity(true, true, false, true, true), producer.longs(9, 1, 2, 3, 4)
        });
        ImportedArray imported = ImportedArray.receive(tracker, produce(array, schema));
        assertEquals(1, tracker.liveArrays());

        LongColumnVector prices = (LongColumnVector) ArrowVectors.of(imported.view());
        assertEquals(1, prices.getLong(0));
        assertTrue(prices.isNullAt(1));
        assertFalse(prices.isNullAt(2));
        assertEquals(4, prices.getLong(3));
        assertEquals("price", imported.field().name());
        assertTrue(imported.field().nullable());

        imported.close();
        imported.close();
        assertEquals(1, arrayReleases());
        assertEquals(1, schemaReleases());
        assertEquals(0, tracker.liveArrays());
        assertEquals(0, tracker.liveBytes());
        assertThrows(IllegalStateException.class, () -> prices.getLong(0));
        // The nulls are read from a heap copy of the bitmap; a read after the release still throws.
        assertThrows(IllegalStateException.class, () -> prices.isNullAt(1));
        assertThrows(
                IllegalStateException.class,
                () -> imported.view().buffer(1).get(java.lang.foreign.ValueLayout.JAVA_LONG, 0));
    }

    @Test
    void readsUtf8WithEmptyStringsNullsAndOffset() {
        byte[] data = "xxhéllo!".getBytes(StandardCharsets.UTF_8);
        MemorySegment schema = producer.schema("u", "channel", NULLABLE);
        // Physical values: "xx", "", "héllo", null, "!"; logical starts at 1.
        MemorySegment array = producer.array(4, 1, 1, new MemorySegment[] {
            producer.validity(true, true, true, false, true), producer.ints(0, 2, 2, 8, 8, 9), producer.bytes(data)
        });
        BytesColumnVector strings;
        try (ImportedArray imported = ImportedArray.receive(tracker, produce(array, schema))) {
            strings = (BytesColumnVector) ArrowVectors.of(imported.view());
            assertEquals("", new String(strings.getBytes(0).getBytes(), StandardCharsets.UTF_8));
            assertEquals("héllo", new String(strings.getBytes(1).getBytes(), StandardCharsets.UTF_8));
            assertTrue(strings.isNullAt(2));
            assertEquals("!", new String(strings.getBytes(3).getBytes(), StandardCharsets.UTF_8));
        }
        assertEquals(1, arrayReleases());
        // The values were read from the heap copy; a read after the release still throws.
        assertThrows(IllegalStateException.class, () -> strings.getBytes(1));
    }

    @Test
    void structOffsetsCarryIntoColumnsOfABatch() {
        MemorySegment schema = producer.schema(
                "+s", "", 0, producer.schema("i", "auction", 0), producer.schema("tsu:UTC", "ts", NULLABLE));
        MemorySegment auctions = producer.array(4, 0, 0, new MemorySegment[] {null, producer.ints(10, 11, 12, 13)});
        MemorySegment times =
                producer.array(4, 0, 0, new MemorySegment[] {null, producer.longs(-1, 0, 1_500, 2_000_001)});
        // The batch is sliced to rows 2..3; the offset applies to both children.
        MemorySegment batch = producer.array(2, 0, 2, new MemorySegment[] {null}, auctions, times);
        try (ArrowColumnarBatch columnar =
                new ArrowColumnarBatch(ImportedArray.receive(tracker, produce(batch, schema)))) {
            assertEquals(2, columnar.numRows());
            ArrowRowData row = columnar.row(0);
            assertEquals(12, row.getInt(0));
            assertEquals(TimestampData.fromEpochMillis(1, 500_000), row.getTimestamp(1, 6));
            row.setRowId(1);
            assertEquals(13, row.getInt(0));
            assertEquals(TimestampData.fromEpochMillis(2_000, 1_000), row.getTimestamp(1, 6));
        }
        assertEquals(3, arrayReleases(), "the parent's release releases both children");
        assertEquals(3, schemaReleases());
    }

    @Test
    void negativeTimestampsFloorToTheEarlierMillisecond() {
        MemorySegment schema = producer.schema("tsn:", "t", 0);
        MemorySegment array = producer.array(2, 0, 0, new MemorySegment[] {null, producer.longs(-1, -1_000_001)});
        try (ImportedArray imported = ImportedArray.receive(tracker, produce(array, schema))) {
            TimestampColumnVector ts = (TimestampColumnVector) ArrowVectors.of(imported.view());
            assertEquals(TimestampData.fromEpochMillis(-1, 999_999), ts.getTimestamp(0, 9));
            assertEquals(TimestampData.fromEpochMillis(-2, 999_999), ts.getTimestamp(1, 9));
        }
    }

    @Test
    void decimalsCompactAndWide() {
        MemorySegment schema = producer.schema("d:38,2", "amount", 0);
        // 12345 (compact), -1 (compact), 2^64 (needs the high word).
        MemorySegment array =
                producer.array(3, 0, 0, new MemorySegment[] {null, producer.longs(12345, 0, -1, -1, 0, 1)});
        try (ImportedArray imported = ImportedArray.receive(tracker, produce(array, schema))) {
            DecimalColumnVector d = (DecimalColumnVector) ArrowVectors.of(imported.view());
            assertEquals(new BigDecimal("123.45"), d.getDecimal(0, 38, 2).toBigDecimal());
            assertEquals(new BigDecimal("-0.01"), d.getDecimal(1, 38, 2).toBigDecimal());
            assertEquals(
                    new BigDecimal("184467440737095516.16"),
                    d.getDecimal(2, 38, 2).toBigDecimal());
            assertEquals(new BigDecimal("123.45"), d.getDecimal(0, 9, 2).toBigDecimal());
        }
    }

    @Test
    void timeMicrosBecomeFlinkMillis() {
        MemorySegment schema = producer.schema("ttu", "t", 0);
        MemorySegment array =
                producer.array(2, 0, 0, new MemorySegment[] {null, producer.longs(86_399_999_999L, 1_999)});
        try (ImportedArray imported = ImportedArray.receive(tracker, produce(array, schema))) {
            IntColumnVector t = (IntColumnVector) ArrowVectors.of(imported.view());
            assertEquals(86_399_999, t.getInt(0));
            assertEquals(1, t.getInt(1));
        }
    }

    @Test
    void dictionaryEncodedStringsAreReadThroughTheirIndices() {
        MemorySegment dictSchema = producer.schema("u", "", 0);
        MemorySegment schema = producer.dictionarySchema("i", "channel", NULLABLE, dictSchema);
        MemorySegment dictionary = producer.array(
                2, 0, 0, new MemorySegment[] {null, producer.ints(0, 6, 14), producer.bytes("GoogleFacebook".getBytes())
                });
        MemorySegment array = producer.dictionaryArray(
                4,
                1,
                0,
                new MemorySegment[] {producer.validity(true, true, false, true), producer.ints(1, 0, 7, 1)},
                dictionary);
        try (ImportedArray imported = ImportedArray.receive(tracker, produce(array, schema))) {
            assertEquals(new ArrowType.Utf8(false), imported.field().type());
            assertEquals(new ArrowType.Int(32, true), imported.field().dictionaryIndex());
            BytesColumnVector channel = (BytesColumnVector) ArrowVectors.of(imported.view());
            assertEquals("Facebook", new String(channel.getBytes(0).getBytes()));
            assertEquals("Google", new String(channel.getBytes(1).getBytes()));
            assertTrue(channel.isNullAt(2));
            assertEquals("Facebook", new String(channel.getBytes(3).getBytes()));
        }
        assertEquals(2, arrayReleases(), "array and dictionary");
        assertEquals(2, schemaReleases());
    }

    @Test
    void rowsReadLargeAndDictionaryEncodedStringsOverSharedHeapCopies() {
        MemorySegment schema = producer.schema(
                "+s",
                "",
                0,
                producer.schema("U", "url", NULLABLE),
                producer.dictionarySchema("i", "channel", NULLABLE, producer.schema("u", "", 0)));
        MemorySegment urls = producer.array(3, 1, 0, new MemorySegment[] {
            producer.validity(true, false, true), producer.longs(0, 2, 2, 5), producer.bytes("abcde".getBytes())
        });
        MemorySegment dictionary = producer.array(
                2, 0, 0, new MemorySegment[] {null, producer.ints(0, 6, 14), producer.bytes("GoogleFacebook".getBytes())
                });
        MemorySegment channels =
                producer.dictionaryArray(3, 0, 0, new MemorySegment[] {null, producer.ints(1, 0, 1)}, dictionary);
        MemorySegment batch = producer.array(3, 0, 0, new MemorySegment[] {null}, urls, channels);
        try (ArrowColumnarBatch columnar =
                new ArrowColumnarBatch(ImportedArray.receive(tracker, produce(batch, schema)))) {
            ArrowRowData row = columnar.row(0);
            BinaryStringData ab = (BinaryStringData) row.getString(0);
            BinaryStringData facebook = (BinaryStringData) row.getString(1);
            assertEquals("ab", ab.toString());
            assertEquals("Facebook", facebook.toString());
            row.setRowId(1);
            assertTrue(row.isNullAt(0));
            BinaryStringData google = (BinaryStringData) row.getString(1);
            assertEquals("Google", google.toString());
            row.setRowId(2);
            BinaryStringData cde = (BinaryStringData) row.getString(0);
            assertEquals("cde", cde.toString());
            assertSame(ab.getSegments(), cde.getSegments(), "64-bit offsets: the data's heap copy is shared");
            assertSame(facebook.getSegments(), google.getSegments(), "the dictionary's heap copy is shared");
        }
        assertEquals(4, arrayReleases(), "the batch, its two columns and the dictionary");
    }

    @Test
    void dictionaryRowsAreNullWhereTheirIndexOrTheirEntryIs() {
        MemorySegment schema = producer.schema(
                "+s",
                "",
                0,
                producer.schema("l", "id", NULLABLE),
                producer.dictionarySchema("i", "channel", NULLABLE, producer.schema("u", "", NULLABLE)));
        MemorySegment ids = producer.array(
                4, 1, 0, new MemorySegment[] {producer.validity(true, true, false, true), producer.longs(10, 11, 12, 13)
                });
        // Entry 1 is null; row 1 points at it, row 2's index is null.
        MemorySegment dictionary = producer.array(2, 1, 0, new MemorySegment[] {
            producer.validity(true, false), producer.ints(0, 6, 6), producer.bytes("Google".getBytes())
        });
        MemorySegment channels = producer.dictionaryArray(
                4,
                1,
                0,
                new MemorySegment[] {producer.validity(true, true, false, true), producer.ints(0, 1, 0, 0)},
                dictionary);
        MemorySegment batch = producer.array(4, 0, 0, new MemorySegment[] {null}, ids, channels);
        try (ArrowColumnarBatch columnar =
                new ArrowColumnarBatch(ImportedArray.receive(tracker, produce(batch, schema)))) {
            ArrowRowData row = columnar.row(0);
            boolean[][] nulls = {{false, false}, {false, true}, {true, true}, {false, false}};
            for (int r = 0; r < nulls.length; r++) {
                row.setRowId(r);
                for (int c = 0; c < 2; c++) {
                    assertEquals(nulls[r][c], row.isNullAt(c), "row " + r + ", column " + c);
                    assertEquals(nulls[r][c], columnar.batch().isNullAt(r, c), "through the batch: row " + r);
                }
            }
            row.setRowId(3);
            assertEquals(13, row.getLong(0));
            assertEquals("Google", row.getString(1).toString());
        }
    }

    @Test
    void listsAndMaps() {
        MemorySegment listSchema = producer.schema("+l", "tags", NULLABLE, producer.schema("l", "element", 0));
        MemorySegment elements = producer.array(5, 0, 0, new MemorySegment[] {null, producer.longs(1, 2, 3, 4, 5)});
        MemorySegment list = producer.array(
                3,
                1,
                0,
                new MemorySegment[] {producer.validity(true, false, true), producer.ints(0, 2, 2, 5)},
                elements);
        ArrayColumnVector tags;
        try (ImportedArray imported = ImportedArray.receive(tracker, produce(list, listSchema))) {
            tags = (ArrayColumnVector) ArrowVectors.of(imported.view());
            ArrayData first = tags.getArray(0);
            assertArrayEquals(new long[] {1, 2}, first.toLongArray());
            assertTrue(tags.isNullAt(1));
            assertArrayEquals(new long[] {3, 4, 5}, tags.getArray(2).toLongArray());
        }
        // Offsets and nulls are read from heap copies; reads after the release still throw.
        assertThrows(IllegalStateException.class, () -> tags.getArray(0));
        assertThrows(IllegalStateException.class, () -> tags.isNullAt(1));

        MemorySegment largeSchema = producer.schema("+L", "tags", NULLABLE, producer.schema("l", "element", 0));
        MemorySegment largeElements =
                producer.array(5, 0, 0, new MemorySegment[] {null, producer.longs(1, 2, 3, 4, 5)});
        MemorySegment largeList =
                producer.array(2, 0, 1, new MemorySegment[] {null, producer.longs(0, 2, 2, 5)}, largeElements);
        try (ImportedArray imported = ImportedArray.receive(tracker, produce(largeList, largeSchema))) {
            ArrayColumnVector large = (ArrayColumnVector) ArrowVectors.of(imported.view());
            assertEquals(0, large.getArray(0).size());
            assertArrayEquals(new long[] {3, 4, 5}, large.getArray(1).toLongArray());
        }

        MemorySegment mapSchema = producer.schema(
                "+m",
                "attrs",
                0,
                producer.schema(
                        "+s", "entries", 0, producer.schema("i", "key", 0), producer.schema("l", "value", NULLABLE)));
        MemorySegment keys = producer.array(3, 0, 0, new MemorySegment[] {null, producer.ints(7, 8, 9)});
        MemorySegment values = producer.array(3, 0, 0, new MemorySegment[] {null, producer.longs(70, 80, 90)});
        MemorySegment entries = producer.array(3, 0, 0, new MemorySegment[] {null}, keys, values);
        MemorySegment map = producer.array(2, 0, 0, new MemorySegment[] {null, producer.ints(0, 1, 3)}, entries);
        MapColumnVector attrs;
        try (ImportedArray imported = ImportedArray.receive(tracker, produce(map, mapSchema))) {
            attrs = (MapColumnVector) ArrowVectors.of(imported.view());
            MapData second = attrs.getMap(1);
            assertEquals(2, second.size());
            assertArrayEquals(new int[] {8, 9}, second.keyArray().toIntArray());
            assertArrayEquals(new long[] {80, 90}, second.valueArray().toLongArray());
        }
        assertThrows(IllegalStateException.class, () -> attrs.getMap(0));
    }

    @Test
    void aLargeListBeyondWhatFlinkCanIndexIsRefusedWhenItsVectorIsBuilt() {
        long elements = 3_000_000_000L;
        MemorySegment schema = producer.schema("+L", "tags", 0, producer.schema("n", "element", 0));
        MemorySegment nulls = producer.array(elements, elements, 0, new MemorySegment[] {});
        MemorySegment list = producer.array(1, 0, 0, new MemorySegment[] {null, producer.longs(0, elements)}, nulls);
        try (ImportedArray imported = ImportedArray.receive(tracker, produce(list, schema))) {
            var e = assertThrows(IllegalArgumentException.class, () -> ArrowVectors.of(imported.view()));
            assertTrue(e.getMessage().contains("'tags'") && e.getMessage().contains("3000000000"), e.getMessage());
        }
    }

    @Test
    void aMalformedArrayIsRefusedAndStillReleased() {
        MemorySegment schema = producer.schema("l", "price", 0);
        MemorySegment array = producer.array(3, 0, 0, new MemorySegment[] {null, producer.longs(1, 2, 3), null});
        var e = assertThrows(
                IllegalArgumentException.class, () -> ImportedArray.receive(tracker, produce(array, schema)));
        assertTrue(e.getMessage().contains("'price'") && e.getMessage().contains("n_buffers is 3"), e.getMessage());
        assertEquals(1, arrayReleases());
        assertEquals(1, schemaReleases());
        assertEquals(0, tracker.liveArrays());
        assertEquals(0, tracker.liveBytes());
    }

    @Test
    void missingDataBufferAndMissingValidityAreRefused() {
        MemorySegment schema = producer.schema("i", "x", NULLABLE);
        MemorySegment noData = producer.array(3, 0, 0, new MemorySegment[] {null, null});
        var e = assertThrows(
                IllegalArgumentException.class, () -> ImportedArray.receive(tracker, produce(noData, schema)));
        assertTrue(e.getMessage().contains("buffer 1 is NULL"), e.getMessage());

        MemorySegment schema2 = producer.schema("i", "x", NULLABLE);
        MemorySegment noValidity = producer.array(3, 2, 0, new MemorySegment[] {null, producer.ints(1, 2, 3)});
        var e2 = assertThrows(
                IllegalArgumentException.class, () -> ImportedArray.receive(tracker, produce(noValidity, schema2)));
        assertTrue(e2.getMessage().contains("validity buffer is NULL"), e2.getMessage());
    }

    @Test
    void aProducerThatFailsLeavesNothingBehind() {
        MemorySegment schema = producer.schema("l", "price", 0);
        var e = assertThrows(
                IllegalStateException.class,
                () -> ImportedArray.receive(tracker, (outArray, outSchema) -> {
                    HandMadeArrays.moveSchema(schema, outSchema);
                    throw new IllegalStateException("native call failed");
                }));
        assertEquals("native call failed", e.getMessage());
        assertEquals(1, schemaReleases(), "the half-filled schema was released");
        assertEquals(0, tracker.liveBytes());
    }

    @Test
    void unknownFormatsNameTheField() {
        MemorySegment schema = producer.schema("+s", "", 0, producer.schema("vu", "view", 0));
        MemorySegment array = producer.array(
                0, 0, 0, new MemorySegment[] {null}, producer.array(0, 0, 0, new MemorySegment[] {null, null}));
        var e = assertThrows(
                IllegalArgumentException.class, () -> ImportedArray.receive(tracker, produce(array, schema)));
        assertTrue(e.getMessage().contains("'view'") && e.getMessage().contains("'vu'"), e.getMessage());
    }
}
