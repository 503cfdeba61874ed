//! Dictionary building: open-addressing tables from values to dictionary
//! indices, with a cheap multiplicative hash (FxHash's round for byte strings,
//! Fibonacci hashing for fixed-width values).
//!
//! The tables hold only indices; the values themselves live in the
//! dictionary's own storage (for byte arrays, the PLAIN-encoded dictionary page
//! body beside a fixed-size record per entry), so inserting a value allocates
//! nothing of its own, unlike a `HashMap<Vec<u8>, u32>`.

/// FxHash's multiplier (also rustc's).
const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;
/// 2^64 / golden ratio, for Fibonacci hashing.
const GOLDEN: u64 = 0x9e37_79b9_7f4a_7c15;

/// Hashes a byte string longer than 16 bytes (shorter ones: `hash_head`) 8
/// bytes at a time with FxHash's round, then mixes the result so that the high
/// bits (which pick the slot) depend on every byte.
#[inline]
fn hash_bytes(bytes: &[u8]) -> u64 {
    let mut hash = (bytes.len() as u64).wrapping_mul(SEED);
    let (chunks, tail) = bytes.as_chunks::<8>();
    for chunk in chunks {
        hash = (hash.rotate_left(5) ^ u64::from_le_bytes(*chunk)).wrapping_mul(SEED);
    }
    if !tail.is_empty() {
        hash = (hash.rotate_left(5) ^ tail_word(tail)).wrapping_mul(SEED);
    }
    mix(hash)
}

/// The 1 to 7 bytes of `tail` as a little-endian word, zero-padded, read
/// with (overlapping) loads of whole words: copying them into a padded
/// buffer first made the load wait for the byte stores.
#[inline]
fn tail_word(tail: &[u8]) -> u64 {
    let len = tail.len();
    if len >= 4 {
        let word = |at: usize| {
            let bytes: [u8; 4] = tail[at..at + 4].try_into().unwrap_or_default();
            u64::from(u32::from_le_bytes(bytes))
        };
        // The words overlap where both hold the same bytes at the same place.
        return word(0) | word(len - 4) << ((len - 4) * 8);
    }
    let byte = |at: usize| u64::from(tail[at]) << (at * 8);
    byte(0) | byte(len / 2) | byte(len - 1)
}

/// Fibonacci hashing of a fixed-width value's bits.
#[inline]
pub(crate) fn hash_u64(bits: u64) -> u64 {
    mix(bits.wrapping_mul(GOLDEN))
}

#[inline]
fn mix(hash: u64) -> u64 {
    (hash ^ (hash >> 29)).wrapping_mul(GOLDEN)
}

/// Slots hold `index + 1`; 0 is empty. The capacity is a power of two and at
/// most half full, so probes stay short.
#[derive(Debug, Default)]
struct Slots {
    slots: Vec<u32>,
    shift: u32,
}

impl Slots {
    fn with_bits(bits: u32) -> Slots {
        Slots {
            slots: vec![0; 1 << bits],
            shift: 64 - bits,
        }
    }

    #[inline]
    fn start(&self, hash: u64) -> usize {
        (hash >> self.shift) as usize
    }

    #[inline]
    fn mask(&self) -> usize {
        self.slots.len() - 1
    }

    fn needs_growth(&self, entries: usize) -> bool {
        (entries + 1) * 2 > self.slots.len()
    }

    /// Rebuilds the table twice as large from the entries' hashes.
    fn grow(&mut self, hashes: impl Iterator<Item = u64>) {
        let bits = 64 - self.shift + 1;
        let mut grown = Slots::with_bits(bits);
        let mask = grown.mask();
        for (index, hash) in hashes.enumerate() {
            let mut slot = grown.start(hash);
            while grown.slots[slot] != 0 {
                slot = (slot + 1) & mask;
            }
            grown.slots[slot] = index as u32 + 1;
        }
        *self = grown;
    }
}

const INITIAL_BITS: u32 = 10;

