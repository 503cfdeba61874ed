package dev.isthmus.iceberg.source;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The key set against Java's {@code HashSet} of the same keys. */
class KeySetTest {
    @Test
    void holdsExactlyTheKeysAdded() {
        SplittableRandom random = new SplittableRandom(5);
        KeySet set = new KeySet();
        Set<String> model = new HashSet<>();
        for (int i = 0; i < 50_000; i++) {
            // Lengths across the 8-byte words the hash reads, the empty key included.
            String key = Long.toString(random.nextLong(0, 30_000), 36).repeat(random.nextInt(0, 4));
            byte[] bytes = key.getBytes(StandardCharsets.UTF_8);
            assertEquals(model.add(key), set.add(bytes, bytes.length, KeySet.hash(bytes, bytes.length)), key);
        }
        assertEquals(model.size(), set.size());
        for (int i = 0; i < 50_000; i++) {
            String key = Long.toString(random.nextLong(0, 60_000), 36).repeat(random.nextInt(0, 4));
            byte[] bytes = key.getBytes(StandardCharsets.UTF_8);
            assertEquals(model.contains(key), set.contains(bytes, bytes.length, KeySet.hash(bytes, bytes.length)), key);
        }
    }

    /**
     * Keys whose 32-bit hashes collide are told apart by their bytes: among 300,000 keys added and
     * 300,000 others probed, a few dozen pairs share a hash (the test finds them and needs some).
     */
    @Test
    void keysWithTheSameHashAreToldApart() {
        KeySet set = new KeySet();
        java.util.Map<Integer, Long> added = new java.util.HashMap<>();
        int collisionsAdded = 0;
        for (long i = 0; i < 300_000; i++) {
            byte[] key = key(i);
            int hash = KeySet.hash(key, key.length);
            assertTrue(set.add(key, key.length, hash));
            if (added.put(hash, i) != null) {
                collisionsAdded++;
            }
        }
        int collisionsProbed = 0;
        for (long i = 300_000; i < 600_000; i++) {
            byte[] key = key(i);
            int hash = KeySet.hash(key, key.length);
            if (added.containsKey(hash)) {
                collisionsProbed++;
            }
            assertFalse(set.contains(key, key.length, hash), "key " + i + " was never added");
        }
        for (long i = 0; i < 300_000; i++) {
            byte[] key = key(i);
            assertTrue(set.contains(key, key.length, KeySet.hash(key, key.length)), "key " + i);
        }
        assertTrue(
                collisionsAdded > 0 && collisionsProbed > 0,
                "hash collisions among the keys: " + collisionsAdded + " added, " + collisionsProbed + " probed");
    }

    /** A key as RowKeys writes a non-null long: a tag byte and eight little-endian bytes. */
    private static byte[] key(long value) {
        byte[] key = new byte[9];
        key[0] = 1;
        for (int b = 0; b < 8; b++) {
            key[1 + b] = (byte) (value >>> (8 * b));
        }
        return key;
    }

    @Test
    void aKeyIsItsBytesUpToItsLengthOnly() {
        KeySet set = new KeySet();
        byte[] buffer = {1, 2, 3, 4, 5, 6, 7, 8, 9};
        assertTrue(set.add(buffer, 8, KeySet.hash(buffer, 8)));
        buffer[8] = 42;
        assertTrue(set.contains(buffer, 8, KeySet.hash(buffer, 8)), "bytes past the length are not the key's");
        assertFalse(set.contains(buffer, 9, KeySet.hash(buffer, 9)));
        assertFalse(set.contains(buffer, 7, KeySet.hash(buffer, 7)));
    }

    @Test
    void itsHeapGrowsWithItsKeys() {
        KeySet set = new KeySet();
        long empty = set.bytes();
        byte[] key = new byte[9];
        for (int i = 0; i < 100_000; i++) {
            key[1] = (byte) i;
            key[2] = (byte) (i >> 8);
            key[3] = (byte) (i >> 16);
            set.add(key, key.length, KeySet.hash(key, key.length));
        }
        assertEquals(100_000, set.size());
        assertTrue(set.bytes() > empty + 100_000L * (9 + 4 + 4 + 4), "arena, starts, hashes, slots: " + set.bytes());
    }
}
