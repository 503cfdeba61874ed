//! The RLE / bit-packing hybrid: levels, dictionary indices and RLE booleans.
//!
//! A stream is a sequence of runs, each introduced by a ULEB128 header whose low
//! bit says which kind follows:
//! - `count << 1`: an RLE run, `count` copies of one value stored in
//!   `ceil(bit_width / 8)` little-endian bytes;
//! - `groups << 1 | 1`: a bit-packed run of `groups * 8` values, `groups *
//!   bit_width` bytes packed LSB-first.
//!
//! The stream itself carries neither its length nor its bit width; the framing
//! differs by use and lives with the callers:
//! - v1 data page levels: a 4-byte little-endian byte length, then the runs
//!   (see [`super::levels`]);
//! - v2 data page levels: just the runs, their lengths are in the page header;
//! - dictionary indices: one byte of bit width, then runs up to the end of the
//!   page ([`RleDecoder::dictionary_indices`]);
//! - RLE-encoded BOOLEAN values: a 4-byte length, then runs of width 1
//!   ([`RleDecoder::booleans`]).
//!
//! The decoder is told how many values the stream holds. Runs that claim more
//! are rejected, except for the zero padding that completes the last
//! bit-packed group of eight. A final bit-packed run cut short by the end of the
//! data is accepted as far as its bytes go, as parquet-java reads it.

use super::bit_pack::{bit_width, unpack32_u32};
use super::split_length_prefixed;
use crate::error::{Error, Result};

/// A type decoded RLE values are stored as. The decoder guarantees values fit
/// the stream's bit width, and callers choose bit widths that fit the type.
pub trait RleValue: Copy + Default {
    fn from_u32(value: u32) -> Self;
}

impl RleValue for u32 {
    #[inline(always)]
    fn from_u32(value: u32) -> Self {
        value
    }
}

impl RleValue for i16 {
    #[inline(always)]
    fn from_u32(value: u32) -> Self {
        value as i16
    }
}

impl RleValue for bool {
    #[inline(always)]
    fn from_u32(value: u32) -> Self {
        value != 0
    }
}

/// Decodes an RLE/bit-packed hybrid stream in batches.
pub struct RleDecoder<'a> {
    data: &'a [u8],
    pos: usize,
    bit_width: usize,
    /// Values the caller has yet to read.
    remaining: usize,
    /// Values not yet covered by a run header.
    unclaimed: usize,
    /// Total values, for error messages.
    num_values: usize,
    rle_left: usize,
    rle_value: u32,
    /// The not yet unpacked bytes and values of the current bit-packed run.
    packed: &'a [u8],
    packed_left: usize,
    buffer: [u32; 32],
    buffer_pos: usize,
    buffer_len: usize,
}

impl<'a> RleDecoder<'a> {
    /// A decoder for `num_values` values of `bit_width` (at most 32) bits in
    /// `data`, which holds only the runs.
    pub fn new(data: &'a [u8], bit_width: u8, num_values: usize) -> Result<Self> {
        if bit_width > 32 {
            return Err(Error::corrupt_data(format!(
                "RLE bit width {bit_width} exceeds 32"
            )));
        }
        Ok(RleDecoder {
            data,
            pos: 0,
            bit_width: usize::from(bit_width),
            remaining: num_values,
            unclaimed: num_values,
            num_values,
            rle_left: 0,
            rle_value: 0,
            packed: &[],
            packed_left: 0,
            buffer: [0; 32],
            buffer_pos: 0,
            buffer_len: 0,
        })
    }

    /// Dictionary indices as a data page stores them: a bit-width byte, then
    /// the runs up to the end of `data`.
    pub fn dictionary_indices(data: &'a [u8], num_values: usize) -> Result<Self> {
        let Some((&width, runs)) = data.split_first() else {
            if num_values == 0 {
                return RleDecoder::new(data, 0, 0);
            }
            return Err(Error::corrupt_data(format!(
                "dictionary indices for {num_values} values are empty"
            )));
        };
        RleDecoder::new(runs, width, num_values).map_err(|e| e.context("dictionary indices"))
    }

