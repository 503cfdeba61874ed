package dev.isthmus.ffm;

import dev.isthmus.ffm.gen.isthmus_h;
import java.io.IOException;
import java.io.InputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;

/**
 * Finds, opens and checks {@code libisthmus.so}, once per JVM.
 *
 * <p>The library comes from the system property {@value #PATH_PROPERTY} or the environment
 * variable {@value #PATH_ENV} when set (development, or a library installed by the platform),
 * and otherwise from this jar's {@code native/<platform>/} resources, extracted to a private
 * temporary file that is deleted as soon as it is mapped. It is opened with
 * {@link SymbolLookup#libraryLookup(Path, Arena)} in the global arena: no JNI, no
 * {@code System.load}.
 */
@SuppressWarnings("restricted") // opening the library and its ABI probe are the point of this class
public final class NativeLibrary {
    public static final String PATH_PROPERTY = "isthmus.native.library";
    public static final String PATH_ENV = "ISTHMUS_NATIVE_LIBRARY";
    static final String LIBRARY_FILE = "libisthmus.so";

    private NativeLibrary() {}

    private static final class Loaded {
        static final Object RESULT = load();
    }

    /**
     * The lookup the generated bindings resolve symbols in. It loads the library on its first
     * {@code find}, not when the bindings' classes initialise: every binding class (even a
     * struct layout or a constant) touches the header class, and the loader itself reads the
     * header's ABI constant.
     */
    public static SymbolLookup symbolLookup() {
        return name -> loaded().find(name);
    }

    /**
     * Loads the library now, so a missing or wrong library surfaces as a
     * {@link NativeLibraryException} rather than as a failed initialisation of a generated
     * function holder. Every hand-written entry point calls this first.
     *
     * @throws NativeLibraryException if the library cannot be found, opened or has the wrong ABI
     */
    public static void require() {
        loaded();
    }

    private static SymbolLookup loaded() {
        if (Loaded.RESULT instanceof SymbolLookup lookup) {
            return lookup;
        }
        NativeLibraryException failure = (NativeLibraryException) Loaded.RESULT;
        // A fresh exception per call keeps each caller's stack trace; the cause is the original.
        throw new NativeLibraryException(failure.getMessage(), failure);
    }

    /** The library's own version string. */
    public static String version() {
        require();
        return CStrings.staticString(isthmus_h.isthmus_version());
    }

    private static Object load() {
        try {
            Located located = locate(System.getProperties(), System.getenv());
            try {
                return open(located.path(), isthmus_h.ISTHMUS_ABI_VERSION());
            } finally {
                if (located.extracted()) {
                    deleteExtracted(located.path());
                }
            }
        } catch (NativeLibraryException e) {
            return e;
        }
    }

    /** A library file, and whether it is our private extracted copy. */
    record Located(Path path, boolean extracted) {}

    /** The library to open: an explicit path if configured, otherwise the extracted resource. */
    static Located locate(Properties properties, Map<String, String> env) {
        String explicit = properties.getProperty(PATH_PROPERTY);
        String source = "system property " + PATH_PROPERTY;
        if (explicit == null || explicit.isBlank()) {
            explicit = env.get(PATH_ENV);
            source = "environment variable " + PATH_ENV;
        }
        if (explicit != null && !explicit.isBlank()) {
            Path path = Path.of(explicit);
            if (!Files.isRegularFile(path)) {
                throw new NativeLibraryException(source + " points to " + path + ", which is not a file");
            }
            return new Located(path, false);
        }
        String platform = platform(properties.getProperty("os.name", ""), properties.getProperty("os.arch", ""));
        return new Located(extract("/native/" + platform + "/" + LIBRARY_FILE), true);
    }

    /** The resource folder for this OS and CPU; only linux-x86_64 is built today. */
    static String platform(String osName, String osArch) {
        String os = osName.toLowerCase(Locale.ROOT);
        String arch = osArch.toLowerCase(Locale.ROOT);
        if (os.startsWith("linux") && (arch.equals("amd64") || arch.equals("x86_64"))) {
            return "linux-x86_64";
        }
        throw new NativeLibraryException("Isthmus ships a native library for linux-x86_64 only, but this JVM runs on "
                + osName + "/" + osArch + ". Build rust-core for this platform and set -D" + PATH_PROPERTY
                + "=/path/to/the/library (or " + PATH_ENV + ")");
    }

    private static Path extract(String resource) {
        try (InputStream in = NativeLibrary.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new NativeLibraryException("the Isthmus native library is not on the classpath (" + resource
                        + " is missing from isthmus-ffm-bindings); build rust-core first, or set -D" + PATH_PROPERTY);
            }
            Path dir = Files.createTempDirectory("isthmus-",
                    PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
            Path file = dir.resolve(LIBRARY_FILE);
            Files.copy(in, file, StandardCopyOption.REPLACE_EXISTING);
            dir.toFile().deleteOnExit();
            file.toFile().deleteOnExit();
            return file;
        } catch (IOException e) {
            throw new NativeLibraryException("cannot extract the Isthmus native library " + resource + ": " + e, e);
        }
    }

    /**
     * Opens {@code path} for the life of the JVM and checks that it speaks ABI {@code expectedAbi}.
     * The ABI call goes through its own handle so a mismatched library is refused before any
     * generated binding can call into it.
     */
    static SymbolLookup open(Path path, int expectedAbi) {
        SymbolLookup lookup;
        try {
            lookup = SymbolLookup.libraryLookup(path, Arena.global());
        } catch (IllegalArgumentException e) {
            throw new NativeLibraryException("cannot open the Isthmus native library " + path + ": " + e.getMessage(), e);
        }
        MemorySegment abiSymbol = lookup.find("isthmus_abi_version").orElseThrow(() -> new NativeLibraryException(
                path + " is not an Isthmus native library (it has no isthmus_abi_version symbol)"));
        MethodHandle abiVersion = Linker.nativeLinker().downcallHandle(abiSymbol, FunctionDescriptor.of(ValueLayout.JAVA_INT));
        int actual;
        try {
            actual = (int) abiVersion.invokeExact();
        } catch (Throwable t) {
            throw new NativeLibraryException("isthmus_abi_version failed in " + path, t);
        }
        if (actual != expectedAbi) {
            throw new NativeLibraryException("the Isthmus native library " + path + " has ABI version " + actual
                    + " but these Java bindings were generated for ABI version " + expectedAbi
                    + "; use the isthmus-ffm-bindings jar built with that library");
        }
        return lookup;
    }

    /** The mapping outlives the file on Linux, so the extracted copy need not stay on disk. */
    private static void deleteExtracted(Path file) {
        try {
            Files.deleteIfExists(file);
            Files.deleteIfExists(file.getParent());
        } catch (IOException ignored) {
            // deleteOnExit remains as the fallback.
        }
    }
}
