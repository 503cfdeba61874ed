package dev.isthmus.iceberg.source;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class EqualityDeleteCacheTest {
    /** Room enough for every set here. */
    private static final long ROOM = 1L << 30;

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
        EqualityDeleteCache.Lookup first = EqualityDeleteCache.get(key, ROOM, () -> set);
        assertTrue(first.loaded());
        EqualityDeleteCache.Lookup second = EqualityDeleteCache.get(key, ROOM, () -> {
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
        Future<EqualityDeleteCache.Lookup> loader = pool.submit(() -> EqualityDeleteCache.get(key, ROOM, slowLoad));
        assertTrue(loading.await(10, TimeUnit.SECONDS));
        Future<EqualityDeleteCache.Lookup> waiter = pool.submit(() -> EqualityDeleteCache.get(key, ROOM, slowLoad));
        waitUntilParked(waiter);
        release.countDown();
        assertTrue(loader.get().loaded());
        EqualityDeleteCache.Lookup waited = waiter.get();
        assertFalse(waited.loaded(), "the waiter took the loader's set");
        assertSame(set, waited.set());
        assertEquals(1, loads.get());
    }

    /**
     * A load that fails (here as a damaged file would) fails its own reader; a reader that waited
     * for it loads the file itself, after that load ended, and caches it.
     */
    @Test
    void aFailedLoadFailsOnlyItsReader() throws Exception {
        EqualityDeleteCache.Key key = key("c");
        CountDownLatch loading = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        AtomicBoolean firstEnded = new AtomicBoolean();
        Future<EqualityDeleteCache.Lookup> failing = pool.submit(() -> EqualityDeleteCache.get(key, ROOM, () -> {
            try {
                loading.countDown();
                await(release);
                throw new IllegalStateException("a damaged delete file");
            } finally {
                firstEnded.set(true);
            }
        }));
        assertTrue(loading.await(10, TimeUnit.SECONDS));
        KeySet set = set(4, 5);
        AtomicBoolean loadedAfterTheFirst = new AtomicBoolean();
        Future<EqualityDeleteCache.Lookup> waiter = pool.submit(() -> EqualityDeleteCache.get(key, ROOM, () -> {
            loadedAfterTheFirst.set(firstEnded.get());
            return set;
        }));
        waitUntilParked(waiter);
        release.countDown();
        ExecutionException failure = assertThrows(ExecutionException.class, failing::get);
        assertTrue(
                failure.getCause() instanceof IllegalStateException,
                failure.getCause().toString());
        EqualityDeleteCache.Lookup own = waiter.get();
        assertTrue(own.loaded(), "the waiter loaded the file after the first load failed");
        assertTrue(loadedAfterTheFirst.get(), "the waiter waited for the first load before its own");
        assertSame(set, own.set());
        assertSame(
                set,
                EqualityDeleteCache.get(key, ROOM, () -> {
                            throw new AssertionError("cached after the second load");
                        })
                        .set());
    }

    /**
     * A load that ran out of room fails the readers that waited for it with no more room at once;
     * a reader with more room loads the file itself.
     */
    @Test
    void aLoadPastItsLimitFailsWaitersWithNoMoreRoom() throws Exception {
        EqualityDeleteCache.Key key = key("d");
        CountDownLatch loading = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        Future<EqualityDeleteCache.Lookup> failing = pool.submit(() -> EqualityDeleteCache.get(key, 100, () -> {
            loading.countDown();
            await(release);
            throw new DeleteLimitException("past its limit", "the keys take more than 100 bytes");
        }));
        assertTrue(loading.await(10, TimeUnit.SECONDS));
        Future<EqualityDeleteCache.Lookup> waiter = pool.submit(() -> EqualityDeleteCache.get(key, 100, () -> {
            throw new AssertionError("a reader with no more room does not decode the file again");
        }));
        waitUntilParked(waiter);
        release.countDown();
        assertTrue(assertThrows(ExecutionException.class, failing::get).getCause() instanceof DeleteLimitException);
        ExecutionException waited = assertThrows(ExecutionException.class, waiter::get);
        assertTrue(
                waited.getCause() instanceof DeleteLimitException,
                waited.getCause().toString());
        assertEquals("the keys take more than 100 bytes", waited.getCause().getMessage());
        KeySet set = set(9);
        EqualityDeleteCache.Lookup roomier = EqualityDeleteCache.get(key, ROOM, () -> set);
        assertTrue(roomier.loaded(), "a reader with more room loads the file");
        assertSame(set, roomier.set());
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

    /**
     * Waits until some thread waits in the cache for another reader's load, or {@code task}
     * ended; fails after ten seconds, so a broken hand-over fails the test instead of hanging it.
     */
    private static void waitUntilParked(Future<?> task) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!task.isDone()
                && Thread.getAllStackTraces().keySet().stream()
                        .noneMatch(t -> t.getState() == Thread.State.WAITING && isInAwait(t))) {
            assertTrue(System.nanoTime() < deadline, "no reader waited for the load");
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
