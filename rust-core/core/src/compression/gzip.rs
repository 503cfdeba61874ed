//! GZIP (RFC 1952) through zlib's deflate/inflate.
//!
//! zlib.h is not read by the build, so `z_stream` is laid out here by hand for
//! LP64 Linux; zlib verifies the size we pass to its init functions, and the
//! assertion below stops a port to a different ABI from compiling silently.

use std::ffi::CStr;
use std::mem::{size_of, MaybeUninit};
use std::os::raw::{c_char, c_int, c_uint, c_ulong, c_void};

use super::{as_uninit, resolve_level, too_small};
use crate::error::{Error, Result};

#[repr(C)]
struct ZStream {
    next_in: *const u8,
    avail_in: c_uint,
    total_in: c_ulong,
    next_out: *mut u8,
    avail_out: c_uint,
    total_out: c_ulong,
    msg: *const c_char,
    state: *mut c_void,
    zalloc: *const c_void,
    zfree: *const c_void,
    opaque: *mut c_void,
    data_type: c_int,
    adler: c_ulong,
    reserved: c_ulong,
}

#[cfg(all(target_os = "linux", target_pointer_width = "64"))]
const _: () = assert!(size_of::<ZStream>() == 112);

extern "C" {
    fn zlibVersion() -> *const c_char;
    fn deflateInit2_(
        strm: *mut ZStream,
        level: c_int,
        method: c_int,
        window_bits: c_int,
        mem_level: c_int,
        strategy: c_int,
        version: *const c_char,
        stream_size: c_int,
    ) -> c_int;
    fn deflate(strm: *mut ZStream, flush: c_int) -> c_int;
    fn deflateEnd(strm: *mut ZStream) -> c_int;
    fn inflateInit2_(
        strm: *mut ZStream,
        window_bits: c_int,
        version: *const c_char,
        stream_size: c_int,
    ) -> c_int;
    fn inflate(strm: *mut ZStream, flush: c_int) -> c_int;
    fn inflateReset(strm: *mut ZStream) -> c_int;
    fn inflateEnd(strm: *mut ZStream) -> c_int;
}

const Z_OK: c_int = 0;
const Z_STREAM_END: c_int = 1;
const Z_NEED_DICT: c_int = 2;
const Z_DATA_ERROR: c_int = -3;
const Z_MEM_ERROR: c_int = -4;
const Z_BUF_ERROR: c_int = -5;
const Z_NO_FLUSH: c_int = 0;
const Z_FINISH: c_int = 4;
const Z_DEFLATED: c_int = 8;
const Z_DEFAULT_STRATEGY: c_int = 0;
/// 15-bit window plus 16: write and read a gzip wrapper rather than zlib's.
const GZIP_WINDOW_BITS: c_int = 15 + 16;
const DEFAULT_MEM_LEVEL: c_int = 8;
const DEFAULT_LEVEL: i32 = 6;
/// Gzip's 10-byte header and 8-byte trailer.
const GZIP_WRAPPER: usize = 18;

#[derive(Clone, Copy)]
enum Direction {
    Deflate,
    Inflate,
}

/// An initialised zlib stream. Boxed because zlib's state points back at it.
struct Stream {
    z: Box<ZStream>,
    direction: Direction,
    /// Bytes consumed from the input and produced into the output so far.
    in_pos: usize,
    out_pos: usize,
}

impl Stream {
    fn new(direction: Direction, level: c_int) -> Result<Stream> {
        // SAFETY: all-zero is a valid z_stream (NULL pointers select malloc/free).
        let mut z: Box<ZStream> = Box::new(unsafe { std::mem::zeroed() });
        // SAFETY: `z` is a zeroed z_stream of the size we report.
        let ret = unsafe {
            let version = zlibVersion();
            let size = size_of::<ZStream>() as c_int;
            match direction {
                Direction::Deflate => deflateInit2_(
                    &mut *z,
                    level,
                    Z_DEFLATED,
                    GZIP_WINDOW_BITS,
                    DEFAULT_MEM_LEVEL,
                    Z_DEFAULT_STRATEGY,
                    version,
                    size,
                ),
                Direction::Inflate => inflateInit2_(&mut *z, GZIP_WINDOW_BITS, version, size),
            }
        };
        match ret {
            Z_OK => Ok(Stream {
                z,
                direction,
                in_pos: 0,
                out_pos: 0,
            }),
            Z_MEM_ERROR => Err(Error::out_of_memory("cannot allocate a zlib stream")),
            _ => Err(Error::internal(format!(
                "zlib stream init failed with {ret}"
            ))),
        }
    }

