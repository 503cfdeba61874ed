package dev.isthmus.bindgen;

import static dev.isthmus.bindgen.TestSupport.decls;
import static dev.isthmus.bindgen.TestSupport.struct;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.isthmus.bindgen.Model.Array;
import dev.isthmus.bindgen.Model.Constant;
import dev.isthmus.bindgen.Model.Function;
import dev.isthmus.bindgen.Model.FunctionType;
import dev.isthmus.bindgen.Model.Header;
import dev.isthmus.bindgen.Model.Param;
import dev.isthmus.bindgen.Model.Pointer;
import dev.isthmus.bindgen.Model.Scalar;
import dev.isthmus.bindgen.Model.Struct;
import dev.isthmus.bindgen.Model.StructRef;
import dev.isthmus.bindgen.Model.Typedef;
import java.util.List;
import org.junit.jupiter.api.Test;

class ParserTest {

    private static Header parse(String text) {
        return Parser.parse("inline.h", text);
    }

    @Test
    void includeGuardCplusplusBlocksAndCommentsAreHandled() {
        Header h = parse("""
                /* a header
                 * comment with "quotes" and // slashes */
                #ifndef GUARD_H
                #define GUARD_H
                #include <stdint.h>
                #ifdef __cplusplus
                extern "C" {
                #endif
                int32_t f(void); // trailing comment
                #ifdef __cplusplus
                }
                #endif
                #endif /* GUARD_H */
                """);
        List<Function> functions = decls(h, Function.class);
        assertEquals(1, functions.size());
        assertEquals("f", functions.getFirst().name());
        assertEquals(9, functions.getFirst().line());
        assertTrue(decls(h, Constant.class).isEmpty(), "an empty #define is no constant");
    }

    @Test
    void conditionalsFollowWhatIsDefined() {
        Header h = parse("""
                #define HAVE_A
                #ifdef HAVE_A
                #define A 1
                #else
                #define A 2
                #endif
                #ifndef HAVE_A
                #define B 3
                #else
                #ifdef NOT_DEFINED
                #define B 4
                #else
                #define B 5
                #endif
                #endif
                """);
        assertEquals(
                List.of("A=1", "B=5"),
                decls(h, Constant.class).stream()
                        .map(c -> c.name() + "=" + c.value())
                        .toList());
    }

    @Test
    void integerDefinesGetTheirCType() {
        Header h = parse("""
                #define DECIMAL 1024
                #define HEX 0x7f
                #define OCTAL 017
                #define NEGATIVE (-1)
                #define UNSIGNED_INT 0xFFFFFFFF
                #define LONG_DECIMAL 4294967296
                #define LONG_SUFFIX 1L
                #define UNSIGNED_LONG 0xFFFFFFFFFFFFFFFFULL
                """);
        assertEquals(
                List.of(
                        "DECIMAL 1024 int",
                        "HEX 127 int",
                        "OCTAL 15 int",
                        "NEGATIVE -1 int",
                        "UNSIGNED_INT 4294967295 int",
                        "LONG_DECIMAL 4294967296 long",
                        "LONG_SUFFIX 1 long",
                        "UNSIGNED_LONG -1 long"),
                decls(h, Constant.class).stream()
                        .map(c -> c.name() + " " + c.value() + (c.isLong() ? " long" : " int"))
                        .toList());
    }

    @Test
    void structFieldsOfEveryKind() {
        Header h = parse("""
                #include <stdint.h>
                #define CAPACITY 16
                struct Thing;
                typedef struct holder {
                    int32_t code;
                    const char *name;
                    struct Thing **children;
                    const void **buffers;
                    char message[CAPACITY];
                    void (*release)(struct holder *);
                    int64_t (*callback)(void *ctx, uint32_t n);
                } holder;
                """);
        Struct s = struct(h, "holder");
        assertEquals(
                List.of("code", "name", "children", "buffers", "message", "release", "callback"),
                s.fields().stream().map(Model.Field::name).toList());
        assertEquals(Scalar.INT, s.fields().get(0).type());
        assertEquals(new Pointer(Scalar.CHAR), s.fields().get(1).type());
        assertEquals(
                new Pointer(new Pointer(new StructRef("Thing"))),
                s.fields().get(2).type());
        assertEquals(new Pointer(new Pointer(Scalar.VOID)), s.fields().get(3).type());
        assertEquals(new Array(Scalar.CHAR, 16), s.fields().get(4).type());
        assertEquals(
                new Pointer(
                        new FunctionType(Scalar.VOID, List.of(new Param(null, new Pointer(new StructRef("holder")))))),
                s.fields().get(5).type());
        assertEquals(
                new Pointer(new FunctionType(
                        Scalar.LONG, List.of(new Param("ctx", new Pointer(Scalar.VOID)), new Param("n", Scalar.INT)))),
                s.fields().get(6).type());
        assertEquals("void (*release)(struct holder *)", s.fields().get(5).cText());
        assertEquals("char message[CAPACITY]", s.fields().get(4).cText());
        assertTrue(decls(h, Typedef.class).isEmpty(), "typedef struct holder {...} holder is the struct itself");
    }

