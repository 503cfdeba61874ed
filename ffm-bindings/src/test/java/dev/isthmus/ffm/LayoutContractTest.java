package dev.isthmus.ffm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.isthmus.ffm.gen.isthmus_h;
import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The generated Java layouts must agree with the library's own struct layouts, and every
 * function the header declares must resolve in the library. (The C compiler's view of the
 * header is checked against Rust's in rust-core/ffi/tests/header_contract.rs.)
 */
class LayoutContractTest {

    @Test
    void generatedLayoutsMatchTheLibrarysStructs() throws Exception {
        String manifest = Diagnostics.layoutManifest();
        List<String> structs = new ArrayList<>();
        for (String line : manifest.strip().split("\n")) {
            String[] parts = line.trim().split("\\s+");
            String name = parts[0];
            structs.add(name);
            Class<?> type = Class.forName("dev.isthmus.ffm.gen." + name);
            GroupLayout layout = (GroupLayout) type.getMethod("layout").invoke(null);
            assertEquals(Long.parseLong(parts[1]), layout.byteSize(), name + " size");
            assertEquals(Long.parseLong(parts[2]), layout.byteAlignment(), name + " alignment");
            for (int i = 3; i < parts.length; i++) {
                String field = parts[i].substring(0, parts[i].indexOf('@'));
                long offset = Long.parseLong(parts[i].substring(parts[i].indexOf('@') + 1));
                assertEquals(
                        offset, layout.byteOffset(MemoryLayout.PathElement.groupElement(field)), name + "." + field);
                assertEquals(
                        offset,
                        (long) type.getMethod(field + "$offset").invoke(null),
                        name + "." + field + "$offset()");
            }
        }
        assertEquals(headerStructs(), structs, "every struct the header declares, in its order");
    }

    /** The structs declared in rust-core/include/isthmus.h, in declaration order. */
    static List<String> headerStructs() throws java.io.IOException {
        java.nio.file.Path header = null;
        for (java.nio.file.Path dir = java.nio.file.Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            if (java.nio.file.Files.isRegularFile(dir.resolve("rust-core/include/isthmus.h"))) {
                header = dir.resolve("rust-core/include/isthmus.h");
                break;
            }
        }
        if (header == null) {
            throw new IllegalStateException("rust-core/include/isthmus.h not found");
        }
        List<String> names = new ArrayList<>();
        var m = java.util.regex.Pattern.compile("(?m)^(?:typedef )?struct (\\w+) \\{")
                .matcher(java.nio.file.Files.readString(header));
        while (m.find()) {
            names.add(m.group(1));
        }
        return names;
    }

    @Test
    void everyDeclaredFunctionResolvesInTheLibrary() throws Exception {
        int functions = 0;
        for (Method m : isthmus_h.class.getMethods()) {
            if (Modifier.isStatic(m.getModifiers()) && m.getName().endsWith("$address") && m.getParameterCount() == 0) {
                MemorySegment address = (MemorySegment) m.invoke(null);
                assertFalse(address.equals(MemorySegment.NULL), m.getName());
                functions++;
            }
        }
        assertTrue(functions >= 7, "expected the header's functions, found " + functions);
    }
}
