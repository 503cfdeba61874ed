//! Dictionary building: open-addressing tables from values to dictionary
//! indices, with a cheap multiplicative hash (FxHash's round for byte strings,
//! Fibonacci hashing for fixed-width values).
//!
//! The tables hold only indices; the values themselves live in the
//! dictionary's own storage (for byte arrays, the PLAIN-encoded dictionary page
//! body), so inserting a value allocates nothing per entry, unlike a
//! `HashMap<Vec<u8>, u32>`.

/// FxHash's multiplier (also rustc's).
const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;
/// 2^64 / golden ratio, for Fibonacci hashing.
const GOLDEN: u64 = 0x9e37_79b9_7f4a_7c15;

/// Hashes a byte string 8 bytes at a time with FxHash's round, then mixes the
/// result so that the high bits (which pick the slot) depend on every byte.
#[inline]
pub(crate) fn hash_bytes(bytes: &[u8]) -> u64 {
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
/// buffer first made the load wait for the byte stores, on every short
/// string the dictionary hashes.
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

/// `a == b`, without a call to `memcmp` for strings shorter than a word
/// (dictionary columns are mostly short strings, every lookup compares one).
#[inline]
fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    match a.len() {
        n if n != b.len() => false,
        0 => true,
        1..8 => tail_word(a) == tail_word(b),
        _ => a == b,
    }
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

/// Distinct byte strings in insertion order, stored back to back in `data` as
/// a PLAIN dictionary page body: with a 4-byte length prefix for BYTE_ARRAY,
/// without for FIXED_LEN_BYTE_ARRAY.
#[derive(Debug)]
pub(crate) struct BytesInterner {
    slots: Slots,
    /// Where each value's bytes start in `data` (after any prefix), and its length.
    spans: Vec<(u32, u32)>,
    hashes: Vec<u64>,
    data: Vec<u8>,
    prefixed: bool,
}

impl BytesInterner {
    pub(crate) fn new(prefixed: bool) -> BytesInterner {
        BytesInterner {
            slots: Slots::with_bits(INITIAL_BITS),
            spans: Vec::new(),
            hashes: Vec::new(),
            data: Vec::new(),
            prefixed,
        }
    }

    /// The index of `value`, and whether it was inserted now. The caller keeps
    /// the dictionary far below 4 GiB (its size limit is at most 1 GiB).
    #[inline]
    pub(crate) fn intern(&mut self, value: &[u8]) -> (u32, bool) {
        let hash = hash_bytes(value);
        let mask = self.slots.mask();
        let mut slot = self.slots.start(hash);
        loop {
            let entry = self.slots.slots[slot];
            if entry == 0 {
                break;
            }
            let index = (entry - 1) as usize;
            if self.hashes[index] == hash && same_bytes(self.value(index), value) {
                return (index as u32, false);
            }
            slot = (slot + 1) & mask;
        }
        let index = self.spans.len() as u32;
        if self.prefixed {
            self.data
                .extend_from_slice(&(value.len() as u32).to_le_bytes());
        }
        self.spans
            .push((self.data.len() as u32, value.len() as u32));
        self.data.extend_from_slice(value);
        self.hashes.push(hash);
        self.slots.slots[slot] = index + 1;
        if self.slots.needs_growth(self.spans.len()) {
            self.slots.grow(self.hashes.iter().copied());
        }
        (index, true)
    }

    #[inline]
    pub(crate) fn value(&self, index: usize) -> &[u8] {
        let (start, len) = self.spans[index];
        &self.data[start as usize..start as usize + len as usize]
    }

    pub(crate) fn len(&self) -> usize {
        self.spans.len()
    }

    /// The PLAIN encoding of the first `entries` values: the dictionary page body.
    pub(crate) fn page_body(&self, entries: usize) -> &[u8] {
        let end = match entries {
            0 => 0,
            n => {
                let (start, len) = self.spans[n - 1];
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

    #[test]
    fn bytes_intern_into_a_plain_page() {
        let mut interner = BytesInterner::new(true);
        let words: Vec<String> = (0..3000).map(|i| format!("w{}", i % 1000)).collect();
        for (i, word) in words.iter().enumerate() {
            let (index, new) = interner.intern(word.as_bytes());
            assert_eq!(index as usize, i % 1000);
            assert_eq!(new, i < 1000);
        }
        assert_eq!(interner.value(12), b"w12");
        let (empty, new) = interner.intern(b"");
        assert!(new);
        assert_eq!(interner.value(empty as usize), b"");
        assert_eq!(interner.page_body(2), b"\x02\0\0\0w0\x02\0\0\0w1");
        let mut fixed = BytesInterner::new(false);
        fixed.intern(b"abcd");
        fixed.intern(b"efgh");
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

    #[test]
    fn short_strings_compare_by_content() {
        let words: [&[u8]; 7] = [b"", b"a", b"b", b"ab", b"abcdefg", b"abcdefh", b"abcdefgh"];
        for a in words {
            for b in words {
                assert_eq!(same_bytes(a, b), a == b, "{a:?} {b:?}");
            }
        }
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
