//! Little-endian bit packing, 32 values at a time: the inner loop of the
//! RLE/bit-packing hybrid and of DELTA_BINARY_PACKED.
//!
//! Values are packed from the least significant bit of the first byte, so 32
//! values of width `w` occupy exactly `4 * w` bytes. Each width has its own
//! monomorphised routine in which all 32 shifts and masks are constants:
//! the input is loaded as little-endian u64 words and every value is one or
//! two word extractions, with no loop or branch left after unrolling.

/// An unsigned integer type that unpacked values are widened or narrowed to.
pub(crate) trait Unpacked: Copy + Default {
    fn from_u64(value: u64) -> Self;
}

impl Unpacked for u32 {
    #[inline(always)]
    fn from_u64(value: u64) -> Self {
        value as u32
    }
}

impl Unpacked for u64 {
    #[inline(always)]
    fn from_u64(value: u64) -> Self {
        value
    }
}

/// Expands `$body` 32 times with `$i` bound to 0..32, so that every index is a
/// constant the optimiser folds, whatever its unrolling heuristics decide.
macro_rules! unroll32 {
    ($i:ident, $body:block) => {
        unroll32!(@ $i, $body,
            0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15
            16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31)
    };
    (@ $i:ident, $body:block, $($n:literal)*) => {
        $( { let $i: usize = $n; $body } )*
    };
}

/// Loads the `4 * W` bytes of 32 packed values as little-endian words; the
/// extra word keeps the two-word extraction of the last value in bounds.
#[inline(always)]
fn load_words<const W: usize>(input: &[u8]) -> [u64; 33] {
    let mut words = [0u64; 33];
    let Some(bytes) = input.get(..4 * W) else {
        return words;
    };
    let (chunks, tail) = bytes.as_chunks::<8>();
    for (word, chunk) in words.iter_mut().zip(chunks) {
        *word = u64::from_le_bytes(*chunk);
    }
    if let (Ok(tail), Some(word)) = (<[u8; 4]>::try_from(tail), words.get_mut(chunks.len())) {
        *word = u64::from(u32::from_le_bytes(tail));
    }
    words
}

/// `W` must be in 1..=64 and `input` must hold `4 * W` bytes.
#[inline(always)]
fn unpack_width<T: Unpacked, const W: usize>(input: &[u8], out: &mut [T; 32]) {
    let words = load_words::<W>(input);
    let mask = u64::MAX >> (64 - W);
    unroll32!(i, {
        let bit = i * W;
        let word = bit / 64;
        let shift = bit % 64;
        let mut value = words[word] >> shift;
        if shift + W > 64 {
            value |= words[word + 1] << (64 - shift);
        }
        out[i] = T::from_u64(value & mask);
    });
}

macro_rules! dispatch_unpack {
    ($width:expr, $input:expr, $out:expr, $($w:literal)*) => {
        match $width {
            $($w => unpack_width::<_, $w>($input, $out),)*
            _ => *$out = Default::default(),
        }
    };
}

/// Unpacks 32 values of `bit_width` (at most 32) bits. Missing input bytes
/// read as zeros, which lets callers decode a truncated final run the way
/// parquet-java does instead of failing on padding that was never written.
pub(crate) fn unpack32_u32(input: &[u8], out: &mut [u32; 32], bit_width: usize) {
    let needed = 4 * bit_width;
    let mut padded = [0u8; 4 * 32];
    let input = if input.len() >= needed {
        input
    } else {
        let available = input.len().min(padded.len());
        padded[..available].copy_from_slice(&input[..available]);
        &padded[..]
    };
    dispatch_unpack!(bit_width, input, out,
        1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16
        17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32);
}

/// Unpacks 32 values of `bit_width` (at most 64) bits; see [`unpack32_u32`].
pub(crate) fn unpack32_u64(input: &[u8], out: &mut [u64; 32], bit_width: usize) {
    let needed = 4 * bit_width;
    let mut padded = [0u8; 4 * 64];
    let input = if input.len() >= needed {
        input
    } else {
        let available = input.len().min(padded.len());
        padded[..available].copy_from_slice(&input[..available]);
        &padded[..]
    };
    dispatch_unpack!(bit_width, input, out,
        1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16
        17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32
        33 34 35 36 37 38 39 40 41 42 43 44 45 46 47 48
        49 50 51 52 53 54 55 56 57 58 59 60 61 62 63 64);
}

