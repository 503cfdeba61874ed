//! The Rust library under Isthmus: Parquet decoding into Arrow, encoding from
//! Arrow, and Parquet's compression codecs, as safe Rust over byte slices and
//! Arrow C Data Interface structs. The workspace's other crate, `isthmus-ffi`
//! (`ffi/`), wraps this API in the C ABI of `include/isthmus.h` and is built as
//! libisthmus.so, which Java 25 calls through the FFM API; nothing here knows
//! that ABI.
//!
//! # API
//!
//! - [`error`]: [`Error`](error::Error), whose [`Status`](error::Status) values
//!   are the header's status codes, and [`Result`](error::Result).
//! - [`compression`]: [`Codec`](compression::Codec), Parquet's codecs over
//!   caller-provided buffers, each wrapping a statically linked C library (zstd,
//!   snappy, lz4, zlib, brotli).
//! - [`arrow`]: Arrow types, buffers and arrays; both sides of the Arrow C Data
//!   Interface (export with release callbacks, validated import) and its two
//!   structs ([`arrow::c_data`]); counters of what crossed ([`arrow::stats`]);
//!   deep copies and the canonical checksum.
//! - [`parquet`]: [`ParquetFile`](parquet::ParquetFile), an opened file with its
//!   footer checked and the metadata a planner prunes with
//!   ([`parquet::metadata`]); [`Scan`](parquet::Scan), which decodes its column
//!   chunks into Arrow batches, from a local file or from byte ranges the caller
//!   fills; [`FileWriter`](parquet::FileWriter), which encodes Arrow batches into
//!   a data file laid out as Iceberg's Java writer lays it out.
//! - [`panic_guard`]: the one guard that keeps panics from unwinding into
//!   foreign frames, for the C exports and for the release callbacks the Arrow
//!   layer hands out.
//!
//! Everything else is `pub(crate)`.
//!
//! # Layers
//!
//! [`error`] is at the bottom; [`compression`] and [`panic_guard`] use only it;
//! [`arrow`] uses those; [`parquet`] uses all of them. Inside `parquet`, the
//! format layer (`thrift`, `format`, `schema`, `encodings`, `crc`) knows no
//! in-memory format; the reader (`read`: `io`, `page`, `column`, `arrow`,
//! `file`, `scan`, `location`) and the writer (`write`) build on it, and
//! neither uses the other. No module uses one above it.
//!
//! # Tests
//!
//! Unit tests sit beside the code they test, and the tests of each area live in
//! `tests` (`src/tests/`, compiled only under `cfg(test)`), reaching internals
//! through `crate::`. The fixtures they share are in `test_support`
//! (`src/test_support/`): Arrow builders and hand-made C structs, a test-only
//! Parquet writer and reader, scans of in-memory files, deterministic inputs.
//!
//! The `test-support` feature compiles `test_support` into the library as a
//! public module, for the code that cannot be a unit test: the integration tests
//! in `tests/` (each needs a process of its own), the benches in `benches/`, and
//! the C ABI tests of `isthmus-ffi`. It also re-exports the few internals they
//! drive directly (the value encoders and decoders the benches time, and
//! parquet.thrift's schema elements and page headers for the test writer), and
//! keeps the few methods that only tests call (`#[cfg(any(test, feature =
//! "test-support"))]`). Nothing in a release build enables it: the crate's
//! dev-dependency on itself turns it on for test and bench targets only.
//!
//! The build links every codec statically (see `build.rs`), so a library built
//! on this crate needs only libc, libm and libgcc_s at run time.

#![deny(unsafe_op_in_unsafe_fn)]
// With test-support on, every item declared `pub` is reachable: it is either the
// API or something `test_support` re-exports. Anything else is `pub(crate)`.
#![cfg_attr(feature = "test-support", warn(unreachable_pub))]

pub mod arrow;
pub mod compression;
pub mod error;
pub mod panic_guard;
pub mod parquet;
#[cfg(any(test, feature = "test-support"))]
pub mod test_support;

#[cfg(test)]
mod tests;