    /// RLE-encoded booleans: a 4-byte length, then runs of width 1. Returns the
    /// decoder and the bytes the encoding takes, prefix included.
    pub fn booleans(data: &'a [u8], num_values: usize) -> Result<(Self, usize)> {
        let (runs, consumed) = split_length_prefixed(data, "RLE boolean data")?;
        Ok((RleDecoder::new(runs, 1, num_values)?, consumed))
    }

    /// Values not yet read.
    #[cfg(test)]
    pub(crate) fn remaining(&self) -> usize {
        self.remaining
    }

    fn error(&self, what: impl std::fmt::Display) -> Error {
        Error::corrupt_data(format!(
            "RLE data ({} bytes, {} values of {} bits): {what}",
            self.data.len(),
            self.num_values,
            self.bit_width
        ))
    }

    fn read_header(&mut self) -> Result<u32> {
        let start = self.pos;
        let mut value = 0u32;
        for shift in (0..35).step_by(7) {
            let Some(&byte) = self.data.get(self.pos) else {
                return Err(self.error(format_args!(
                    "the data ends after {} of the values",
                    self.num_values.saturating_sub(self.remaining_unread())
                )));
            };
            self.pos += 1;
            let bits = u32::from(byte & 0x7f);
            if shift == 28 && bits > 0x0f {
                break;
            }
            value |= bits << shift;
            if byte & 0x80 == 0 {
                return Ok(value);
            }
        }
        Err(self.error(format_args!("run header at byte {start} exceeds 32 bits")))
    }

    /// Values that have not been made available by any run so far.
    fn remaining_unread(&self) -> usize {
        self.unclaimed + self.rle_left + self.packed_left + (self.buffer_len - self.buffer_pos)
    }

    fn next_run(&mut self) -> Result<()> {
        let start = self.pos;
        let header = self.read_header()?;
        let count = (header >> 1) as usize;
        if header & 1 == 0 {
            if count > self.unclaimed {
                return Err(self.error(format_args!(
                    "RLE run of {count} values at byte {start} exceeds the {} values left",
                    self.unclaimed
                )));
            }
            let value_bytes = self.bit_width.div_ceil(8);
            let Some(bytes) = self.data.get(self.pos..self.pos + value_bytes) else {
                return Err(self.error(format_args!("RLE run at byte {start} is truncated")));
            };
            let value = bytes
                .iter()
                .enumerate()
                .fold(0u32, |v, (i, &b)| v | u32::from(b) << (8 * i));
            if self.bit_width < 32 && value >> self.bit_width != 0 {
                return Err(self.error(format_args!(
                    "RLE value {value} at byte {start} does not fit the bit width"
                )));
            }
            self.pos += value_bytes;
            self.rle_value = value;
            self.rle_left = count;
            self.unclaimed -= count;
        } else {
            // `count` is below 2^31, so these products fit in 64 bits.
            // A run may declare more values than are left: DuckDB pads its last
            // run of levels to a multiple of its vector size (2048 values).
            // parquet-java and arrow-rs read what they need and ignore the rest,
            // and so does this decoder.
            let values = count as u64 * 8;
            let claimed = values.min(self.unclaimed as u64) as usize;
            let run_bytes = count as u64 * self.bit_width as u64;
            let available =
                (self.data.len() - self.pos).min(usize::try_from(run_bytes).unwrap_or(usize::MAX));
            self.packed = &self.data[self.pos..self.pos + available];
            self.pos += available;
            // With width 0 there are no bytes and every claimed value is usable.
            let usable = available
                .saturating_mul(8)
                .checked_div(self.bit_width)
                .map_or(claimed, |fit| claimed.min(fit));
            self.packed_left = usable;
            // Values whose bytes are missing stay unclaimed: the next header
            // read reports where the data ended.
            self.unclaimed -= usable;
        }
        Ok(())
    }