/// Distinct fixed-width values (their bit patterns) in insertion order.
#[derive(Debug)]
pub(crate) struct ValueInterner {
    slots: Slots,
    values: Vec<u64>,
}

impl Default for ValueInterner {
    fn default() -> Self {
        ValueInterner {
            slots: Slots::with_bits(INITIAL_BITS),
            values: Vec::new(),
        }
    }
}

impl ValueInterner {
    /// The index of `bits`, and whether it was inserted now.
    #[inline]
    pub(crate) fn intern(&mut self, bits: u64) -> (u32, bool) {
        let mask = self.slots.mask();
        let mut slot = self.slots.start(hash_u64(bits));
        loop {
            let entry = self.slots.slots[slot];
            if entry == 0 {
                break;
            }
            let index = entry - 1;
            if self.values[index as usize] == bits {
                return (index, false);
            }
            slot = (slot + 1) & mask;
        }
        let index = self.values.len() as u32;
        self.values.push(bits);
        self.slots.slots[slot] = index + 1;
        if self.slots.needs_growth(self.values.len()) {
            self.slots.grow(self.values.iter().map(|&v| hash_u64(v)));
        }
        (index, true)
    }

    pub(crate) fn len(&self) -> usize {
        self.values.len()
    }

    /// Every value's bits, by index.
    pub(crate) fn values(&self) -> &[u64] {
        &self.values
    }

    pub(crate) fn clear(&mut self) {
        *self = ValueInterner::default();
    }
}

/// The longest value whose whole key is its head: compared and hashed as two
/// words, with no branch on its length and no call to `memcmp`.
const HEAD_BYTES: usize = 16;

/// A dictionary entry, with what a lookup compares in one place: a probe
/// that finds it reads one entry, not a hash, then a span, then the bytes.
#[derive(Debug, Clone, Copy)]
struct Entry {
    hash: u64,
    /// The first 16 bytes of the value, zero-padded.
    head: [u64; 2],
    /// Where the value's bytes start in `data` (after any prefix).
    start: u32,
    len: u32,
}

/// A value as a lookup sees it: its bytes, its head, its hash.
struct Key<'a> {
    bytes: &'a [u8],
    head: [u64; 2],
    hash: u64,
}

