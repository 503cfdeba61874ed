package dev.isthmus.arrow.builder;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.isthmus.arrow.LeakCheckExtension;
import dev.isthmus.arrow.types.ArrowField;
import dev.isthmus.arrow.types.ArrowType;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(LeakCheckExtension.class)
class NestedBuildersTest extends BuilderTestSupport {
    private static final ArrowField POINT = ArrowField.of(
            "point",
            new ArrowType.Struct(),
            true,
            ArrowField.of("x", new ArrowType.Int(32, true), false),
            ArrowField.of("label", new ArrowType.Utf8(false), true));

    @Test
    void aNullStructGivesNullableChildrenANullAndTheOthersAnEmptyValue() {
        try (StructBuilder point = (StructBuilder) ArrowBuilder.forField(POINT, allocator)) {
            ((Int32Builder) point.child(0)).append(7);
            ((VarBinaryBuilder) point.child(1)).append("seven");
            point.append();
            point.appendNull();
            try (FinishedArray a = point.finish()) {
                assertEquals(2, a.length());
                assertEquals(1, a.nullCount());
                assertFalse(isValid(a, 1));
                FinishedArray x = a.children().get(0);
                FinishedArray label = a.children().get(1);
                assertEquals(2, x.length());
                assertEquals(0, x.nullCount(), "the NOT NULL child holds no null, even under a null parent");
                assertEquals(0, data(x, 1).getAtIndex(ValueLayout.JAVA_INT, 1));
                assertEquals(1, label.nullCount());
                assertEquals("point.label", point.child(1).path());
            }
        }
    }

    @Test
    void finishingAStructWithAMissingChildValueFailsNamingTheChildAndHandsNothingOver() {
        try (StructBuilder point = (StructBuilder) ArrowBuilder.forField(POINT, allocator)) {
            ((Int32Builder) point.child(0)).append(1);
            point.append();
            IllegalStateException e = assertThrows(IllegalStateException.class, point::finish);
            assertTrue(e.getMessage().contains("'point.label'"), e.getMessage());
            assertEquals(1, point.length(), "the batch is still the builder's");
        }
    }

    @Test
    void listOffsetsDelimitEachListsElements() {
        ArrowField tags = ArrowField.of(
                "tags", new ArrowType.List(false), true, ArrowField.of("element", new ArrowType.Utf8(false), true));
        try (ListBuilder list = (ListBuilder) ArrowBuilder.forField(tags, allocator)) {
            VarBinaryBuilder elements = (VarBinaryBuilder) list.elements();
            elements.append("a");
            elements.appendNull();
            list.endList();
            list.appendNull();
            list.endList();
            elements.append("b");
            list.endList();
            try (FinishedArray a = list.finish()) {
                assertEquals(4, a.length());
                assertEquals(1, a.nullCount());
                int[] expected = {0, 2, 2, 2, 3};
                for (int i = 0; i < expected.length; i++) {
                    assertEquals(expected[i], offset(a, i));
                }
                FinishedArray values = a.children().getFirst();
                assertEquals(3, values.length());
                assertEquals("b", utf8(values, 2));
            }
        }
    }

    @Test
    void elementsLeftWithoutTheirListFailTheFinish() {
        ArrowField ids = ArrowField.of(
                "ids", new ArrowType.List(false), false, ArrowField.of("element", new ArrowType.Int(64, true), false));
        try (ListBuilder list = (ListBuilder) ArrowBuilder.forField(ids, allocator)) {
            ((Int64Builder) list.elements()).append(1);
            IllegalStateException e = assertThrows(IllegalStateException.class, list::finish);
            assertTrue(e.getMessage().contains("'ids'"), e.getMessage());
        }
    }

    @Test
    void mapsAreListsOfKeyValueEntries() {
        ArrowField attrs = ArrowField.of(
                "attrs",
                new ArrowType.Map(false),
                true,
                ArrowField.of(
                        "entries",
                        new ArrowType.Struct(),
                        false,
                        ArrowField.of("key", new ArrowType.Utf8(false), false),
                        ArrowField.of("value", new ArrowType.Int(32, true), true)));
        try (MapBuilder map = (MapBuilder) ArrowBuilder.forField(attrs, allocator)) {
            ((VarBinaryBuilder) map.keys()).append("a");
            ((Int32Builder) map.values()).append(1);
            ((VarBinaryBuilder) map.keys()).append("b");
            map.values().appendNull();
            map.endMap();
            map.appendNull();
            IllegalArgumentException nullKey = assertThrows(IllegalArgumentException.class, map.keys()::appendNull);
            assertTrue(nullKey.getMessage().contains("'attrs.entries.key'"), nullKey.getMessage());
            ((VarBinaryBuilder) map.keys()).append("c");
            IllegalStateException unpaired = assertThrows(IllegalStateException.class, map::endMap);
            assertTrue(unpaired.getMessage().contains("'attrs'"), unpaired.getMessage());
            ((Int32Builder) map.values()).append(3);
            map.endMap();
            try (FinishedArray a = map.finish()) {
                assertEquals(3, a.length());
                assertEquals(0, offset(a, 0));
                assertEquals(2, offset(a, 1));
                assertEquals(2, offset(a, 2));
                assertEquals(3, offset(a, 3));
                FinishedArray entries = a.children().getFirst();
                assertEquals(3, entries.length());
                assertEquals(0, entries.nullCount());
                assertEquals("c", utf8(entries.children().get(0), 2));
                assertEquals(1, entries.children().get(1).nullCount());
            }
        }
    }

    @Test
    void closingANestedBuilderFreesEveryChild() {
        StructBuilder point = (StructBuilder) ArrowBuilder.forField(POINT, allocator);
        ((Int32Builder) point.child(0)).append(1);
        // Longer than the staging it would otherwise wait in: the bytes go to native memory at once.
        ((VarBinaryBuilder) point.child(1)).append(new byte[VarBinaryBuilder.PENDING_BYTES + 1]);
        point.appendNull();
        assertTrue(tracker.liveBytes() > VarBinaryBuilder.PENDING_BYTES);
        point.close();
        assertEquals(0, tracker.liveBytes());
    }
}
