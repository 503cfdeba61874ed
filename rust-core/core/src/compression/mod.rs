//! Parquet's compression codecs over plain byte slices.
//!
//! Everything here is safe Rust from the caller's point of view: each codec module
//! keeps its own `extern "C"` declarations private and turns the C library's
//! return codes into [`Error`]s. The FFI layer only converts pointers to slices.
//!
//! Buffers are caller-provided on both sides because Parquet pages know their
//! uncompressed size and the Java side wants to hand in off-heap memory directly;
//! nothing here allocates an output buffer except as a documented fallback.

mod brotli;
mod gzip;
mod lz4;
mod snappy;
mod zstd;

use std::fmt;
use std::mem::MaybeUninit;
use std::ops::RangeInclusive;

use crate::error::{Error, Result};

/// Parquet's `CompressionCodec` ids; the values are part of the C ABI.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(i32)]
pub enum Codec {
    Uncompressed = 0,
    Snappy = 1,
    Gzip = 2,
    Brotli = 4,
    /// Hadoop's framing of LZ4 blocks: Parquet's deprecated `LZ4`.
    Lz4Hadoop = 5,
    Zstd = 6,
    /// A single LZ4 block without framing.
    Lz4Raw = 7,
}

/// Parquet's id for LZO, which this build does not implement.
const LZO_ID: i32 = 3;

impl Codec {
    pub const ALL: [Codec; 7] = [
        Codec::Uncompressed,
        Codec::Snappy,
        Codec::Gzip,
        Codec::Brotli,
        Codec::Lz4Hadoop,
        Codec::Zstd,
        Codec::Lz4Raw,
    ];

    pub fn from_id(id: i32) -> Result<Codec> {
        if let Some(codec) = Self::ALL.iter().copied().find(|c| c.id() == id) {
            return Ok(codec);
        }
        if id == LZO_ID {
            return Err(Error::unsupported(format!(
                "codec {id} (LZO) is not supported by this build"
            )));
        }
        let known: Vec<String> = Self::ALL
            .iter()
            .map(|c| format!("{} {}", c.id(), c.name()))
            .collect();
        Err(Error::invalid_argument(format!(
            "unknown codec {id}; expected one of {}",
            known.join(", ")
        )))
    }

    pub const fn id(self) -> i32 {
        self as i32
    }