    @Test
    void functionPrototypes() {
        Header h = parse("""
                #include <stdint.h>
                #include <stddef.h>
                typedef struct err { int32_t code; } err;
                uint32_t version(void);
                const char *name(void);
                extern void reset(void);
                int32_t compress(int32_t codec, const uint8_t *input, size_t input_size,
                                 uint8_t *output, uint64_t *out_written, err *error);
                double unnamed(float, char *, int values[]);
                """);
        List<Function> fs = decls(h, Function.class);
        assertEquals(
                List.of("version", "name", "reset", "compress", "unnamed"),
                fs.stream().map(Function::name).toList());
        assertEquals(new FunctionType(Scalar.INT, List.of()), fs.get(0).type());
        assertEquals(
                new FunctionType(new Pointer(Scalar.CHAR), List.of()), fs.get(1).type());
        assertEquals(new FunctionType(Scalar.VOID, List.of()), fs.get(2).type());
        assertEquals(
                new FunctionType(
                        Scalar.INT,
                        List.of(
                                new Param("codec", Scalar.INT), new Param("input", new Pointer(Scalar.CHAR)),
                                new Param("input_size", Scalar.LONG), new Param("output", new Pointer(Scalar.CHAR)),
                                new Param("out_written", new Pointer(Scalar.LONG)),
                                        new Param("error", new Pointer(new StructRef("err"))))),
                fs.get(3).type());
        assertEquals(
                new FunctionType(
                        Scalar.DOUBLE,
                        List.of(
                                new Param(null, Scalar.FLOAT),
                                new Param(null, new Pointer(Scalar.CHAR)),
                                new Param("values", new Pointer(Scalar.INT)))),
                fs.get(4).type());
        assertEquals(
                "int32_t compress(int32_t codec, const uint8_t *input, size_t input_size, uint8_t *output,"
                        + " uint64_t *out_written, err *error)",
                fs.get(3).cText());
        assertEquals(7, fs.get(3).line());
    }

    @Test
    void basicTypeSpellings() {
        Header h = parse("""
                struct all {
                    _Bool b; signed char sc; unsigned char uc; short s; unsigned short int us;
                    int i; unsigned u; signed si; long l; unsigned long int ul;
                    long long ll; unsigned long long ull; float f; double d;
                };
                """);
        assertEquals(
                List.of(
                        Scalar.BOOL,
                        Scalar.CHAR,
                        Scalar.CHAR,
                        Scalar.SHORT,
                        Scalar.SHORT,
                        Scalar.INT,
                        Scalar.INT,
                        Scalar.INT,
                        Scalar.LONG,
                        Scalar.LONG,
                        Scalar.LONG_LONG,
                        Scalar.LONG_LONG,
                        Scalar.FLOAT,
                        Scalar.DOUBLE),
                struct(h, "all").fields().stream().map(Model.Field::type).toList());
    }

    @Test
    void typedefsOfScalarsPointersAndStructs() {
        Header h = parse("""
                #include <stdint.h>
                typedef int32_t status_t;
                typedef struct reader reader_t;
                typedef const char *label_t;
                typedef struct point { status_t x; status_t y; } point_t;
                typedef struct { point_t origin; label_t label; } anon_t;
                reader_t *open_reader(label_t path, status_t *status);
                """);
        assertEquals(
                List.of("status_t", "reader_t", "label_t", "point_t"),
                decls(h, Typedef.class).stream().map(Typedef::name).toList());
        assertEquals(Scalar.INT, decls(h, Typedef.class).getFirst().type());
        Struct anon = struct(h, "anon_t");
        assertEquals(struct(h, "point"), anon.fields().getFirst().type(), "a struct field is the struct by value");
        assertEquals(
                new FunctionType(
                        new Pointer(new StructRef("reader")),
                        List.of(
                                new Param("path", new Pointer(Scalar.CHAR)),
                                new Param("status", new Pointer(Scalar.INT)))),
                decls(h, Function.class).getFirst().type());
    }

    @Test
    void arrayLengthMustBeDefinedBeforeUse() {
        var e = assertThrows(BindgenException.class, () -> parse("""
                struct s { char text[LATER]; };
                #define LATER 4
                """));
        assertTrue(e.getMessage().startsWith("inline.h:1: "), e.getMessage());
    }
}
