//! Snappy through its C API (snappy-c.h).

use std::mem::MaybeUninit;
use std::os::raw::{c_char, c_int};

use super::{scratch, too_small};
use crate::error::{Error, Result};

/// `snappy_status`.
type SnappyStatus = c_int;
const SNAPPY_OK: SnappyStatus = 0;
const SNAPPY_BUFFER_TOO_SMALL: SnappyStatus = 2;

extern "C" {
    fn snappy_compress(
        input: *const c_char,
        input_length: usize,
        compressed: *mut c_char,
        compressed_length: *mut usize,
    ) -> SnappyStatus;
    fn snappy_uncompress(
        compressed: *const c_char,
        compressed_length: usize,
        uncompressed: *mut c_char,
        uncompressed_length: *mut usize,
    ) -> SnappyStatus;
    fn snappy_max_compressed_length(source_length: usize) -> usize;
    fn snappy_uncompressed_length(
        compressed: *const c_char,
        compressed_length: usize,
        result: *mut usize,
    ) -> SnappyStatus;
}

/// The stream starts with the uncompressed length as a varint32, so larger inputs
/// would be silently mislabelled.
const MAX_INPUT: usize = u32::MAX as usize;

pub(super) fn max_compressed_len(input_len: usize) -> Result<usize> {
    check_input_len(input_len)?;
    // SAFETY: a pure function of its argument.
    Ok(unsafe { snappy_max_compressed_length(input_len) })
}

pub(super) fn compress(input: &[u8], output: &mut [u8]) -> Result<usize> {
    let bound = max_compressed_len(input.len())?;
    if output.len() >= bound {
        return compress_into(input, output);
    }
    // Snappy refuses any buffer smaller than its worst case even when the data
    // would fit, so go through a worst-case scratch buffer.
    let mut buffer = scratch(bound)?;
    let written = compress_into(input, &mut buffer)?;
    let capacity = output.len();
    let target = output
        .get_mut(..written)
        .ok_or_else(|| too_small(capacity, format_args!("{written} bytes")))?;
    target.copy_from_slice(&buffer[..written]);
    Ok(written)
}

fn compress_into(input: &[u8], output: &mut [u8]) -> Result<usize> {
    let mut written = output.len();
    // SAFETY: the pointers and lengths come from live slices; `written` is in/out.
    let status = unsafe {
        snappy_compress(
            input.as_ptr().cast(),
            input.len(),
            output.as_mut_ptr().cast(),
            &mut written,
        )
    };
    match status {
        SNAPPY_OK => Ok(written),
        _ => Err(Error::internal(format!(
            "snappy_compress failed with status {status} for {} input bytes and {} bytes of output",
            input.len(),
            output.len()
        ))),
    }
}

/// The length the stream's header declares.
pub(super) fn decompressed_len(input: &[u8]) -> Result<usize> {
    let mut declared = 0usize;
    // SAFETY: the pointer and length come from a live slice.
    let status =
        unsafe { snappy_uncompressed_length(input.as_ptr().cast(), input.len(), &mut declared) };
    if status != SNAPPY_OK {
        return Err(not_snappy(input.len(), "bad length header"));
    }
    Ok(declared)
}

pub(super) fn decompress(input: &[u8], output: &mut [MaybeUninit<u8>]) -> Result<usize> {
    let declared = decompressed_len(input)?;
    if declared > output.len() {
        return Err(too_small(output.len(), format_args!("{declared} bytes")));
    }
    let mut written = output.len();
    // SAFETY: as above; `written` is in/out.
    let status = unsafe {
        snappy_uncompress(
            input.as_ptr().cast(),
            input.len(),
            output.as_mut_ptr().cast(),
            &mut written,
        )
    };
    match status {
        SNAPPY_OK => Ok(written),
        SNAPPY_BUFFER_TOO_SMALL => Err(too_small(output.len(), format_args!("{declared} bytes"))),
        _ => Err(not_snappy(
            input.len(),
            "stream ends early or has an invalid copy",
        )),
    }
}

fn not_snappy(input_len: usize, why: &str) -> Error {
    Error::corrupt_data(format!(
        "input is not a valid snappy stream ({input_len} bytes): {why}"
    ))
}

fn check_input_len(input_len: usize) -> Result<()> {
    if input_len > MAX_INPUT {
        return Err(Error::invalid_argument(format!(
            "input of {input_len} bytes exceeds snappy's limit of {MAX_INPUT} bytes"
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::test_data::*;
    use super::super::Codec;
    use super::*;
    use crate::error::Status;

    #[test]
    fn round_trips() {
        assert_round_trips(Codec::Snappy, 0);
    }

    #[test]
    fn compresses_into_buffers_below_the_bound_when_the_data_fits() {
        let data = compressible(100_000, 1);
        let full = assert_round_trip(Codec::Snappy, 0, &data);
        let mut exact = vec![0; full.len()];
        assert_eq!(compress(&data, &mut exact).unwrap(), full.len());
        assert_eq!(exact, full);
        let mut short = vec![0; full.len() - 1];
        let err = compress(&data, &mut short).unwrap_err();
        assert_eq!(err.status(), Status::BufferTooSmall);
        assert_eq!(
            err.message(),
            format!(
                "output capacity {} bytes is too small; the result needs {} bytes",
                full.len() - 1,
                full.len()
            )
        );
    }

    #[test]
    fn reports_small_output_and_corruption() {
        assert_too_small_output_rejected(Codec::Snappy, &compressible(10_000, 2));
        assert_corrupt_input_rejected(Codec::Snappy);
        let mut output = vec![0; 10];
        let err = Codec::Snappy
            .decompress(&[0xFF; 1234], &mut output)
            .unwrap_err();
        assert_eq!(err.status(), Status::CorruptData);
        assert_eq!(
            err.message(),
            "snappy decompress: input is not a valid snappy stream (1234 bytes): bad length header"
        );
        let err = Codec::Snappy.decompress(&[], &mut output).unwrap_err();
        assert_eq!(err.status(), Status::CorruptData);
    }

    #[test]
    fn rejects_inputs_beyond_the_varint32_header() {
        let err = max_compressed_len(MAX_INPUT + 1).unwrap_err();
        assert_eq!(err.status(), Status::InvalidArgument);
        assert!(
            err.message()
                .contains("exceeds snappy's limit of 4294967295 bytes"),
            "{err}"
        );
    }
}
