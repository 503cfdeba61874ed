//! Zstandard through libzstd's one-shot API.
//!
//! Two copies of libzstd are linked (see `build.rs`): compression calls the
//! one whose symbols carry the `isthmus_zc_` prefix, decompression the plain
//! one. Each context is only ever handed to functions of the copy that made it.
//! The result codes are read with the decompressor's functions: zstd's error
//! codes are stable across releases (`zstd_errors.h`).
//!
//! Contexts are cached per thread: creating one costs more than compressing a
//! small page. They carry no state from one call to the next (every one-shot call
//! resets them), so the cache changes speed, not results.

use std::cell::RefCell;
use std::ffi::CStr;
use std::mem::MaybeUninit;
use std::os::raw::{c_char, c_int, c_uint, c_void};
use std::ptr::NonNull;
use std::thread::LocalKey;

use super::resolve_level;
use crate::error::{Error, Result};

#[repr(C)]
struct ZstdCCtx {
    _opaque: [u8; 0],
}

#[repr(C)]
struct ZstdDCtx {
    _opaque: [u8; 0],
}

// The compressing copy.
extern "C" {
    #[link_name = "isthmus_zc_ZSTD_createCCtx"]
    fn ZSTD_createCCtx() -> *mut ZstdCCtx;
    #[link_name = "isthmus_zc_ZSTD_freeCCtx"]
    fn ZSTD_freeCCtx(cctx: *mut ZstdCCtx) -> usize;
    #[link_name = "isthmus_zc_ZSTD_compressCCtx"]
    fn ZSTD_compressCCtx(
        cctx: *mut ZstdCCtx,
        dst: *mut c_void,
        dst_capacity: usize,
        src: *const c_void,
        src_size: usize,
        compression_level: c_int,
    ) -> usize;
    #[link_name = "isthmus_zc_ZSTD_compressBound"]
    fn ZSTD_compressBound(src_size: usize) -> usize;
    #[link_name = "isthmus_zc_ZSTD_minCLevel"]
    fn ZSTD_minCLevel() -> c_int;
    #[link_name = "isthmus_zc_ZSTD_maxCLevel"]
    fn ZSTD_maxCLevel() -> c_int;
}

// The decompressing copy.
extern "C" {
    fn ZSTD_createDCtx() -> *mut ZstdDCtx;
    fn ZSTD_freeDCtx(dctx: *mut ZstdDCtx) -> usize;
    fn ZSTD_decompressDCtx(
        dctx: *mut ZstdDCtx,
        dst: *mut c_void,
        dst_capacity: usize,
        src: *const c_void,
        src_size: usize,
    ) -> usize;
    fn ZSTD_decompressBound(src: *const c_void, src_size: usize) -> u64;
    fn ZSTD_isError(code: usize) -> c_uint;
    fn ZSTD_getErrorCode(code: usize) -> c_int;
    fn ZSTD_getErrorName(code: usize) -> *const c_char;
}

/// `ZSTD_CLEVEL_DEFAULT`.
const DEFAULT_LEVEL: i32 = 3;
/// From `zstd_errors.h`; stable across zstd releases.
const ERROR_MEMORY_ALLOCATION: c_int = 64;
const ERROR_DST_SIZE_TOO_SMALL: c_int = 70;

/// An owned context, freed when the owning thread exits.
struct Context<T> {
    ptr: NonNull<T>,
    free: unsafe extern "C" fn(*mut T) -> usize,
}

impl<T> Drop for Context<T> {
    fn drop(&mut self) {
        // SAFETY: `ptr` came from the matching create function and is freed once.
        unsafe { (self.free)(self.ptr.as_ptr()) };
    }
}

thread_local! {
    static CCTX: RefCell<Option<Context<ZstdCCtx>>> = const { RefCell::new(None) };
    static DCTX: RefCell<Option<Context<ZstdDCtx>>> = const { RefCell::new(None) };
}