    /// The name used in error messages.
    pub(crate) const fn name(self) -> &'static str {
        match self {
            Codec::Uncompressed => "uncompressed",
            Codec::Snappy => "snappy",
            Codec::Gzip => "gzip",
            Codec::Brotli => "brotli",
            Codec::Lz4Hadoop => "lz4_hadoop",
            Codec::Zstd => "zstd",
            Codec::Lz4Raw => "lz4_raw",
        }
    }

    /// The largest output [`Codec::compress`] can produce for `input_len` bytes, at
    /// any level. Fails if the codec cannot compress that much input at all.
    pub fn max_compressed_len(self, input_len: usize) -> Result<usize> {
        match self {
            Codec::Uncompressed => Ok(input_len),
            Codec::Snappy => snappy::max_compressed_len(input_len),
            Codec::Gzip => gzip::max_compressed_len(input_len),
            Codec::Brotli => brotli::max_compressed_len(input_len),
            Codec::Lz4Hadoop => lz4::hadoop_max_compressed_len(input_len),
            Codec::Zstd => zstd::max_compressed_len(input_len),
            Codec::Lz4Raw => lz4::raw_max_compressed_len(input_len),
        }
        .map_err(|e| e.context(format_args!("{} max_compressed_size", self.name())))
    }

    /// The most `input` can decompress to, found without decompressing it:
    /// exact where the format records it (snappy's length header, zstd frames'
    /// content sizes), else the format's largest expansion (zstd's blocks times
    /// their maximum size, LZ4's 255x, deflate's 1032x). None for brotli, whose
    /// expansion has no useful bound. Fails if `input` is not in the format's
    /// framing at all.
    pub(crate) fn max_decompressed_len(self, input: &[u8]) -> Result<Option<usize>> {
        let ratio =
            |ratio: usize, slack: usize| input.len().saturating_mul(ratio).saturating_add(slack);
        match self {
            Codec::Uncompressed => Ok(Some(input.len())),
            Codec::Snappy => snappy::decompressed_len(input).map(Some),
            // Deflate's best case is a 258-byte match coded in 2 bits: 1032:1.
            Codec::Gzip => Ok(Some(ratio(1032, 0))),
            Codec::Brotli => Ok(None),
            // A sequence's match grows by 255 bytes per length byte, plus what
            // its token and offset give a tiny block.
            Codec::Lz4Hadoop | Codec::Lz4Raw => Ok(Some(ratio(255, 64))),
            Codec::Zstd => zstd::max_decompressed_len(input).map(Some),
        }
        .map_err(|e| e.context(format_args!("{} decompress", self.name())))
    }

    /// Compresses `input` into the front of `output` and returns the compressed
    /// length. `level` 0 is the codec's default; codecs without levels ignore it.
    pub fn compress(self, level: i32, input: &[u8], output: &mut [u8]) -> Result<usize> {
        match self {
            Codec::Uncompressed => copy(input, output),
            Codec::Snappy => snappy::compress(input, output),
            Codec::Gzip => gzip::compress(level, input, output),
            Codec::Brotli => brotli::compress(level, input, output),
            Codec::Lz4Hadoop => lz4::hadoop_compress(input, output),
            Codec::Zstd => zstd::compress(level, input, output),
            Codec::Lz4Raw => lz4::raw_compress(input, output),
        }
        .map_err(|e| e.context(format_args!("{} compress", self.name())))
    }

    /// Decompresses `input` into the front of `output` and returns the decompressed
    /// length. Output that would not fit is an error, never silently cut.
    pub fn decompress(self, input: &[u8], output: &mut [u8]) -> Result<usize> {
        self.decompress_uninit(input, as_uninit(output))
    }

    /// [`Codec::decompress`] into memory that need not be initialised, so that
    /// a buffer sized from an untrusted length is never filled before the codec
    /// has shown the data is there. On success the first `n` bytes of
    /// `output` are initialised, `n` being the length returned.
    pub(crate) fn decompress_uninit(
        self,
        input: &[u8],
        output: &mut [MaybeUninit<u8>],
    ) -> Result<usize> {
        match self {
            Codec::Uncompressed => copy_uninit(input, output),
            Codec::Snappy => snappy::decompress(input, output),
            Codec::Gzip => gzip::decompress(input, output),
            Codec::Brotli => brotli::decompress(input, output),
            Codec::Lz4Hadoop => lz4::hadoop_decompress(input, output),
            Codec::Zstd => zstd::decompress(input, output),
            Codec::Lz4Raw => lz4::raw_decompress(input, output),
        }
        .map_err(|e| e.context(format_args!("{} decompress", self.name())))
    }
}

impl fmt::Display for Codec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// `bytes` as memory a codec may write. Codecs write only initialised bytes,
/// so the memory stays initialised.
fn as_uninit(bytes: &mut [u8]) -> &mut [MaybeUninit<u8>] {
    // SAFETY: same layout; see above for why the view cannot de-initialise.
    unsafe { &mut *(bytes as *mut [u8] as *mut [MaybeUninit<u8>]) }
}

fn copy_uninit(input: &[u8], output: &mut [MaybeUninit<u8>]) -> Result<usize> {
    let Some(target) = output.get_mut(..input.len()) else {
        return Err(too_small(
            output.len(),
            format_args!("{} bytes", input.len()),
        ));
    };
    // SAFETY: `target` has room for `input`, and a borrowed input cannot
    // overlap a mutably borrowed output.
    unsafe {
        std::ptr::copy_nonoverlapping(input.as_ptr(), target.as_mut_ptr().cast(), input.len())
    };
    Ok(input.len())
}

fn copy(input: &[u8], output: &mut [u8]) -> Result<usize> {
    let Some(target) = output.get_mut(..input.len()) else {
        return Err(too_small(
            output.len(),
            format_args!("{} bytes", input.len()),
        ));
    };
    target.copy_from_slice(input);
    Ok(input.len())
}

/// Maps the ABI's level convention (0 = the codec's default) onto `range`.
fn resolve_level(level: i32, range: RangeInclusive<i32>, default: i32) -> Result<i32> {
    match level {
        0 => Ok(default),
        _ if range.contains(&level) => Ok(level),
        _ => Err(Error::invalid_argument(format!(
            "level {level} is out of range: expected {}..={}, or 0 for the default ({default})",
            range.start(),
            range.end()
        ))),
    }
}

/// The usual BUFFER_TOO_SMALL message: how much room there was and how much the
/// result needs (exactly or at least, as the codec can tell).
fn too_small(capacity: usize, needed: impl fmt::Display) -> Error {
    Error::buffer_too_small(format!(
        "output capacity {capacity} bytes is too small; the result needs {needed}"
    ))
}

