package dev.isthmus.iceberg.source;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * A set of byte-string keys ({@link dev.isthmus.arrow.flink.vector.RowKeys}) in a few flat arrays: the
 * keys' bytes one after another in one arena, each key's start and hash, and an open-addressing
 * table of key indexes. Probing a key allocates nothing, and the set's heap is a handful of
 * arrays whatever its size ({@link #bytes}). Built by one thread, then only read, by any thread
 * once published safely.
 *
 * <p>Most rows a reader probes are not deleted, and a large set's table and arena do not fit in
 * the CPU's caches: a filter of one 64-bit word per eight keys (two bits a key, in one word) turns
 * most of those probes away with one read that does (a few percent get through falsely and are
 * answered by the table).
 */
final class KeySet {
    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    private byte[] arena = new byte[256];
    private int used;
    /** Key {@code k} is {@code arena[starts[k], starts[k + 1])}. */
    private int[] starts = new int[17];

    private int[] hashes = new int[16];
    /** Key index + 1 per slot, 0 for empty; a power of two, at most half full. */
    private int[] slots = new int[32];
    /** One word per 16 slots, so eight bits a key or more. */
    private long[] filter = new long[2];

    private int size;

    /** The hash {@link #add} and {@link #contains} take for {@code key[0, length)}. */
    static int hash(byte[] key, int length) {
        long h = 0x9E3779B97F4A7C15L ^ length;
        int i = 0;
        for (; i + 8 <= length; i += 8) {
            h = Long.rotateLeft(h ^ ((long) LONGS.get(key, i) * 0xC2B2AE3D27D4EB4FL), 31) * 0x9E3779B97F4A7C15L;
        }
        long tail = 0;
        for (int shift = 0; i < length; i++, shift += 8) {
            tail |= (key[i] & 0xFFL) << shift;
        }
        h ^= tail * 0xC2B2AE3D27D4EB4FL;
        // Murmur3's finalizer: every input bit reaches the low bits the table masks.
        h ^= h >>> 33;
        h *= 0xFF51AFD7ED558CCDL;
        h ^= h >>> 33;
        h *= 0xC4CEB9FE1A85EC53L;
        h ^= h >>> 33;
        return (int) h;
    }

    /** Adds {@code key[0, length)} with its {@link #hash}; returns whether it was new. */
    boolean add(byte[] key, int length, int hash) {
        int mask = slots.length - 1;
        for (int slot = hash & mask; ; slot = (slot + 1) & mask) {
            int entry = slots[slot];
            if (entry == 0) {
                append(key, length, hash);
                slots[slot] = size;
                addToFilter(filter, hash);
                if (size * 2 > slots.length) {
                    rehash();
                }
                return true;
            }
            if (matches(entry - 1, key, length, hash)) {
                return false;
            }
        }
    }

    /** Whether the set holds {@code key[0, length)}, given its {@link #hash}. */
    boolean contains(byte[] key, int length, int hash) {
        long bits = filterBits(hash);
        if ((filter[filterWord(filter, hash)] & bits) != bits) {
            return false;
        }
        int mask = slots.length - 1;
        for (int slot = hash & mask; ; slot = (slot + 1) & mask) {
            int entry = slots[slot];
            if (entry == 0) {
                return false;
            }
            if (matches(entry - 1, key, length, hash)) {
                return true;
            }
        }
    }

    /** How many keys it holds. */
    int size() {
        return size;
    }

    /** The heap its arrays take. */
    long bytes() {
        return arena.length + 4L * (starts.length + hashes.length + slots.length) + 8L * filter.length;
    }

    /** The word of {@code hash}: from its high bits, as the table's slot comes from its low ones. */
    private static int filterWord(long[] filter, int hash) {
        return (hash >>> 12) & (filter.length - 1);
    }

    private static long filterBits(int hash) {
        return (1L << (hash & 63)) | (1L << ((hash >>> 6) & 63));
    }

    private static void addToFilter(long[] filter, int hash) {
        filter[filterWord(filter, hash)] |= filterBits(hash);
    }

    private boolean matches(int k, byte[] key, int length, int hash) {
        int start = starts[k];
        return hashes[k] == hash
                && starts[k + 1] - start == length
                && Arrays.equals(arena, start, start + length, key, 0, length);
    }

    private void append(byte[] key, int length, int hash) {
        if (used + length > arena.length) {
            long grown = Math.max((long) arena.length * 2, (long) used + length);
            if (grown > Integer.MAX_VALUE - 8) {
                throw new IllegalStateException("An equality delete set cannot hold more than 2 GiB of keys");
            }
            arena = Arrays.copyOf(arena, (int) grown);
        }
        System.arraycopy(key, 0, arena, used, length);
        used += length;
        if (size + 1 == hashes.length) {
            hashes = Arrays.copyOf(hashes, hashes.length * 2);
            starts = Arrays.copyOf(starts, hashes.length + 1);
        }
        hashes[size] = hash;
        size++;
        starts[size] = used;
    }

    private void rehash() {
        int[] table = new int[slots.length * 2];
        int mask = table.length - 1;
        for (int k = 0; k < size; k++) {
            int slot = hashes[k] & mask;
            while (table[slot] != 0) {
                slot = (slot + 1) & mask;
            }
            table[slot] = k + 1;
        }
        slots = table;
        long[] words = new long[table.length / 16];
        for (int k = 0; k < size; k++) {
            addToFilter(words, hashes[k]);
        }
        filter = words;
    }
}
