//! The encoders that only the tests' Parquet writer ([`super::parquet::writer`]),
//! the tests and the benches need: PLAIN values given back to back, level
//! sections encoded whole, and BYTE_STREAM_SPLIT. The library's own writer
//! encodes levels and values incrementally (`parquet::write`) and never writes
//! BYTE_STREAM_SPLIT.
//!
//! The decoders and incremental encoders are the library's own, re-exported here
//! for the benches, which time them.

use crate::error::{Error, Result};
use crate::parquet::encodings::append_length_prefixed;
use crate::parquet::encodings::levels::level_bit_width;

pub use crate::parquet::encodings::byte_stream_split::ByteStreamSplitDecoder;
pub use crate::parquet::encodings::delta::{
    DeltaBinaryPackedDecoder, DeltaBinaryPackedEncoder, DeltaLengthByteArrayDecoder,
    DeltaLengthByteArrayEncoder,
};
pub use crate::parquet::encodings::plain::PlainDecoder;
pub use crate::parquet::encodings::rle::{RleDecoder, RleEncoder};
pub use crate::parquet::encodings::{ByteArraySink, FixedWidth};
pub use crate::parquet::read::column::plain_bytes::PlainByteArrays;

// ------------------------------------------------------------------ PLAIN

/// Appends INT32, INT64, FLOAT or DOUBLE values.
pub fn encode_plain<T: FixedWidth>(values: &[T], out: &mut Vec<u8>) {
    T::encode_le(values, out);
}

/// Appends FIXED_LEN_BYTE_ARRAY (or INT96) values given back to back.
pub fn encode_plain_fixed_len(values: &[u8], width: usize, out: &mut Vec<u8>) -> Result<()> {
    if width == 0 || !values.len().is_multiple_of(width) {
        return Err(Error::invalid_argument(format!(
            "{} bytes are not a whole number of {width}-byte values",
            values.len()
        )));
    }
    out.extend_from_slice(values);
    Ok(())
}

/// Appends one BYTE_ARRAY value with its length prefix.
pub fn encode_plain_byte_array(value: &[u8], out: &mut Vec<u8>) -> Result<()> {
    append_length_prefixed(value, out, "byte array")
}

// ------------------------------------------------------------------ levels

fn check_levels(levels: &[i16], max_level: i16) -> Result<u8> {
    let width = level_bit_width(max_level)?;
    if let Some(&bad) = levels.iter().find(|&&l| l < 0 || l > max_level) {
        return Err(Error::invalid_argument(format!(
            "level {bad} is outside 0..={max_level}"
        )));
    }
    Ok(width)
}

fn rle_levels(levels: &[i16], width: u8) -> Vec<u8> {
    let mut encoder = RleEncoder::new(width);
    encoder.put_all(levels.iter().map(|&l| l as u32));
    encoder.finish()
}

/// Appends a v1 level section: a 4-byte length and the RLE runs; nothing when
/// `max_level` is 0.
pub fn encode_levels_v1(levels: &[i16], max_level: i16, out: &mut Vec<u8>) -> Result<()> {
    let width = check_levels(levels, max_level)?;
    if max_level == 0 {
        return Ok(());
    }
    append_length_prefixed(&rle_levels(levels, width), out, "RLE levels")
}

/// Appends a v2 level section (runs only) and returns its length for the
/// page header; nothing when `max_level` is 0.
pub fn encode_levels_v2(levels: &[i16], max_level: i16, out: &mut Vec<u8>) -> Result<usize> {
    let width = check_levels(levels, max_level)?;
    if max_level == 0 {
        return Ok(0);
    }
    let runs = rle_levels(levels, width);
    out.extend_from_slice(&runs);
    Ok(runs.len())
}

// ------------------------------------------------------------------ BYTE_STREAM_SPLIT

/// Appends the BYTE_STREAM_SPLIT encoding of `values`, the PLAIN bytes of
/// `width`-byte values.
pub fn encode_byte_stream_split(values: &[u8], width: usize, out: &mut Vec<u8>) -> Result<()> {
    if width == 0 || !values.len().is_multiple_of(width) {
        return Err(Error::invalid_argument(format!(
            "{} bytes are not a whole number of {width}-byte values",
            values.len()
        )));
    }
    let count = values.len() / width;
    let start = out.len();
    out.resize(start + values.len(), 0);
    let streams = &mut out[start..];
    for byte in 0..width {
        let stream = &mut streams[byte * count..(byte + 1) * count];
        for (slot, value) in stream.iter_mut().zip(values.chunks_exact(width)) {
            *slot = value[byte];
        }
    }
    Ok(())
}

/// Appends the BYTE_STREAM_SPLIT encoding of FLOAT, DOUBLE, INT32 or INT64
/// values.
pub fn encode_byte_stream_split_values<T: FixedWidth>(values: &[T], out: &mut Vec<u8>) {
    let mut plain = Vec::with_capacity(values.len() * T::WIDTH);
    T::encode_le(values, &mut plain);
    // The length is a whole number of values by construction.
    let _ = encode_byte_stream_split(&plain, T::WIDTH, out);
}
