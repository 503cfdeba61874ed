//! Repetition and definition levels of data pages.
//!
//! Levels use the RLE/bit-packing hybrid at the bit width of the column's
//! maximum level, framed differently by page version:
//! - v1 (`DataPageHeader`): levels come first in the page, each section either
//!   RLE with a 4-byte length prefix, or the deprecated BIT_PACKED encoding
//!   (MSB-first, no prefix, exactly `ceil(n * bit_width / 8)` bytes);
//! - v2 (`DataPageHeaderV2`): RLE without prefix, the byte lengths are in the
//!   header.
//!
//! A column whose maximum level is 0 has no level section at all; the decoders
//! then return zeros without reading anything.

use super::bit_pack::bit_width;
use super::rle::RleDecoder;
use super::split_length_prefixed;
use crate::error::{Error, Result};
use crate::parquet::format::Encoding;

/// Decodes one level section in batches, checking every level against the
/// maximum.
pub(crate) struct LevelDecoder<'a> {
    kind: Kind<'a>,
    max_level: i16,
    /// Whether a level can exceed the maximum while fitting the bit width.
    check_max: bool,
}

enum Kind<'a> {
    Zeros { remaining: usize },
    Rle(RleDecoder<'a>),
    BitPacked(BitPackedLevels<'a>),
}

pub(crate) fn level_bit_width(max_level: i16) -> Result<u8> {
    if max_level < 0 {
        return Err(Error::invalid_argument(format!(
            "negative maximum level {max_level}"
        )));
    }
    Ok(bit_width(max_level as u64))
}

impl<'a> LevelDecoder<'a> {
    fn with_kind(kind: Kind<'a>, max_level: i16, width: u8) -> Self {
        let check_max = width > 0 && i32::from(max_level) != (1i32 << width) - 1;
        LevelDecoder {
            kind,
            max_level,
            check_max,
        }
    }

    /// Levels of a v1 data page; `data` starts at the level section. Returns the
    /// decoder and the section's length, after which the next section starts.
    pub(crate) fn v1(
        encoding: Encoding,
        max_level: i16,
        num_values: usize,
        data: &'a [u8],
    ) -> Result<(Self, usize)> {
        let width = level_bit_width(max_level)?;
        if max_level == 0 {
            return Ok((
                Self::with_kind(
                    Kind::Zeros {
                        remaining: num_values,
                    },
                    0,
                    0,
                ),
                0,
            ));
        }
        let (kind, consumed) = match encoding {
            Encoding::Rle => {
                let (runs, consumed) = split_length_prefixed(data, "RLE levels")?;
                (
                    Kind::Rle(RleDecoder::new(runs, width, num_values)?),
                    consumed,
                )
            }
            Encoding::BitPacked => {
                let levels = BitPackedLevels::new(data, width, num_values)?;
                let consumed = levels.len_bytes;
                (Kind::BitPacked(levels), consumed)
            }
            Encoding::Unknown(id) => {
                return Err(Error::unsupported(format!(
                    "level encoding {id} is not supported"
                )))
            }
            other => {
                return Err(Error::corrupt_data(format!(
                    "{other:?} is not a level encoding"
                )))
            }
        };
        Ok((Self::with_kind(kind, max_level, width), consumed))
    }

    /// Levels of a v2 data page; `data` is exactly the section the header's
    /// byte length delimits.
    pub(crate) fn v2(max_level: i16, num_values: usize, data: &'a [u8]) -> Result<Self> {
        let width = level_bit_width(max_level)?;
        if max_level == 0 {
            return Ok(Self::with_kind(
                Kind::Zeros {
                    remaining: num_values,
                },
                0,
                0,
            ));
        }
        let decoder = RleDecoder::new(data, width, num_values)?;
        Ok(Self::with_kind(Kind::Rle(decoder), max_level, width))
    }

    /// Consumes the next `n` levels if they are all `level` in one run (see
    /// [`RleDecoder::skip_run_of`]); false, consuming nothing, otherwise.
    pub(crate) fn skip_run_of(&mut self, level: i16, n: usize) -> Result<bool> {
        match &mut self.kind {
            Kind::Zeros { remaining } if level == 0 && n <= *remaining => {
                *remaining -= n;
                Ok(true)
            }
            Kind::Rle(decoder) if level >= 0 => decoder.skip_run_of(level as u32, n),
            _ => Ok(false),
        }
    }

    /// Decodes up to `out.len()` levels; returns how many, fewer only at the
    /// end of the section.
    pub(crate) fn read(&mut self, out: &mut [i16]) -> Result<usize> {
        let n = match &mut self.kind {
            Kind::Zeros { remaining } => {
                let n = out.len().min(*remaining);
                out[..n].fill(0);
                *remaining -= n;
                n
            }
            Kind::Rle(decoder) => decoder.read(out)?,
            Kind::BitPacked(decoder) => decoder.read(out),
        };
        if self.check_max {
            let max = out[..n].iter().fold(0, |m, &l| m.max(l));
            if max > self.max_level {
                return Err(Error::corrupt_data(format!(
                    "level {max} exceeds the column's maximum level {}",
                    self.max_level
                )));
            }
        }
        Ok(n)
    }
}

/// The deprecated BIT_PACKED level encoding: values packed from the most
/// significant bit of each byte.
struct BitPackedLevels<'a> {
    data: &'a [u8],
    bit_width: usize,
    next: usize,
    num_values: usize,
    len_bytes: usize,
}

impl<'a> BitPackedLevels<'a> {
    fn new(data: &'a [u8], width: u8, num_values: usize) -> Result<Self> {
        let bit_width = usize::from(width);
        let len_bytes = num_values
            .checked_mul(bit_width)
            .map(|bits| bits.div_ceil(8))
            .filter(|&len| len <= data.len())
            .ok_or_else(|| {
                Error::corrupt_data(format!(
                    "BIT_PACKED levels: {num_values} values of {bit_width} bits need more than the {} bytes left",
                    data.len()
                ))
            })?;
        Ok(BitPackedLevels {
            data: &data[..len_bytes],
            bit_width,
            next: 0,
            num_values,
            len_bytes,
        })
    }

    fn read(&mut self, out: &mut [i16]) -> usize {
        let n = out.len().min(self.num_values - self.next);
        // Levels are at most 15 bits wide, so a value spans at most three bytes
        // and a 24-bit big-endian window always holds it.
        let mask = (1u32 << self.bit_width) - 1;
        for (i, level) in (self.next..).zip(&mut out[..n]) {
            let bit = i * self.bit_width;
            let byte = bit / 8;
            let window = (0..3).fold(0u32, |w, k| {
                (w << 8) | u32::from(self.data.get(byte + k).copied().unwrap_or(0))
            });
            let shift = 24 - (bit % 8) - self.bit_width;
            *level = ((window >> shift) & mask) as i16;
        }
        self.next += n;
        n
    }
}
