package dev.isthmus.iceberg.sink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.isthmus.ffm.NativeLibraryException;
import dev.isthmus.iceberg.sink.write.NativeDataFiles;
import dev.isthmus.iceberg.source.ChildJvm;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Where the native library cannot load (here: a JVM that denies native access), a non-strict
 * sink writes every table with Iceberg's Java writers, each job logging one WARN that says how
 * to fix it; a strict sink fails with that reason; the writer's gauges, which never call the
 * library, read 0 rather than throwing.
 */
class UnloadableLibraryWriteTest {
    @TempDir
    Path dir;

    @Test
    void everyTableFallsBackOnceLoggedPerJobAndStrictFailsWithTheReason() throws Exception {
        String output = ChildJvm.runWithoutNativeAccess(UnloadableLibraryWriteProbe.class, dir.toString());

        assertEquals("2", ChildJvm.printed(output, "job-a.fallbacks"), output);
        assertEquals("1", ChildJvm.printed(output, "job-b.fallbacks"), output);
        assertEquals("6", ChildJvm.printed(output, "files"), output);
        assertEquals("[parquet-mr]", ChildJvm.printed(output, "createdBy"), "Iceberg's Java writer wrote them");
        assertEquals("1500", ChildJvm.printed(output, "rowsWritten"), output);
        assertEquals("1500", ChildJvm.printed(output, "rowsRead"), output);
        assertEquals(String.valueOf(1499L * 1500 / 2), ChildJvm.printed(output, "idSum"), output);
        assertEquals(
                "{jvm.encodeTimeMs=0, jvm.liveNativeBytes=0, lastFlushDurationMs=0, liveNativeBytes=0}",
                ChildJvm.printed(output, "gauges"),
                output);
        assertEquals("0", ChildJvm.printed(output, "encodeNanos"), output);

        List<String> warnings = ChildJvm.logged(output, "WARN", NativeDataFiles.class);
        assertEquals(2, warnings.size(), "one per job, not per subtask or file:\n" + output);
        assertTrue(warnings.get(0).contains("(job job-a;") && warnings.get(1).contains("(job job-b;"), output);
        for (String warning : warnings) {
            assertTrue(
                    warning.startsWith("Writing data files with Iceberg's Java writers: table ")
                            && warning.contains("the native library cannot be loaded")
                            && warning.contains("--enable-native-access=ALL-UNNAMED")
                            && warning.contains("env.java.opts.all"),
                    warning);
        }

        String strict = ChildJvm.printed(output, "strict");
        assertTrue(
                strict.startsWith("cannot write data files natively: table ")
                        && strict.contains("the native library cannot be loaded")
                        && strict.contains("--enable-native-access=ALL-UNNAMED"),
                strict);
        assertEquals(NativeLibraryException.class.getName(), ChildJvm.printed(output, "strictCause"));
    }
}
