package dev.isthmus.bindgen;

import dev.isthmus.bindgen.Model.Decl;
import dev.isthmus.bindgen.Model.Field;
import dev.isthmus.bindgen.Model.Header;
import dev.isthmus.bindgen.Model.Struct;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;

final class TestSupport {

    static final JavaEmitter.Options OPTIONS =
            new JavaEmitter.Options("dev.isthmus.ffm.gen", "isthmus_h", "dev.isthmus.ffm.NativeLibrary.symbolLookup()");

    /**
     * Structs whose layouts exercise C's padding rules, plus the declaration kinds the real header
     * lacks; the expected values in the comments are
     * what gcc computes on x86_64 Linux (GccLayoutTest checks them against gcc itself).
     */
    static final String LAYOUT_CASES = """
            #include <stdint.h>
            #include <stddef.h>
            #include <stdbool.h>

            struct one_char { char c; };                                    /* size 1, align 1 */
            struct char_int_char { char a; int b; char c; };                /* 0 4 8, size 12, align 4 */
            struct char_double { char a; double d; };                       /* 0 8, size 16 */
            struct short_char { short s; char c; };                         /* 0 2, size 4, align 2 */
            struct int_tail { int32_t a; uint8_t tail[3]; };                /* 0 4, size 8 */
            struct bool_pointer { bool flag; const void *p; };              /* 0 8, size 16 */
            struct callback { char tag; int64_t (*fn)(void *ctx, int32_t n); }; /* 0 8, size 16 */
            struct nested { char a; struct char_double inner; short z; };   /* 0 8 24, size 32, align 8 */
            struct arrays { uint16_t ids[5]; double weights[2]; size_t n; };/* 0 16 32, size 40 */
            struct node { struct node *next; float value; };                /* 0 8, size 16 */
            typedef struct { uint8_t a; uint64_t b; uint8_t c; } anon_t;    /* 0 8 16, size 24 */
            struct java_words { int32_t class; char *new; };                /* 0 8, size 16 */

            typedef struct char_double pair_t;
            typedef int32_t status_t;
            typedef const char *label_t;
            #define BIG 0x100000000
            void tick(void);
            double mix(float, long long weight, unsigned char *bytes, status_t status);
            """;

    private TestSupport() {}

    /** The project's real header, found from the working directory (the module or the repository root). */
    static Path realHeader() {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            Path header = dir.resolve("rust-core/include/isthmus.h");
            if (Files.isRegularFile(header)) {
                return header;
            }
        }
        throw new IllegalStateException(
                "rust-core/include/isthmus.h not found above " + Path.of("").toAbsolutePath());
    }

    /** The generator's source root, the directory Maven's launcher invocation also uses. */
    static Path bindgenSources() {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            Path sources = dir.resolve("ffm-bindings/src/bindgen/java");
            if (Files.isDirectory(sources)) {
                return sources;
            }
        }
        throw new IllegalStateException(
                "ffm-bindings/src/bindgen/java not found above " + Path.of("").toAbsolutePath());
    }

    static Header parseRealHeader() throws IOException {
        Path header = realHeader();
        return Parser.parse(header.toString(), Files.readString(header));
    }

    static Struct struct(Header header, String name) {
        return structs(header).stream()
                .filter(s -> s.name().equals(name))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no struct " + name));
    }

    static List<Struct> structs(Header header) {
        return header.decls().stream()
                .filter(d -> d instanceof Struct)
                .map(d -> (Struct) d)
                .toList();
    }

    static <T extends Decl> List<T> decls(Header header, Class<T> type) {
        return header.decls().stream().filter(type::isInstance).map(type::cast).toList();
    }

    /** One line per struct, as isthmus_layout_manifest() prints it: {@code name size align field@offset ...}. */
    static String manifest(Struct s) {
        return s.name() + " " + s.size() + " " + s.align()
                + s.fields().stream()
                        .map(f -> " " + f.name() + "@" + f.offset())
                        .collect(Collectors.joining());
    }

    static long offset(Struct s, String field) {
        return s.fields().stream()
                .filter(f -> f.name().equals(field))
                .mapToLong(Field::offset)
                .findFirst()
                .orElseThrow(() -> new AssertionError("no field " + field + " in " + s.name()));
    }
}