/// Runs `f` with this thread's cached context, or with a temporary one when the
/// cache is unavailable (during thread teardown).
fn with_context<T: 'static, R>(
    cache: &'static LocalKey<RefCell<Option<Context<T>>>>,
    create: unsafe extern "C" fn() -> *mut T,
    free: unsafe extern "C" fn(*mut T) -> usize,
    f: impl FnOnce(*mut T) -> R,
) -> Result<R> {
    let new_context = || {
        // SAFETY: the create functions take no arguments and return NULL on failure.
        let ptr = unsafe { create() };
        NonNull::new(ptr)
            .map(|ptr| Context { ptr, free })
            .ok_or_else(|| Error::out_of_memory("cannot allocate a zstd context"))
    };
    let mut f = Some(f);
    let cached = cache.try_with(|slot| -> Result<Option<R>> {
        let Ok(mut slot) = slot.try_borrow_mut() else {
            return Ok(None);
        };
        if slot.is_none() {
            *slot = Some(new_context()?);
        }
        let context = slot.as_ref().expect("just filled");
        let f = f.take().expect("called once");
        Ok(Some(f(context.ptr.as_ptr())))
    });
    if let Ok(result) = cached {
        if let Some(value) = result? {
            return Ok(value);
        }
    }
    let context = new_context()?;
    let f = f.take().expect("not called yet");
    Ok(f(context.ptr.as_ptr()))
}

fn level_range() -> std::ops::RangeInclusive<i32> {
    // SAFETY: pure functions without arguments.
    unsafe { ZSTD_minCLevel()..=ZSTD_maxCLevel() }
}

pub(super) fn max_compressed_len(input_len: usize) -> Result<usize> {
    // SAFETY: a pure function of its argument.
    let bound = unsafe { ZSTD_compressBound(input_len) };
    if unsafe { ZSTD_isError(bound) } != 0 {
        return Err(Error::invalid_argument(format!(
            "input of {input_len} bytes is larger than zstd can compress"
        )));
    }
    Ok(bound)
}

pub(super) fn compress(level: i32, input: &[u8], output: &mut [u8]) -> Result<usize> {
    let level = resolve_level(level, level_range(), DEFAULT_LEVEL)?;
    let result = with_context(&CCTX, ZSTD_createCCtx, ZSTD_freeCCtx, |cctx| {
        // SAFETY: the pointers and lengths come from live slices.
        unsafe {
            ZSTD_compressCCtx(
                cctx,
                output.as_mut_ptr().cast(),
                output.len(),
                input.as_ptr().cast(),
                input.len(),
                level,
            )
        }
    })?;
    check(result, output.len(), input.len())
}

/// Decodes every frame in `input` (zstd's one-shot decoder walks concatenated and
/// skippable frames itself, and handles frames that omit their content size).
/// `ZSTD_CONTENTSIZE_ERROR`.
const CONTENT_SIZE_ERROR: u64 = u64::MAX - 1;

/// The frames' content sizes where their headers give them, else their blocks
/// times the most a block holds (`ZSTD_decompressBound` walks the block headers).
pub(super) fn max_decompressed_len(input: &[u8]) -> Result<usize> {
    // SAFETY: the pointer and length come from a live slice; the function only reads it.
    let bound = unsafe { ZSTD_decompressBound(input.as_ptr().cast(), input.len()) };
    if bound == CONTENT_SIZE_ERROR {
        return Err(Error::corrupt_data(format!(
            "input is not a sequence of zstd frames ({} bytes)",
            input.len()
        )));
    }
    Ok(usize::try_from(bound).unwrap_or(usize::MAX))
}

pub(super) fn decompress(input: &[u8], output: &mut [MaybeUninit<u8>]) -> Result<usize> {
    let result = with_context(&DCTX, ZSTD_createDCtx, ZSTD_freeDCtx, |dctx| {
        // SAFETY: the pointers and lengths come from live slices.
        unsafe {
            ZSTD_decompressDCtx(
                dctx,
                output.as_mut_ptr().cast(),
                output.len(),
                input.as_ptr().cast(),
                input.len(),
            )
        }
    })?;
    check(result, output.len(), input.len())
}

