package dev.isthmus.iceberg.source;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.helpers.MessageFormatter;

/** Once per job, table and reason, in a bounded set. */
class FallbackLogTest {
    /** The WARN lines logged through the logger, formatted. */
    private final List<String> warnings = new ArrayList<>();

    private final Logger logger = (Logger) Proxy.newProxyInstance(
            Logger.class.getClassLoader(), new Class<?>[] {Logger.class}, (proxy, method, args) -> {
                if (method.getName().equals("warn") && args.length == 3 && args[0] instanceof String pattern) {
                    warnings.add(
                            MessageFormatter.format(pattern, args[1], args[2]).getMessage());
                    return null;
                }
                if (method.getName().equals("getName")) {
                    return "test";
                }
                throw new AssertionError("unexpected call " + method);
            });

    @Test
    void eachJobLogsEachTablesReasonOnceHoweverManyTasksFallBack() {
        FallbackLog log = new FallbackLog(logger, 100);
        for (int task = 0; task < 5; task++) {
            log.warn("job-a", "db.t", "it is AVRO", "f" + task + " cannot be read natively: it is AVRO");
        }
        assertEquals(
                List.of("f0 cannot be read natively: it is AVRO (job job-a; logged once per job, table and"
                        + " reason)"),
                warnings);
        assertTrue(log.warn("job-b", "db.t", "it is AVRO", "b"), "another job logs it again");
        assertTrue(log.warn("job-b", "db.u", "it is AVRO", "c"), "and so does another table");
        assertTrue(log.warn("job-b", "db.u", "it has delete files", "d"), "or another reason");
        assertFalse(log.warn("job-b", "db.u", "it is AVRO", "e"));
        assertTrue(log.warn(null, null, "it is AVRO", "g"), "a function given no metric group is a job of its own");
        assertFalse(log.warn(null, null, "it is AVRO", "h"));
        assertEquals(5, warnings.size(), warnings::toString);
        assertTrue(warnings.getLast().contains("(job unknown;"), warnings::toString);
    }

    @Test
    void aLongLivedTaskManagerKeepsTheMostRecentKeysOnly() {
        FallbackLog log = new FallbackLog(logger, 3);
        log.warn("job-1", "t", "r", "m");
        for (int job = 2; job <= 1_000; job++) {
            log.warn("job-" + job, "t", "r", "m");
            // A recurring key is used, so it stays while older ones go.
            assertFalse(log.warn("job-1", "t", "r", "m"), "job " + job);
            assertEquals(Math.min(job, 3), log.size());
        }
        assertEquals(1_000, warnings.size());
        assertTrue(log.warn("job-2", "t", "r", "m"), "pushed out long ago: logged again");
    }
}
