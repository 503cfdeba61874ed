package dev.isthmus.iceberg.sql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * With Isthmus on the classpath of a JVM older than 25, Flink's factory discovery still works
 * (Iceberg's catalog among them), and only creating an {@code isthmus-iceberg} catalog or
 * connector table fails, saying why. Runs a probe on an older JDK of this machine (the project's machines have JDK 17).
 */
class OlderJdkTest {
    private static final String PROBE = """
            import java.util.ArrayList;
            import java.util.List;
            import java.util.Map;
            import java.util.ServiceLoader;
            import org.apache.flink.configuration.Configuration;
            import org.apache.flink.table.factories.CatalogFactory;
            import org.apache.flink.table.factories.DynamicTableSourceFactory;
            import org.apache.flink.table.factories.Factory;
            import org.apache.flink.table.factories.FactoryUtil;

            public class Probe {
                public static void main(String[] args) {
                    List<String> ids = new ArrayList<>();
                    for (Factory factory : ServiceLoader.load(Factory.class)) {
                        ids.add(factory.factoryIdentifier());
                    }
                    System.out.println("factories " + ids);
                    ClassLoader loader = Probe.class.getClassLoader();
                    CatalogFactory isthmus = FactoryUtil.discoverFactory(loader, CatalogFactory.class, "isthmus-iceberg");
                    try {
                        isthmus.createCatalog(new FactoryUtil.DefaultCatalogContext("lake", Map.of(),
                                new Configuration(), loader));
                        System.out.println("created");
                    } catch (RuntimeException e) {
                        System.out.println("refused " + e.getClass().getSimpleName() + ": " + e.getMessage());
                    }
                    DynamicTableSourceFactory connector = FactoryUtil.discoverFactory(loader,
                            DynamicTableSourceFactory.class, "isthmus-iceberg");
                    try {
                        connector.createDynamicTableSource(null);
                        System.out.println("created");
                    } catch (RuntimeException e) {
                        System.out.println("refused " + e.getClass().getSimpleName() + ": " + e.getMessage());
                    }
                }
            }
            """;

    @Test
    void factoriesLoadOnAnOlderJdkAndTheCatalogAndConnectorSayTheyNeedJdk25(@TempDir Path dir) throws Exception {
        Path java = olderJdk()
                .orElseThrow(() -> new AssertionError(
                        "this test needs a JDK older than 25 under /usr/lib/jvm (the project's machines have JDK 17)"));
        Path probe = Files.writeString(dir.resolve("Probe.java"), PROBE);
        Process process = new ProcessBuilder(
                        java.toString(), "-cp", System.getProperty("java.class.path"), probe.toString())
                .redirectErrorStream(true)
                .start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, process.waitFor(), output);
        assertTrue(
                output.contains("factories [") && output.contains("iceberg") && output.contains("isthmus-iceberg"),
                output);
        assertTrue(
                output.contains("refused ValidationException: The catalog type 'isthmus-iceberg' (Isthmus) needs"
                        + " JDK 25 or later, but this JVM is 17"),
                output);
        assertTrue(
                output.contains("refused ValidationException: The connector 'isthmus-iceberg' (Isthmus) needs"
                        + " JDK 25 or later, but this JVM is 17"),
                output);
    }

    /** The java launcher of a JDK below 25 under /usr/lib/jvm, newest first. */
    private static Optional<Path> olderJdk() {
        try (Stream<Path> jdks = Files.list(Path.of("/usr/lib/jvm"))) {
            return jdks.filter(jdk -> Files.isExecutable(jdk.resolve("bin/java")))
                    .filter(jdk -> feature(jdk) > 0 && feature(jdk) < IsthmusJdk.REQUIRED)
                    .max(Comparator.comparingInt(OlderJdkTest::feature))
                    .map(jdk -> jdk.resolve("bin/java"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The JDK's feature version from its {@code release} file, or 0 when it has none. */
    private static int feature(Path jdk) {
        try {
            return Files.readAllLines(jdk.resolve("release")).stream()
                    .filter(line -> line.startsWith("JAVA_VERSION="))
                    .map(line -> line.substring("JAVA_VERSION=".length()).replace("\"", ""))
                    .map(version -> Integer.parseInt(version.split("[.+-]")[0]))
                    .findFirst()
                    .orElse(0);
        } catch (IOException | NumberFormatException e) {
            return 0;
        }
    }
}
