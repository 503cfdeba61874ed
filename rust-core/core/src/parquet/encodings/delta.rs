//! The delta encodings: DELTA_BINARY_PACKED for INT32/INT64, and the byte
//! array encodings built on it, DELTA_LENGTH_BYTE_ARRAY and DELTA_BYTE_ARRAY.
//!
//! DELTA_BINARY_PACKED layout:
//! ```text
//! header: <block size> <miniblocks per block> <total value count> <first value>
//!         (ULEB128, ULEB128, ULEB128, zigzag ULEB128)
//! block:  <min delta (zigzag ULEB128)> <one bit-width byte per miniblock>
//!         <miniblocks: (delta - min delta) bit-packed, block size / miniblocks each>
//! ```
//! The spec asks for blocks of a multiple of 128 values in miniblocks of a
//! multiple of 32; the decoder accepts any multiple of 8, as parquet-java does.
//!
//! The spec computes deltas in the column's width with wrapping arithmetic (an
//! INT32 delta of `i32::MAX - i32::MIN` wraps to -1), so bit widths need not
//! exceed 32 for INT32. DuckDB computes INT32 deltas in 64 bits and writes
//! widths up to 33; parquet-java decodes every width up to 64 in `long`s, and
//! so does this decoder (the sums wrap the same way). The last block may end early: its
//! unused miniblocks keep their width bytes but have no data, while the last
//! used miniblock is padded to full size.
//!
//! The decoder adds in `u64` with wrapping and truncates to the column width at
//! the end, which equals wrapping in that width, so one loop serves both types.

use std::marker::PhantomData;

use super::bit_pack::{bit_width, pack32_u64, unpack32_u64};
use super::rle::write_uleb;
use super::{ByteArraySink, FixedWidth};
use crate::error::{Error, Result};

/// The integer types DELTA_BINARY_PACKED applies to.
pub trait DeltaInt: FixedWidth {
    /// The low 32 or 64 bits of `value`: as many as the type has.
    fn from_u64_wrapping(value: u64) -> Self;
    fn to_i64(self) -> i64;
    /// `self - previous` wrapped to the type's width, then sign-extended.
    fn wrapping_delta(self, previous: Self) -> i64;
}

impl DeltaInt for i32 {
    #[inline(always)]
    fn from_u64_wrapping(value: u64) -> Self {
        value as i32
    }

    fn to_i64(self) -> i64 {
        i64::from(self)
    }

    fn wrapping_delta(self, previous: Self) -> i64 {
        i64::from(self.wrapping_sub(previous))
    }
}

impl DeltaInt for i64 {
    #[inline(always)]
    fn from_u64_wrapping(value: u64) -> Self {
        value as i64
    }

    fn to_i64(self) -> i64 {
        self
    }

    fn wrapping_delta(self, previous: Self) -> i64 {
        self.wrapping_sub(previous)
    }
}

/// Largest block size accepted. Nothing is allocated per block, but sizes
/// beyond Java's int range can only be corruption.
const MAX_BLOCK_SIZE: u64 = i32::MAX as u64;

fn corrupt(what: impl std::fmt::Display) -> Error {
    Error::corrupt_data(format!("DELTA_BINARY_PACKED: {what}"))
}

fn read_uleb(data: &[u8], pos: &mut usize, what: &str) -> Result<u64> {
    let start = *pos;
    let mut value = 0u64;
    for shift in (0..64).step_by(7) {
        let Some(&byte) = data.get(*pos) else {
            return Err(corrupt(format_args!("{what} at byte {start} is truncated")));
        };
        *pos += 1;
        if shift == 63 && byte > 1 {
            break;
        }
        value |= u64::from(byte & 0x7f) << shift;
        if byte & 0x80 == 0 {
            return Ok(value);
        }
    }
    Err(corrupt(format_args!(
        "{what} at byte {start} exceeds 64 bits"
    )))
}

fn read_zigzag(data: &[u8], pos: &mut usize, what: &str) -> Result<i64> {
    let v = read_uleb(data, pos, what)?;
    Ok((v >> 1) as i64 ^ -((v & 1) as i64))
}

fn write_zigzag(out: &mut Vec<u8>, value: i64) {
    write_uleb(out, ((value << 1) ^ (value >> 63)) as u64);
}

#[derive(Debug, Clone, Copy)]
struct Header {
    miniblocks: usize,
    per_miniblock: usize,
    total: usize,
    first_value: i64,
}

