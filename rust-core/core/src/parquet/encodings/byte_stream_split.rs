//! BYTE_STREAM_SPLIT: byte `k` of every value goes to stream `k`, and the
//! streams follow one another. Each stream holds one byte per value, so a page
//! of `n` values of width `w` is `w` runs of `n` bytes. FLOAT and DOUBLE since
//! format 2.8; INT32, INT64 and FIXED_LEN_BYTE_ARRAY since 2.11.

use super::FixedWidth;
use crate::error::{Error, Result};

/// Values gathered per step of the typed decoder.
const CHUNK: usize = 64;
/// The widest typed value.
const MAX_TYPED_WIDTH: usize = 8;

pub struct ByteStreamSplitDecoder<'a> {
    data: &'a [u8],
    width: usize,
    /// Values per stream: the page's value count as its size implies.
    stride: usize,
    next: usize,
    remaining: usize,
}

impl<'a> ByteStreamSplitDecoder<'a> {
    /// `data` is the page's whole value section; it must be a whole number of
    /// `width`-byte values and hold at least `num_values`.
    pub fn new(data: &'a [u8], width: usize, num_values: usize) -> Result<Self> {
        if width == 0 {
            return Err(Error::invalid_argument(
                "BYTE_STREAM_SPLIT needs a positive value width",
            ));
        }
        let stride = data.len() / width;
        if !data.len().is_multiple_of(width) || stride < num_values {
            return Err(Error::corrupt_data(format!(
                "BYTE_STREAM_SPLIT: {} bytes are not {num_values} or more values of {width} bytes",
                data.len()
            )));
        }
        Ok(ByteStreamSplitDecoder {
            data,
            width,
            stride,
            next: 0,
            remaining: num_values,
        })
    }

    /// Values not yet read.
    #[cfg(test)]
    pub(crate) fn remaining(&self) -> usize {
        self.remaining
    }

    /// Interleaves values `next..next + count` into `out` (`count * width`
    /// bytes).
    fn gather(&self, count: usize, out: &mut [u8]) {
        for byte in 0..self.width {
            let start = byte * self.stride + self.next;
            let stream = &self.data[start..start + count];
            for (value, &b) in out.chunks_exact_mut(self.width).zip(stream) {
                value[byte] = b;
            }
        }
    }

    /// FLOAT, DOUBLE, INT32 or INT64 values; `T`'s width must be the
    /// decoder's.
    pub fn read<T: FixedWidth>(&mut self, out: &mut [T]) -> Result<usize> {
        if T::WIDTH != self.width || T::WIDTH > MAX_TYPED_WIDTH {
            return Err(Error::invalid_argument(format!(
                "cannot read {}-byte values from a BYTE_STREAM_SPLIT decoder of width {}",
                T::WIDTH,
                self.width
            )));
        }
        let n = out.len().min(self.remaining);
        let mut scratch = [0u8; CHUNK * MAX_TYPED_WIDTH];
        for chunk in out[..n].chunks_mut(CHUNK) {
            let bytes = &mut scratch[..chunk.len() * T::WIDTH];
            self.gather(chunk.len(), bytes);
            T::decode_le(bytes, chunk);
            self.next += chunk.len();
        }
        self.remaining -= n;
        Ok(n)
    }

    /// FIXED_LEN_BYTE_ARRAY values (or any width): as many whole values as
    /// `out` holds, back to back.
    pub fn read_fixed_len(&mut self, out: &mut [u8]) -> Result<usize> {
        let n = (out.len() / self.width).min(self.remaining);
        self.gather(n, &mut out[..n * self.width]);
        self.next += n;
        self.remaining -= n;
        Ok(n)
    }
}
