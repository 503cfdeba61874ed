package dev.isthmus.iceberg.source;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.isthmus.ffm.NativeLibraryException;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Where the native library cannot load (here: a JVM that denies native access), a non-strict
 * read falls back to Iceberg's reader for every task and reads what it reads, each job logging
 * one WARN that says how to fix it; a strict read fails with that reason; the native-memory
 * gauges read 0.
 */
class UnloadableLibraryReadTest {
    @TempDir
    Path dir;

    @Test
    void everyTaskFallsBackOnceLoggedPerJobAndStrictFailsWithTheReason() throws Exception {
        String output = ChildJvm.runWithoutNativeAccess(UnloadableLibraryReadProbe.class, dir.toString());

        int tasks = Integer.parseInt(ChildJvm.printed(output, "tasks"));
        assertTrue(Integer.parseInt(ChildJvm.printed(output, "splits")) >= 6, output);
        assertEquals("true", ChildJvm.printed(output, "sameAsStock"), output);
        assertEquals(2 * 3_000, Long.parseLong(ChildJvm.printed(output, "rows")), output);
        assertEquals(tasks, Long.parseLong(ChildJvm.printed(output, "job-a.fallbackTasks")), output);
        assertEquals(tasks, Long.parseLong(ChildJvm.printed(output, "job-b.fallbackTasks")), output);
        assertEquals(
                "{isthmus.jvm.allocatedNativeBytes=0, isthmus.jvm.equalityDeleteCacheBytes=0,"
                        + " isthmus.jvm.liveBatches=0, isthmus.jvm.liveNativeBytes=0, isthmus.liveBatches=0,"
                        + " isthmus.liveNativeBytes=0}",
                ChildJvm.printed(output, "gauges"),
                output);

        List<String> warnings = ChildJvm.logged(output, "WARN", NativeReaderFunction.class);
        assertEquals(2, warnings.size(), "one per job, not per task or subtask:\n" + output);
        assertTrue(warnings.get(0).contains("(job job-a;") && warnings.get(1).contains("(job job-b;"), output);
        for (String warning : warnings) {
            assertTrue(
                    warning.contains("cannot be read natively: the native library cannot be loaded")
                            && warning.contains("--enable-native-access=ALL-UNNAMED")
                            && warning.contains("env.java.opts.all")
                            && warning.contains("Iceberg's stock reader"),
                    warning);
        }

        String strict = ChildJvm.printed(output, "strict");
        assertTrue(
                strict.startsWith("strict native read: ")
                        && strict.contains("the native library cannot be loaded")
                        && strict.contains("--enable-native-access=ALL-UNNAMED"),
                strict);
        assertEquals(NativeLibraryException.class.getName(), ChildJvm.printed(output, "strictCause"));
        assertEquals(List.of(), ChildJvm.logged(output, "ERROR", NativeReaderFunction.class), output);
    }
}
