package dev.isthmus.bindgen;

import static dev.isthmus.bindgen.TestSupport.manifest;
import static dev.isthmus.bindgen.TestSupport.struct;
import static dev.isthmus.bindgen.TestSupport.structs;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.isthmus.bindgen.Model.Header;
import java.io.IOException;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Struct layouts against values computed by hand with the x86_64 System V rules (and confirmed with gcc). */
class StructLayoutTest {

    @Test
    void paddingAndAlignmentCases() {
        Header h = Parser.parse("cases.h", TestSupport.LAYOUT_CASES);
        assertEquals(
                List.of(
                        "one_char 1 1 c@0",
                        "char_int_char 12 4 a@0 b@4 c@8",
                        "char_double 16 8 a@0 d@8",
                        "short_char 4 2 s@0 c@2",
                        "int_tail 8 4 a@0 tail@4",
                        "bool_pointer 16 8 flag@0 p@8",
                        "callback 16 8 tag@0 fn@8",
                        "nested 32 8 a@0 inner@8 z@24",
                        "arrays 40 8 ids@0 weights@16 n@32",
                        "node 16 8 next@0 value@8",
                        "anon_t 24 8 a@0 b@8 c@16",
                        "java_words 16 8 class@0 new@8"),
                structs(h).stream().map(TestSupport::manifest).toList());
    }

    @Test
    void realHeaderStructs() throws IOException {
        Header h = TestSupport.parseRealHeader();
        assertEquals("isthmus_error 1032 4 code@0 message_length@4 message@8", manifest(struct(h, "isthmus_error")));
        assertEquals(
                "ArrowSchema 72 8 format@0 name@8 metadata@16 flags@24 n_children@32 children@40 dictionary@48"
                        + " release@56 private_data@64",
                manifest(struct(h, "ArrowSchema")));
        assertEquals(
                "ArrowArray 80 8 length@0 null_count@8 offset@16 n_buffers@24 n_children@32 buffers@40"
                        + " children@48 dictionary@56 release@64 private_data@72",
                manifest(struct(h, "ArrowArray")));
    }

    @Test
    void emittedLayoutsSpellOutPadding() {
        var sources = new JavaEmitter(TestSupport.OPTIONS).emit(Parser.parse("cases.h", TestSupport.LAYOUT_CASES));
        assertTrue(sources.get("char_int_char").contains("""
                    private static final GroupLayout $LAYOUT = MemoryLayout.structLayout(
                        isthmus_h.C_CHAR.withName("a"),
                        MemoryLayout.paddingLayout(3),
                        isthmus_h.C_INT.withName("b"),
                        isthmus_h.C_CHAR.withName("c"),
                        MemoryLayout.paddingLayout(3)
                    ).withName("char_int_char");
                """), sources.get("char_int_char"));
        assertTrue(sources.get("nested").contains("""
                        isthmus_h.C_CHAR.withName("a"),
                        MemoryLayout.paddingLayout(7),
                        char_double.layout().withName("inner"),
                        isthmus_h.C_SHORT.withName("z"),
                        MemoryLayout.paddingLayout(6)
                """), sources.get("nested"));
        assertTrue(sources.get("arrays").contains("""
                        MemoryLayout.sequenceLayout(5, isthmus_h.C_SHORT).withName("ids"),
                        MemoryLayout.paddingLayout(6),
                        MemoryLayout.sequenceLayout(2, isthmus_h.C_DOUBLE).withName("weights"),
                        isthmus_h.C_LONG.withName("n")
                """), sources.get("arrays"));
        assertTrue(sources.get("callback").contains("""
                        isthmus_h.C_CHAR.withName("tag"),
                        MemoryLayout.paddingLayout(7),
                        isthmus_h.C_POINTER.withName("fn")
                """), sources.get("callback"));
    }
}
