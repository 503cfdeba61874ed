package dev.isthmus.ffm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.isthmus.ffm.gen.isthmus_h;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class NativeLibraryTest {

    @Test
    void loadsThePackagedLibraryAndReportsItsVersion() {
        assertEquals(isthmus_h.ISTHMUS_ABI_VERSION(), isthmus_h.isthmus_abi_version());
        assertTrue(NativeLibrary.version().matches("\\d+\\.\\d+\\.\\d+.*"), NativeLibrary.version());
    }

    @Test
    void extractsFromTheClasspathAndDeletesTheCopyAfterOpening() {
        NativeLibrary.Located located = NativeLibrary.locate(linuxX86(), Map.of());
        assertTrue(located.extracted());
        assertTrue(Files.isRegularFile(located.path()));
        var lookup = NativeLibrary.open(located.path(), isthmus_h.ISTHMUS_ABI_VERSION());
        assertTrue(lookup.find("isthmus_codec_compress").isPresent());
    }

    @Test
    void anExplicitPathWinsAndMustExist(@TempDir Path dir) {
        Properties props = linuxX86();
        props.setProperty(NativeLibrary.PATH_PROPERTY, dir.resolve("nope.so").toString());
        var e = assertThrows(NativeLibraryException.class, () -> NativeLibrary.locate(props, Map.of()));
        assertTrue(e.getMessage().contains("nope.so") && e.getMessage().contains(NativeLibrary.PATH_PROPERTY),
                e.getMessage());

        var fromEnv = assertThrows(NativeLibraryException.class, () -> NativeLibrary.locate(linuxX86(),
                Map.of(NativeLibrary.PATH_ENV, dir.resolve("env.so").toString())));
        assertTrue(fromEnv.getMessage().contains(NativeLibrary.PATH_ENV), fromEnv.getMessage());
    }

    @Test
    void anExplicitPathIsUsedAsIs(@TempDir Path dir) throws Exception {
        Path copy = dir.resolve("libisthmus-dev.so");
        Path packaged = NativeLibrary.locate(linuxX86(), Map.of()).path();
        Files.copy(packaged, copy);
        Files.delete(packaged);
        Properties props = linuxX86();
        props.setProperty(NativeLibrary.PATH_PROPERTY, copy.toString());
        NativeLibrary.Located located = NativeLibrary.locate(props, Map.of());
        assertEquals(copy, located.path());
        assertFalse(located.extracted());
        NativeLibrary.open(copy, isthmus_h.ISTHMUS_ABI_VERSION());
    }

    @Test
    void anotherPlatformIsRefusedWithTheWayOut() {
        var e = assertThrows(NativeLibraryException.class, () -> NativeLibrary.platform("Mac OS X", "aarch64"));
        assertTrue(e.getMessage().contains("Mac OS X/aarch64") && e.getMessage().contains(NativeLibrary.PATH_PROPERTY),
                e.getMessage());
        assertEquals("linux-x86_64", NativeLibrary.platform("Linux", "amd64"));
    }

    @Test
    void aLibraryOfAnotherAbiVersionIsRefused() {
        Path packaged = NativeLibrary.locate(linuxX86(), Map.of()).path();
        int wrong = isthmus_h.ISTHMUS_ABI_VERSION() + 1;
        var e = assertThrows(NativeLibraryException.class, () -> NativeLibrary.open(packaged, wrong));
        assertTrue(e.getMessage().contains("ABI version " + isthmus_h.ISTHMUS_ABI_VERSION())
                && e.getMessage().contains(String.valueOf(wrong)), e.getMessage());
    }

    @Test
    void aFileThatIsNotALibraryIsRefused(@TempDir Path dir) throws Exception {
        Path bogus = Files.writeString(dir.resolve("libbogus.so"), "not an ELF file");
        var e = assertThrows(NativeLibraryException.class, () -> NativeLibrary.open(bogus, 1));
        assertTrue(e.getMessage().contains(bogus.toString()), e.getMessage());
    }

    private static Properties linuxX86() {
        Properties props = new Properties();
        props.setProperty("os.name", "Linux");
        props.setProperty("os.arch", "amd64");
        return props;
    }
}