    /// Runs deflate or inflate once over the unconsumed input and unused output,
    /// handing zlib at most 4 GiB of each (its counters are 32-bit).
    fn step(
        &mut self,
        input: &[u8],
        output: &mut [MaybeUninit<u8>],
        flush_when_all_in: c_int,
    ) -> c_int {
        let in_left = &input[self.in_pos..];
        let out_left = &mut output[self.out_pos..];
        let in_chunk = in_left.len().min(c_uint::MAX as usize);
        let out_chunk = out_left.len().min(c_uint::MAX as usize);
        let flush = if in_chunk == in_left.len() {
            flush_when_all_in
        } else {
            Z_NO_FLUSH
        };
        self.z.next_in = in_left.as_ptr();
        self.z.avail_in = in_chunk as c_uint;
        self.z.next_out = out_left.as_mut_ptr().cast();
        self.z.avail_out = out_chunk as c_uint;
        // SAFETY: the stream is initialised and points into live slices of the
        // lengths given; zlib reads/writes only within them.
        let ret = unsafe {
            match self.direction {
                Direction::Deflate => deflate(&mut *self.z, flush),
                Direction::Inflate => inflate(&mut *self.z, flush),
            }
        };
        self.in_pos += in_chunk - self.z.avail_in as usize;
        self.out_pos += out_chunk - self.z.avail_out as usize;
        ret
    }

    fn message(&self) -> String {
        if self.z.msg.is_null() {
            return "no detail from zlib".to_owned();
        }
        // SAFETY: zlib sets msg to a static NUL-terminated string.
        unsafe { CStr::from_ptr(self.z.msg) }
            .to_string_lossy()
            .into_owned()
    }
}

impl Drop for Stream {
    fn drop(&mut self) {
        // SAFETY: the stream was initialised in `new` and is ended once.
        unsafe {
            match self.direction {
                Direction::Deflate => deflateEnd(&mut *self.z),
                Direction::Inflate => inflateEnd(&mut *self.z),
            };
        }
    }
}

/// zlib's `deflateBound` for its default window and memory level (which we use):
/// stored-block overhead plus the gzip wrapper, the same at every level. Computed
/// here because deflateBound needs a fully allocated stream.
pub(super) fn max_compressed_len(input_len: usize) -> Result<usize> {
    let n = input_len;
    [n >> 12, n >> 14, n >> 25, 7, GZIP_WRAPPER]
        .into_iter()
        .try_fold(n, usize::checked_add)
        .ok_or_else(|| Error::invalid_argument(format!("input of {n} bytes is too large")))
}

pub(super) fn compress(level: i32, input: &[u8], output: &mut [u8]) -> Result<usize> {
    let level = resolve_level(level, 1..=9, DEFAULT_LEVEL)?;
    let mut stream = Stream::new(Direction::Deflate, level)?;
    loop {
        match stream.step(input, as_uninit(output), Z_FINISH) {
            Z_STREAM_END => return Ok(stream.out_pos),
            Z_OK => {}
            Z_BUF_ERROR if stream.out_pos == output.len() => {
                let bound = max_compressed_len(input.len())?;
                return Err(too_small(output.len(), format_args!("up to {bound} bytes")));
            }
            Z_MEM_ERROR => return Err(Error::out_of_memory("zlib deflate ran out of memory")),
            ret => {
                return Err(Error::internal(format!(
                    "deflate returned {ret}: {}",
                    stream.message()
                )))
            }
        }
    }
}