fn read_header(data: &[u8], pos: &mut usize) -> Result<Header> {
    let block_size = read_uleb(data, pos, "block size")?;
    let miniblocks = read_uleb(data, pos, "miniblock count")?;
    let total = read_uleb(data, pos, "value count")?;
    let first_value = read_zigzag(data, pos, "first value")?;
    // The spec asks for blocks of a multiple of 128 values and miniblocks of a
    // multiple of 32, but parquet-java only requires whole bytes (multiples of
    // 8), and the spec's own examples use blocks of 8; accept what it accepts.
    if block_size == 0 || block_size > MAX_BLOCK_SIZE {
        return Err(corrupt(format_args!(
            "block size {block_size} is out of range"
        )));
    }
    if miniblocks == 0 || block_size % miniblocks != 0 || (block_size / miniblocks) % 8 != 0 {
        return Err(corrupt(format_args!(
            "{miniblocks} miniblocks do not split a block of {block_size} into multiples of 8"
        )));
    }
    // Page value counts are i32, so a larger stream can only be corrupt.
    if total > i32::MAX as u64 {
        return Err(corrupt(format_args!(
            "value count {total} exceeds the i32 range"
        )));
    }
    Ok(Header {
        miniblocks: miniblocks as usize,
        per_miniblock: (block_size / miniblocks) as usize,
        total: total as usize,
        first_value,
    })
}

/// The byte length of the DELTA_BINARY_PACKED stream at the front of `data`
/// and its value count, found by walking the block headers without unpacking.
/// Byte array encodings need it because their next section starts right after.
fn stream_len(data: &[u8], max_bits: usize) -> Result<(usize, usize)> {
    let mut pos = 0;
    let header = read_header(data, &mut pos)?;
    let mut deltas = header.total.saturating_sub(1);
    while deltas > 0 {
        read_zigzag(data, &mut pos, "min delta")?;
        let widths = data
            .get(pos..)
            .and_then(|rest| rest.get(..header.miniblocks))
            .ok_or_else(|| corrupt(format_args!("bit widths at byte {pos} are truncated")))?;
        pos += header.miniblocks;
        for &width in widths {
            if deltas == 0 {
                break;
            }
            let width = usize::from(width);
            if width > max_bits {
                return Err(corrupt(format_args!(
                    "miniblock bit width {width} exceeds {max_bits}"
                )));
            }
            // per_miniblock is a multiple of 8, so this is a whole number of bytes.
            let len = (header.per_miniblock / 8).checked_mul(width);
            let Some(len) = len.filter(|&len| len <= data.len() - pos) else {
                return Err(corrupt(format_args!(
                    "miniblock at byte {pos} is truncated"
                )));
            };
            pos += len;
            deltas -= deltas.min(header.per_miniblock);
        }
    }
    Ok((pos, header.total))
}

/// Decodes DELTA_BINARY_PACKED INT32 (`T = i32`) or INT64 (`T = i64`) values.
pub struct DeltaBinaryPackedDecoder<'a, T: DeltaInt> {
    data: &'a [u8],
    pos: usize,
    header: Header,
    remaining: usize,
    first_pending: bool,
    last: u64,
    /// Deltas not yet unpacked.
    deltas_left: usize,
    min_delta: u64,
    /// The current block's miniblock widths and the index of the next one.
    widths: &'a [u8],
    next_miniblock: usize,
    width: usize,
    /// Values of the current miniblock not yet unpacked (padding included).
    miniblock_left: usize,
    buffer: [u64; 32],
    buffer_pos: usize,
    buffer_len: usize,
    _type: PhantomData<T>,
}

impl<'a, T: DeltaInt> DeltaBinaryPackedDecoder<'a, T> {
    /// A decoder for the first `num_values` values of the stream in `data`; the
    /// stream must hold at least that many (it may hold more).
    pub fn new(data: &'a [u8], num_values: usize) -> Result<Self> {
        let mut pos = 0;
        let header = read_header(data, &mut pos)?;
        if header.total < num_values {
            return Err(corrupt(format_args!(
                "the stream holds {} values where {num_values} are expected",
                header.total
            )));
        }
        Ok(DeltaBinaryPackedDecoder {
            data,
            pos,
            header,
            remaining: num_values,
            first_pending: true,
            last: header.first_value as u64,
            deltas_left: num_values.saturating_sub(1),
            min_delta: 0,
            widths: &[],
            next_miniblock: 0,
            width: 0,
            miniblock_left: 0,
            buffer: [0; 32],
            buffer_pos: 0,
            buffer_len: 0,
            _type: PhantomData,
        })
    }

    pub fn remaining(&self) -> usize {
        self.remaining
    }