/// `W` must be in 1..=64; bits of `values` above `W` are dropped.
#[inline(always)]
fn pack_width<const W: usize>(values: &[u64; 32], out: &mut Vec<u8>) {
    let mut words = [0u64; 33];
    let mask = u64::MAX >> (64 - W);
    unroll32!(i, {
        let value = values[i] & mask;
        let bit = i * W;
        let word = bit / 64;
        let shift = bit % 64;
        words[word] |= value << shift;
        if shift + W > 64 {
            words[word + 1] |= value >> (64 - shift);
        }
    });
    let bytes = 4 * W;
    for word in &words[..bytes / 8] {
        out.extend_from_slice(&word.to_le_bytes());
    }
    if !bytes.is_multiple_of(8) {
        out.extend_from_slice(&words[bytes / 8].to_le_bytes()[..4]);
    }
}

/// Appends 32 values packed at `bit_width` (0..=64) bits: `4 * bit_width` bytes.
pub(crate) fn pack32_u64(values: &[u64; 32], bit_width: usize, out: &mut Vec<u8>) {
    macro_rules! dispatch_pack {
        ($($w:literal)*) => {
            match bit_width {
                $($w => pack_width::<$w>(values, out),)*
                _ => {}
            }
        };
    }
    dispatch_pack!(
        1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16
        17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32
        33 34 35 36 37 38 39 40 41 42 43 44 45 46 47 48
        49 50 51 52 53 54 55 56 57 58 59 60 61 62 63 64);
}

/// The number of bits needed to represent `max`: 0 for 0.
pub(crate) fn bit_width(max: u64) -> u8 {
    (64 - max.leading_zeros()) as u8
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Packs with a plain bit loop, the definition the fast paths must match.
    fn reference_pack(values: &[u64], bit_width: usize) -> Vec<u8> {
        let mut out = vec![0u8; (values.len() * bit_width).div_ceil(8)];
        for (i, &v) in values.iter().enumerate() {
            for b in 0..bit_width {
                if (v >> b) & 1 == 1 {
                    let bit = i * bit_width + b;
                    out[bit / 8] |= 1 << (bit % 8);
                }
            }
        }
        out
    }

    fn values_for(bit_width: usize, seed: u64) -> [u64; 32] {
        let mask = if bit_width == 0 {
            0
        } else {
            u64::MAX >> (64 - bit_width)
        };
        let mut state = seed | 1;
        std::array::from_fn(|i| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            // Include the extremes: all ones and zero.
            match i {
                0 => mask,
                1 => 0,
                _ => state & mask,
            }
        })
    }

    #[test]
    fn every_width_matches_the_bit_loop_both_ways() {
        for width in 0..=64 {
            let values = values_for(width, width as u64 * 7919 + 1);
            let expected = reference_pack(&values, width);
            let mut packed = Vec::new();
            pack32_u64(&values, width, &mut packed);
            assert_eq!(packed, expected, "pack width {width}");
            let mut out = [0u64; 32];
            unpack32_u64(&packed, &mut out, width);
            assert_eq!(out, values, "unpack64 width {width}");
            if width <= 32 {
                let mut out32 = [0u32; 32];
                unpack32_u32(&packed, &mut out32, width);
                assert!(
                    out32.iter().zip(&values).all(|(&a, &b)| u64::from(a) == b),
                    "width {width}"
                );
            }
        }
    }

    #[test]
    fn short_input_reads_as_zero_padding() {
        for width in [1usize, 7, 13, 32] {
            let values = values_for(width, 99);
            let mut packed = Vec::new();
            pack32_u64(&values, width, &mut packed);
            let keep = packed.len() / 2;
            let mut truncated = packed[..keep].to_vec();
            let mut out = [0u32; 32];
            unpack32_u32(&truncated, &mut out, width);
            truncated.resize(packed.len(), 0);
            let mut expected = [0u32; 32];
            unpack32_u32(&truncated, &mut expected, width);
            assert_eq!(out, expected);
        }
    }

    #[test]
    fn bit_width_of_maxima() {
        assert_eq!(bit_width(0), 0);
        assert_eq!(bit_width(1), 1);
        assert_eq!(bit_width(255), 8);
        assert_eq!(bit_width(256), 9);
        assert_eq!(bit_width(u64::MAX), 64);
    }
}
