//! Brotli through libbrotlienc's one-shot encoder and libbrotlidec's streaming
//! decoder (the one-shot decoder cannot say why it failed).

use std::ffi::CStr;
use std::mem::MaybeUninit;
use std::os::raw::{c_char, c_int, c_void};

use super::{resolve_level, too_small};
use crate::error::{Error, Result};

#[repr(C)]
struct BrotliDecoderState {
    _opaque: [u8; 0],
}

extern "C" {
    fn BrotliEncoderCompress(
        quality: c_int,
        lgwin: c_int,
        mode: c_int,
        input_size: usize,
        input_buffer: *const u8,
        encoded_size: *mut usize,
        encoded_buffer: *mut u8,
    ) -> c_int;
    fn BrotliEncoderMaxCompressedSize(input_size: usize) -> usize;
    fn BrotliDecoderCreateInstance(
        alloc_func: *const c_void,
        free_func: *const c_void,
        opaque: *mut c_void,
    ) -> *mut BrotliDecoderState;
    fn BrotliDecoderDestroyInstance(state: *mut BrotliDecoderState);
    fn BrotliDecoderDecompressStream(
        state: *mut BrotliDecoderState,
        available_in: *mut usize,
        next_in: *mut *const u8,
        available_out: *mut usize,
        next_out: *mut *mut u8,
        total_out: *mut usize,
    ) -> c_int;
    fn BrotliDecoderGetErrorCode(state: *const BrotliDecoderState) -> c_int;
    fn BrotliDecoderErrorString(code: c_int) -> *const c_char;
}

/// Quality 1, arrow-rs's default for Parquet: the higher qualities compress tens of times slower.
const DEFAULT_QUALITY: i32 = 1;
/// `BROTLI_DEFAULT_WINDOW`, as Arrow C++ and parquet-java use.
const WINDOW_BITS: c_int = 22;
const MODE_GENERIC: c_int = 0;

/// `BrotliDecoderResult`.
const RESULT_SUCCESS: c_int = 1;
const RESULT_NEEDS_MORE_INPUT: c_int = 2;
const RESULT_NEEDS_MORE_OUTPUT: c_int = 3;
/// `BROTLI_DECODER_ERROR_ALLOC_*` codes lie in this range.
const ERROR_ALLOC: std::ops::RangeInclusive<c_int> = -30..=-21;

pub(super) fn max_compressed_len(input_len: usize) -> Result<usize> {
    // SAFETY: a pure function of its argument; 0 signals overflow.
    match unsafe { BrotliEncoderMaxCompressedSize(input_len) } {
        0 => Err(Error::invalid_argument(format!(
            "input of {input_len} bytes is larger than brotli can compress"
        ))),
        bound => Ok(bound),
    }
}

pub(super) fn compress(level: i32, input: &[u8], output: &mut [u8]) -> Result<usize> {
    // Quality 0 is brotli's fastest setting, but the ABI reserves 0 for "default".
    let quality = resolve_level(level, 1..=11, DEFAULT_QUALITY)?;
    let mut written = output.len();
    // SAFETY: the pointers come from live slices; `written` is in/out.
    let ok = unsafe {
        BrotliEncoderCompress(
            quality,
            WINDOW_BITS,
            MODE_GENERIC,
            input.len(),
            input.as_ptr(),
            &mut written,
            output.as_mut_ptr(),
        )
    };
    if ok != 0 {
        return Ok(written);
    }
    // Given its worst-case bound the encoder falls back to storing the input, so a
    // failure with that much room is an allocation failure.
    let bound = max_compressed_len(input.len())?;
    if output.len() < bound {
        Err(too_small(output.len(), format_args!("up to {bound} bytes")))
    } else {
        Err(Error::out_of_memory(format!(
            "brotli encoder failed on {} input bytes",
            input.len()
        )))
    }
}

