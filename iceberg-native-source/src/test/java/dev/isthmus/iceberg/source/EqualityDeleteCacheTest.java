package dev.isthmus.iceberg.source;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class EqualityDeleteCacheTest {
    private final ExecutorService pool = Executors.newFixedThreadPool(2);

    @BeforeEach
    @AfterEach
    void emptyCache() {
        EqualityDeleteCache.clear();
    }

    @AfterEach
    void stopPool() throws InterruptedException {
        pool.shutdownNow();
        assertTrue(pool.awaitTermination(10, TimeUnit.SECONDS));
    }

    @Test
    void aLoadedSetIsFoundAgain() {
        EqualityDeleteCache.Key key = key("a");
        KeySet set = set(1, 2, 3);
        EqualityDeleteCache.Lookup first = EqualityDeleteCache.get(key, () -> set);
        assertTrue(first.loaded());
        EqualityDeleteCache.Lookup second = EqualityDeleteCache.get(key, () -> {
            throw new AssertionError("a cached set is not loaded again");
        });
        assertFalse(second.loaded());
        assertSame(set, second.set());
        assertEquals(set.bytes(), EqualityDeleteCache.bytes());
    }

    /** A reader that misses a file another reader is loading waits for that load instead of decoding it too. */
    @Test
    void readersMissingAFileAtOnceLoadItOnce() throws Exception {
        EqualityDeleteCache.Key key = key("b");
        CountDownLatch loading = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        AtomicInteger loads = new AtomicInteger();
        KeySet set = set(7);
        Supplier<KeySet> slowLoad = () -> {
            loads.incrementAndGet();
            loading.countDown();
            await(release);
            return set;
        };
        Future<EqualityDeleteCache.Lookup> loader = pool.submit(() -> EqualityDeleteCache.get(key, slowLoad));
        assertTrue(loading.await(10, TimeUnit.SECONDS));
        Future<EqualityDeleteCache.Lookup> waiter = pool.submit(() -> EqualityDeleteCache.get(key, slowLoad));
        waitUntilParked(waiter);
        release.countDown();
        assertTrue(loader.get().loaded());
        EqualityDeleteCache.Lookup waited = waiter.get();
        assertFalse(waited.loaded(), "the waiter took the loader's set");
        assertSame(set, waited.set());
        assertEquals(1, loads.get());
    }

    /** A load that fails fails its own reader; a reader that waited for it loads the file itself. */
    @Test
    void aFailedLoadFailsOnlyItsReader() throws Exception {
        EqualityDeleteCache.Key key = key("c");
        CountDownLatch loading = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        Future<EqualityDeleteCache.Lookup> failing = pool.submit(() -> EqualityDeleteCache.get(key, () -> {
            loading.countDown();
            await(release);
            throw new DeleteLimitException("past its limit", "the first reader's room");
        }));
        assertTrue(loading.await(10, TimeUnit.SECONDS));
        KeySet set = set(4, 5);
        Future<EqualityDeleteCache.Lookup> waiter = pool.submit(() -> EqualityDeleteCache.get(key, () -> set));
        waitUntilParked(waiter);
        release.countDown();
        java.util.concurrent.ExecutionException failure =
                assertThrows(java.util.concurrent.ExecutionException.class, failing::get);
        assertTrue(
                failure.getCause() instanceof DeleteLimitException,
                failure.getCause().toString());
        EqualityDeleteCache.Lookup own = waiter.get();
        assertTrue(own.loaded(), "the waiter loaded the file after the first load failed");
        assertSame(set, own.set());
        assertSame(
                set,
                EqualityDeleteCache.get(key, () -> {
                            throw new AssertionError("cached after the second load");
                        })
                        .set());
    }

    private static EqualityDeleteCache.Key key(String file) {
        return new EqualityDeleteCache.Key(List.of(1), "/t/" + file + ".parquet");
    }

    private static KeySet set(long... keys) {
        KeySet set = new KeySet();
        for (long key : keys) {
            byte[] bytes = java.nio.ByteBuffer.allocate(8).putLong(key).array();
            set.add(bytes, 8, KeySet.hash(bytes, 8));
        }
        return set;
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** Waits until some thread waits in the cache for another reader's load, or {@code task} ended. */
    private static void waitUntilParked(Future<?> task) throws InterruptedException {
        while (!task.isDone()
                && Thread.getAllStackTraces().keySet().stream()
                        .noneMatch(t -> t.getState() == Thread.State.WAITING && isInAwait(t))) {
            Thread.sleep(5);
        }
    }

    private static boolean isInAwait(Thread thread) {
        for (StackTraceElement frame : thread.getStackTrace()) {
            if (frame.getClassName().equals(EqualityDeleteCache.class.getName())
                    && frame.getMethodName().equals("await")) {
                return true;
            }
        }
        return false;
    }
}