    fn start_miniblock(&mut self) -> Result<()> {
        if self.next_miniblock >= self.widths.len() {
            self.min_delta = read_zigzag(self.data, &mut self.pos, "min delta")? as u64;
            let count = self.header.miniblocks;
            self.widths = self
                .data
                .get(self.pos..)
                .and_then(|rest| rest.get(..count))
                .ok_or_else(|| {
                    corrupt(format_args!(
                        "bit widths at byte {} are truncated",
                        self.pos
                    ))
                })?;
            self.pos += count;
            self.next_miniblock = 0;
        }
        let width = usize::from(self.widths[self.next_miniblock]);
        // 64, not the type's width: see the module documentation (DuckDB's INT32 widths).
        if width > 64 {
            return Err(corrupt(format_args!(
                "miniblock bit width {width} exceeds 64 in the block ending before byte {}",
                self.pos
            )));
        }
        self.next_miniblock += 1;
        self.width = width;
        self.miniblock_left = self.header.per_miniblock;
        Ok(())
    }

    /// Unpacks the next deltas, up to 32 from the current miniblock, and adds
    /// the block's minimum to them.
    fn load_group(&mut self) -> Result<()> {
        if self.miniblock_left == 0 {
            self.start_miniblock()?;
        }
        // Miniblocks are multiples of 8 values, not always of 32; the unpacker
        // then also decodes a few values past the miniblock, which are ignored.
        let group = self.miniblock_left.min(32);
        let take = self.deltas_left.min(group);
        let group_bytes = group / 8 * self.width;
        let available = self.data.len() - self.pos;
        // Only the bits of real deltas must be present: a writer may stop
        // after the last one instead of padding the miniblock.
        if take * self.width > available.saturating_mul(8) {
            return Err(corrupt(format_args!(
                "miniblock at byte {} is truncated",
                self.pos
            )));
        }
        unpack32_u64(&self.data[self.pos..], &mut self.buffer, self.width);
        self.pos += group_bytes.min(available);
        let min_delta = self.min_delta;
        for delta in &mut self.buffer {
            *delta = delta.wrapping_add(min_delta);
        }
        self.miniblock_left -= group;
        self.deltas_left -= take;
        self.buffer_pos = 0;
        self.buffer_len = take;
        Ok(())
    }

    /// Decodes up to `out.len()` values; returns how many.
    pub fn read(&mut self, out: &mut [T]) -> Result<usize> {
        let n = out.len().min(self.remaining);
        let mut filled = 0;
        if n > 0 && self.first_pending {
            out[0] = T::from_u64_wrapping(self.last);
            self.first_pending = false;
            filled = 1;
        }
        while filled < n {
            if self.buffer_pos == self.buffer_len {
                self.load_group()?;
            }
            let take = (n - filled).min(self.buffer_len - self.buffer_pos);
            let deltas = &self.buffer[self.buffer_pos..self.buffer_pos + take];
            let mut last = self.last;
            for (o, &delta) in out[filled..filled + take].iter_mut().zip(deltas) {
                last = last.wrapping_add(delta);
                *o = T::from_u64_wrapping(last);
            }
            self.last = last;
            self.buffer_pos += take;
            filled += take;
        }
        self.remaining -= n;
        Ok(n)
    }
}

const BLOCK_SIZE: usize = 128;
const MINIBLOCKS: usize = 4;
const PER_MINIBLOCK: usize = BLOCK_SIZE / MINIBLOCKS;

/// Encodes DELTA_BINARY_PACKED with parquet-java's layout: blocks of 128
/// values in 4 miniblocks of 32.
pub struct DeltaBinaryPackedEncoder<T: DeltaInt> {
    blocks: Vec<u8>,
    first: Option<T>,
    last: T,
    total: usize,
    deltas: [i64; BLOCK_SIZE],
    buffered: usize,
}

impl<T: DeltaInt> Default for DeltaBinaryPackedEncoder<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T: DeltaInt> DeltaBinaryPackedEncoder<T> {
    pub fn new() -> Self {
        DeltaBinaryPackedEncoder {
            blocks: Vec::new(),
            first: None,
            last: T::default(),
            total: 0,
            deltas: [0; BLOCK_SIZE],
            buffered: 0,
        }
    }

    pub fn put(&mut self, values: &[T]) {
        for &value in values {
            if self.first.is_none() {
                self.first = Some(value);
            } else {
                self.deltas[self.buffered] = value.wrapping_delta(self.last);
                self.buffered += 1;
                if self.buffered == BLOCK_SIZE {
                    self.flush_block();
                }
            }
            self.last = value;
            self.total += 1;
        }
    }