fn check(result: usize, output_capacity: usize, input_len: usize) -> Result<usize> {
    // SAFETY: pure functions of a zstd result code.
    if unsafe { ZSTD_isError(result) } == 0 {
        return Ok(result);
    }
    let name = unsafe { CStr::from_ptr(ZSTD_getErrorName(result)) }.to_string_lossy();
    Err(match unsafe { ZSTD_getErrorCode(result) } {
        ERROR_DST_SIZE_TOO_SMALL => {
            Error::buffer_too_small(format!("{name} (output capacity {output_capacity} bytes)"))
        }
        ERROR_MEMORY_ALLOCATION => {
            Error::out_of_memory(format!("{name} (input {input_len} bytes)"))
        }
        _ => Error::corrupt_data(format!("{name} (input {input_len} bytes)")),
    })
}

#[cfg(test)]
mod tests {
    use super::super::test_data::*;
    use super::super::{as_uninit, Codec};
    use super::*;
    use crate::error::Status;

    extern "C" {
        #[link_name = "isthmus_zc_ZSTD_CCtx_setParameter"]
        fn ZSTD_CCtx_setParameter(cctx: *mut ZstdCCtx, param: c_int, value: c_int) -> usize;
        #[link_name = "isthmus_zc_ZSTD_compress2"]
        fn ZSTD_compress2(
            cctx: *mut ZstdCCtx,
            dst: *mut c_void,
            dst_capacity: usize,
            src: *const c_void,
            src_size: usize,
        ) -> usize;
        #[link_name = "isthmus_zc_ZSTD_versionNumber"]
        fn compressor_version() -> c_uint;
        #[link_name = "ZSTD_versionNumber"]
        fn decompressor_version() -> c_uint;
    }
    const ZSTD_C_CONTENT_SIZE_FLAG: c_int = 200;

    /// `ci/env.sh` names the release of the archive it gives the build to compress
    /// with; a build given none links the same archive twice.
    #[test]
    fn compresses_with_the_libzstd_the_build_was_given() {
        let (compressor, decompressor) = unsafe { (compressor_version(), decompressor_version()) };
        match (
            option_env!("ISTHMUS_ZSTD_COMPRESSOR_VERSION"),
            option_env!("ISTHMUS_ZSTD_COMPRESSOR"),
        ) {
            (Some(expected), _) => assert_eq!(compressor.to_string(), expected),
            (None, None) => assert_eq!(compressor, decompressor),
            // An archive given without its release: at least a libzstd the API above exists in.
            (None, Some(archive)) => {
                assert!(compressor >= 10_500, "{archive}: libzstd {compressor}")
            }
        }
    }

    #[test]
    fn round_trips() {
        assert_round_trips(Codec::Zstd, 0);
        let data = compressible(100_000, 1);
        for level in [-50, -1, 1, 19] {
            assert_round_trip(Codec::Zstd, level, &data);
        }
        assert_round_trip(Codec::Zstd, 22, &data[..10_000]);
    }

    #[test]
    fn level_bounds() {
        let range = level_range();
        assert_eq!(*range.end(), 22);
        assert!(*range.start() < 0);
        let data = b"some bytes";
        let mut out = vec![0; 100];
        for level in [range.end() + 1, range.start() - 1, i32::MIN, i32::MAX] {
            let err = Codec::Zstd.compress(level, data, &mut out).unwrap_err();
            assert_eq!(err.status(), Status::InvalidArgument);
            assert!(
                err.message()
                    .contains(&format!("level {level} is out of range")),
                "{err}"
            );
        }
        Codec::Zstd.compress(*range.end(), data, &mut out).unwrap();
        Codec::Zstd
            .compress(*range.start(), data, &mut out)
            .unwrap();
    }

    #[test]
    fn default_level_is_three() {
        let data = compressible(200_000, 3);
        let mut a = vec![0; 300_000];
        let mut b = vec![0; 300_000];
        let na = Codec::Zstd.compress(0, &data, &mut a).unwrap();
        let nb = Codec::Zstd.compress(3, &data, &mut b).unwrap();
        assert_eq!(a[..na], b[..nb]);
    }