/// Converts a length for a C API that takes `int`, which must never truncate.
fn to_c_int(len: usize, what: &str, limit: usize) -> Result<std::os::raw::c_int> {
    if len > limit {
        return Err(Error::invalid_argument(format!(
            "{what} of {len} bytes exceeds the codec's limit of {limit} bytes"
        )));
    }
    std::os::raw::c_int::try_from(len)
        .map_err(|_| Error::invalid_argument(format!("{what} of {len} bytes does not fit a C int")))
}

/// Reserves a scratch buffer, reporting allocation failure instead of aborting.
fn scratch(len: usize) -> Result<Vec<u8>> {
    let mut buffer = Vec::new();
    buffer.try_reserve_exact(len).map_err(|_| {
        Error::out_of_memory(format!("cannot allocate a {len}-byte scratch buffer"))
    })?;
    buffer.resize(len, 0);
    Ok(buffer)
}

#[cfg(test)]
pub(crate) mod test_data {
    //! Deterministic inputs and round-trip checks shared by the codec tests.

    use super::Codec;
    use crate::error::Status;

    /// Sizes every codec round-trips: empty, tiny, around a 64 KiB block boundary,
    /// and a few MiB.
    pub(crate) const SIZES: &[usize] = &[0, 1, 2, 100, 65_535, 65_537, 3 << 20];

    /// SplitMix64: good enough for test data and needs no dependency.
    pub(crate) struct Rng(u64);

    impl Rng {
        pub(crate) fn new(seed: u64) -> Self {
            Rng(seed)
        }

        pub(crate) fn next_u64(&mut self) -> u64 {
            self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = self.0;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^ (z >> 31)
        }

        pub(crate) fn below(&mut self, bound: u64) -> u64 {
            self.next_u64() % bound
        }
    }

    pub(crate) fn random(len: usize, seed: u64) -> Vec<u8> {
        let mut rng = Rng::new(seed);
        let mut data = Vec::with_capacity(len + 8);
        while data.len() < len {
            data.extend_from_slice(&rng.next_u64().to_le_bytes());
        }
        data.truncate(len);
        data
    }

    /// Text-like records: words from a small vocabulary mixed with numbers,
    /// compressing roughly 3-5x with the fast codecs.
    pub(crate) fn compressible(len: usize, seed: u64) -> Vec<u8> {
        const WORDS: &[&str] = &[
            "parquet",
            "column",
            "page",
            "row",
            "group",
            "isthmus",
            "arrow",
            "schema",
            "dictionary",
            "encoding",
            "null",
            "value",
            "offset",
            "length",
            "the",
            "of",
        ];
        let mut rng = Rng::new(seed);
        let mut data = Vec::with_capacity(len + 32);
        while data.len() < len {
            let word = WORDS[rng.below(WORDS.len() as u64) as usize];
            data.extend_from_slice(word.as_bytes());
            data.push(b' ');
            if rng.below(4) == 0 {
                data.extend_from_slice(rng.below(100_000).to_string().as_bytes());
                data.push(if rng.below(8) == 0 { b'\n' } else { b',' });
            }
        }
        data.truncate(len);
        data
    }

    /// Compresses into exactly the advertised bound, decompresses into exactly the
    /// original size, and checks the bytes; returns the compressed form.
    pub(crate) fn assert_round_trip(codec: Codec, level: i32, data: &[u8]) -> Vec<u8> {
        let bound = codec.max_compressed_len(data.len()).unwrap();
        let mut compressed = vec![0; bound];
        let written = codec
            .compress(level, data, &mut compressed)
            .unwrap_or_else(|e| panic!("{codec} level {level}, {} bytes: {e}", data.len()));
        assert!(written <= bound);
        compressed.truncate(written);

        let mut restored = vec![0xAA; data.len()];
        let n = codec
            .decompress(&compressed, &mut restored)
            .unwrap_or_else(|e| panic!("{codec} level {level}, {} bytes: {e}", data.len()));
        assert_eq!(n, data.len(), "{codec}: decompressed length");
        assert!(
            restored == data,
            "{codec} level {level}: {} bytes differ after round trip",
            data.len()
        );
        compressed
    }

    /// Round-trips compressible and random data of every size in [`SIZES`].
    pub(crate) fn assert_round_trips(codec: Codec, level: i32) {
        for (i, &len) in SIZES.iter().enumerate() {
            assert_round_trip(codec, level, &compressible(len, i as u64));
            assert_round_trip(codec, level, &random(len, 100 + i as u64));
        }
    }