    fn flush_block(&mut self) {
        let deltas = &self.deltas[..self.buffered];
        let min = deltas.iter().copied().min().unwrap_or(0);
        write_zigzag(&mut self.blocks, min);
        // Sign-extended deltas of one column width (32 or 64 bits) differ by less than 2^width,
        // so the wrapping difference is the exact unsigned offset.
        let mut groups = [[0u64; PER_MINIBLOCK]; MINIBLOCKS];
        let mut widths = [0u8; MINIBLOCKS];
        for (m, chunk) in deltas.chunks(PER_MINIBLOCK).enumerate() {
            let mut max = 0;
            for (slot, &delta) in groups[m].iter_mut().zip(chunk) {
                *slot = delta.wrapping_sub(min) as u64;
                max |= *slot;
            }
            widths[m] = bit_width(max);
        }
        self.blocks.extend_from_slice(&widths);
        let used = self.buffered.div_ceil(PER_MINIBLOCK);
        for (group, &width) in groups.iter().zip(&widths).take(used) {
            pack32_u64(group, usize::from(width), &mut self.blocks);
        }
        self.buffered = 0;
    }

    /// Values put so far.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.total
    }

    #[cfg(test)]
    pub(crate) fn is_empty(&self) -> bool {
        self.total == 0
    }

    /// Appends the complete stream to `out`.
    pub fn finish(mut self, out: &mut Vec<u8>) {
        if self.buffered > 0 {
            self.flush_block();
        }
        write_uleb(out, BLOCK_SIZE as u64);
        write_uleb(out, MINIBLOCKS as u64);
        write_uleb(out, self.total as u64);
        write_zigzag(out, self.first.map_or(0, T::to_i64));
        out.extend_from_slice(&self.blocks);
    }
}

/// How many lengths or prefix lengths are decoded at a time.
const LENGTH_BATCH: usize = 64;

/// DELTA_LENGTH_BYTE_ARRAY: all lengths (DELTA_BINARY_PACKED INT32), then all
/// values' bytes back to back.
pub struct DeltaLengthByteArrayDecoder<'a> {
    lengths: DeltaBinaryPackedDecoder<'a, i32>,
    values: &'a [u8],
    /// Offset in `values` of the next value, and where the values began in
    /// the page (for error messages).
    pos: usize,
    values_start: usize,
    buffer: [i32; LENGTH_BATCH],
    buffer_pos: usize,
    buffer_len: usize,
}

impl<'a> DeltaLengthByteArrayDecoder<'a> {
    pub fn new(data: &'a [u8], num_values: usize) -> Result<Self> {
        let (lengths_len, _) = stream_len(data, 32).map_err(|e| e.context("value lengths"))?;
        let (lengths, values) = data.split_at(lengths_len);
        Ok(DeltaLengthByteArrayDecoder {
            lengths: DeltaBinaryPackedDecoder::new(lengths, num_values)
                .map_err(|e| e.context("value lengths"))?,
            values,
            pos: 0,
            values_start: lengths_len,
            buffer: [0; LENGTH_BATCH],
            buffer_pos: 0,
            buffer_len: 0,
        })
    }

    pub fn remaining(&self) -> usize {
        self.lengths.remaining() + (self.buffer_len - self.buffer_pos)
    }

    /// The next value; the caller checks [`Self::remaining`] first.
    fn next_value(&mut self) -> Result<&'a [u8]> {
        if self.buffer_pos == self.buffer_len {
            self.buffer_len = self.lengths.read(&mut self.buffer)?;
            self.buffer_pos = 0;
        }
        let Some(&len) = self
            .buffer
            .get(self.buffer_pos)
            .filter(|_| self.buffer_pos < self.buffer_len)
        else {
            return Err(Error::internal(
                "DELTA_LENGTH_BYTE_ARRAY read past its values",
            ));
        };
        self.buffer_pos += 1;
        let at = self.values_start + self.pos;
        let value = usize::try_from(len)
            .ok()
            .and_then(|len| self.values.get(self.pos..self.pos.checked_add(len)?))
            .ok_or_else(|| {
                Error::corrupt_data(format!(
                    "DELTA_LENGTH_BYTE_ARRAY: value of length {len} at byte {at} exceeds the {} bytes left",
                    self.values.len() - self.pos
                ))
            })?;
        self.pos += value.len();
        Ok(value)
    }

    /// Up to `count` values, handed to `sink` in order.
    pub fn read(&mut self, count: usize, sink: &mut impl ByteArraySink) -> Result<usize> {
        let n = count.min(self.remaining());
        for _ in 0..n {
            let value = self.next_value()?;
            sink.push(value)?;
        }
        Ok(n)
    }
}

