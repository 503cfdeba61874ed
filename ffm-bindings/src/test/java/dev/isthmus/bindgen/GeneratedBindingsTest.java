package dev.isthmus.bindgen;

import static java.lang.foreign.MemoryLayout.PathElement.groupElement;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import java.util.stream.Stream;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaFileObject;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Generates the bindings for the real header and for the padding cases, compiles them in-process
 * with a stub NativeLibrary and a probe that uses the API as application code would, then loads
 * them in an isolated class loader (so that the project's own generated classes cannot stand in).
 */
class GeneratedBindingsTest {

    private static final String STUB_NATIVE_LIBRARY = """
            package dev.isthmus.ffm;

            import java.lang.foreign.Linker;
            import java.lang.foreign.SymbolLookup;
            import java.util.Optional;

            public final class NativeLibrary {
                // Only isthmus_abi_version resolves: to getpid, whose C signature matches uint32_t (void).
                public static SymbolLookup symbolLookup() {
                    return name -> name.equals("isthmus_abi_version")
                            ? Linker.nativeLinker().defaultLookup().find("getpid")
                            : Optional.empty();
                }
            }
            """;

    private static final String PROBE = """
            package probe;

            import dev.isthmus.ffm.gen.*;
            import java.lang.foreign.*;
            import java.util.*;
            import java.util.function.Supplier;

            public class Probe implements Supplier<Map<String, Object>> {
                public Map<String, Object> get() {
                    Map<String, Object> r = new TreeMap<>();
                    r.put("abi", isthmus_h.isthmus_abi_version());
                    try {
                        isthmus_h.isthmus_version();
                    } catch (UnsatisfiedLinkError e) {
                        r.put("missing", e.getMessage());
                    }
                    r.put("abi again", isthmus_h.isthmus_abi_version());
                    r.put("capacity", isthmus_h.ISTHMUS_ERROR_MESSAGE_CAPACITY());
                    r.put("nullable", isthmus_h.ARROW_FLAG_NULLABLE());
                    try (Arena arena = Arena.ofConfined()) {
                        MemorySegment error = isthmus_error.allocate(arena);
                        isthmus_error.code(error, isthmus_h.ISTHMUS_ERR_CORRUPT_DATA());
                        isthmus_error.message_length(error, 2);
                        isthmus_error.message(error, 0, (byte) 'o');
                        isthmus_error.message(error, 1, (byte) 'k');
                        r.put("error raw", error.get(ValueLayout.JAVA_INT, 0) + " " + error.get(ValueLayout.JAVA_INT, 4)
                                + " " + error.getString(8));
                        r.put("error message", isthmus_error.message(error).getString(0) + " "
                                + isthmus_error.message(error, 1) + " " + isthmus_error.message$dimensions()[0]);

                        MemorySegment schema = ArrowSchema.allocate(arena);
                        List<Long> released = new ArrayList<>();
                        MemorySegment release = ArrowSchema.release.allocate(s -> {
                            released.add(s.address());
                            ArrowSchema.release(s, MemorySegment.NULL);
                        }, arena);
                        ArrowSchema.release(schema, release);
                        ArrowSchema.flags(schema, isthmus_h.ARROW_FLAG_NULLABLE());
                        ArrowSchema.format(schema, arena.allocateFrom("i"));
                        r.put("schema raw", schema.get(ValueLayout.JAVA_LONG, 24) + " "
                                + ArrowSchema.format(schema).getString(0)
                                + " " + (schema.get(ValueLayout.ADDRESS, 56).address() == release.address()));
                        ArrowSchema.release.invoke(ArrowSchema.release(schema), schema);
                        r.put("released", released.equals(List.of(schema.address())) && ArrowSchema.release(schema).equals(MemorySegment.NULL));

                        MemorySegment arrays = ArrowArray.allocateArray(3, arena);
                        ArrowArray.length(ArrowArray.asSlice(arrays, 2), 42L);
                        r.put("third array length", arrays.get(ValueLayout.JAVA_LONG, 2 * ArrowArray.sizeof()));
                        MemorySegment viewed = ArrowArray.reinterpret(MemorySegment.ofAddress(arrays.address()), arena, null);
                        r.put("reinterpreted size", viewed.byteSize());
                    }
                    // Compiled, never run: pins the exact Java signatures of the bindings.
                    Runnable signatures = () -> {
                        int status = isthmus_h.isthmus_codec_compress(0, 0, MemorySegment.NULL, 0L, MemorySegment.NULL,
                                0L, MemorySegment.NULL, MemorySegment.NULL);
                        status = isthmus_h.isthmus_codec_decompress(0, MemorySegment.NULL, 0L, MemorySegment.NULL, 0L,
                                MemorySegment.NULL, MemorySegment.NULL);
                        status = isthmus_h.isthmus_codec_max_compressed_size(0, 0L, MemorySegment.NULL, MemorySegment.NULL);
                        status = isthmus_h.isthmus_debug_panic(MemorySegment.NULL, MemorySegment.NULL);
                        MemorySegment text = isthmus_h.isthmus_layout_manifest();
                        java.lang.invoke.MethodHandle handle = isthmus_h.isthmus_codec_compress$handle();
                        FunctionDescriptor descriptor = isthmus_h.isthmus_codec_compress$descriptor();
                        MemorySegment address = isthmus_h.isthmus_codec_compress$address();
                        ArrowArray.release.Function fn = s -> { };
                        MemorySegment buffers = ArrowArray.buffers(MemorySegment.NULL);
                        long offset = ArrowArray.offset$offset();
                        AddressLayout layout = ArrowArray.children$layout();
                        SequenceLayout message = isthmus_error.message$layout();
                        GroupLayout group = ArrowSchema.layout();
                    };
                    return r;
                }
            }
            """;

    @TempDir
    static Path dir;

    private static ClassLoader loader;

    @BeforeAll
    static void generateAndCompile() throws Exception {
        Path sources = dir.resolve("src");
        Main.generate(TestSupport.realHeader(), sources, TestSupport.OPTIONS);
        Path cases = Files.writeString(dir.resolve("cases.h"), TestSupport.LAYOUT_CASES);
        Main.generate(
                cases,
                sources,
                new JavaEmitter.Options(
                        "dev.isthmus.cases", "cases_h", "dev.isthmus.ffm.NativeLibrary.symbolLookup()"));
        write(sources.resolve("dev/isthmus/ffm/NativeLibrary.java"), STUB_NATIVE_LIBRARY);
        write(sources.resolve("probe/Probe.java"), PROBE);

        Path classes = dir.resolve("classes");
        List<Path> files;
        try (Stream<Path> walk = Files.walk(sources)) {
            files = walk.filter(p -> p.toString().endsWith(".java")).sorted().toList();
        }
        var javac = ToolProvider.getSystemJavaCompiler();
        var diagnostics = new DiagnosticCollector<JavaFileObject>();
        try (var fileManager = javac.getStandardFileManager(diagnostics, null, StandardCharsets.UTF_8)) {
            boolean ok = javac.getTask(
                            null,
                            fileManager,
                            diagnostics,
                            List.of(
                                    "--release",
                                    "25",
                                    "-Xlint:all",
                                    "-Werror",
                                    "-parameters",
                                    "-d",
                                    classes.toString()),
                            null,
                            fileManager.getJavaFileObjectsFromPaths(files))
                    .call();
            assertTrue(ok, "generated sources do not compile cleanly:\n" + diagnostics.getDiagnostics());
        }
        loader = new URLClassLoader(new URL[] {classes.toUri().toURL()}, ClassLoader.getPlatformClassLoader());
    }

    private static void write(Path file, String text) throws Exception {
        Files.createDirectories(file.getParent());
        Files.writeString(file, text);
    }

    private static Object call(String className, String method) throws Exception {
        Method m = loader.loadClass(className).getMethod(method);
        return m.invoke(null);
    }

    /** Asserts sizeof() and every field's $offset() against gcc's numbers, and that they agree with layout(). */
    private static void assertStruct(String className, long size, Map<String, Long> offsets) throws Exception {
        assertEquals(size, call(className, "sizeof"), className + ".sizeof()");
        GroupLayout layout = (GroupLayout) call(className, "layout");
        assertEquals(
                className.substring(className.lastIndexOf('.') + 1),
                layout.name().orElseThrow());
        for (var e : offsets.entrySet()) {
            assertEquals(
                    e.getValue(),
                    call(className, JavaEmitter.javaName(e.getKey()) + "$offset"),
                    className + "." + e.getKey());
            assertEquals(
                    e.getValue(), layout.byteOffset(groupElement(e.getKey())), className + " layout " + e.getKey());
        }
    }

    private static Map<String, Long> offsets(Object... nameThenOffset) {
        var map = new LinkedHashMap<String, Long>();
        for (int i = 0; i < nameThenOffset.length; i += 2) {
            map.put((String) nameThenOffset[i], ((Number) nameThenOffset[i + 1]).longValue());
        }
        return map;
    }

    @Test
    void structsReportGccSizesAndOffsets() throws Exception {
        assertStruct("dev.isthmus.ffm.gen.isthmus_error", 1032, offsets("code", 0, "message_length", 4, "message", 8));
        assertStruct(
                "dev.isthmus.ffm.gen.ArrowSchema",
                72,
                offsets(
                        "format",
                        0,
                        "name",
                        8,
                        "metadata",
                        16,
                        "flags",
                        24,
                        "n_children",
                        32,
                        "children",
                        40,
                        "dictionary",
                        48,
                        "release",
                        56,
                        "private_data",
                        64));
        assertStruct(
                "dev.isthmus.ffm.gen.ArrowArray",
                80,
                offsets(
                        "length",
                        0,
                        "null_count",
                        8,
                        "offset",
                        16,
                        "n_buffers",
                        24,
                        "n_children",
                        32,
                        "buffers",
                        40,
                        "children",
                        48,
                        "dictionary",
                        56,
                        "release",
                        64,
                        "private_data",
                        72));
    }

    @Test
    void paddedStructsAreValidFfmLayouts() throws Exception {
        assertStruct("dev.isthmus.cases.char_int_char", 12, offsets("a", 0, "b", 4, "c", 8));
        assertStruct("dev.isthmus.cases.nested", 32, offsets("a", 0, "inner", 8, "z", 24));
        assertStruct("dev.isthmus.cases.arrays", 40, offsets("ids", 0, "weights", 16, "n", 32));
        assertStruct("dev.isthmus.cases.callback", 16, offsets("tag", 0, "fn", 8));
        assertStruct("dev.isthmus.cases.anon_t", 24, offsets("a", 0, "b", 8, "c", 16));
        assertStruct("dev.isthmus.cases.java_words", 16, offsets("class", 0, "new", 8));
        assertEquals(8L, ((GroupLayout) call("dev.isthmus.cases.nested", "layout")).byteAlignment());
        assertEquals(
                loader.loadClass("dev.isthmus.cases.char_double"),
                loader.loadClass("dev.isthmus.cases.pair_t").getSuperclass(),
                "a typedef of a struct extends it");
        Class<?> header = loader.loadClass("dev.isthmus.cases.cases_h");
        assertEquals(ValueLayout.JAVA_INT, header.getField("status_t").get(null));
        assertEquals(4294967296L, call("dev.isthmus.cases.cases_h", "BIG"));
        assertEquals(
                double.class,
                header.getMethod("mix", float.class, long.class, MemorySegment.class, int.class)
                        .getReturnType());
        assertEquals(
                List.of("x0", "weight", "bytes", "status"),
                Stream.of(header.getMethod("mix", float.class, long.class, MemorySegment.class, int.class)
                                .getParameters())
                        .map(java.lang.reflect.Parameter::getName)
                        .toList());
        loader.loadClass("dev.isthmus.cases.java_words").getMethod("class_", MemorySegment.class);
        FunctionDescriptor fn = (FunctionDescriptor) loader.loadClass("dev.isthmus.cases.callback$fn")
                .getMethod("descriptor")
                .invoke(null);
        assertEquals(
                FunctionDescriptor.of(ValueLayout.JAVA_LONG, ValueLayout.ADDRESS, ValueLayout.JAVA_INT)
                        .toMethodType(),
                fn.toMethodType());
    }

    /** The ABI version as the header text defines it, so the check follows header bumps. */
    private static int headerAbiVersion() throws java.io.IOException {
        var m = java.util.regex.Pattern.compile("#define ISTHMUS_ABI_VERSION (\\d+)")
                .matcher(java.nio.file.Files.readString(TestSupport.realHeader()));
        assertTrue(m.find(), "ISTHMUS_ABI_VERSION in " + TestSupport.realHeader());
        return Integer.parseInt(m.group(1));
    }

    @Test
    void headerClassHasJextractLayoutsAndConstants() throws Exception {
        String h = "dev.isthmus.ffm.gen.isthmus_h";
        Class<?> header = loader.loadClass(h);
        assertEquals(ValueLayout.JAVA_LONG, header.getField("C_LONG").get(null));
        assertEquals(ValueLayout.JAVA_INT, header.getField("C_INT").get(null));
        var pointer =
                (java.lang.foreign.AddressLayout) header.getField("C_POINTER").get(null);
        assertEquals(
                MemoryLayout.sequenceLayout(Long.MAX_VALUE, ValueLayout.JAVA_BYTE),
                pointer.targetLayout().orElseThrow());
        assertEquals(headerAbiVersion(), call(h, "ISTHMUS_ABI_VERSION"));
        assertEquals(7, call(h, "ISTHMUS_ERR_INTERNAL"));
        assertEquals(4, call(h, "ARROW_FLAG_MAP_KEYS_SORTED"));
        assertTrue(java.lang.reflect.Modifier.isPrivate(
                header.getDeclaredConstructor().getModifiers()));
        Method compress = header.getMethod(
                "isthmus_codec_compress",
                int.class,
                int.class,
                MemorySegment.class,
                long.class,
                MemorySegment.class,
                long.class,
                MemorySegment.class,
                MemorySegment.class);
        assertEquals(int.class, compress.getReturnType());
        assertEquals(
                List.of("codec", "level", "input", "input_size", "output", "output_capacity", "out_written", "error"),
                Stream.of(compress.getParameters())
                        .map(java.lang.reflect.Parameter::getName)
                        .toList(),
                "parameter names come from the header (needs -parameters)");
    }

    @Test
    @SuppressWarnings("unchecked")
    void probeUsesTheBindingsThroughNativeCode() throws Exception {
        var probe = (Supplier<Map<String, Object>>)
                loader.loadClass("probe.Probe").getConstructor().newInstance();
        Map<String, Object> r = probe.get();
        int pid = (int) ProcessHandle.current().pid();
        assertEquals(pid, r.get("abi"), "a real downcall through the generated wrapper");
        assertEquals("unresolved symbol: isthmus_version", r.get("missing"));
        assertEquals(pid, r.get("abi again"), "a missing symbol fails only its own function");
        assertEquals(1024, r.get("capacity"));
        assertEquals(2, r.get("nullable"));
        assertEquals("3 2 ok", r.get("error raw"));
        assertEquals("ok 107 1024", r.get("error message"));
        assertEquals("2 i true", r.get("schema raw"));
        assertEquals(true, r.get("released"), "upcall stub invoked through the function-pointer class");
        assertEquals(42L, r.get("third array length"));
        assertEquals(80L, r.get("reinterpreted size"));
    }
}
