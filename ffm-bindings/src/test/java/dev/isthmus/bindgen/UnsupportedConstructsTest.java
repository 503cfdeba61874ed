package dev.isthmus.bindgen;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Each construct outside the supported subset fails with file:line and a message naming the problem. */
class UnsupportedConstructsTest {

    private static final String PRELUDE = """
            /* line 1 */
            #include <stdint.h>
            """;

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', textBlock = """
            union                      | union u { int32_t a; float b; };                  | 3 | unions are not supported
            bitfield                   | struct s {\\n  uint32_t flag : 1;\\n};             | 4 | bitfields are not supported (field 'flag' of struct s)
            varargs                    | int32_t log_line(const char *format, ...);         | 3 | variadic functions are not supported
            enum                       | enum codec { NONE, GZIP };                         | 3 | enums are not supported
            global variable            | extern int32_t counter;                            | 3 | global variable 'counter' is not supported
            function definition        | int32_t f(void) { return 0; }                      | 3 | function definitions are not supported
            unknown type               | foo_t f(void);                                     | 3 | unknown type name 'foo_t'
            missing stddef             | size_t f(void);                                    | 3 | 'size_t' (it is declared by <stddef.h>
            macro as type              | #define EXPORT\\nEXPORT int32_t f(void);           | 4 | macro 'EXPORT' used in a declaration
            if directive               | #if 1\\n#endif                                     | 3 | #if is not supported
            elif directive             | #ifdef A\\n#elif B\\n#endif                         | 4 | #elif is not supported
            unknown include            | #include <stdio.h>                                 | 3 | #include <stdio.h> is not supported
            local include              | #include "other.h"                                 | 3 | #include "other.h" is not supported
            string define              | #define NAME "isthmus"                             | 3 | only integer literals
            expression define          | #define TWO (1 + 1)                                | 3 | only integer literals
            function-like macro        | #define MAX(a, b) ((a) > (b) ? (a) : (b))          | 3 | function-like macro MAX is not supported
            pragma pack                | #pragma pack(1)                                    | 3 | #pragma pack(1) is not supported
            undef                      | #define A 1\\n#undef A                             | 4 | #undef is not supported
            unterminated comment       | /* never closed                                    | 3 | unterminated comment
            unterminated conditional   | #ifndef GUARD\\n#define GUARD                      | 3 | unterminated conditional directive
            stray endif                | #endif                                             | 3 | #endif without a matching
            extern C outside guard     | extern "C" {                                       | 3 | string and character literals are not supported
            struct by value parameter  | struct p { int32_t x; };\\nvoid f(struct p value); | 4 | passes a struct by value
            struct by value return     | struct p { int32_t x; };\\nstruct p f(void);       | 4 | returns a struct by value
            callback parameter         | void on(void (*cb)(int32_t));                      | 3 | is a function pointer, which is not supported
            long double                | long double f(void);                               | 3 | long double is not supported
            empty parameter list       | int32_t f();                                       | 3 | write (void)
            flexible array             | struct s { int32_t n; char data[]; };              | 3 | arrays without a positive length
            multi-dimensional array    | struct s { int32_t m[2][2]; };                     | 3 | multi-dimensional arrays are not supported
            array of structs           | struct p { int32_t x; };\\nstruct s { struct p ps[2]; }; | 4 | arrays of structs are not supported
            array length expression    | struct s { char c[4 * 2]; };                       | 3 | an array length must be
            incomplete field           | struct s { struct later l; };                      | 3 | has incomplete type struct later
            static function            | static int32_t f(void);                            | 3 | 'static' is not supported
            volatile                   | struct s { volatile int32_t x; };                  | 3 | 'volatile' is not supported
            anonymous member           | struct s { struct { int32_t x; }; };               | 3 | anonymous struct is only supported
            empty struct               | struct s { };                                      | 3 | empty struct s is not supported
            duplicate function         | void f(void);\\nvoid f(void);                      | 4 | 'f' is declared twice
            duplicate struct           | struct s { char c; };\\nstruct s { char c; };      | 4 | struct s is defined twice
            duplicate field            | struct s { char c; int32_t c; };                   | 3 | two fields named 'c'
            function pointer typedef   | typedef void (*callback_t)(void);                  | 3 | a function-pointer typedef ('callback_t') is not supported
            unknown character          | int32_t f(void) @;                                 | 3 | unexpected character '@'
            missing semicolon          | void f(void)\\nvoid g(void);                       | 4 | expected ';', got 'void'
            line continuation          | #define LONG_ONE \\\\\\n  1                         | 3 | line continuations are not supported
            """)
    void reportsFileLineAndReason(String construct, String source, int line, String reason) {
        String text = PRELUDE + source.replace("\\n", "\n").replace("\\\\", "\\") + "\n";
        var e = assertThrows(BindgenException.class, () -> Parser.parse("dir/test.h", text), construct);
        String message = e.getMessage();
        assertTrue(message.startsWith("dir/test.h:" + line + ": "), construct + ": " + message);
        assertTrue(message.contains(reason), construct + ": " + message);
    }
}
