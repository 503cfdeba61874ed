//! Statistics as parquet-java computes them, and as Iceberg's metrics want
//! them.
//!
//! - Integers (and booleans, dates, times, timestamps, INT32/INT64 decimals)
//!   are ordered as signed numbers.
//! - Floats and doubles follow Java's `Float.compare`: -0.0 < +0.0, and NaN
//!   above everything. parquet-java's chunk statistics therefore have NaN as
//!   their max as soon as one NaN is present (readers drop such min/max), and
//!   its column index is omitted for a chunk with a NaN in any page. Iceberg's
//!   metrics leave NaN out instead and count it separately; the writer keeps
//!   both by tracking the NaN-free min/max and the NaN count.
//! - BYTE_ARRAY and FIXED_LEN_BYTE_ARRAY compare as unsigned bytes, except
//!   FIXED_LEN_BYTE_ARRAY decimals, which compare as big-endian signed integers.
//!
//! Min/max values are stored PLAIN-encoded without a length prefix, as the
//! footer and the column index hold them.

use std::cmp::Ordering;

use super::schema::Order;
use crate::arrow::buffer::NativeType;
use crate::parquet::encodings::FixedWidth;
use crate::parquet::format::PhysicalType;

/// A value type written by the numeric column writer (i32, i64, f32, f64:
/// `NativeType` is sealed to plain numbers).
pub(crate) trait Numeric: FixedWidth + NativeType {
    const FLOAT: bool;
    /// The raw bits, zero-extended: what the dictionary keys on, so that every
    /// distinct bit pattern (-0.0, NaN payloads) keeps its own entry.
    fn to_bits(self) -> u64;
    fn from_bits(bits: u64) -> Self;
    /// A key whose signed order is the column's order (Java's `compare` for
    /// floats, with every NaN equal and above +infinity).
    fn key(self) -> i64;
    fn is_nan(self) -> bool;
    /// The NaN Java's `floatToIntBits` / `doubleToLongBits` produce.
    fn canonical_nan() -> Self;
    /// For the column index: +0.0 as a min becomes -0.0, -0.0 as a max +0.0.
    fn widen_zero_min(self) -> Self;
    fn widen_zero_max(self) -> Self;
    fn min_value() -> Self;
    fn max_value() -> Self;
}

macro_rules! integer {
    ($t:ty) => {
        impl Numeric for $t {
            const FLOAT: bool = false;
            #[inline(always)]
            fn to_bits(self) -> u64 {
                self as u64 & (u64::MAX >> (64 - 8 * <$t as FixedWidth>::WIDTH))
            }
            #[inline(always)]
            fn from_bits(bits: u64) -> Self {
                bits as $t
            }
            #[inline(always)]
            fn key(self) -> i64 {
                self as i64
            }
            #[inline(always)]
            fn is_nan(self) -> bool {
                false
            }
            fn canonical_nan() -> Self {
                0
            }
            fn widen_zero_min(self) -> Self {
                self
            }
            fn widen_zero_max(self) -> Self {
                self
            }
            fn min_value() -> Self {
                <$t>::MIN
            }
            fn max_value() -> Self {
                <$t>::MAX
            }
        }
    };
}
integer!(i32);
integer!(i64);

macro_rules! float {
    ($t:ty, $bits:ty, $signed:ty, $nan:expr) => {
        impl Numeric for $t {
            const FLOAT: bool = true;
            #[inline(always)]
            fn to_bits(self) -> u64 {
                <$t>::to_bits(self) as u64
            }
            #[inline(always)]
            fn from_bits(bits: u64) -> Self {
                <$t>::from_bits(bits as $bits)
            }
            #[inline(always)]
            fn key(self) -> i64 {
                let bits = (if self.is_nan() {
                    $nan
                } else {
                    <$t>::to_bits(self)
                }) as $signed;
                // Negative numbers order backwards by magnitude: flip all but the sign.
                (bits ^ ((bits >> (<$signed>::BITS - 1)) as $bits >> 1) as $signed) as i64
            }
            #[inline(always)]
            fn is_nan(self) -> bool {
                <$t>::is_nan(self)
            }
            fn canonical_nan() -> Self {
                <$t>::from_bits($nan)
            }
            fn widen_zero_min(self) -> Self {
                if self == 0.0 {
                    -0.0
                } else {
                    self
                }
            }
            fn widen_zero_max(self) -> Self {
                if self == 0.0 {
                    0.0
                } else {
                    self
                }
            }
            fn min_value() -> Self {
                <$t>::NEG_INFINITY
            }
            fn max_value() -> Self {
                <$t>::INFINITY
            }
        }
    };
}
float!(f32, u32, i32, 0x7fc0_0000u32);
float!(f64, u64, i64, 0x7ff8_0000_0000_0000u64);

