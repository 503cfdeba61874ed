//! Calls the exports exactly as a C or Java caller would: raw pointers, status
//! codes and caller-owned error structs.

use std::ffi::CStr;
use std::mem::MaybeUninit;
use std::ptr::{null, null_mut};

use isthmus::codec::{
    isthmus_codec_compress, isthmus_codec_decompress, isthmus_codec_max_compressed_size,
};
use isthmus::library::{isthmus_abi_version, isthmus_debug_panic, isthmus_version};
use isthmus::{IsthmusError, ERROR_MESSAGE_CAPACITY};
use isthmus_core::compression::Codec;
use isthmus_core::error::Status;

const SENTINEL: u64 = 0xDEAD_BEEF_DEAD_BEEF;
const OK: i32 = Status::Ok as i32;
const INVALID_ARGUMENT: i32 = Status::InvalidArgument as i32;
const BUFFER_TOO_SMALL: i32 = Status::BufferTooSmall as i32;
const CORRUPT_DATA: i32 = Status::CorruptData as i32;
const UNSUPPORTED: i32 = Status::Unsupported as i32;
const INTERNAL: i32 = Status::Internal as i32;

/// An error struct full of garbage, as a C caller's stack would hold.
fn fresh_error() -> Box<IsthmusError> {
    let mut error = Box::new(MaybeUninit::<IsthmusError>::uninit());
    // SAFETY: every bit pattern is a valid IsthmusError.
    unsafe {
        error
            .as_mut_ptr()
            .cast::<u8>()
            .write_bytes(0x5A, std::mem::size_of::<IsthmusError>());
        Box::from_raw(Box::into_raw(error).cast())
    }
}

/// The message, after checking message_length, the NUL and UTF-8 validity.
fn message(error: &IsthmusError) -> &str {
    let len = error.message_length as usize;
    assert!(len < ERROR_MESSAGE_CAPACITY);
    let bytes: &[u8] =
        unsafe { std::slice::from_raw_parts(error.message.as_ptr().cast(), len + 1) };
    assert_eq!(bytes[len], 0, "message is NUL-terminated at message_length");
    std::str::from_utf8(&bytes[..len]).expect("message is UTF-8")
}

fn compress(
    codec: i32,
    level: i32,
    input: &[u8],
    output: &mut [u8],
    error: &mut IsthmusError,
) -> (i32, u64) {
    let mut written = SENTINEL;
    let status = unsafe {
        isthmus_codec_compress(
            codec,
            level,
            input.as_ptr(),
            input.len() as u64,
            output.as_mut_ptr(),
            output.len() as u64,
            &mut written,
            error,
        )
    };
    (status, written)
}

fn decompress(codec: i32, input: &[u8], output: &mut [u8], error: &mut IsthmusError) -> (i32, u64) {
    let mut written = SENTINEL;
    let status = unsafe {
        isthmus_codec_decompress(
            codec,
            input.as_ptr(),
            input.len() as u64,
            output.as_mut_ptr(),
            output.len() as u64,
            &mut written,
            error,
        )
    };
    (status, written)
}

fn bound(codec: i32, input_size: u64) -> u64 {
    let mut bound = SENTINEL;
    let status =
        unsafe { isthmus_codec_max_compressed_size(codec, input_size, &mut bound, null_mut()) };
    assert_eq!(status, OK);
    bound
}

fn sample(len: usize) -> Vec<u8> {
    (0..len)
        .map(|i| (i % 251) as u8 ^ (i / 1000) as u8)
        .collect()
}

#[test]
fn every_codec_round_trips_through_the_c_abi() {
    let data = sample(300_000);
    for codec in Codec::ALL {
        let id = codec.id();
        let mut error = fresh_error();
        let mut compressed = vec![0; bound(id, data.len() as u64) as usize];
        let (status, written) = compress(id, 1, &data, &mut compressed, &mut error);
        assert_eq!(status, OK, "{codec}: {}", message(&error));
        compressed.truncate(written as usize);
        let mut restored = vec![0; data.len()];
        let (status, written) = decompress(id, &compressed, &mut restored, &mut error);
        assert_eq!(status, OK, "{codec}: {}", message(&error));
        assert_eq!(written, data.len() as u64);
        assert!(restored == data, "{codec}");
    }
}

