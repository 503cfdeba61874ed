//! LZ4 blocks, raw (LZ4_RAW) and in Hadoop's framing (Parquet's deprecated LZ4).
//!
//! Hadoop framing is a sequence of blocks, each
//! `[u32 BE decompressed size] ([u32 BE compressed size] [LZ4 block])+`, where the
//! chunks of a block add up to its decompressed size. Arrow C++ and parquet-java
//! write one chunk per block; Hadoop's own codec splits large writes into several.
//! Some writers produced raw LZ4 under the same codec id, so a stream that does not
//! parse as Hadoop framing is retried as one raw block, as Arrow C++ and
//! parquet-java do.

use std::mem::MaybeUninit;
use std::os::raw::{c_char, c_int};

use super::{to_c_int, too_small};
use crate::error::{Error, Result};

extern "C" {
    fn LZ4_compress_default(
        src: *const c_char,
        dst: *mut c_char,
        src_size: c_int,
        dst_capacity: c_int,
    ) -> c_int;
    fn LZ4_decompress_safe(
        src: *const c_char,
        dst: *mut c_char,
        compressed_size: c_int,
        dst_capacity: c_int,
    ) -> c_int;
    fn LZ4_compressBound(input_size: c_int) -> c_int;
}

/// `LZ4_MAX_INPUT_SIZE`.
const MAX_INPUT: usize = 0x7E00_0000;

/// Uncompressed bytes per Hadoop block. Hadoop's decompressor holds one chunk in a
/// buffer of `io.compression.codec.lz4.buffersize` (256 KiB by default), so
/// blocks must stay well below that for Hadoop-based readers.
const HADOOP_BLOCK: usize = 128 * 1024;
const HADOOP_HEADER: usize = 4;

pub(super) fn raw_max_compressed_len(input_len: usize) -> Result<usize> {
    let len = to_c_int(input_len, "input", MAX_INPUT)?;
    // SAFETY: a pure function of its argument.
    let bound = unsafe { LZ4_compressBound(len) };
    usize::try_from(bound)
        .ok()
        .filter(|&b| b > 0)
        .ok_or_else(|| Error::internal(format!("LZ4_compressBound({len}) returned {bound}")))
}

pub(super) fn raw_compress(input: &[u8], output: &mut [u8]) -> Result<usize> {
    let src_size = to_c_int(input.len(), "input", MAX_INPUT)?;
    // A capacity beyond int range can be clamped: no block compresses to more
    // than LZ4_compressBound(MAX_INPUT), which is below i32::MAX.
    let capacity = output.len().min(c_int::MAX as usize) as c_int;
    // SAFETY: the pointers come from live slices of at least the given lengths.
    let written = unsafe {
        LZ4_compress_default(
            input.as_ptr().cast(),
            output.as_mut_ptr().cast(),
            src_size,
            capacity,
        )
    };
    if written <= 0 {
        let bound = raw_max_compressed_len(input.len())?;
        return Err(too_small(output.len(), format_args!("up to {bound} bytes")));
    }
    Ok(written as usize)
}

pub(super) fn raw_decompress(input: &[u8], output: &mut [MaybeUninit<u8>]) -> Result<usize> {
    raw_decompress_block(input, output).ok_or_else(|| diagnose_raw(input, output.len()))
}

/// Decodes one block into `output`, or `None` if LZ4 rejects it (corrupt, or too
/// large for `output`; [`decoded_len`] tells which).
fn raw_decompress_block(input: &[u8], output: &mut [MaybeUninit<u8>]) -> Option<usize> {
    let compressed_size = c_int::try_from(input.len()).ok()?;
    // No block decodes to more than int range, so clamping loses nothing.
    let capacity = output.len().min(c_int::MAX as usize) as c_int;
    // SAFETY: the pointers come from live slices of at least the given lengths.
    let written = unsafe {
        LZ4_decompress_safe(
            input.as_ptr().cast(),
            output.as_mut_ptr().cast(),
            compressed_size,
            capacity,
        )
    };
    usize::try_from(written).ok()
}

fn diagnose_raw(input: &[u8], capacity: usize) -> Error {
    if input.len() > c_int::MAX as usize {
        return Error::invalid_argument(format!(
            "input of {} bytes exceeds LZ4's limit of {} bytes per block",
            input.len(),
            c_int::MAX
        ));
    }
    match decoded_len(input) {
        Some(needed) if needed > capacity => too_small(capacity, format_args!("{needed} bytes")),
        _ => Error::corrupt_data(format!(
            "input is not a valid LZ4 block ({} bytes)",
            input.len()
        )),
    }
}

