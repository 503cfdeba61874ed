package dev.isthmus.ffm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class NativeHandleTest {
    private static final MemorySegment ADDRESS = MemorySegment.ofAddress(0x1000);

    private final AtomicInteger frees = new AtomicInteger();

    private NativeHandle handle(String name) {
        return new NativeHandle(ADDRESS, name, address -> {
            assertEquals(ADDRESS, address);
            frees.incrementAndGet();
        });
    }

    @Test
    void closeWithoutLeasesFreesAtOnceAndOnlyOnce() {
        NativeHandle handle = handle("file a.parquet");
        assertEquals(ADDRESS, handle.acquire());
        handle.release();
        handle.close();
        assertEquals(1, frees.get());
        handle.close();
        assertEquals(1, frees.get(), "close is idempotent");
    }

    @Test
    void closeDuringLeasesFreesWhenTheLastIsReleased() {
        NativeHandle handle = handle("file b.parquet");
        handle.acquire();
        handle.acquire();
        handle.close();
        assertEquals(0, frees.get(), "a lease is out");
        assertThrows(IllegalStateException.class, handle::acquire, "closed for new leases");
        handle.release();
        assertEquals(0, frees.get(), "another lease is out");
        handle.release();
        assertEquals(1, frees.get(), "the last release freed it");
    }

    @Test
    void acquireAfterCloseThrowsNamingTheObjectAndFreesNothingTwice() {
        NativeHandle handle = handle("file c.parquet");
        handle.close();
        IllegalStateException e = assertThrows(IllegalStateException.class, handle::acquire);
        assertEquals("file c.parquet is closed", e.getMessage());
        assertThrows(IllegalStateException.class, handle::acquire);
        assertEquals(1, frees.get());
    }

    /**
     * Threads lease and release while one closes: the object is freed exactly once, never while a
     * lease that succeeded is out.
     */
    @Test
    void racingLeasesAndCloseFreeExactlyOnceAndNeverUnderALease() throws InterruptedException {
        for (int round = 0; round < 500; round++) {
            AtomicInteger leased = new AtomicInteger();
            AtomicBoolean freedUnderLease = new AtomicBoolean();
            AtomicInteger freed = new AtomicInteger();
            NativeHandle handle = new NativeHandle(ADDRESS, "racing handle", address -> {
                if (leased.get() != 0) {
                    freedUnderLease.set(true);
                }
                freed.incrementAndGet();
            });
            List<Thread> threads = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                threads.add(Thread.ofPlatform().start(() -> {
                    for (int i = 0; i < 50; i++) {
                        try {
                            handle.acquire();
                        } catch (IllegalStateException e) {
                            continue;
                        }
                        leased.incrementAndGet();
                        Thread.onSpinWait();
                        leased.decrementAndGet();
                        handle.release();
                    }
                }));
            }
            for (int spin = ThreadLocalRandom.current().nextInt(200); spin > 0; spin--) {
                Thread.onSpinWait();
            }
            handle.close();
            for (Thread thread : threads) {
                thread.join();
            }
            assertEquals(1, freed.get(), "freed exactly once in round " + round);
            assertFalse(freedUnderLease.get(), "freed while a lease was out in round " + round);
        }
    }
}