pub(super) fn decompress(input: &[u8], output: &mut [MaybeUninit<u8>]) -> Result<usize> {
    struct Decoder(*mut BrotliDecoderState);
    impl Drop for Decoder {
        fn drop(&mut self) {
            // SAFETY: created by BrotliDecoderCreateInstance, destroyed once.
            unsafe { BrotliDecoderDestroyInstance(self.0) }
        }
    }

    // SAFETY: NULL allocator functions select malloc/free.
    let state = unsafe {
        BrotliDecoderCreateInstance(std::ptr::null(), std::ptr::null(), std::ptr::null_mut())
    };
    if state.is_null() {
        return Err(Error::out_of_memory("cannot allocate a brotli decoder"));
    }
    let decoder = Decoder(state);

    let mut available_in = input.len();
    let mut next_in = input.as_ptr();
    let mut available_out = output.len();
    let mut next_out: *mut u8 = output.as_mut_ptr().cast();
    let mut total_out = 0usize;
    // One call suffices: it gets all of the input and all of the output.
    // SAFETY: the cursors describe live slices; brotli advances them in bounds.
    let result = unsafe {
        BrotliDecoderDecompressStream(
            decoder.0,
            &mut available_in,
            &mut next_in,
            &mut available_out,
            &mut next_out,
            &mut total_out,
        )
    };
    let consumed = input.len() - available_in;
    match result {
        RESULT_SUCCESS if available_in == 0 => Ok(output.len() - available_out),
        RESULT_SUCCESS => Err(Error::corrupt_data(format!(
            "{available_in} bytes of trailing data after the brotli stream ends at offset {consumed}"
        ))),
        RESULT_NEEDS_MORE_OUTPUT => Err(too_small(output.len(), "more")),
        RESULT_NEEDS_MORE_INPUT => Err(Error::corrupt_data(format!(
            "input ends inside the brotli stream ({} bytes)",
            input.len()
        ))),
        _ => {
            // SAFETY: the decoder is live; error strings are static.
            let code = unsafe { BrotliDecoderGetErrorCode(decoder.0) };
            let name = unsafe { CStr::from_ptr(BrotliDecoderErrorString(code)) }.to_string_lossy();
            Err(if ERROR_ALLOC.contains(&code) {
                Error::out_of_memory(format!("brotli decoder allocation failed ({name})"))
            } else {
                Error::corrupt_data(format!(
                    "invalid brotli stream: {name} (error {code}) near input offset {consumed}"
                ))
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_data::*;
    use super::super::Codec;
    use crate::error::Status;

    #[test]
    fn round_trips() {
        for (i, &len) in SIZES.iter().enumerate() {
            let level = if len > 100_000 { 0 } else { 11 };
            assert_round_trip(Codec::Brotli, level, &compressible(len, i as u64));
            assert_round_trip(Codec::Brotli, level, &random(len, 100 + i as u64));
        }
        let data = compressible(30_000, 1);
        for level in 1..=11 {
            assert_round_trip(Codec::Brotli, level, &data);
        }
    }

    #[test]
    fn level_bounds() {
        let mut out = vec![0; 100];
        for level in [-1, 12] {
            let err = Codec::Brotli.compress(level, b"abc", &mut out).unwrap_err();
            assert_eq!(err.status(), Status::InvalidArgument);
            assert_eq!(
                err.message(),
                format!("brotli compress: level {level} is out of range: expected 1..=11, or 0 for the default (1)")
            );
        }
        let data = compressible(20_000, 2);
        assert_eq!(
            assert_round_trip(Codec::Brotli, 0, &data),
            assert_round_trip(Codec::Brotli, 1, &data)
        );
    }

    #[test]
    fn reports_small_output_and_corruption() {
        assert_too_small_output_rejected(Codec::Brotli, &compressible(10_000, 3));
        assert_corrupt_input_rejected(Codec::Brotli);
        let mut output = vec![0; 100];
        let err = Codec::Brotli.decompress(&[], &mut output).unwrap_err();
        assert_eq!(
            err.message(),
            "brotli decompress: input ends inside the brotli stream (0 bytes)"
        );
        let mut stream = assert_round_trip(Codec::Brotli, 0, b"brotli");
        stream.push(0);
        let err = Codec::Brotli.decompress(&stream, &mut output).unwrap_err();
        assert_eq!(err.status(), Status::CorruptData);
        assert!(
            err.message()
                .starts_with("brotli decompress: 1 bytes of trailing data"),
            "{err}"
        );
        let err = Codec::Brotli
            .decompress(&[0xFF; 64], &mut output)
            .unwrap_err();
        assert_eq!(err.status(), Status::CorruptData);
        assert!(
            err.message()
                .starts_with("brotli decompress: invalid brotli stream: "),
            "{err}"
        );
    }
}
