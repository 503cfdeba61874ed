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
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Finds, opens and checks {@code libisthmus.so}, once per JVM.
 *
 * <p>The library comes from the system property {@value #PATH_PROPERTY} or the environment
 * variable {@value #PATH_ENV} when set (development, or a library installed by the platform),
 * and otherwise from this jar's {@code native/<platform>/} resources, extracted once to a path
 * named by the user and the library's content hash ({@code <tmpdir>/isthmus-<user>-<hash>/}, a
 * directory only the user may enter). Every class loader that brings the same library (each job
 * jar in a Flink session cluster brings its own) finds that file and opens it again, which the
 * dynamic linker answers with the mapping it already has: one copy per JVM, however many jobs. It
 * is opened with {@link SymbolLookup#libraryLookup(Path, Arena)} in the global arena: no JNI, no
 * {@code System.load}. Opening it logs one INFO line (path, version, ABI, platform).
 *
 * <p>A JVM that denies native access ({@code --illegal-native-access=deny} without
 * {@code --enable-native-access=ALL-UNNAMED}) gets a {@link NativeLibraryException} that names
 * the flag and where to set it.
 */
@SuppressWarnings("restricted") // opening the library and its ABI probe are the point of this class
public final class NativeLibrary {
    public static final String PATH_PROPERTY = "isthmus.native.library";
    public static final String PATH_ENV = "ISTHMUS_NATIVE_LIBRARY";
    static final String LIBRARY_FILE = "libisthmus.so";
    static final String NATIVE_ACCESS_FLAG = "--enable-native-access=ALL-UNNAMED";
    private static final Logger LOG = LoggerFactory.getLogger(NativeLibrary.class);
    private static final Set<PosixFilePermission> OWNER_ONLY = PosixFilePermissions.fromString("rwx------");

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

    /**
     * Whether the library is loaded, loading it on the first call. For what can do without it
     * (a gauge of native memory reads 0) rather than fail.
     */
    public static boolean available() {
        return Loaded.RESULT instanceof SymbolLookup;
    }

    /**
     * Why the library cannot be used in this JVM, loading it on the first call: empty once it
     * is loaded. The source and the sink ask this before their first native call, so that a
     * library that cannot load is a reason to fall back to Iceberg's readers and writers (or,
     * in strict mode, to fail with this exception's message) like any other.
     */
    public static Optional<NativeLibraryException> unavailable() {
        if (Loaded.RESULT instanceof NativeLibraryException failure) {
            return Optional.of(new NativeLibraryException(failure.getMessage(), failure));
        }
        return Optional.empty();
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
            // A restricted call of no effect comes first: where native access is denied it throws
            // here, before the bindings' classes initialise (their address layouts are restricted
            // too, and a failed class initialisation would hide the reason).
            MemorySegment.NULL.reinterpret(0);
            Path path = locate(System.getProperties(), System.getenv());
            SymbolLookup lookup = open(path, isthmus_h.ISTHMUS_ABI_VERSION());
            LOG.info(
                    "Isthmus native library {} (ABI {}, {} {}) loaded from {}",
                    version(lookup),
                    isthmus_h.ISTHMUS_ABI_VERSION(),
                    System.getProperty("os.name"),
                    System.getProperty("os.arch"),
                    path);
            return lookup;
        } catch (NativeLibraryException e) {
            return e;
        } catch (IllegalCallerException e) {
            return new NativeLibraryException(
                    "Isthmus calls its native library through Java's Foreign Function &"
                            + " Memory API, which this JVM denies to the classpath: start every JVM that runs Isthmus with "
                            + NATIVE_ACCESS_FLAG
                            + " (in Flink, append it to env.java.opts.all in the Flink configuration,"
                            + " keeping the options already there, for the client, the JobManager and the TaskManagers)",
                    e);
        } catch (RuntimeException | LinkageError e) {
            // Anything else (a malformed library path, a library without isthmus_version, a
            // temporary directory without POSIX permissions) must not fail this class's
            // initialisation: callers ask available() to fall back, and need the reason.
            return new NativeLibraryException("cannot load the Isthmus native library: " + e, e);
        }
    }

    /** The version string through {@code lookup} itself: the bindings' lookup is not set yet. */
    private static String version(SymbolLookup lookup) {
        MethodHandle handle = Linker.nativeLinker()
                .downcallHandle(
                        lookup.find("isthmus_version").orElseThrow(), FunctionDescriptor.of(ValueLayout.ADDRESS));
        try {
            return CStrings.staticString((MemorySegment) handle.invokeExact());
        } catch (Throwable t) {
            throw new NativeLibraryException("isthmus_version failed", t);
        }
    }

    /** The library to open: an explicit path if configured, otherwise the extracted resource. */
    static Path locate(Properties properties, Map<String, String> env) {
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
            return path;
        }
        String platform = platform(properties.getProperty("os.name", ""), properties.getProperty("os.arch", ""));
        Path tmp = Path.of(properties.getProperty("java.io.tmpdir", "/tmp"));
        return extract("/native/" + platform + "/" + LIBRARY_FILE, tmp, properties.getProperty("user.name", "user"));
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

    /**
     * The resource's bytes at {@code <tmp>/isthmus-<user>-<hash>/libisthmus.so}: the file already
     * there if it holds exactly these bytes, else a fresh copy moved into place atomically (so a
     * concurrent JVM sees either no file or a whole one). The hash is the SHA-256 the build
     * recorded beside the library ({@code libisthmus.so.sha256}): a file found is compared byte
     * for byte, and the library is hashed only before a copy is written. A directory of that name
     * that is not the user's alone is not trusted: a private temporary directory serves instead.
     *
     * @throws NativeLibraryException if the library or its recorded hash is missing, the record
     *     is not a SHA-256, it is not the library's, or the copy cannot be written
     */
    private static Path extract(String resource, Path tmp, String user) {
        byte[] library = readResource(
                resource,
                "the Isthmus native library is not on the classpath (" + resource
                        + " is missing from isthmus-ffm-bindings); build rust-core first, or set -D" + PATH_PROPERTY);
        String hash = recordedHash(resource + ".sha256");
        String owner = user.replaceAll("[^A-Za-z0-9._-]", "_");
        try {
            Path dir = tmp.resolve("isthmus-" + owner + "-" + hash.substring(0, 16));
            if (!ownedByUserAlone(dir, user)) {
                dir = Files.createTempDirectory(tmp, "isthmus-", PosixFilePermissions.asFileAttribute(OWNER_ONLY));
                dir.toFile().deleteOnExit();
            }
            Path file = dir.resolve(LIBRARY_FILE);
            if (Files.isRegularFile(file)
                    && Files.size(file) == library.length
                    && Arrays.equals(library, Files.readAllBytes(file))) {
                return file;
            }
            // Writing happens on a first load, for a copy that differs, and on every load where
            // the named directory is not trusted: only then is the library hashed, so a stale
            // record cannot name another build's directory.
            if (!hash.equals(sha256(library))) {
                throw new NativeLibraryException("the hash recorded in " + resource + ".sha256 is not the library's;"
                        + " the jar mixes two builds: rebuild isthmus-ffm-bindings");
            }
            Path partial = Files.createTempFile(dir, LIBRARY_FILE, ".partial");
            try {
                Files.write(partial, library);
                Files.move(partial, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } finally {
                Files.deleteIfExists(partial);
            }
            return file;
        } catch (IOException e) {
            throw new NativeLibraryException(
                    "cannot extract the Isthmus native library " + resource + " under " + tmp + ": " + e, e);
        }
    }

    /** The SHA-256 the build wrote beside the library, in hex. */
    private static String recordedHash(String resource) {
        String hash = new String(
                        readResource(
                                resource,
                                resource + " is missing beside the Isthmus native library: the"
                                        + " isthmus-ffm-bindings build writes it, and a jar repackaging Isthmus must"
                                        + " keep it (or set -D" + PATH_PROPERTY + ")"),
                        StandardCharsets.US_ASCII)
                .strip();
        if (!hash.matches("[0-9a-f]{64}")) {
            throw new NativeLibraryException(
                    resource + " does not hold a SHA-256 in hex; rebuild isthmus-ffm-bindings");
        }
        return hash;
    }

    private static String sha256(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }

    /** The bytes of this jar's {@code resource}; {@code missing} says what its absence means. */
    private static byte[] readResource(String resource, String missing) {
        try (InputStream in = NativeLibrary.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new NativeLibraryException(missing);
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new NativeLibraryException("cannot read " + resource + " of the Isthmus native library: " + e, e);
        }
    }

    /** Whether {@code dir} is (now) a directory that only {@code user} may enter. */
    private static boolean ownedByUserAlone(Path dir, String user) throws IOException {
        try {
            Files.createDirectory(dir, PosixFilePermissions.asFileAttribute(OWNER_ONLY));
        } catch (java.nio.file.FileAlreadyExistsException e) {
            // Made earlier, by this user or by someone else: checked below.
        }
        return Files.isDirectory(dir, java.nio.file.LinkOption.NOFOLLOW_LINKS)
                && Files.getOwner(dir, java.nio.file.LinkOption.NOFOLLOW_LINKS)
                        .getName()
                        .equals(user)
                && Files.getPosixFilePermissions(dir, java.nio.file.LinkOption.NOFOLLOW_LINKS)
                        .equals(OWNER_ONLY);
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
            throw new NativeLibraryException(
                    "cannot open the Isthmus native library " + path + ": " + e.getMessage(), e);
        }
        MemorySegment abiSymbol = lookup.find("isthmus_abi_version")
                .orElseThrow(() -> new NativeLibraryException(
                        path + " is not an Isthmus native library (it has no isthmus_abi_version symbol)"));
        MethodHandle abiVersion =
                Linker.nativeLinker().downcallHandle(abiSymbol, FunctionDescriptor.of(ValueLayout.JAVA_INT));
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
}
