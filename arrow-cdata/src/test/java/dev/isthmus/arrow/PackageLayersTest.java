package dev.isthmus.arrow;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.isthmus.arrow.cdata.ArrowExporter;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The C Data Interface packages stay readable without Flink or Iceberg: no compiled class of theirs
 * names a Flink or Iceberg type (the class file's constant pool would hold its internal name).
 * Adapters belong in {@code dev.isthmus.arrow.flink}.
 */
class PackageLayersTest {

    @ParameterizedTest
    @ValueSource(strings = {"cdata", "types", "memory", "builder"})
    void genericPackagesReferenceNeitherFlinkNorIceberg(String pkg) throws IOException, URISyntaxException {
        Path classes = Path.of(ArrowExporter.class
                .getProtectionDomain()
                .getCodeSource()
                .getLocation()
                .toURI());
        Path dir = classes.resolve("dev/isthmus/arrow").resolve(pkg);
        List<String> offenders = new ArrayList<>();
        int checked = 0;
        try (Stream<Path> files = Files.list(dir)) {
            for (Path file : files.filter(f -> f.toString().endsWith(".class")).toList()) {
                checked++;
                String bytes = new String(Files.readAllBytes(file), StandardCharsets.ISO_8859_1);
                if (bytes.contains("org/apache/flink/") || bytes.contains("org/apache/iceberg/")) {
                    offenders.add(file.getFileName().toString());
                }
            }
        }
        assertFalse(checked == 0, "no classes found in " + dir);
        assertEquals(List.of(), offenders, "classes of dev.isthmus.arrow." + pkg + " that use Flink or Iceberg");
    }
}