/// Walks an LZ4 block's sequences without writing anything and returns the length
/// it decodes to, or `None` if it is malformed. Only used to explain a failure, so
/// it favours clarity over speed.
fn decoded_len(block: &[u8]) -> Option<usize> {
    fn extended(block: &[u8], pos: &mut usize, mut len: usize) -> Option<usize> {
        if len == 15 {
            loop {
                let byte = *block.get(*pos)?;
                *pos += 1;
                len = len.checked_add(byte as usize)?;
                if byte != 255 {
                    break;
                }
            }
        }
        Some(len)
    }

    let mut pos = 0;
    let mut produced = 0usize;
    loop {
        let token = *block.get(pos)?;
        pos += 1;
        let literals = extended(block, &mut pos, (token >> 4) as usize)?;
        pos = pos
            .checked_add(literals)
            .filter(|&end| end <= block.len())?;
        produced = produced.checked_add(literals)?;
        if pos == block.len() {
            // The last sequence carries literals only.
            return Some(produced);
        }
        let offset = u16::from_le_bytes([*block.get(pos)?, *block.get(pos + 1)?]) as usize;
        pos += 2;
        if offset == 0 || offset > produced {
            return None;
        }
        let match_len = extended(block, &mut pos, (token & 0x0F) as usize)?.checked_add(4)?;
        produced = produced.checked_add(match_len)?;
    }
}

pub(super) fn hadoop_max_compressed_len(input_len: usize) -> Result<usize> {
    let full_blocks = input_len / HADOOP_BLOCK;
    let tail = input_len % HADOOP_BLOCK;
    let per_block = |len| raw_max_compressed_len(len).map(|b| b + 2 * HADOOP_HEADER);
    let mut bound = full_blocks
        .checked_mul(per_block(HADOOP_BLOCK)?)
        .ok_or_else(|| {
            Error::invalid_argument(format!("input of {input_len} bytes is too large"))
        })?;
    if tail > 0 {
        bound = bound.checked_add(per_block(tail)?).ok_or_else(|| {
            Error::invalid_argument(format!("input of {input_len} bytes is too large"))
        })?;
    }
    Ok(bound)
}

pub(super) fn hadoop_compress(input: &[u8], output: &mut [u8]) -> Result<usize> {
    let capacity = output.len();
    let too_small_here = || {
        let bound = hadoop_max_compressed_len(input.len()).unwrap_or(usize::MAX);
        too_small(capacity, format_args!("up to {bound} bytes"))
    };
    let mut written = 0;
    for block in input.chunks(HADOOP_BLOCK) {
        let room = capacity - written;
        if room < 2 * HADOOP_HEADER {
            return Err(too_small_here());
        }
        let body = &mut output[written + 2 * HADOOP_HEADER..];
        let compressed = raw_compress(block, body).map_err(|_| too_small_here())?;
        output[written..written + 4].copy_from_slice(&(block.len() as u32).to_be_bytes());
        output[written + 4..written + 8].copy_from_slice(&(compressed as u32).to_be_bytes());
        written += 2 * HADOOP_HEADER + compressed;
    }
    Ok(written)
}

pub(super) fn hadoop_decompress(input: &[u8], output: &mut [MaybeUninit<u8>]) -> Result<usize> {
    if let Some(written) = hadoop_decompress_blocks(input, output) {
        return Ok(written);
    }
    if let Some(written) = raw_decompress_block(input, output) {
        return Ok(written);
    }
    // Both readings failed; explain in terms of the one the input resembles.
    Err(match hadoop_decoded_len(input) {
        Some(needed) if needed > output.len() => too_small(output.len(), format_args!("{needed} bytes")),
        Some(_) => Error::corrupt_data(format!(
            "input is Hadoop-framed LZ4 ({} bytes) but a block does not decode to its declared size",
            input.len()
        )),
        None => match decoded_len(input) {
            Some(needed) if needed > output.len() => {
                too_small(output.len(), format_args!("{needed} bytes (read as a raw LZ4 block)"))
            }
            _ => Error::corrupt_data(format!(
                "input is neither Hadoop-framed LZ4 nor a raw LZ4 block ({} bytes)",
                input.len()
            )),
        },
    })
}

