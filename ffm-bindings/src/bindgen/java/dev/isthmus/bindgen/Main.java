package dev.isthmus.bindgen;

import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

/**
 * Command line entry point, written to run with the JDK's multi-file source launcher:
 * {@code java .../Main.java --header h --output dir --package p --header-class c --symbol-lookup expr}.
 */
public final class Main {

    private static final Set<String> OPTIONS =
            Set.of("--header", "--output", "--package", "--header-class", "--symbol-lookup");
    private static final String USAGE = "usage: Main --header <file.h> --output <dir> --package <java.package>"
            + " --header-class <ClassName> --symbol-lookup <Java expression of type SymbolLookup>";

    private Main() {}

    public static void main(String[] args) {
        try {
            Map<String, String> options = parseArguments(args);
            JavaEmitter.Options emitterOptions = new JavaEmitter.Options(
                    options.get("--package"), options.get("--header-class"), options.get("--symbol-lookup"));
            List<Path> written =
                    generate(Path.of(options.get("--header")), Path.of(options.get("--output")), emitterOptions);
            if (!written.isEmpty()) {
                System.out.println("bindgen: updated " + written.size() + " file(s) in "
                        + written.getFirst().getParent());
            }
        } catch (IllegalArgumentException e) {
            System.err.println("bindgen: " + e.getMessage() + "\n" + USAGE);
            System.exit(2);
        } catch (BindgenException | IOException e) {
            System.err.println("bindgen: " + e.getMessage());
            System.exit(1);
        }
    }

    /**
     * Generates the bindings for {@code header} under {@code outputRoot} and returns the files
     * it created or changed. Files whose content is unchanged are left alone, so that their
     * timestamps do not trigger recompilation, and generated files of declarations that no
     * longer exist are deleted.
     */
    public static List<Path> generate(Path header, Path outputRoot, JavaEmitter.Options options) throws IOException {
        Model.Header model = Parser.parse(header.toString(), Files.readString(header, StandardCharsets.UTF_8));
        Map<String, String> sources = new JavaEmitter(options).emit(model);
        Path dir = packageDirectory(outputRoot, options.packageName());
        Files.createDirectories(dir);
        List<Path> written = new ArrayList<>();
        for (var source : sources.entrySet()) {
            Path file = dir.resolve(source.getKey() + ".java");
            byte[] bytes = source.getValue().getBytes(StandardCharsets.UTF_8);
            if (!Files.exists(file) || !Arrays.equals(Files.readAllBytes(file), bytes)) {
                Files.write(file, bytes);
                written.add(file);
            }
        }
        try (Stream<Path> files = Files.list(dir)) {
            for (Path file : files.sorted().toList()) {
                String name = file.getFileName().toString();
                if (name.endsWith(".java")
                        && !sources.containsKey(name.substring(0, name.length() - 5))
                        && isGenerated(file)) {
                    Files.delete(file);
                }
            }
        }
        return written;
    }

    private static boolean isGenerated(Path file) throws IOException {
        try (BufferedReader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            String first = reader.readLine();
            return first != null && first.startsWith(JavaEmitter.GENERATED_MARKER);
        }
    }

    private static Path packageDirectory(Path outputRoot, String packageName) {
        return outputRoot.resolve(packageName.replace('.', '/'));
    }

    private static Map<String, String> parseArguments(String[] args) {
        Map<String, String> options = new HashMap<>();
        for (int i = 0; i < args.length; i++) {
            if (!OPTIONS.contains(args[i])) {
                throw new IllegalArgumentException("unknown argument '" + args[i] + "'");
            }
            if (i + 1 == args.length) {
                throw new IllegalArgumentException(args[i] + " needs a value");
            }
            if (options.put(args[i], args[++i]) != null) {
                throw new IllegalArgumentException(args[i - 1] + " given twice");
            }
        }
        for (String option : OPTIONS.stream().sorted().toList()) {
            if (!options.containsKey(option)) {
                throw new IllegalArgumentException("missing " + option);
            }
        }
        if (!options.get("--package").matches("[A-Za-z_]\\w*(\\.[A-Za-z_]\\w*)*")) {
            throw new IllegalArgumentException("--package must be a Java package name");
        }
        if (!options.get("--header-class").matches("[A-Za-z_]\\w*")) {
            throw new IllegalArgumentException("--header-class must be a Java class name");
        }
        return options;
    }
}
