package dev.isthmus.iceberg.source;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Runs a main class of the tests in a JVM where Isthmus's native library cannot load: it denies
 * native access to the classpath ({@code --illegal-native-access=deny}, and no
 * {@code --enable-native-access}), as a TaskManager started without the flag the README asks for.
 * It gets the other flags Isthmus needs, the tests' classpath, and {@link StdoutLogProvider}.
 */
public final class ChildJvm {
    private static final int HANG_MINUTES = 10;

    private ChildJvm() {}

    /** What the JVM printed (stdout and stderr); fails unless it exited with 0. */
    public static String runWithoutNativeAccess(Class<?> main, String... args)
            throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--illegal-native-access=deny",
                "--add-opens=java.base/java.nio=ALL-UNNAMED",
                "--sun-misc-unsafe-memory-access=allow",
                "-Dslf4j.provider=" + StdoutLogProvider.class.getName(),
                "-cp",
                System.getProperty("java.class.path"),
                main.getName()));
        command.addAll(List.of(args));
        Path log = Files.createTempFile("isthmus-child-jvm", ".log");
        ProcessBuilder builder =
                new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
        // Options the launcher would add from the environment could enable native access again.
        Map<String, String> env = builder.environment();
        env.remove("JDK_JAVA_OPTIONS");
        env.remove("JAVA_TOOL_OPTIONS");
        env.remove("_JAVA_OPTIONS");
        Process process = builder.start();
        try {
            // Not a measure of speed: a probe that hangs would otherwise hold the build forever.
            boolean exited = process.waitFor(HANG_MINUTES, TimeUnit.MINUTES);
            String output = Files.readString(log, StandardCharsets.UTF_8);
            if (!exited) {
                process.destroyForcibly();
                throw new AssertionError("the child JVM did not exit within " + HANG_MINUTES + " minutes:\n" + output);
            }
            assertEquals(0, process.exitValue(), output);
            return output;
        } finally {
            Files.deleteIfExists(log);
        }
    }

    /** The lines of {@code output} that {@code logger} logged at {@code level}. */
    public static List<String> logged(String output, String level, Class<?> logger) {
        String prefix = StdoutLogProvider.PREFIX + level + " " + logger.getName() + " ";
        return output.lines()
                .filter(line -> line.startsWith(prefix))
                .map(line -> line.substring(prefix.length()))
                .toList();
    }

    /** The value {@code key} a probe printed as {@code key=value}. */
    public static String printed(String output, String key) {
        return output.lines()
                .filter(line -> line.startsWith(key + "="))
                .map(line -> line.substring(key.length() + 1))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no " + key + "= in:\n" + output));
    }
}