#[test]
fn null_pointers_with_lengths_are_invalid_arguments() {
    let mut error = fresh_error();
    let mut written = SENTINEL;
    let mut output = vec![0u8; 100];
    let status = unsafe {
        isthmus_codec_compress(
            6,
            0,
            null(),
            65536,
            output.as_mut_ptr(),
            100,
            &mut written,
            &mut *error,
        )
    };
    assert_eq!(status, INVALID_ARGUMENT);
    assert_eq!(error.code, INVALID_ARGUMENT);
    assert_eq!(message(&error), "input is NULL but input_size is 65536");
    assert_eq!(written, SENTINEL, "out-param untouched on failure");

    let status = unsafe {
        isthmus_codec_decompress(
            1,
            b"abc".as_ptr(),
            3,
            null_mut(),
            10,
            &mut written,
            &mut *error,
        )
    };
    assert_eq!(status, INVALID_ARGUMENT);
    assert_eq!(message(&error), "output is NULL but output_capacity is 10");

    let status = unsafe {
        isthmus_codec_decompress(
            0,
            b"abc".as_ptr(),
            3,
            output.as_mut_ptr(),
            100,
            null_mut(),
            &mut *error,
        )
    };
    assert_eq!(status, INVALID_ARGUMENT);
    assert_eq!(message(&error), "out_written is NULL");
    assert_eq!(
        output[..3],
        [0, 0, 0],
        "no work done before arguments are checked"
    );

    let status = unsafe { isthmus_codec_max_compressed_size(6, 10, null_mut(), &mut *error) };
    assert_eq!(status, INVALID_ARGUMENT);
    assert_eq!(message(&error), "out_bound is NULL");
}

#[test]
fn null_pointers_with_zero_lengths_are_empty_buffers() {
    let mut written = SENTINEL;
    let status =
        unsafe { isthmus_codec_compress(0, 0, null(), 0, null_mut(), 0, &mut written, null_mut()) };
    assert_eq!(status, OK);
    assert_eq!(written, 0);

    // An empty input still compresses to a non-empty zstd frame.
    let mut frame = [0u8; 64];
    let status = unsafe {
        isthmus_codec_compress(
            6,
            0,
            null(),
            0,
            frame.as_mut_ptr(),
            64,
            &mut written,
            null_mut(),
        )
    };
    assert_eq!(status, OK);
    let frame = &frame[..written as usize];
    let status = unsafe {
        isthmus_codec_decompress(
            6,
            frame.as_ptr(),
            frame.len() as u64,
            null_mut(),
            0,
            &mut written,
            null_mut(),
        )
    };
    assert_eq!(status, OK);
    assert_eq!(written, 0);
}

#[test]
fn a_null_error_pointer_only_loses_the_message() {
    let mut written = SENTINEL;
    let status =
        unsafe { isthmus_codec_compress(6, 0, null(), 5, null_mut(), 0, &mut written, null_mut()) };
    assert_eq!(status, INVALID_ARGUMENT);
    assert_eq!(written, SENTINEL);
    let mut output = [0u8; 4];
    let status = unsafe {
        isthmus_codec_decompress(
            2,
            b"junk".as_ptr(),
            4,
            output.as_mut_ptr(),
            4,
            &mut written,
            null_mut(),
        )
    };
    assert_eq!(status, CORRUPT_DATA);
    assert_eq!(unsafe { isthmus_debug_panic(null(), null_mut()) }, INTERNAL);
}

#[test]
fn the_error_is_left_untouched_on_success() {
    let mut error = fresh_error();
    let before: Vec<u8> = unsafe { as_bytes(&error) }.to_vec();
    let mut output = [0u8; 16];
    let (status, written) = compress(0, 0, b"hello", &mut output, &mut error);
    assert_eq!((status, written), (OK, 5));
    assert_eq!(unsafe { as_bytes(&error) }, &before[..]);
}

unsafe fn as_bytes(error: &IsthmusError) -> &[u8] {
    unsafe {
        std::slice::from_raw_parts(
            (error as *const IsthmusError).cast(),
            std::mem::size_of::<IsthmusError>(),
        )
    }
}

#[test]
fn codec_and_level_errors_are_reported() {
    let mut error = fresh_error();
    let mut output = [0u8; 64];
    let (status, written) = compress(3, 0, b"abc", &mut output, &mut error);
    assert_eq!((status, written), (UNSUPPORTED, SENTINEL));
    assert_eq!(
        message(&error),
        "codec 3 (LZO) is not supported by this build"
    );

    let (status, _) = decompress(99, b"abc", &mut output, &mut error);
    assert_eq!(status, INVALID_ARGUMENT);
    assert!(
        message(&error).starts_with("unknown codec 99; expected one of 0 uncompressed, 1 snappy")
    );

    let (status, _) = compress(6, 23, b"abc", &mut output, &mut error);
    assert_eq!(status, INVALID_ARGUMENT);
    assert_eq!(
        message(&error),
        "zstd compress: level 23 is out of range: expected -131072..=22, or 0 for the default (3)"
    );

    let (status, _) = decompress(6, &output[..10], &mut [0u8; 10], &mut error);
    assert_eq!(status, CORRUPT_DATA);
    assert_eq!(error.code, CORRUPT_DATA);
}