    #[test]
    fn decodes_concatenated_frames() {
        let first = compressible(70_000, 1);
        let second = random(5_000, 2);
        let mut stream = assert_round_trip(Codec::Zstd, 1, &first);
        stream.extend(assert_round_trip(Codec::Zstd, 9, &second));
        let mut output = vec![0; first.len() + second.len()];
        assert_eq!(
            Codec::Zstd.decompress(&stream, &mut output).unwrap(),
            output.len()
        );
        assert_eq!(output[..first.len()], first[..]);
        assert_eq!(output[first.len()..], second[..]);
        assert_eq!(max_decompressed_len(&stream).unwrap(), output.len());
        let err = max_decompressed_len(&stream[..stream.len() - 1]).unwrap_err();
        assert_eq!(err.status(), Status::CorruptData, "{err}");

        let mut short = vec![0; output.len() - 1];
        let err = Codec::Zstd.decompress(&stream, &mut short).unwrap_err();
        assert_eq!(err.status(), Status::BufferTooSmall, "{err}");
    }

    #[test]
    fn decodes_frames_without_content_size() {
        let data = compressible(300_000, 4);
        let mut frame = vec![0; max_compressed_len(data.len()).unwrap()];
        let written = unsafe {
            let cctx = ZSTD_createCCtx();
            assert_eq!(
                ZSTD_isError(ZSTD_CCtx_setParameter(cctx, ZSTD_C_CONTENT_SIZE_FLAG, 0)),
                0
            );
            let n = ZSTD_compress2(
                cctx,
                frame.as_mut_ptr().cast(),
                frame.len(),
                data.as_ptr().cast(),
                data.len(),
            );
            ZSTD_freeCCtx(cctx);
            n
        };
        assert_eq!(unsafe { ZSTD_isError(written) }, 0);
        frame.truncate(written);
        // Frame header descriptor: bits 6-7 are the content size field's flag.
        assert_eq!(frame[4] >> 6, 0, "frame should omit its content size");

        let mut output = vec![0; data.len()];
        assert_eq!(
            decompress(&frame, as_uninit(&mut output)).unwrap(),
            data.len()
        );
        assert!(output == data);
        // Without a content size, the bound is the blocks times 128 KiB.
        let bound = max_decompressed_len(&frame).unwrap();
        assert!(
            bound >= data.len() && bound < data.len() + (128 << 10),
            "{bound}"
        );
        let mut short = vec![0; data.len() - 10];
        assert_eq!(
            decompress(&frame, as_uninit(&mut short))
                .unwrap_err()
                .status(),
            Status::BufferTooSmall
        );
    }

    #[test]
    fn reports_small_output_and_corruption() {
        assert_too_small_output_rejected(Codec::Zstd, &compressible(10_000, 8));
        assert_corrupt_input_rejected(Codec::Zstd);

        let compressed = assert_round_trip(Codec::Zstd, 0, &compressible(1000, 1));
        let mut output = vec![0; 100];
        let err = Codec::Zstd
            .decompress(&compressed, &mut output)
            .unwrap_err();
        assert_eq!(
            err.message(),
            "zstd decompress: Destination buffer is too small (output capacity 100 bytes)"
        );
        let err = Codec::Zstd
            .decompress(b"definitely not zstd", &mut output)
            .unwrap_err();
        assert_eq!(err.status(), Status::CorruptData);
        assert_eq!(
            err.message(),
            "zstd decompress: Unknown frame descriptor (input 19 bytes)"
        );
    }

    #[test]
    fn contexts_work_on_many_threads() {
        let handles: Vec<_> = (0..4)
            .map(|t| {
                std::thread::spawn(move || {
                    for i in 0..20 {
                        assert_round_trip(
                            Codec::Zstd,
                            1 + (i % 5),
                            &compressible(20_000 + i as usize, t),
                        );
                    }
                })
            })
            .collect();
        for handle in handles {
            handle.join().unwrap();
        }
    }
}