/// Min/max of numeric values without NaN, and the NaN count.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct NumericStats<T> {
    pub min: T,
    pub max: T,
    /// Non-null values other than NaN.
    pub count: u64,
    pub nans: u64,
}

impl<T: Numeric> Default for NumericStats<T> {
    fn default() -> Self {
        NumericStats {
            min: T::max_value(),
            max: T::min_value(),
            count: 0,
            nans: 0,
        }
    }
}

impl<T: Numeric> NumericStats<T> {
    /// Adds non-null values.
    #[inline]
    pub(crate) fn update(&mut self, values: &[T]) {
        if values.is_empty() {
            return;
        }
        if T::FLOAT {
            let (mut min, mut max) = (self.min.key(), self.max.key());
            let (mut min_v, mut max_v) = (self.min, self.max);
            if self.count == 0 {
                min = i64::MAX;
                max = i64::MIN;
            }
            let mut nans = 0;
            for &v in values {
                if v.is_nan() {
                    nans += 1;
                    continue;
                }
                let k = v.key();
                if k < min {
                    min = k;
                    min_v = v;
                }
                if k > max {
                    max = k;
                    max_v = v;
                }
            }
            self.nans += nans;
            self.count += values.len() as u64 - nans;
            if self.count > 0 {
                self.min = min_v;
                self.max = max_v;
            }
        } else {
            // Integers: keys are the values; one pass, branch-free.
            let (min, max) = values.iter().fold((i64::MAX, i64::MIN), |(min, max), v| {
                let k = v.key();
                (min.min(k), max.max(k))
            });
            if self.count == 0 || min < self.min.key() {
                self.min = T::from_bits(min as u64);
            }
            if self.count == 0 || max > self.max.key() {
                self.max = T::from_bits(max as u64);
            }
            self.count += values.len() as u64;
        }
    }

    pub(crate) fn merge(&mut self, other: &NumericStats<T>) {
        if other.count > 0 {
            if self.count == 0 || other.min.key() < self.min.key() {
                self.min = other.min;
            }
            if self.count == 0 || other.max.key() > self.max.key() {
                self.max = other.max;
            }
        }
        self.count += other.count;
        self.nans += other.nans;
    }

    /// parquet-java's min/max (Java's compare order, NaN included): None when
    /// there is no non-null value.
    pub(crate) fn parquet_bounds(&self) -> Option<(T, T)> {
        match (self.count, self.nans) {
            (0, 0) => None,
            (0, _) => Some((T::canonical_nan(), T::canonical_nan())),
            (_, 0) => Some((self.min, self.max)),
            _ => Some((self.min, T::canonical_nan())),
        }
    }

    /// Iceberg's bounds: NaN left out.
    pub(crate) fn iceberg_bounds(&self) -> Option<(T, T)> {
        (self.count > 0).then_some((self.min, self.max))
    }
}

/// The in-memory bytes of `values`, which on this (little-endian) target are
/// their PLAIN encoding.
pub(crate) fn as_bytes<T: NativeType>(values: &[T]) -> &[u8] {
    // SAFETY: NativeType types are plain numbers without padding, so every
    // byte of the slice is initialised; u8 has no alignment requirement.
    unsafe {
        std::slice::from_raw_parts(values.as_ptr().cast::<u8>(), std::mem::size_of_val(values))
    }
}

pub(crate) fn le_bytes<T: FixedWidth>(value: T) -> Vec<u8> {
    let mut out = Vec::with_capacity(T::WIDTH);
    T::encode_le(&[value], &mut out);
    out
}

/// Compares two PLAIN-encoded statistics values of a column.
pub(crate) fn compare(order: Order, physical: PhysicalType, a: &[u8], b: &[u8]) -> Ordering {
    fn int<const N: usize>(bytes: &[u8]) -> [u8; N] {
        let mut out = [0u8; N];
        out.copy_from_slice(&bytes[..N]);
        out
    }
    match (order, physical) {
        (Order::Signed, PhysicalType::Boolean) => a.cmp(b),
        (Order::Signed, PhysicalType::Int32) => {
            i32::from_le_bytes(int(a)).cmp(&i32::from_le_bytes(int(b)))
        }
        (Order::Signed, _) => i64::from_le_bytes(int(a)).cmp(&i64::from_le_bytes(int(b))),
        (Order::Float, PhysicalType::Float) => f32::from_le_bytes(int(a))
            .key()
            .cmp(&f32::from_le_bytes(int(b)).key()),
        (Order::Float, _) => f64::from_le_bytes(int(a))
            .key()
            .cmp(&f64::from_le_bytes(int(b)).key()),
        (Order::Unsigned, _) => a.cmp(b),
        (Order::SignedBytes, _) => compare_signed_bytes(a, b),
    }
}

