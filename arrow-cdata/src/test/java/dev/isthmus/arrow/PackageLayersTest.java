package dev.isthmus.arrow;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.isthmus.arrow.cdata.ArrowExporter;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The C Data Interface packages stay readable without Flink or Iceberg: no compiled class of theirs
 * names a Flink or Iceberg type (the class file's constant pool would hold its internal name).
 * Adapters belong in {@code dev.isthmus.arrow.flink}.
 */
class PackageLayersTest {

    @Test
    void genericPackagesReferenceNeitherFlinkNorIceberg() throws IOException, URISyntaxException {
        Path classes = Path.of(ArrowExporter.class
                .getProtectionDomain()
                .getCodeSource()
                .getLocation()
                .toURI());
        Path root = classes.resolve("dev/isthmus/arrow");
        List<String> packages;
        try (Stream<Path> dirs = Files.list(root)) {
            packages = dirs.filter(Files::isDirectory)
                    .map(d -> d.getFileName().toString())
                    .filter(name -> !name.equals("flink"))
                    .sorted()
                    .toList();
        }
        // Every generic package is checked, the ones written since included.
        assertTrue(packages.containsAll(List.of("builder", "cdata", "memory", "types")), packages.toString());
        List<String> offenders = new ArrayList<>();
        for (String pkg : packages) {
            try (Stream<Path> files = Files.walk(root.resolve(pkg))) {
                for (Path file :
                        files.filter(f -> f.toString().endsWith(".class")).toList()) {
                    String bytes = new String(Files.readAllBytes(file), StandardCharsets.ISO_8859_1);
                    if (bytes.contains("org/apache/flink/") || bytes.contains("org/apache/iceberg/")) {
                        offenders.add(pkg + "/" + file.getFileName());
                    }
                }
            }
        }
        assertEquals(List.of(), offenders, "classes of generic packages that use Flink or Iceberg");
    }
}
