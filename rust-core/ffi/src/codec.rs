//! Codec exports: thin wrappers that validate pointers and call
//! [`isthmus_core::compression::Codec`].

use super::{check_disjoint, guard, input_slice, out_param, output_slice, write_out, IsthmusError};
use isthmus_core::compression::Codec;
use isthmus_core::error::Result;

/// # Safety
/// `out_bound` is NULL or writable; `error` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn isthmus_codec_max_compressed_size(
    codec: i32,
    input_size: u64,
    out_bound: *mut u64,
    error: *mut IsthmusError,
) -> i32 {
    guard(error, || {
        let codec = Codec::from_id(codec)?;
        let out_bound = out_param(out_bound, "out_bound")?;
        let input_len = usize::try_from(input_size).map_err(|_| {
            isthmus_core::error::Error::invalid_argument(format!(
                "input_size {input_size} exceeds the address space"
            ))
        })?;
        let bound = codec.max_compressed_len(input_len)?;
        // SAFETY: checked non-NULL; writable per the caller's contract.
        unsafe { write_out(out_bound, bound as u64) };
        Ok(())
    })
}

/// # Safety
/// `input`/`output` are NULL with a zero size or valid for their sizes and do not
/// overlap; `out_written` and `error` are NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn isthmus_codec_compress(
    codec: i32,
    level: i32,
    input: *const u8,
    input_size: u64,
    output: *mut u8,
    output_capacity: u64,
    out_written: *mut u64,
    error: *mut IsthmusError,
) -> i32 {
    guard(error, || {
        let codec = Codec::from_id(codec)?;
        // SAFETY: per the caller's contract.
        unsafe {
            transform(
                input,
                input_size,
                output,
                output_capacity,
                out_written,
                |i, o| codec.compress(level, i, o),
            )
        }
    })
}

/// # Safety
/// As for [`isthmus_codec_compress`].
#[no_mangle]
pub unsafe extern "C" fn isthmus_codec_decompress(
    codec: i32,
    input: *const u8,
    input_size: u64,
    output: *mut u8,
    output_capacity: u64,
    out_written: *mut u64,
    error: *mut IsthmusError,
) -> i32 {
    guard(error, || {
        let codec = Codec::from_id(codec)?;
        // SAFETY: per the caller's contract.
        unsafe {
            transform(
                input,
                input_size,
                output,
                output_capacity,
                out_written,
                |i, o| codec.decompress(i, o),
            )
        }
    })
}

/// Checks the buffers of a one-shot input -> output call, runs `body` on them and
/// reports the written length.
///
/// # Safety
/// As for [`isthmus_codec_compress`].
unsafe fn transform(
    input: *const u8,
    input_size: u64,
    output: *mut u8,
    output_capacity: u64,
    out_written: *mut u64,
    body: impl FnOnce(&[u8], &mut [u8]) -> Result<usize>,
) -> Result<()> {
    // SAFETY: per the caller's contract; overlap is ruled out before `output`
    // becomes a mutable slice.
    let (input, output) = unsafe {
        let input = input_slice(input, input_size, "input", "input_size")?;
        check_disjoint(input, output, output_capacity)?;
        (
            input,
            output_slice(output, output_capacity, "output", "output_capacity")?,
        )
    };
    let out_written = out_param(out_written, "out_written")?;
    let written = body(input, output)?;
    // SAFETY: checked non-NULL; writable per the caller's contract.
    unsafe { write_out(out_written, written as u64) };
    Ok(())
}
