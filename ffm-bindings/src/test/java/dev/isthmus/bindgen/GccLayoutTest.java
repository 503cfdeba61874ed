package dev.isthmus.bindgen;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.isthmus.bindgen.Model.Header;
import dev.isthmus.bindgen.Model.Struct;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The generator's struct layouts must be the C compiler's: gcc prints sizeof/_Alignof/offsetof for each struct. */
class GccLayoutTest {

    @TempDir
    Path dir;

    @Test
    void realHeaderMatchesGcc() throws Exception {
        Path header = TestSupport.realHeader();
        assertMatchesGcc(header, Parser.parse(header.toString(), Files.readString(header)));
    }

    @Test
    void paddingCasesMatchGcc() throws Exception {
        Path header = Files.writeString(dir.resolve("cases.h"), TestSupport.LAYOUT_CASES);
        assertMatchesGcc(header, Parser.parse(header.toString(), TestSupport.LAYOUT_CASES));
    }

    private void assertMatchesGcc(Path header, Header model) throws Exception {
        List<Struct> structs = TestSupport.structs(model);
        var program = new StringBuilder("""
                #include <stdio.h>
                #include <stddef.h>
                #include "%s"

                int main(void) {
                """.formatted(header.toAbsolutePath()));
        for (Struct s : structs) {
            // A struct without a tag is known by its typedef name only.
            String type = s.cText().startsWith("typedef") ? s.name() : "struct " + s.name();
            program.append("    printf(\"%s %%zu %%zu\", sizeof(%s), _Alignof(%s));\n".formatted(s.name(), type, type));
            for (var f : s.fields()) {
                program.append("    printf(\" %s@%%zu\", offsetof(%s, %s));\n".formatted(f.name(), type, f.name()));
            }
            program.append("    printf(\"\\n\");\n");
        }
        program.append("    return 0;\n}\n");
        Path source = Files.writeString(dir.resolve("layout.c"), program);
        Path binary = dir.resolve("layout");

        assumeTrue(gccAvailable(), "gcc is not installed: cannot compare layouts with the C compiler");
        run(List.of("gcc", "-std=c11", "-Wall", "-Werror", "-o", binary.toString(), source.toString()));
        List<String> gcc = run(List.of(binary.toString())).lines().toList();

        assertEquals(gcc, structs.stream().map(TestSupport::manifest).toList());
    }

    private static boolean gccAvailable() {
        try {
            return new ProcessBuilder("gcc", "--version")
                            .redirectErrorStream(true)
                            .start()
                            .waitFor()
                    == 0;
        } catch (IOException | InterruptedException e) {
            return false;
        }
    }

    private static String run(List<String> command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new AssertionError(String.join(" ", command) + " failed:\n" + output);
        }
        return output;
    }
}