/// DELTA_BYTE_ARRAY (incremental encoding): the prefix each value shares with
/// the previous one (DELTA_BINARY_PACKED lengths), then the suffixes as
/// DELTA_LENGTH_BYTE_ARRAY.
pub(crate) struct DeltaByteArrayDecoder<'a> {
    prefixes: DeltaBinaryPackedDecoder<'a, i32>,
    suffixes: DeltaLengthByteArrayDecoder<'a>,
    previous: Vec<u8>,
    buffer: [i32; LENGTH_BATCH],
    buffer_pos: usize,
    buffer_len: usize,
}

impl<'a> DeltaByteArrayDecoder<'a> {
    pub(crate) fn new(data: &'a [u8], num_values: usize) -> Result<Self> {
        let (prefixes_len, _) = stream_len(data, 32).map_err(|e| e.context("prefix lengths"))?;
        let (prefixes, suffixes) = data.split_at(prefixes_len);
        Ok(DeltaByteArrayDecoder {
            prefixes: DeltaBinaryPackedDecoder::new(prefixes, num_values)
                .map_err(|e| e.context("prefix lengths"))?,
            suffixes: DeltaLengthByteArrayDecoder::new(suffixes, num_values)
                .map_err(|e| e.context("suffixes"))?,
            previous: Vec::new(),
            buffer: [0; LENGTH_BATCH],
            buffer_pos: 0,
            buffer_len: 0,
        })
    }

    pub(crate) fn remaining(&self) -> usize {
        self.suffixes.remaining()
    }

    /// Up to `count` values, handed to `sink` in order.
    pub(crate) fn read(&mut self, count: usize, sink: &mut impl ByteArraySink) -> Result<usize> {
        let n = count.min(self.remaining());
        for _ in 0..n {
            if self.buffer_pos == self.buffer_len {
                self.buffer_len = self.prefixes.read(&mut self.buffer)?;
                self.buffer_pos = 0;
            }
            let prefix = self.buffer.get(self.buffer_pos).copied().unwrap_or(-1);
            self.buffer_pos += 1;
            let suffix = self.suffixes.next_value()?;
            match usize::try_from(prefix) {
                Ok(len) if len <= self.previous.len() => self.previous.truncate(len),
                _ => {
                    return Err(Error::corrupt_data(format!(
                        "DELTA_BYTE_ARRAY: prefix length {prefix} exceeds the previous value's {} bytes",
                        self.previous.len()
                    )))
                }
            }
            self.previous.extend_from_slice(suffix);
            sink.push(&self.previous)?;
        }
        Ok(n)
    }
}

fn length_i32(len: usize) -> Result<i32> {
    i32::try_from(len)
        .map_err(|_| Error::invalid_argument(format!("byte array of {len} bytes exceeds 2 GiB")))
}

/// Builds DELTA_LENGTH_BYTE_ARRAY data.
#[derive(Default)]
pub struct DeltaLengthByteArrayEncoder {
    lengths: DeltaBinaryPackedEncoder<i32>,
    values: Vec<u8>,
}

impl DeltaLengthByteArrayEncoder {
    pub fn put(&mut self, value: &[u8]) -> Result<()> {
        self.lengths.put(&[length_i32(value.len())?]);
        self.values.extend_from_slice(value);
        Ok(())
    }

    pub fn finish(self, out: &mut Vec<u8>) {
        self.lengths.finish(out);
        out.extend_from_slice(&self.values);
    }
}

/// Builds DELTA_BYTE_ARRAY data.
#[derive(Default)]
pub(crate) struct DeltaByteArrayEncoder {
    prefixes: DeltaBinaryPackedEncoder<i32>,
    suffixes: DeltaLengthByteArrayEncoder,
    previous: Vec<u8>,
}

impl DeltaByteArrayEncoder {
    pub(crate) fn new() -> Self {
        Self::default()
    }

    pub(crate) fn put(&mut self, value: &[u8]) -> Result<()> {
        let shared = self
            .previous
            .iter()
            .zip(value)
            .take_while(|(a, b)| a == b)
            .count();
        self.prefixes.put(&[length_i32(shared)?]);
        self.suffixes.put(&value[shared..])?;
        self.previous.clear();
        self.previous.extend_from_slice(value);
        Ok(())
    }

    pub(crate) fn finish(self, out: &mut Vec<u8>) {
        self.prefixes.finish(out);
        self.suffixes.finish(out);
    }
}
