//! Isthmus's native core: Parquet's compression codecs, decoding into Arrow and
//! encoding from Arrow, behind a small C ABI that Java 25 calls through the FFM
//! API.
//!
//! `include/isthmus.h` is the contract. The crate is split so that the C ABI stays
//! a thin shell around safe Rust:
//!
//! - [`error`]: status codes mirroring the header, and the [`error::Error`] type.
//! - [`compression`]: the codecs over byte slices, each wrapping a statically
//!   linked C library (zstd, snappy, lz4, zlib, brotli).
//! - [`arrow`]: Arrow types, buffers and arrays, and both sides of the Arrow C
//!   Data Interface (export with release callbacks, validated import).
//! - [`parquet`]: the Parquet format layer (Thrift metadata, the schema tree,
//!   value and level encodings, page checksums) and the decoder and encoder
//!   built on it: files and scans that turn column chunks into Arrow batches,
//!   and the writer that turns Arrow batches into data files.
//! - `panic_guard`: the one guard that keeps panics from unwinding into foreign
//!   frames, under both the exports and the Arrow release callbacks.
//! - [`ffi`]: the exports; pointer validation, error reporting. It uses the
//!   layers above; none of them uses it.
//!
//! The build links every codec statically (see `build.rs`), so libisthmus.so needs
//! only libc, libm and libgcc_s at run time.

#![deny(unsafe_op_in_unsafe_fn)]

pub mod arrow;
pub mod compression;
pub mod error;
pub mod ffi;
mod panic_guard;
pub mod parquet;