fn read_u32_be(bytes: &mut &[u8]) -> Option<usize> {
    let (head, tail) = bytes.split_first_chunk::<4>()?;
    *bytes = tail;
    Some(u32::from_be_bytes(*head) as usize)
}

/// Reads one `[u32 BE length][bytes]` chunk.
fn read_chunk<'a>(bytes: &mut &'a [u8]) -> Option<&'a [u8]> {
    let mut rest = *bytes;
    let len = read_u32_be(&mut rest)?;
    let (chunk, tail) = rest.split_at_checked(len)?;
    *bytes = tail;
    Some(chunk)
}

/// Decodes `input` as Hadoop framing, or `None` if it is not (or does not fit).
fn hadoop_decompress_blocks(input: &[u8], output: &mut [MaybeUninit<u8>]) -> Option<usize> {
    let mut rest = input;
    let mut written = 0usize;
    while !rest.is_empty() {
        let decompressed = read_u32_be(&mut rest)?;
        let end = written
            .checked_add(decompressed)
            .filter(|&end| end <= output.len())?;
        // A block has at least one chunk, even when empty: Arrow C++ writes an
        // empty input as one empty block holding a one-byte LZ4 block.
        loop {
            let chunk = read_chunk(&mut rest)?;
            written += raw_decompress_block(chunk, &mut output[written..end])?;
            if written == end {
                break;
            }
        }
    }
    Some(written)
}

/// The size a well-formed Hadoop-framed stream decodes to, found without decoding.
fn hadoop_decoded_len(input: &[u8]) -> Option<usize> {
    let mut rest = input;
    let mut total = 0usize;
    while !rest.is_empty() {
        let decompressed = read_u32_be(&mut rest)?;
        let mut in_block = 0usize;
        loop {
            in_block = in_block.checked_add(decoded_len(read_chunk(&mut rest)?)?)?;
            if in_block >= decompressed {
                break;
            }
        }
        if in_block != decompressed {
            return None;
        }
        total = total.checked_add(decompressed)?;
    }
    Some(total)
}

#[cfg(test)]
mod tests {
    use super::super::test_data::*;
    use super::super::{as_uninit, Codec};
    use super::*;
    use crate::error::Status;

    fn raw_block(data: &[u8]) -> Vec<u8> {
        let mut out = vec![0; raw_max_compressed_len(data.len()).unwrap()];
        let n = raw_compress(data, &mut out).unwrap();
        out.truncate(n);
        out
    }

    #[test]
    fn raw_round_trips() {
        assert_round_trips(Codec::Lz4Raw, 0);
    }

    #[test]
    fn hadoop_round_trips() {
        assert_round_trips(Codec::Lz4Hadoop, 0);
    }

    #[test]
    fn hadoop_writes_one_chunk_per_128_kib_block() {
        let data = compressible(3 * HADOOP_BLOCK + 10, 1);
        let stream = assert_round_trip(Codec::Lz4Hadoop, 0, &data);
        let mut rest = &stream[..];
        let mut sizes = Vec::new();
        while !rest.is_empty() {
            let decompressed = read_u32_be(&mut rest).unwrap();
            let compressed = read_u32_be(&mut rest).unwrap();
            rest = &rest[compressed..];
            sizes.push(decompressed);
        }
        assert_eq!(sizes, [HADOOP_BLOCK, HADOOP_BLOCK, HADOOP_BLOCK, 10]);
        assert!(assert_round_trip(Codec::Lz4Hadoop, 0, &[]).is_empty());
    }

    #[test]
    fn hadoop_reads_arrow_style_single_block_and_multi_chunk_blocks() {
        let data = compressible(300_000, 2);
        let mut output = vec![0; data.len()];

        // Arrow C++: the whole input as one block with one chunk.
        let block = raw_block(&data);
        let mut arrow = (data.len() as u32).to_be_bytes().to_vec();
        arrow.extend((block.len() as u32).to_be_bytes());
        arrow.extend(&block);
        assert_eq!(
            hadoop_decompress(&arrow, as_uninit(&mut output)).unwrap(),
            data.len()
        );
        assert!(output == data);

        // Hadoop's BlockCompressorStream: one block, several chunks.
        let mut hadoop = (data.len() as u32).to_be_bytes().to_vec();
        for piece in data.chunks(100_000) {
            let chunk = raw_block(piece);
            hadoop.extend((chunk.len() as u32).to_be_bytes());
            hadoop.extend(chunk);
        }
        output.fill(0);
        assert_eq!(
            hadoop_decompress(&hadoop, as_uninit(&mut output)).unwrap(),
            data.len()
        );
        assert!(output == data);
        assert_eq!(hadoop_decoded_len(&hadoop), Some(data.len()));

        // Arrow C++ writes an empty input as an empty block with a one-byte chunk.
        let empty = [0, 0, 0, 0, 0, 0, 0, 1, 0];
        assert_eq!(hadoop_decompress(&empty, &mut []).unwrap(), 0);
    }

