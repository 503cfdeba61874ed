//! Arrow's bitmaps (validity and boolean values): bit `i` is bit `i % 8` of byte
//! `i / 8`, least significant first.

use super::buffer::{Buffer, MutableBuffer};
use crate::error::Result;

/// Bytes needed for `bits` bits.
pub(crate) fn bitmap_len(bits: usize) -> usize {
    bits.div_ceil(8)
}

/// Bit `i`; `bytes` must hold it.
pub(crate) fn get_bit(bytes: &[u8], i: usize) -> bool {
    bytes[i / 8] & (1 << (i % 8)) != 0
}

/// How many of the bits `[offset, offset + len)` are set; `bytes` must hold them.
pub(crate) fn count_set_bits(bytes: &[u8], offset: usize, len: usize) -> usize {
    let end = offset + len;
    // Bit by bit up to a byte boundary and after the last whole byte; whole bytes
    // in between by popcount, which is what makes this cheap on large arrays.
    let head_end = offset.next_multiple_of(8).min(end);
    let tail_start = (end / 8 * 8).max(head_end);
    let partial = (offset..head_end)
        .chain(tail_start..end)
        .filter(|&i| get_bit(bytes, i))
        .count();
    let whole: usize = bytes[head_end / 8..tail_start / 8]
        .iter()
        .map(|b| b.count_ones() as usize)
        .sum();
    partial + whole
}

/// Builds a bitmap one bit at a time from offset 0.
#[derive(Debug, Default)]
pub struct BitmapBuilder {
    buffer: MutableBuffer,
    len: usize,
}

impl BitmapBuilder {
    pub fn with_capacity(bits: usize) -> Result<BitmapBuilder> {
        Ok(BitmapBuilder {
            buffer: MutableBuffer::with_capacity(bitmap_len(bits))?,
            len: 0,
        })
    }

    pub fn append(&mut self, bit: bool) -> Result<()> {
        if self.len.is_multiple_of(8) {
            self.buffer.extend_zeros(1)?;
        }
        if bit {
            self.buffer.as_mut_slice()[self.len / 8] |= 1 << (self.len % 8);
        }
        self.len += 1;
        Ok(())
    }

    /// Bits appended so far.
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn finish(self) -> Buffer {
        self.buffer.freeze()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builder_sets_bits_lsb_first() {
        let mut builder = BitmapBuilder::with_capacity(3).unwrap();
        for bit in [
            true, false, true, true, false, false, false, false, false, true,
        ] {
            builder.append(bit).unwrap();
        }
        assert_eq!(builder.len(), 10);
        let bitmap = builder.finish();
        assert_eq!(bitmap.as_slice(), &[0b0000_1101, 0b0000_0010]);
        assert!(get_bit(bitmap.as_slice(), 9));
        assert!(!get_bit(bitmap.as_slice(), 8));
    }

    #[test]
    fn counting_agrees_with_bit_by_bit_for_every_range() {
        let bytes = [0b1011_0110u8, 0xff, 0x00, 0b0101_0101, 0x81];
        for offset in 0..40 {
            for len in 0..=40 - offset {
                let expected = (offset..offset + len)
                    .filter(|&i| get_bit(&bytes, i))
                    .count();
                assert_eq!(
                    count_set_bits(&bytes, offset, len),
                    expected,
                    "{offset}+{len}"
                );
            }
        }
        assert_eq!(count_set_bits(&[], 0, 0), 0);
    }
}
