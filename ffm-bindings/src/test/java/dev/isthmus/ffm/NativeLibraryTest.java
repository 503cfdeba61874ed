package dev.isthmus.ffm;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.isthmus.ffm.gen.isthmus_h;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class NativeLibraryTest {

    @Test
    void loadsThePackagedLibraryAndReportsItsVersion() {
        assertEquals(isthmus_h.ISTHMUS_ABI_VERSION(), isthmus_h.isthmus_abi_version());
        assertTrue(NativeLibrary.version().matches("\\d+\\.\\d+\\.\\d+.*"), NativeLibrary.version());
    }

    @Test
    void extractsOnceToAPathNamedByUserAndContentThatOnlyTheUserMayEnter(@TempDir Path tmp) throws Exception {
        Path first = NativeLibrary.locate(linuxX86(tmp), Map.of());
        assertTrue(
                first.getParent()
                        .getFileName()
                        .toString()
                        .matches("isthmus-" + java.util.regex.Pattern.quote(System.getProperty("user.name"))
                                + "-[0-9a-f]{16}"),
                first.toString());
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(first.getParent())));
        var lookup = NativeLibrary.open(first, isthmus_h.ISTHMUS_ABI_VERSION());
        assertTrue(lookup.find("isthmus_codec_compress").isPresent());
        FileTime written = Files.getLastModifiedTime(first);
        Object inode = Files.readAttributes(first, BasicFileAttributes.class).fileKey();

        Path again = NativeLibrary.locate(linuxX86(tmp), Map.of());
        assertEquals(first, again, "a later loader finds the same file");
        assertEquals(
                inode, Files.readAttributes(again, BasicFileAttributes.class).fileKey(), "and does not rewrite it");
        assertEquals(written, Files.getLastModifiedTime(again));
        try (var files = Files.list(first.getParent())) {
            assertEquals(List.of(first), files.toList(), "no partial copy is left beside it");
        }
    }

    @Test
    void aDamagedCopyIsReplacedWhole(@TempDir Path tmp) throws Exception {
        Path first = NativeLibrary.locate(linuxX86(tmp), Map.of());
        byte[] library = Files.readAllBytes(first);
        Files.write(first, new byte[] {0x7f, 'E', 'L', 'F'});
        Path again = NativeLibrary.locate(linuxX86(tmp), Map.of());
        assertEquals(first, again);
        assertArrayEquals(library, Files.readAllBytes(again));
    }

    @Test
    void aDamagedCopyOfTheSameSizeIsReplacedWhole(@TempDir Path tmp) throws Exception {
        Path first = NativeLibrary.locate(linuxX86(tmp), Map.of());
        byte[] library = Files.readAllBytes(first);
        byte[] damaged = library.clone();
        damaged[damaged.length / 2] ^= 1;
        Files.write(first, damaged);
        Path again = NativeLibrary.locate(linuxX86(tmp), Map.of());
        assertEquals(first, again);
        assertArrayEquals(library, Files.readAllBytes(again));
    }

    /** The loader trusts the build's hash to name the directory; the build must get it right. */
    @Test
    void theDirectoryIsNamedByTheLibrarysSha256AsTheBuildRecordedIt(@TempDir Path tmp) throws Exception {
        String resource = "/native/linux-x86_64/" + NativeLibrary.LIBRARY_FILE;
        byte[] library;
        byte[] recorded;
        try (var in = NativeLibrary.class.getResourceAsStream(resource);
                var hash = NativeLibrary.class.getResourceAsStream(resource + ".sha256")) {
            library = in.readAllBytes();
            recorded = hash.readAllBytes();
        }
        String sha256 =
                HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(library));
        assertEquals(sha256, new String(recorded, StandardCharsets.US_ASCII).strip());
        Path file = NativeLibrary.locate(linuxX86(tmp), Map.of());
        assertTrue(file.getParent().getFileName().toString().endsWith("-" + sha256.substring(0, 16)), file.toString());
        assertArrayEquals(library, Files.readAllBytes(file));
    }

    @Test
    void aMissingMalformedOrStaleRecordedHashIsRefusedNamingTheFile(@TempDir Path tmp) throws Exception {
        String resource = "native/linux-x86_64/" + NativeLibrary.LIBRARY_FILE;
        byte[] library;
        try (var in = NativeLibrary.class.getResourceAsStream("/" + resource)) {
            library = in.readAllBytes();
        }
        String stale = "0".repeat(64);
        Map<String, String> messages = new java.util.LinkedHashMap<>();
        for (String recorded : new String[] {null, "not a hash", stale}) {
            Path resources = Files.createTempDirectory(tmp, "resources");
            Files.createDirectories(resources.resolve(resource).getParent());
            Files.write(resources.resolve(resource), library);
            if (recorded != null) {
                Files.writeString(resources.resolve(resource + ".sha256"), recorded + "\n");
            }
            URL classes =
                    NativeLibrary.class.getProtectionDomain().getCodeSource().getLocation();
            try (URLClassLoader loader = new JobClassLoader(classes, resources)) {
                Class<?> loaded = Class.forName(NativeLibrary.class.getName(), true, loader);
                var locate = loaded.getDeclaredMethod("locate", Properties.class, Map.class);
                locate.setAccessible(true);
                var e = assertThrows(
                        java.lang.reflect.InvocationTargetException.class,
                        () -> locate.invoke(null, linuxX86(tmp), Map.of()));
                assertEquals(
                        NativeLibraryException.class.getName(),
                        e.getCause().getClass().getName());
                messages.put(String.valueOf(recorded), e.getCause().getMessage());
            }
        }
        messages.values().forEach(message -> assertTrue(message.contains(resource + ".sha256"), message));
        assertTrue(messages.get("null").contains(resource + ".sha256 is missing"), messages.get("null"));
        assertTrue(messages.get("not a hash").contains("does not hold a SHA-256"), messages.get("not a hash"));
        assertTrue(messages.get(stale).contains("is not the library's"), messages.get(stale));
        try (var dirs = Files.list(tmp)) {
            assertTrue(
                    dirs.noneMatch(d -> Files.exists(d.resolve(NativeLibrary.LIBRARY_FILE))),
                    "no library was extracted under a stale hash");
        }
    }

    @Test
    void aDirectoryOthersMayEnterIsNotTrusted(@TempDir Path tmp) throws Exception {
        Path expected = NativeLibrary.locate(linuxX86(tmp), Map.of()).getParent();
        Files.walk(expected)
                .sorted(java.util.Comparator.reverseOrder())
                .forEach(p -> p.toFile().delete());
        Files.createDirectory(
                expected, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwxrwxrwx")));
        Files.setPosixFilePermissions(expected, PosixFilePermissions.fromString("rwxrwxrwx"));
        Path used = NativeLibrary.locate(linuxX86(tmp), Map.of());
        assertNotEquals(expected, used.getParent());
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(used.getParent())));
        try (var planted = Files.list(expected)) {
            assertEquals(0, planted.count(), "nothing is written into the untrusted directory");
        }
    }

    /**
     * Each job jar in a Flink session cluster loads Isthmus in a class loader of its own; all of
     * them must share one mapping of the library.
     */
    @Test
    void classLoadersOfTheSameLibraryShareOneMapping() throws Exception {
        NativeLibrary.require();
        Set<String> before = mappedCopies();
        URL classes = NativeLibrary.class.getProtectionDomain().getCodeSource().getLocation();
        for (int job = 0; job < 3; job++) {
            try (URLClassLoader loader = new JobClassLoader(classes)) {
                Class<?> library = Class.forName(NativeLibrary.class.getName(), true, loader);
                assertNotSame(NativeLibrary.class, library, "a class loader of its own");
                assertEquals(
                        NativeLibrary.version(), library.getMethod("version").invoke(null));
            }
        }
        assertEquals(before, mappedCopies(), "no further copy of the library is mapped");
    }

    /** The libisthmus.so files this process maps, from /proc/self/maps (a deleted one says so). */
    private static Set<String> mappedCopies() throws Exception {
        Set<String> copies = new TreeSet<>();
        for (String line : Files.readAllLines(Path.of("/proc/self/maps"))) {
            int slash = line.indexOf('/');
            if (slash >= 0 && line.contains("/" + NativeLibrary.LIBRARY_FILE)) {
                copies.add(line.substring(slash));
            }
        }
        return copies;
    }

    /** Loads Isthmus's classes itself, as Flink's child-first job class loader does. */
    private static final class JobClassLoader extends URLClassLoader {
        /** Where {@code native/} resources come from instead, or {@code null}. */
        private final Path nativeResources;

        JobClassLoader(URL classes) {
            this(classes, null);
        }

        JobClassLoader(URL classes, Path nativeResources) {
            super(new URL[] {classes}, NativeLibraryTest.class.getClassLoader());
            this.nativeResources = nativeResources;
        }

        @Override
        public URL getResource(String name) {
            if (nativeResources != null && name.startsWith("native/")) {
                Path file = nativeResources.resolve(name);
                try {
                    return Files.exists(file) ? file.toUri().toURL() : null;
                } catch (java.net.MalformedURLException e) {
                    throw new IllegalStateException(e);
                }
            }
            return super.getResource(name);
        }

        @Override
        protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            if (!name.startsWith("dev.isthmus.")) {
                return super.loadClass(name, resolve);
            }
            synchronized (getClassLoadingLock(name)) {
                Class<?> loaded = findLoadedClass(name);
                return loaded != null ? loaded : findClass(name);
            }
        }
    }

    @Test
    void aJvmThatDeniesNativeAccessIsToldTheFlagAndWhereToSetIt() throws Exception {
        Process probe = new ProcessBuilder(
                        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                        "--illegal-native-access=deny",
                        "-cp",
                        System.getProperty("java.class.path"),
                        NativeAccessProbe.class.getName())
                .redirectErrorStream(true)
                .start();
        String output = new String(probe.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        assertEquals(0, probe.waitFor(), output);
        assertTrue(
                output.contains("NativeLibraryException: ")
                        && output.contains(NativeLibrary.NATIVE_ACCESS_FLAG)
                        && output.contains("env.java.opts.all")
                        && output.contains("root cause IllegalCallerException"),
                output);
    }

    @Test
    void anExplicitPathWinsAndMustExist(@TempDir Path dir) {
        Properties props = linuxX86(dir);
        props.setProperty(NativeLibrary.PATH_PROPERTY, dir.resolve("nope.so").toString());
        var e = assertThrows(NativeLibraryException.class, () -> NativeLibrary.locate(props, Map.of()));
        assertTrue(
                e.getMessage().contains("nope.so") && e.getMessage().contains(NativeLibrary.PATH_PROPERTY),
                e.getMessage());

        var fromEnv = assertThrows(
                NativeLibraryException.class,
                () -> NativeLibrary.locate(
                        linuxX86(dir),
                        Map.of(NativeLibrary.PATH_ENV, dir.resolve("env.so").toString())));
        assertTrue(fromEnv.getMessage().contains(NativeLibrary.PATH_ENV), fromEnv.getMessage());
    }

    @Test
    void anExplicitPathIsUsedAsIs(@TempDir Path dir) throws Exception {
        Path copy = dir.resolve("libisthmus-dev.so");
        Files.copy(NativeLibrary.locate(linuxX86(dir), Map.of()), copy);
        Properties props = linuxX86(dir);
        props.setProperty(NativeLibrary.PATH_PROPERTY, copy.toString());
        assertEquals(copy, NativeLibrary.locate(props, Map.of()));
        NativeLibrary.open(copy, isthmus_h.ISTHMUS_ABI_VERSION());
    }

    @Test
    void anotherPlatformIsRefusedWithTheWayOut() {
        var e = assertThrows(NativeLibraryException.class, () -> NativeLibrary.platform("Mac OS X", "aarch64"));
        assertTrue(
                e.getMessage().contains("Mac OS X/aarch64") && e.getMessage().contains(NativeLibrary.PATH_PROPERTY),
                e.getMessage());
        assertEquals("linux-x86_64", NativeLibrary.platform("Linux", "amd64"));
    }

    @Test
    void aLibraryOfAnotherAbiVersionIsRefused(@TempDir Path dir) {
        Path packaged = NativeLibrary.locate(linuxX86(dir), Map.of());
        int wrong = isthmus_h.ISTHMUS_ABI_VERSION() + 1;
        var e = assertThrows(NativeLibraryException.class, () -> NativeLibrary.open(packaged, wrong));
        assertTrue(
                e.getMessage().contains("ABI version " + isthmus_h.ISTHMUS_ABI_VERSION())
                        && e.getMessage().contains(String.valueOf(wrong)),
                e.getMessage());
    }

    @Test
    void aFileThatIsNotALibraryIsRefused(@TempDir Path dir) throws Exception {
        Path bogus = Files.writeString(dir.resolve("libbogus.so"), "not an ELF file");
        var e = assertThrows(NativeLibraryException.class, () -> NativeLibrary.open(bogus, 1));
        assertTrue(e.getMessage().contains(bogus.toString()), e.getMessage());
    }

    private static Properties linuxX86(Path tmp) {
        Properties props = new Properties();
        props.setProperty("os.name", "Linux");
        props.setProperty("os.arch", "amd64");
        props.setProperty("java.io.tmpdir", tmp.toString());
        props.setProperty("user.name", System.getProperty("user.name"));
        return props;
    }
}