/// Unsigned lexicographic order, as `<[u8]>::cmp`, eight bytes at a time
/// inline: string bounds compare each PLAIN value twice, and for strings of a
/// few dozen bytes the calls into `memcmp` cost more than the comparing.
#[inline(always)]
pub(crate) fn compare_unsigned_bytes(a: &[u8], b: &[u8]) -> Ordering {
    let n = a.len().min(b.len());
    let (a8, b8) = (a[..n].chunks_exact(8), b[..n].chunks_exact(8));
    let words = n - a8.remainder().len();
    for (x, y) in a8.zip(b8) {
        let x = u64::from_be_bytes(x.try_into().unwrap());
        let y = u64::from_be_bytes(y.try_into().unwrap());
        if x != y {
            return x.cmp(&y);
        }
    }
    for i in words..n {
        if a[i] != b[i] {
            return a[i].cmp(&b[i]);
        }
    }
    a.len().cmp(&b.len())
}

/// Big-endian two's complement integers, as parquet-java's
/// `BINARY_AS_SIGNED_INTEGER_COMPARATOR` compares decimal bytes (values of
/// different lengths are sign-extended).
pub(crate) fn compare_signed_bytes(a: &[u8], b: &[u8]) -> Ordering {
    let negative = |v: &[u8]| v.first().is_some_and(|&b| b & 0x80 != 0);
    let (na, nb) = (negative(a), negative(b));
    if na != nb {
        return if na {
            Ordering::Less
        } else {
            Ordering::Greater
        };
    }
    let pad = if na { 0xff } else { 0 };
    let len = a.len().max(b.len());
    let at = |v: &[u8], i: usize| {
        let lead = len - v.len();
        if i < lead {
            pad
        } else {
            v[i - lead]
        }
    };
    (0..len)
        .map(|i| at(a, i).cmp(&at(b, i)))
        .find(|o| o.is_ne())
        .unwrap_or(Ordering::Equal)
}

/// parquet-java's column index truncation length for binary min/max.
pub(crate) const COLUMN_INDEX_TRUNCATE: usize = 64;

/// A lower bound of `value` at most `length` bytes long (UTF-8 aware for
/// string columns whose value is valid UTF-8), as parquet-java's
/// `BinaryTruncator.truncateMin`.
pub(crate) fn truncate_min(value: &[u8], length: usize, utf8: bool) -> Vec<u8> {
    if value.len() <= length {
        return value.to_vec();
    }
    match std::str::from_utf8(value) {
        Ok(text) if utf8 => text.as_bytes()[..floor_char_boundary(text, length)].to_vec(),
        _ => value[..length].to_vec(),
    }
}

/// An upper bound of `value` at most `length` bytes long, or `value` itself
/// when no shorter bound exists, as `BinaryTruncator.truncateMax`.
pub(crate) fn truncate_max(value: &[u8], length: usize, utf8: bool) -> Vec<u8> {
    if value.len() <= length {
        return value.to_vec();
    }
    let bound = match std::str::from_utf8(value) {
        Ok(text) if utf8 => increment_utf8(&text[..floor_char_boundary(text, length)]),
        _ => increment_bytes(&value[..length]),
    };
    bound.unwrap_or_else(|| value.to_vec())
}

fn floor_char_boundary(text: &str, at: usize) -> usize {
    (0..=at.min(text.len()))
        .rev()
        .find(|&i| text.is_char_boundary(i))
        .unwrap_or(0)
}

/// The shortest prefix-and-increment: the last byte below 0xFF goes up by one
/// and everything after it is dropped.
fn increment_bytes(prefix: &[u8]) -> Option<Vec<u8>> {
    let mut out = prefix.to_vec();
    while let Some(last) = out.pop() {
        if last != 0xff {
            out.push(last + 1);
            return Some(out);
        }
    }
    None
}