/// Decodes every gzip member in `input`, back to back, as gzip(1) does.
pub(super) fn decompress(input: &[u8], output: &mut [MaybeUninit<u8>]) -> Result<usize> {
    let mut stream = Stream::new(Direction::Inflate, 0)?;
    let mut member = 1;
    loop {
        match stream.step(input, output, Z_NO_FLUSH) {
            Z_STREAM_END if stream.in_pos == input.len() => return Ok(stream.out_pos),
            Z_STREAM_END => {
                member += 1;
                // SAFETY: the stream is initialised.
                let ret = unsafe { inflateReset(&mut *stream.z) };
                if ret != Z_OK {
                    return Err(Error::internal(format!("inflateReset returned {ret}")));
                }
            }
            Z_OK => {}
            Z_BUF_ERROR if stream.out_pos == output.len() => {
                return Err(too_small(
                    output.len(),
                    format_args!("more (stopped in gzip member {member})"),
                ));
            }
            Z_BUF_ERROR => {
                return Err(Error::corrupt_data(format!(
                    "input ends inside gzip member {member} ({} bytes)",
                    input.len()
                )));
            }
            Z_DATA_ERROR | Z_NEED_DICT => {
                return Err(Error::corrupt_data(format!(
                    "invalid data in gzip member {member} near input offset {}: {}",
                    stream.in_pos,
                    stream.message()
                )));
            }
            Z_MEM_ERROR => return Err(Error::out_of_memory("zlib inflate ran out of memory")),
            ret => {
                return Err(Error::internal(format!(
                    "inflate returned {ret}: {}",
                    stream.message()
                )))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_data::*;
    use super::super::Codec;
    use super::*;
    use crate::error::Status;

    extern "C" {
        fn deflateBound(strm: *mut ZStream, source_len: c_ulong) -> c_ulong;
    }

    #[test]
    fn round_trips() {
        assert_round_trips(Codec::Gzip, 0);
        let data = compressible(100_000, 1);
        for level in 1..=9 {
            assert_round_trip(Codec::Gzip, level, &data);
            assert_round_trip(Codec::Gzip, level, &random(3000, level as u64));
        }
    }

    #[test]
    fn writes_one_gzip_member() {
        let compressed = assert_round_trip(Codec::Gzip, 0, b"hello, gzip");
        assert_eq!(compressed[..3], [0x1f, 0x8b, 8]);
        let trailer = &compressed[compressed.len() - 4..];
        assert_eq!(u32::from_le_bytes(trailer.try_into().unwrap()), 11, "ISIZE");
    }

    #[test]
    fn bound_matches_zlib() {
        for level in [1, 6, 9] {
            let mut stream = Stream::new(Direction::Deflate, level).unwrap();
            for n in [
                0usize,
                1,
                100,
                65_535,
                1 << 20,
                123_456_789,
                (1 << 32) + 5,
                1 << 40,
            ] {
                let zlib = unsafe { deflateBound(&mut *stream.z, n as c_ulong) } as usize;
                assert_eq!(
                    max_compressed_len(n).unwrap(),
                    zlib,
                    "level {level}, {n} bytes"
                );
            }
        }
        assert_eq!(
            max_compressed_len(usize::MAX).unwrap_err().status(),
            Status::InvalidArgument
        );
    }

    #[test]
    fn level_bounds() {
        let mut out = vec![0; 100];
        for level in [-1, 10, i32::MAX] {
            let err = Codec::Gzip.compress(level, b"abc", &mut out).unwrap_err();
            assert_eq!(err.status(), Status::InvalidArgument);
            assert_eq!(
                err.message(),
                format!("gzip compress: level {level} is out of range: expected 1..=9, or 0 for the default (6)")
            );
        }
        let data = compressible(50_000, 2);
        let default = assert_round_trip(Codec::Gzip, 0, &data);
        assert_eq!(default, assert_round_trip(Codec::Gzip, 6, &data));
    }

    #[test]
    fn decodes_concatenated_members() {
        let first = compressible(100_000, 3);
        let second = random(10_000, 3);
        let mut stream = assert_round_trip(Codec::Gzip, 1, &first);
        stream.extend(assert_round_trip(Codec::Gzip, 9, &second));
        stream.extend(assert_round_trip(Codec::Gzip, 0, &[]));
        let mut output = vec![0; first.len() + second.len()];
        assert_eq!(
            Codec::Gzip.decompress(&stream, &mut output).unwrap(),
            output.len()
        );
        assert_eq!(output[..first.len()], first[..]);
        assert_eq!(output[first.len()..], second[..]);

        let mut short = vec![0; output.len() - 1];
        let err = Codec::Gzip.decompress(&stream, &mut short).unwrap_err();
        assert_eq!(err.status(), Status::BufferTooSmall);
        assert!(
            err.message()
                .ends_with("needs more (stopped in gzip member 2)"),
            "{err}"
        );

        stream.extend_from_slice(b"trailing junk");
        let err = Codec::Gzip.decompress(&stream, &mut output).unwrap_err();
        assert_eq!(err.status(), Status::CorruptData);
        assert!(
            err.message().contains("invalid data in gzip member 4"),
            "{err}"
        );
    }

    #[test]
    fn reports_small_output_and_corruption() {
        assert_too_small_output_rejected(Codec::Gzip, &compressible(10_000, 4));
        assert_corrupt_input_rejected(Codec::Gzip);
        let mut output = vec![0; 100];
        let err = Codec::Gzip.decompress(&[], &mut output).unwrap_err();
        assert_eq!(
            err.message(),
            "gzip decompress: input ends inside gzip member 1 (0 bytes)"
        );
        let err = Codec::Gzip
            .decompress(b"not gzip at all", &mut output)
            .unwrap_err();
        assert_eq!(
            err.message(),
            "gzip decompress: invalid data in gzip member 1 near input offset 2: incorrect header check"
        );
        // A flipped payload bit is caught by the CRC even when inflate succeeds.
        let data = compressible(5_000, 5);
        let mut compressed = assert_round_trip(Codec::Gzip, 0, &data);
        let crc_at = compressed.len() - 8;
        compressed[crc_at] ^= 1;
        let err = Codec::Gzip
            .decompress(&compressed, &mut vec![0; data.len()])
            .unwrap_err();
        assert!(err.message().ends_with("incorrect data check"), "{err}");
    }
}
