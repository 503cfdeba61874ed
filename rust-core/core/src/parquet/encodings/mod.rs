//! Parquet's value and level encodings, decoders and encoders.
//!
//! - PLAIN for every physical type, in [`plain`];
//! - the RLE/bit-packing hybrid (dictionary indices, RLE booleans), in [`rle`],
//!   on top of the 32-values-at-a-time kernels of [`bit_pack`];
//! - repetition/definition levels with v1 and v2 framing and the deprecated
//!   BIT_PACKED, in [`levels`];
//! - DELTA_BINARY_PACKED, DELTA_LENGTH_BYTE_ARRAY and DELTA_BYTE_ARRAY, in
//!   [`delta`];
//! - BYTE_STREAM_SPLIT, in [`byte_stream_split`].
//!
//! Decoders borrow a page's (decompressed) bytes, are told how many values it
//! holds, and decode in batches into caller-provided slices: `read(&mut
//! self, out)` returns how many values it wrote, fewer than `out.len()` only
//! when the page has no more. Byte arrays go to a [`ByteArraySink`] instead,
//! so the caller decides how to lay them out. Running out of bytes before the
//! promised number of values, or any value that contradicts the encoding, is a
//! CORRUPT_DATA error.

pub(crate) mod bit_pack;
pub(crate) mod byte_stream_split;
pub(crate) mod delta;
pub(crate) mod levels;
pub(crate) mod plain;
pub(crate) mod rle;

use crate::error::{Error, Result};

/// Receives decoded BYTE_ARRAY (and FIXED_LEN_BYTE_ARRAY) values in order.
///
/// A sink may fail (an offset overflowing its layout, say); the decoder then
/// stops and returns that error.
pub trait ByteArraySink {
    fn push(&mut self, value: &[u8]) -> Result<()>;
}

/// A fixed-width physical type stored little-endian (INT32, INT64, FLOAT,
/// DOUBLE).
pub trait FixedWidth: Copy + Default + PartialEq + std::fmt::Debug {
    const WIDTH: usize;

    /// Fills `dst` from the front of `src`, which holds at least
    /// `dst.len() * WIDTH` bytes (values beyond `src` are left untouched).
    fn decode_le(src: &[u8], dst: &mut [Self]);

    /// Appends the little-endian bytes of `src`.
    fn encode_le(src: &[Self], out: &mut Vec<u8>);
}

macro_rules! fixed_width {
    ($($t:ty => $w:literal),*) => {$(
        impl FixedWidth for $t {
            const WIDTH: usize = $w;

            #[inline]
            fn decode_le(src: &[u8], dst: &mut [Self]) {
                let (chunks, _) = src.as_chunks::<$w>();
                for (d, chunk) in dst.iter_mut().zip(chunks) {
                    *d = <$t>::from_le_bytes(*chunk);
                }
            }

            #[inline]
            fn encode_le(src: &[Self], out: &mut Vec<u8>) {
                let start = out.len();
                out.resize(start + src.len() * $w, 0);
                let (chunks, _) = out[start..].as_chunks_mut::<$w>();
                for (chunk, v) in chunks.iter_mut().zip(src) {
                    *chunk = v.to_le_bytes();
                }
            }
        }
    )*};
}

fixed_width!(i32 => 4, i64 => 8, f32 => 4, f64 => 8);

/// Splits a section that starts with its own 4-byte little-endian length (v1
/// RLE levels, RLE booleans) from `data`; returns the section and the bytes it
/// takes including the prefix.
pub(crate) fn split_length_prefixed<'a>(data: &'a [u8], what: &str) -> Result<(&'a [u8], usize)> {
    let Some((prefix, rest)) = data.split_first_chunk::<4>() else {
        return Err(Error::corrupt_data(format!(
            "{what}: {} bytes cannot hold the 4-byte length prefix",
            data.len()
        )));
    };
    let len = u32::from_le_bytes(*prefix) as usize;
    match rest.get(..len) {
        Some(section) => Ok((section, len + 4)),
        None => Err(Error::corrupt_data(format!(
            "{what}: length prefix {len} exceeds the {} bytes that follow it",
            rest.len()
        ))),
    }
}

/// Appends `section` behind a 4-byte little-endian length.
pub(crate) fn append_length_prefixed(section: &[u8], out: &mut Vec<u8>, what: &str) -> Result<()> {
    let len = i32::try_from(section.len()).map_err(|_| {
        Error::invalid_argument(format!("{what} of {} bytes exceeds 2 GiB", section.len()))
    })?;
    out.extend_from_slice(&len.to_le_bytes());
    out.extend_from_slice(section);
    Ok(())
}