    #[test]
    fn hadoop_falls_back_to_a_raw_block() {
        for data in [compressible(200_000, 3), random(5_000, 3), b"x".to_vec()] {
            let block = raw_block(&data);
            assert!(
                hadoop_decompress_blocks(&block, as_uninit(&mut vec![0; data.len()])).is_none()
            );
            let mut output = vec![0; data.len()];
            assert_eq!(
                Codec::Lz4Hadoop.decompress(&block, &mut output).unwrap(),
                data.len()
            );
            assert!(output == data);
        }
    }

    #[test]
    fn hadoop_reports_small_output_in_either_reading() {
        let data = compressible(400_000, 4);
        assert_too_small_output_rejected(Codec::Lz4Hadoop, &data);
        let stream = assert_round_trip(Codec::Lz4Hadoop, 0, &data);
        let err = Codec::Lz4Hadoop
            .decompress(&stream, &mut vec![0; 1000])
            .unwrap_err();
        assert_eq!(
            err.message(),
            "lz4_hadoop decompress: output capacity 1000 bytes is too small; the result needs 400000 bytes"
        );

        let block = raw_block(&data);
        let err = Codec::Lz4Hadoop
            .decompress(&block, &mut vec![0; 1000])
            .unwrap_err();
        assert_eq!(err.status(), Status::BufferTooSmall, "{err}");
        assert!(
            err.message()
                .ends_with("needs 400000 bytes (read as a raw LZ4 block)"),
            "{err}"
        );
    }

    #[test]
    fn reports_corruption() {
        assert_corrupt_input_rejected(Codec::Lz4Raw);
        assert_corrupt_input_rejected(Codec::Lz4Hadoop);
        let mut output = vec![0; 100];
        let err = Codec::Lz4Raw.decompress(&[], &mut output).unwrap_err();
        assert_eq!(
            err.message(),
            "lz4_raw decompress: input is not a valid LZ4 block (0 bytes)"
        );
        // A match reaching before the start of the output.
        let err = Codec::Lz4Raw
            .decompress(&[0x14, b'a', 9, 0, 0x10, b'b'], &mut output)
            .unwrap_err();
        assert_eq!(err.status(), Status::CorruptData);
        let err = Codec::Lz4Hadoop
            .decompress(&[0, 0, 0, 5, 0, 0, 0, 9, 1], &mut output)
            .unwrap_err();
        assert_eq!(
            err.message(),
            "lz4_hadoop decompress: input is neither Hadoop-framed LZ4 nor a raw LZ4 block (9 bytes)"
        );
    }

    #[test]
    fn raw_reports_small_output() {
        let data = compressible(50_000, 5);
        assert_too_small_output_rejected(Codec::Lz4Raw, &data);
        let block = raw_block(&data);
        assert_eq!(decoded_len(&block), Some(data.len()));
        let err = Codec::Lz4Raw.decompress(&block, &mut [0; 10]).unwrap_err();
        assert_eq!(
            err.message(),
            "lz4_raw decompress: output capacity 10 bytes is too small; the result needs 50000 bytes"
        );
    }

    #[test]
    fn rejects_inputs_beyond_lz4_limits() {
        let err = raw_max_compressed_len(MAX_INPUT + 1).unwrap_err();
        assert_eq!(err.status(), Status::InvalidArgument);
        assert_eq!(
            err.message(),
            "input of 2113929217 bytes exceeds the codec's limit of 2113929216 bytes"
        );
        // Hadoop framing splits into blocks, so it has no such limit.
        let bound = hadoop_max_compressed_len(MAX_INPUT + 1).unwrap();
        assert!(bound > MAX_INPUT + 1);
        assert!(hadoop_max_compressed_len(usize::MAX).is_err());
    }
}