    fn unpack_next(&mut self) {
        let take = self.packed_left.min(32);
        unpack32_u32(self.packed, &mut self.buffer, self.bit_width);
        let consumed = self.packed.len().min(4 * self.bit_width);
        self.packed = &self.packed[consumed..];
        self.packed_left -= take;
        self.buffer_pos = 0;
        self.buffer_len = take;
    }

    /// Shared batch loop; `map` turns a raw value into an output value, and is
    /// infallible for plain reads so the copies compile to straight loops.
    #[inline(always)]
    fn read_mapped<T: Copy>(
        &mut self,
        out: &mut [T],
        map: impl Fn(u32) -> Result<T>,
    ) -> Result<usize> {
        let n = out.len().min(self.remaining);
        let mut filled = 0;
        while filled < n {
            let want = n - filled;
            if self.buffer_pos < self.buffer_len {
                let take = want.min(self.buffer_len - self.buffer_pos);
                let source = &self.buffer[self.buffer_pos..self.buffer_pos + take];
                for (o, &v) in out[filled..filled + take].iter_mut().zip(source) {
                    *o = map(v)?;
                }
                self.buffer_pos += take;
                filled += take;
            } else if self.rle_left > 0 {
                let take = want.min(self.rle_left);
                out[filled..filled + take].fill(map(self.rle_value)?);
                self.rle_left -= take;
                filled += take;
            } else if self.packed_left > 0 {
                self.unpack_next();
            } else {
                self.next_run()?;
            }
        }
        self.remaining -= n;
        Ok(n)
    }

    /// Consumes the next `n` values if they are all `value` within one RLE run
    /// and returns true; otherwise consumes nothing and returns false. Lets a
    /// caller skip materialising a long run it only needs to know the value of
    /// (all rows present, say).
    pub fn skip_run_of(&mut self, value: u32, n: usize) -> Result<bool> {
        if n > self.remaining || self.buffer_pos < self.buffer_len || self.packed_left > 0 {
            return Ok(false);
        }
        if self.rle_left == 0 {
            if self.unclaimed == 0 {
                return Ok(false);
            }
            self.next_run()?;
        }
        if self.rle_left < n || self.rle_value != value {
            return Ok(false);
        }
        self.rle_left -= n;
        self.remaining -= n;
        Ok(true)
    }

    /// Decodes up to `out.len()` values; returns how many, fewer only when the
    /// stream has fewer left.
    pub fn read<T: RleValue>(&mut self, out: &mut [T]) -> Result<usize> {
        self.read_mapped(out, |v| Ok(T::from_u32(v)))
    }
}

/// Builds an RLE/bit-packed hybrid stream.
///
/// Values go into groups of eight. A group of eight equal values starts an RLE
/// run that lasts as long as the value repeats; other groups are appended to a
/// bit-packed run of at most 63 groups (so its header is one byte). This is the
/// strategy of parquet-java and Arrow C++, and produces the same bytes.
pub struct RleEncoder {
    bit_width: usize,
    out: Vec<u8>,
    group: [u32; 8],
    group_len: usize,
    /// The last value seen and how many times in a row, counted from the
    /// start of the current group unless an RLE run is in progress.
    run_value: u32,
    run_len: usize,
    /// Where the open bit-packed run's header byte is, and its groups so far.
    packed_header: Option<usize>,
    packed_groups: u8,
}

/// The most groups a bit-packed run with a one-byte header can hold.
const MAX_PACKED_GROUPS: u8 = 63;

impl RleEncoder {
    /// `bit_width` must be at most 32 (it is clamped); every value passed to
    /// [`RleEncoder::put`] must fit in it.
    pub fn new(bit_width: u8) -> Self {
        RleEncoder {
            bit_width: usize::from(bit_width.min(32)),
            out: Vec::new(),
            group: [0; 8],
            group_len: 0,
            run_value: 0,
            run_len: 0,
            packed_header: None,
            packed_groups: 0,
        }
    }