impl<'a> Key<'a> {
    /// The key of `data[start..end]`. Where 16 bytes from `start` lie within
    /// `data`, the head is read as two whole words and masked to the value's
    /// length; a value that short is hashed from its head alone.
    #[inline(always)]
    fn at(data: &'a [u8], start: usize, end: usize) -> Key<'a> {
        let bytes = &data[start..end];
        let head = match data.get(start..start + HEAD_BYTES) {
            Some(window) => {
                let (words, _) = window.as_chunks::<8>();
                let len = bytes.len();
                [
                    low_bytes(u64::from_le_bytes(words[0]), len),
                    low_bytes(u64::from_le_bytes(words[1]), len.saturating_sub(8)),
                ]
            }
            None => head_of(bytes),
        };
        Key::with_head(bytes, head)
    }

    #[inline(always)]
    fn with_head(bytes: &'a [u8], head: [u64; 2]) -> Key<'a> {
        let hash = if bytes.len() <= HEAD_BYTES {
            hash_head(head, bytes.len())
        } else {
            hash_bytes(bytes)
        };
        Key { bytes, head, hash }
    }
}

/// The low `n` bytes of `word` (all of them from 8 on).
#[inline(always)]
fn low_bytes(word: u64, n: usize) -> u64 {
    if n >= 8 {
        word
    } else {
        word & ((1u64 << (n * 8)) - 1)
    }
}

/// The first 16 bytes of `bytes`, zero-padded, as two little-endian words,
/// read within `bytes` (a value that ends its buffer).
fn head_of(bytes: &[u8]) -> [u64; 2] {
    let word = |part: &[u8]| match part.first_chunk::<8>() {
        Some(whole) => u64::from_le_bytes(*whole),
        None if part.is_empty() => 0,
        None => tail_word(part),
    };
    [word(bytes), word(bytes.get(8..).unwrap_or_default())]
}

/// The hash of a value of at most 16 bytes from its head: the same rounds for
/// every length, so a column of short strings of mixed lengths hashes without
/// a mispredicted branch (`hash_bytes`'s loop and tail depend on the length).
#[inline(always)]
fn hash_head(head: [u64; 2], len: usize) -> u64 {
    let hash = (len as u64).wrapping_mul(SEED);
    let hash = (hash.rotate_left(5) ^ head[0]).wrapping_mul(SEED);
    mix((hash.rotate_left(5) ^ head[1]).wrapping_mul(SEED))
}

/// Distinct byte strings in insertion order, stored back to back in `data` as
/// a PLAIN dictionary page body: with a 4-byte length prefix for BYTE_ARRAY,
/// without for FIXED_LEN_BYTE_ARRAY.
#[derive(Debug)]
pub(crate) struct BytesInterner {
    slots: Slots,
    entries: Vec<Entry>,
    data: Vec<u8>,
    prefixed: bool,
}

impl BytesInterner {
    pub(crate) fn new(prefixed: bool) -> BytesInterner {
        BytesInterner {
            slots: Slots::with_bits(INITIAL_BITS),
            entries: Vec::new(),
            data: Vec::new(),
            prefixed,
        }
    }

    /// The index of `data[start..end]`, and whether it was inserted now. The
    /// bytes around the value may be read (never kept): a column's values are
    /// looked up where they lie in its data buffer.
    #[inline]
    pub(crate) fn intern_at(&mut self, data: &[u8], start: usize, end: usize) -> (u32, bool) {
        self.intern_key(Key::at(data, start, end))
    }

    /// The caller keeps the dictionary far below 4 GiB (its size limit is at
    /// most 1 GiB).
    #[inline(always)]
    fn intern_key(&mut self, key: Key<'_>) -> (u32, bool) {
        let len = key.bytes.len();
        let mask = self.slots.mask();
        let mut slot = self.slots.start(key.hash);
        loop {
            let entry = self.slots.slots[slot];
            if entry == 0 {
                break;
            }
            let index = (entry - 1) as usize;
            let found = &self.entries[index];
            // One branch for the usual hit: a short value is all in its head.
            if (found.hash == key.hash) & (found.len as usize == len) & (found.head == key.head)
                && (len <= HEAD_BYTES || self.value(index)[HEAD_BYTES..] == key.bytes[HEAD_BYTES..])
            {
                return (index as u32, false);
            }
            slot = (slot + 1) & mask;
        }
        let index = self.entries.len() as u32;
        if self.prefixed {
            self.data.extend_from_slice(&(len as u32).to_le_bytes());
        }
        self.entries.push(Entry {
            hash: key.hash,
            head: key.head,
            start: self.data.len() as u32,
            len: len as u32,
        });
        self.data.extend_from_slice(key.bytes);
        self.slots.slots[slot] = index + 1;
        if self.slots.needs_growth(self.entries.len()) {
            self.slots.grow(self.entries.iter().map(|e| e.hash));
        }
        (index, true)
    }

    #[inline]
    pub(crate) fn value(&self, index: usize) -> &[u8] {
        let Entry { start, len, .. } = self.entries[index];
        &self.data[start as usize..start as usize + len as usize]
    }

    pub(crate) fn len(&self) -> usize {
        self.entries.len()
    }

    /// The PLAIN encoding of the first `entries` values: the dictionary page body.
    pub(crate) fn page_body(&self, entries: usize) -> &[u8] {
        let end = match entries {
            0 => 0,
            n => {
                let Entry { start, len, .. } = self.entries[n - 1];
                start as usize + len as usize
            }
        };
        &self.data[..end]
    }

    pub(crate) fn clear(&mut self) {
        *self = BytesInterner::new(self.prefixed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_intern_in_order() {
        let mut interner = ValueInterner::default();
        for round in 0..2 {
            for i in 0..5000u64 {
                let (index, new) = interner.intern(i * 7919);
                assert_eq!(index as u64, i);
                assert_eq!(new, round == 0);
            }
        }
        assert_eq!(interner.len(), 5000);
        assert_eq!(interner.values()[3], 3 * 7919);
    }

    /// Interns `value` as the only bytes of its buffer: under 16 bytes, its head is
    /// read within the value.
    fn intern(interner: &mut BytesInterner, value: &[u8]) -> (u32, bool) {
        interner.intern_at(value, 0, value.len())
    }

    #[test]
    fn bytes_intern_into_a_plain_page() {
        let mut interner = BytesInterner::new(true);
        let words: Vec<String> = (0..3000).map(|i| format!("w{}", i % 1000)).collect();
        for (i, word) in words.iter().enumerate() {
            let (index, new) = intern(&mut interner, word.as_bytes());
            assert_eq!(index as usize, i % 1000);
            assert_eq!(new, i < 1000);
        }
        assert_eq!(interner.value(12), b"w12");
        let (empty, new) = intern(&mut interner, b"");
        assert!(new);
        assert_eq!(interner.value(empty as usize), b"");
        assert_eq!(interner.page_body(2), b"\x02\0\0\0w0\x02\0\0\0w1");
        let mut fixed = BytesInterner::new(false);
        intern(&mut fixed, b"abcd");
        intern(&mut fixed, b"efgh");
        assert_eq!(fixed.page_body(2), b"abcdefgh");
        assert_eq!(fixed.page_body(1), b"abcd");
    }

    #[test]
    fn tail_words_are_the_padded_bytes() {
        let bytes: Vec<u8> = (1..=7).map(|b| b * 0x11).collect();
        for len in 1..=7 {
            let mut padded = [0u8; 8];
            padded[..len].copy_from_slice(&bytes[..len]);
            assert_eq!(
                tail_word(&bytes[..len]),
                u64::from_le_bytes(padded),
                "{len}"
            );
        }
    }

    /// Values of 0 to 40 bytes over three symbols, zero among them (so that
    /// some differ only by trailing zeros, some only past their first 16
    /// bytes), each looked up where it lies among random neighbours and alone
    /// in its buffer: both ways find the same entry, which holds the value.
    #[test]
    fn values_intern_alike_wherever_they_lie() {
        let mut rng = crate::test_support::rng::Rng::new(11);
        let mut interner = BytesInterner::new(true);
        let mut expected: std::collections::HashMap<Vec<u8>, u32> = Default::default();
        let mut page = Vec::new();
        for _ in 0..20_000 {
            let value: Vec<u8> = (0..rng.below(41))
                .map(|_| [0, b'a', b'b'][rng.below(3)])
                .collect();
            let before = rng.below(4);
            let mut data: Vec<u8> = (0..before).map(|_| rng.byte()).collect();
            data.extend_from_slice(&value);
            data.extend((0..rng.below(24)).map(|_| rng.byte()));
            let next = expected.len() as u32;
            let index = *expected.entry(value.clone()).or_insert_with(|| {
                page.extend_from_slice(&(value.len() as u32).to_le_bytes());
                page.extend_from_slice(&value);
                next
            });
            let within = interner.intern_at(&data, before, before + value.len());
            assert_eq!(within, (index, index == next), "{value:?}");
            assert_eq!(intern(&mut interner, &value), (index, false), "{value:?}");
            assert_eq!(interner.value(index as usize), value.as_slice());
        }
        assert!(expected.len() > 5_000, "{} distinct values", expected.len());
        assert_eq!(interner.len(), expected.len());
        assert_eq!(interner.page_body(interner.len()), page.as_slice());
    }

    #[test]
    fn hashes_spread_similar_keys() {
        let mut starts = std::collections::HashSet::new();
        for i in 0..1024u32 {
            let key = format!("https://www.nexmark.com/google/item.htm?query=1&channel_id={i}");
            starts.insert(hash_bytes(key.as_bytes()) >> 54);
        }
        assert!(
            starts.len() > 550,
            "{} distinct slots of 1024",
            starts.len()
        );
    }
}
