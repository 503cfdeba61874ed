//! PLAIN: values back to back in their natural little-endian form.
//!
//! - BOOLEAN: one bit per value, LSB-first within each byte;
//! - INT32, INT64, FLOAT, DOUBLE: 4 or 8 little-endian bytes ([`FixedWidth`]);
//! - INT96 and FIXED_LEN_BYTE_ARRAY: the raw bytes, 12 or `type_length` each;
//! - BYTE_ARRAY: a 4-byte little-endian length, then the bytes.

use super::FixedWidth;
use crate::error::{Error, Result};

/// Width of an INT96 value, the legacy timestamp of Impala and Spark.
pub(crate) const INT96_WIDTH: usize = 12;

/// PLAIN values other than booleans.
pub struct PlainDecoder<'a> {
    data: &'a [u8],
    pos: usize,
    remaining: usize,
}

impl<'a> PlainDecoder<'a> {
    /// A decoder for `num_values` values in `data`. The physical type is the
    /// caller's choice of `read*` method.
    pub fn new(data: &'a [u8], num_values: usize) -> Self {
        PlainDecoder {
            data,
            pos: 0,
            remaining: num_values,
        }
    }

    fn take(&mut self, count: usize, width: usize) -> Result<&'a [u8]> {
        let left = self.data.len() - self.pos;
        match count.checked_mul(width).filter(|&len| len <= left) {
            Some(len) => {
                let bytes = &self.data[self.pos..self.pos + len];
                self.pos += len;
                Ok(bytes)
            }
            None => Err(Error::corrupt_data(format!(
                "PLAIN data: {count} values of {width} bytes at byte {} exceed the {left} bytes left",
                self.pos
            ))),
        }
    }

    /// The stored bytes of up to `count` values of `width` bytes each (fewer
    /// only when the page has fewer left): fixed-width values whose stored form
    /// is their in-memory form can then be copied in one go.
    pub fn read_raw(&mut self, count: usize, width: usize) -> Result<&'a [u8]> {
        let n = count.min(self.remaining);
        let bytes = self.take(n, width)?;
        self.remaining -= n;
        Ok(bytes)
    }

    /// INT32, INT64, FLOAT or DOUBLE values.
    pub fn read<T: FixedWidth>(&mut self, out: &mut [T]) -> Result<usize> {
        let n = out.len().min(self.remaining);
        let bytes = self.take(n, T::WIDTH)?;
        T::decode_le(bytes, &mut out[..n]);
        self.remaining -= n;
        Ok(n)
    }

    /// FIXED_LEN_BYTE_ARRAY values of `width` bytes, or INT96 with
    /// `INT96_WIDTH`: as many whole values as `out` holds, copied back to back.
    pub fn read_fixed_len(&mut self, width: usize, out: &mut [u8]) -> Result<usize> {
        if width == 0 {
            return Err(Error::invalid_argument(
                "fixed-length values need a positive width",
            ));
        }
        let n = (out.len() / width).min(self.remaining);
        let bytes = self.take(n, width)?;
        out[..bytes.len()].copy_from_slice(bytes);
        self.remaining -= n;
        Ok(n)
    }
}

/// PLAIN booleans, bit-packed LSB-first.
pub(crate) struct PlainBooleanDecoder<'a> {
    data: &'a [u8],
    next_bit: usize,
    remaining: usize,
}

impl<'a> PlainBooleanDecoder<'a> {
    /// Checks up front that `data` holds `num_values` bits, so reads cannot fail.
    pub(crate) fn new(data: &'a [u8], num_values: usize) -> Result<Self> {
        let needed = num_values.div_ceil(8);
        if needed > data.len() {
            return Err(Error::corrupt_data(format!(
                "PLAIN booleans: {num_values} values need {needed} bytes, the page has {}",
                data.len()
            )));
        }
        Ok(PlainBooleanDecoder {
            data: &data[..needed],
            next_bit: 0,
            remaining: num_values,
        })
    }

    pub(crate) fn read(&mut self, out: &mut [bool]) -> Result<usize> {
        let n = out.len().min(self.remaining);
        let mut out = &mut out[..n];
        // Single bits up to a byte boundary, whole bytes, then the tail bits.
        while !out.is_empty() && !self.next_bit.is_multiple_of(8) {
            out[0] = self.bit(self.next_bit);
            self.next_bit += 1;
            out = &mut out[1..];
        }
        let whole = out.len() / 8;
        let bytes = &self.data[self.next_bit / 8..][..whole];
        let (chunks, tail) = out.as_chunks_mut::<8>();
        for (chunk, &byte) in chunks.iter_mut().zip(bytes) {
            *chunk = std::array::from_fn(|k| (byte >> k) & 1 != 0);
        }
        self.next_bit += whole * 8;
        for slot in tail {
            *slot = self.bit(self.next_bit);
            self.next_bit += 1;
        }
        self.remaining -= n;
        Ok(n)
    }

    fn bit(&self, index: usize) -> bool {
        self.data
            .get(index / 8)
            .is_some_and(|&b| (b >> (index % 8)) & 1 != 0)
    }
}

/// Bit-packs booleans across calls: a partial byte waits for the next values.
#[derive(Debug, Default)]
pub(crate) struct PlainBooleanEncoder {
    partial: u8,
    bits: u8,
}

impl PlainBooleanEncoder {
    pub(crate) fn new() -> Self {
        Self::default()
    }

    pub(crate) fn put(&mut self, values: &[bool], out: &mut Vec<u8>) {
        let mut values = values;
        while self.bits != 0 && !values.is_empty() {
            self.push_bit(values[0], out);
            values = &values[1..];
        }
        let (chunks, tail) = values.as_chunks::<8>();
        out.extend(chunks.iter().map(|chunk| {
            chunk
                .iter()
                .enumerate()
                .fold(0u8, |byte, (k, &b)| byte | (u8::from(b) << k))
        }));
        for &b in tail {
            self.push_bit(b, out);
        }
    }

    fn push_bit(&mut self, value: bool, out: &mut Vec<u8>) {
        self.partial |= u8::from(value) << self.bits;
        self.bits += 1;
        if self.bits == 8 {
            out.push(self.partial);
            self.partial = 0;
            self.bits = 0;
        }
    }

    /// Writes the last partial byte, zero-padded.
    pub(crate) fn finish(self, out: &mut Vec<u8>) {
        if self.bits != 0 {
            out.push(self.partial);
        }
    }
}