    pub fn put(&mut self, value: u32) {
        if self.run_len > 0 && value == self.run_value {
            self.run_len += 1;
            if self.run_len > 8 {
                // Part of an RLE run already: nothing to buffer.
                return;
            }
        } else {
            if self.run_len >= 8 {
                self.write_rle_run();
            }
            self.run_value = value;
            self.run_len = 1;
        }
        self.group[self.group_len] = value;
        self.group_len += 1;
        if self.group_len == 8 {
            self.flush_group();
        }
    }

    /// Puts `count` copies of `value`; once a run is under way, the rest of it
    /// costs O(1).
    pub fn put_repeated(&mut self, value: u32, mut count: usize) {
        while count > 0 {
            if self.run_len >= 8 && value == self.run_value {
                self.run_len += count;
                return;
            }
            self.put(value);
            count -= 1;
        }
    }

    /// Puts `values` in order, as [`RleEncoder::put`] one at a time would.
    pub fn put_slice(&mut self, values: &[u32]) {
        self.put_each(values, |v| v);
    }

    /// Puts definition or repetition levels (each at least 0 and within the
    /// bit width) in order, as [`RleEncoder::put`] one at a time would.
    pub fn put_levels(&mut self, levels: &[i16]) {
        self.put_each(levels, |l| l as u32);
    }

    /// Dictionary indices and the levels of nested leaves seldom repeat eight
    /// times: at a group boundary with no run under way, eight values that are
    /// not all equal are packed at once; a run under way takes every value
    /// that continues it at once.
    #[inline]
    fn put_each<T: Copy + PartialEq>(&mut self, values: &[T], widen: impl Fn(T) -> u32) {
        let mut rest = values;
        while let Some((&first, tail)) = rest.split_first() {
            if self.run_len >= 8 && widen(first) == self.run_value {
                let count = rest.iter().position(|&v| v != first).unwrap_or(rest.len());
                self.run_len += count;
                rest = &rest[count..];
                continue;
            }
            if self.group_len == 0 && self.run_len == 0 {
                if let Some(group) = rest.first_chunk::<8>() {
                    if group.iter().any(|&v| v != first) {
                        self.group = group.map(&widen);
                        self.append_group();
                        rest = &rest[8..];
                        continue;
                    }
                }
            }
            self.put(widen(first));
            rest = tail;
        }
    }

    pub fn put_all(&mut self, values: impl IntoIterator<Item = u32>) {
        for value in values {
            self.put(value);
        }
    }

    fn flush_group(&mut self) {
        self.group_len = 0;
        if self.run_len >= 8 {
            // Eight equal values: they become the start of an RLE run.
            self.close_packed_run();
            return;
        }
        self.append_group();
        self.run_len = 0;
    }

    fn append_group(&mut self) {
        if self.packed_header.is_none() {
            self.packed_header = Some(self.out.len());
            self.out.push(0);
            self.packed_groups = 0;
        }
        pack8(&self.group, self.bit_width, &mut self.out);
        self.packed_groups += 1;
        if self.packed_groups == MAX_PACKED_GROUPS {
            self.close_packed_run();
        }
    }

    fn close_packed_run(&mut self) {
        if let Some(at) = self.packed_header.take() {
            if let Some(header) = self.out.get_mut(at) {
                *header = (self.packed_groups << 1) | 1;
            }
        }
    }

    fn write_rle_run(&mut self) {
        write_uleb(&mut self.out, (self.run_len as u64) << 1);
        let bytes = self.run_value.to_le_bytes();
        self.out
            .extend_from_slice(&bytes[..self.bit_width.div_ceil(8)]);
        self.run_len = 0;
    }