    /// Decompressing into one byte less than the original must fail cleanly.
    pub(crate) fn assert_too_small_output_rejected(codec: Codec, data: &[u8]) {
        assert!(data.len() >= 2, "needs data that cannot fit one byte");
        let compressed = assert_round_trip(codec, 0, data);
        let mut short = vec![0; data.len() - 1];
        let err = codec.decompress(&compressed, &mut short).unwrap_err();
        assert_eq!(err.status(), Status::BufferTooSmall, "{codec}: {err}");
        assert!(
            err.message().starts_with(&format!("{codec} decompress: ")),
            "{err}"
        );

        let mut tiny = [0u8; 1];
        let err = codec.compress(0, data, &mut tiny).unwrap_err();
        assert_eq!(err.status(), Status::BufferTooSmall, "{codec}: {err}");
    }

    /// Garbage and truncated streams must produce CORRUPT_DATA (or, where a
    /// stream's header happens to declare a huge size, BUFFER_TOO_SMALL), never
    /// a panic or success with wrong bytes.
    pub(crate) fn assert_corrupt_input_rejected(codec: Codec) {
        let data = compressible(50_000, 7);
        let compressed = assert_round_trip(codec, 0, &data);
        let mut output = vec![0; data.len()];

        let truncated = &compressed[..compressed.len() / 2];
        let err = codec.decompress(truncated, &mut output).unwrap_err();
        assert_eq!(
            err.status(),
            Status::CorruptData,
            "{codec} truncated: {err}"
        );

        let garbage = random(1000, 99);
        let err = codec.decompress(&garbage, &mut output).unwrap_err();
        assert!(
            matches!(err.status(), Status::CorruptData | Status::BufferTooSmall),
            "{codec} garbage: {err}"
        );

        // Flipping bytes must never panic; checksummed formats also reject it.
        let mut rng = Rng::new(5);
        for _ in 0..200 {
            let mut damaged = compressed.clone();
            let at = rng.below(damaged.len() as u64) as usize;
            damaged[at] ^= 1 << rng.below(8);
            let _ = codec.decompress(&damaged, &mut output);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::test_data::*;
    use super::*;
    use crate::error::Status;

    #[test]
    fn ids_match_parquet() {
        for codec in Codec::ALL {
            assert_eq!(Codec::from_id(codec.id()).unwrap(), codec);
        }
        assert_eq!(Codec::from_id(3).unwrap_err().status(), Status::Unsupported);
        let err = Codec::from_id(42).unwrap_err();
        assert_eq!(err.status(), Status::InvalidArgument);
        assert!(
            err.message()
                .starts_with("unknown codec 42; expected one of 0 uncompressed"),
            "{err}"
        );
        assert_eq!(
            Codec::from_id(-1).unwrap_err().status(),
            Status::InvalidArgument
        );
    }

    #[test]
    fn uncompressed_round_trips_and_checks_capacity() {
        assert_round_trips(Codec::Uncompressed, 0);
        assert_too_small_output_rejected(Codec::Uncompressed, b"hello");
        let mut output = [0u8; 3];
        let err = Codec::Uncompressed
            .decompress(b"hello", &mut output)
            .unwrap_err();
        assert_eq!(
            err.message(),
            "uncompressed decompress: output capacity 3 bytes is too small; the result needs 5 bytes"
        );
    }

    #[test]
    fn levels_are_ignored_by_codecs_without_levels() {
        for codec in [
            Codec::Uncompressed,
            Codec::Snappy,
            Codec::Lz4Raw,
            Codec::Lz4Hadoop,
        ] {
            assert_round_trip(codec, 12345, b"level does not matter here");
            assert_round_trip(codec, -7, b"level does not matter here");
        }
    }

    #[test]
    fn every_codec_fits_its_bound_on_incompressible_data() {
        for codec in Codec::ALL {
            for len in [0, 1, 17, 1000, 200_000] {
                assert_round_trip(
                    codec,
                    if codec == Codec::Brotli { 5 } else { 0 },
                    &random(len, len as u64),
                );
            }
        }
    }

    #[test]
    fn resolve_level_rejects_out_of_range() {
        assert_eq!(resolve_level(0, 1..=9, 6).unwrap(), 6);
        assert_eq!(resolve_level(9, 1..=9, 6).unwrap(), 9);
        let err = resolve_level(10, 1..=9, 6).unwrap_err();
        assert_eq!(err.status(), Status::InvalidArgument);
        assert_eq!(
            err.message(),
            "level 10 is out of range: expected 1..=9, or 0 for the default (6)"
        );
    }
}