#[test]
fn small_outputs_are_buffer_too_small() {
    let data = sample(10_000);
    let mut error = fresh_error();
    for codec in Codec::ALL {
        let mut compressed = vec![0; bound(codec.id(), data.len() as u64) as usize];
        let (status, written) = compress(codec.id(), 0, &data, &mut compressed[..8], &mut error);
        assert_eq!(
            (status, written),
            (BUFFER_TOO_SMALL, SENTINEL),
            "{codec}: {}",
            message(&error)
        );
        let (status, written) = compress(codec.id(), 0, &data, &mut compressed, &mut error);
        assert_eq!(status, OK);
        let (status, written) = decompress(
            codec.id(),
            &compressed[..written as usize],
            &mut [0; 9_999],
            &mut error,
        );
        assert_eq!(
            (status, written),
            (BUFFER_TOO_SMALL, SENTINEL),
            "{codec}: {}",
            message(&error)
        );
        assert!(
            message(&error).starts_with(&format!("{codec} decompress: ")),
            "{}",
            message(&error)
        );
    }
}

#[test]
fn sizes_beyond_a_codec_are_rejected_not_truncated() {
    let mut error = fresh_error();
    let mut out = SENTINEL;
    let status = unsafe { isthmus_codec_max_compressed_size(7, 1 << 31, &mut out, &mut *error) };
    assert_eq!((status, out), (INVALID_ARGUMENT, SENTINEL));
    assert_eq!(
        message(&error),
        "lz4_raw max_compressed_size: input of 2147483648 bytes exceeds the codec's limit of 2113929216 bytes"
    );
    let status = unsafe { isthmus_codec_max_compressed_size(1, u64::MAX, &mut out, &mut *error) };
    assert_eq!((status, out), (INVALID_ARGUMENT, SENTINEL));
    assert!(
        bound(5, 1 << 33) > 1 << 33,
        "Hadoop framing splits large inputs into blocks"
    );
    assert!(bound(6, 1 << 33) > 1 << 33);
}

#[test]
fn overlapping_buffers_are_rejected() {
    let mut buffer = vec![0u8; 1000];
    let mut error = fresh_error();
    let mut written = SENTINEL;
    let base = buffer.as_mut_ptr();
    let status = unsafe {
        isthmus_codec_compress(
            0,
            0,
            base,
            600,
            base.add(500),
            500,
            &mut written,
            &mut *error,
        )
    };
    assert_eq!((status, written), (INVALID_ARGUMENT, SENTINEL));
    assert!(message(&error).ends_with("overlap"), "{}", message(&error));
    let status = unsafe {
        isthmus_codec_compress(
            0,
            0,
            base,
            500,
            base.add(500),
            500,
            &mut written,
            &mut *error,
        )
    };
    assert_eq!((status, written), (OK, 500));
}

#[test]
fn a_panic_becomes_internal_with_message_and_location() {
    let mut error = fresh_error();
    let status = unsafe { isthmus_debug_panic(c"boom".as_ptr(), &mut *error) };
    assert_eq!(status, INTERNAL);
    assert_eq!(error.code, INTERNAL);
    let text = message(&error);
    assert!(
        text.starts_with("panicked at ffi/src/library.rs:"),
        "{text}"
    );
    assert!(text.ends_with(": boom"), "{text}");

    let status = unsafe { isthmus_debug_panic(null(), &mut *error) };
    assert_eq!(status, INTERNAL);
    assert!(message(&error).ends_with(": isthmus_debug_panic called"));

    // The library is still usable, on this thread and others.
    let mut output = [0u8; 8];
    assert_eq!(
        compress(0, 0, b"still ok", &mut output, &mut error),
        (OK, 8)
    );
    let other = std::thread::spawn(|| {
        let mut error = fresh_error();
        assert_eq!(
            unsafe { isthmus_debug_panic(c"on another thread".as_ptr(), &mut *error) },
            INTERNAL
        );
        assert!(message(&error).ends_with(": on another thread"));
    });
    other.join().unwrap();
    assert_eq!(isthmus_abi_version(), isthmus::library::ABI_VERSION);
}

#[test]
fn long_messages_are_truncated_on_a_character_boundary() {
    // 3-byte characters: 1023 bytes would end mid-character.
    let long = "€".repeat(600);
    let c_message = std::ffi::CString::new(long).unwrap();
    let mut error = fresh_error();
    assert_eq!(
        unsafe { isthmus_debug_panic(c_message.as_ptr(), &mut *error) },
        INTERNAL
    );
    let text = message(&error);
    assert!(text.len() < ERROR_MESSAGE_CAPACITY);
    assert!(
        text.len() > ERROR_MESSAGE_CAPACITY - 4,
        "{} bytes",
        text.len()
    );
    assert!(text.starts_with("panicked at ffi/src/library.rs:"));
    assert!(text.ends_with('€'));
}

#[test]
fn version_strings_are_static() {
    let version = unsafe { CStr::from_ptr(isthmus_version()) };
    assert_eq!(version.to_str().unwrap(), "0.1.0");
    assert_eq!(isthmus_version(), isthmus_version());
}