    /// Ends the stream and returns it.
    pub fn finish(mut self) -> Vec<u8> {
        if self.run_len >= 8 {
            self.write_rle_run();
        } else if self.group_len > 0 {
            if self.run_len == self.group_len {
                // A short tail of equal values is cheaper as an RLE run than as
                // a padded group.
                self.close_packed_run();
                self.write_rle_run();
            } else {
                self.group[self.group_len..].fill(0);
                self.append_group();
                self.close_packed_run();
            }
        } else {
            self.close_packed_run();
        }
        self.out
    }
}

/// Packs eight values of `bit_width` (at most 32) bits into `bit_width` bytes.
#[inline]
fn pack8(values: &[u32; 8], bit_width: usize, out: &mut Vec<u8>) {
    let mask = if bit_width == 0 {
        0
    } else {
        u64::MAX >> (64 - bit_width)
    };
    if bit_width <= 8 {
        // Levels and small dictionaries: the eight values fit one word, stored
        // at once rather than a byte at a time.
        let mut word = 0u64;
        for (k, &value) in values.iter().enumerate() {
            word |= (u64::from(value) & mask) << (k * bit_width);
        }
        out.extend_from_slice(&word.to_le_bytes()[..bit_width]);
        return;
    }
    // Wider values (larger dictionaries) through a 128-bit accumulator that
    // hands over whole words: a push per byte cost more than the packing.
    let mut acc = 0u128;
    let mut bits = 0;
    for &value in values {
        acc |= u128::from(u64::from(value) & mask) << bits;
        bits += bit_width;
        if bits >= 64 {
            out.extend_from_slice(&(acc as u64).to_le_bytes());
            acc >>= 64;
            bits -= 64;
        }
    }
    out.extend_from_slice(&acc.to_le_bytes()[..bits / 8]);
}

pub(crate) fn write_uleb(out: &mut Vec<u8>, mut value: u64) {
    while value >= 0x80 {
        out.push(value as u8 | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

/// Dictionary indices as a data page stores them: the bit width needed for
/// `dictionary_len` entries as one byte, then the runs.
pub(crate) fn encode_dictionary_indices(
    indices: &[u32],
    dictionary_len: usize,
    out: &mut Vec<u8>,
) -> Result<()> {
    if let Some(&bad) = indices.iter().find(|&&i| i as usize >= dictionary_len) {
        return Err(Error::invalid_argument(format!(
            "dictionary index {bad} is out of range for a dictionary of {dictionary_len} entries"
        )));
    }
    let width = bit_width(dictionary_len.saturating_sub(1) as u64);
    let mut encoder = RleEncoder::new(width);
    encoder.put_slice(indices);
    out.push(width);
    out.extend_from_slice(&encoder.finish());
    Ok(())
}

/// RLE-encoded booleans: a 4-byte length, then runs of width 1.
pub(crate) fn encode_rle_booleans(values: &[bool], out: &mut Vec<u8>) -> Result<()> {
    let mut encoder = RleEncoder::new(1);
    encoder.put_all(values.iter().map(|&b| u32::from(b)));
    super::append_length_prefixed(&encoder.finish(), out, "RLE boolean data")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slices_encode_like_single_puts() {
        let mut state = 11u64;
        let mut next = move || {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            state >> 33
        };
        for width in [1u8, 2, 3, 7, 12, 20] {
            let mut values = Vec::new();
            while values.len() < 3000 {
                // Runs of 1 to 20 equal values, or stretches of distinct ones.
                let value = next() as u32 & ((1 << width) - 1);
                match next() % 3 {
                    0 => values.extend(std::iter::repeat_n(value, 1 + next() as usize % 20)),
                    _ => values
                        .extend((0..1 + next() % 30).map(|_| next() as u32 & ((1 << width) - 1))),
                }
            }
            for len in [0, 1, 7, 8, 9, 64, 505, values.len()] {
                let mut bulk = RleEncoder::new(width);
                bulk.put_slice(&values[..len]);
                let mut single = RleEncoder::new(width);
                values[..len].iter().for_each(|&v| single.put(v));
                assert_eq!(
                    bulk.finish(),
                    single.finish(),
                    "width {width}, {len} values"
                );
            }
        }
    }
}