/// The last code point goes up to the next valid one (skipping surrogates);
/// U+10FFFF is dropped and the one before it incremented instead.
fn increment_utf8(prefix: &str) -> Option<Vec<u8>> {
    let mut chars: Vec<char> = prefix.chars().collect();
    while let Some(last) = chars.pop() {
        let next = (last as u32 + 1..=0x10ffff).find_map(char::from_u32);
        if let Some(next) = next {
            chars.push(next);
            return Some(chars.into_iter().collect::<String>().into_bytes());
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn float_keys_follow_java_compare() {
        let ordered = [
            f64::NEG_INFINITY,
            -1e300,
            -1.0,
            -f64::MIN_POSITIVE,
            -0.0,
            0.0,
            f64::MIN_POSITIVE,
            1.0,
            f64::INFINITY,
            f64::NAN,
        ];
        for pair in ordered.windows(2) {
            assert!(pair[0].key() < pair[1].key(), "{pair:?}");
        }
        assert_eq!(f64::NAN.key(), (-f64::NAN).key(), "every NaN is the same");
        assert_eq!((-0.0f32).key() + 1, 0.0f32.key());
    }

    #[test]
    fn nan_is_counted_and_left_out() {
        let mut stats = NumericStats::<f32>::default();
        stats.update(&[f32::NAN, 2.0, -0.0, f32::NAN, 0.0]);
        assert_eq!((stats.count, stats.nans), (3, 2));
        let (min, max) = stats.iceberg_bounds().unwrap();
        assert_eq!((min.to_bits(), max), ((-0.0f32).to_bits(), 2.0));
        let (min, max) = stats.parquet_bounds().unwrap();
        assert_eq!(min.to_bits(), (-0.0f32).to_bits());
        assert_eq!(max.to_bits(), 0x7fc0_0000);
        let mut only_nan = NumericStats::<f64>::default();
        only_nan.update(&[f64::NAN]);
        assert!(only_nan.iceberg_bounds().is_none());
        assert!(only_nan.parquet_bounds().unwrap().0.is_nan());
        assert!(NumericStats::<i32>::default().parquet_bounds().is_none());
    }

    #[test]
    fn integer_stats_merge() {
        let mut a = NumericStats::<i64>::default();
        a.update(&[5, -3, 9]);
        let mut b = NumericStats::<i64>::default();
        b.update(&[i64::MIN]);
        a.merge(&b);
        a.merge(&NumericStats::default());
        assert_eq!((a.min, a.max, a.count), (i64::MIN, 9, 4));
    }

    #[test]
    fn unsigned_bytes_compare_as_slices() {
        // Every length up to three words, differing at each position, with
        // bytes on both sides of the sign bit, and prefixes of each other.
        let base: Vec<u8> = (0..24u8).map(|i| i.wrapping_mul(37) ^ 0x80).collect();
        let mut values = vec![Vec::new()];
        for len in 1..=base.len() {
            values.push(base[..len].to_vec());
            for at in 0..len {
                for byte in [0x00, 0x7f, 0x80, 0xff] {
                    let mut v = base[..len].to_vec();
                    v[at] = byte;
                    values.push(v);
                }
            }
        }
        for a in &values {
            for b in &values {
                assert_eq!(
                    compare_unsigned_bytes(a, b),
                    a.as_slice().cmp(b),
                    "{a:?} {b:?}"
                );
            }
        }
    }

    #[test]
    fn signed_bytes_compare_as_integers() {
        assert_eq!(compare_signed_bytes(&[0xff], &[0x00]), Ordering::Less);
        assert_eq!(
            compare_signed_bytes(&[0x7f, 0xff], &[0x80, 0x00]),
            Ordering::Greater
        );
        assert_eq!(
            compare_signed_bytes(&[0xff, 0xfe], &[0xfe]),
            Ordering::Equal
        );
        assert_eq!(
            compare_signed_bytes(&[0x01, 0x00], &[0x7f]),
            Ordering::Greater
        );
    }

    #[test]
    fn truncation_matches_parquet_java() {
        assert_eq!(truncate_min(b"abcdef", 3, false), b"abc");
        assert_eq!(truncate_max(b"abcdef", 3, false), b"abd");
        assert_eq!(truncate_max(b"ab\xff\xffzz", 4, false), b"ac");
        assert_eq!(truncate_max(b"\xff\xff\xff", 2, false), b"\xff\xff\xff");
        assert_eq!(truncate_max(b"abc", 3, false), b"abc");
        // "é" is two bytes: a 2-byte cut keeps only "a".
        assert_eq!(truncate_min("aéz".as_bytes(), 2, true), b"a");
        assert_eq!(truncate_max("aéz".as_bytes(), 2, true), b"b");
        assert_eq!(truncate_max("aéz".as_bytes(), 3, true), "aê".as_bytes());
        assert_eq!(
            truncate_max("a\u{10ffff}\u{10ffff}x".as_bytes(), 9, true),
            b"b"
        );
        assert_eq!(
            truncate_max("a\u{d7ff}b".as_bytes(), 4, true),
            "a\u{e000}".as_bytes()
        );
    }
}
