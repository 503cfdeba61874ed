//! Parquet both ways: the format layer (metadata structures, the schema tree,
//! the value encodings) and, on top of it, the reader that turns a file's
//! column chunks into Arrow batches and the writer ([`write`]) that turns Arrow
//! batches into a file.
//!
//! Format layer, independent of any in-memory format:
//! - [`thrift`]: the Thrift compact protocol that metadata is written in.
//! - [`format`](mod@format): parquet.thrift's structures (footer, page headers, page index).
//! - [`schema`]: the flat schema list turned into a tree with per-column levels.
//! - [`encodings`]: value and level encodings, decoders and encoders.
//! - [`crc`]: the page checksum.
//!
//! Reader:
//! - [`io`]: the footer, and where column chunk bytes come from (a local file
//!   or buffers the caller fills).
//! - [`page`]: page headers, checksums, decompression, level/value split.
//! - [`column`](mod@column): one leaf column's levels and values, decoded straight into
//!   Arrow buffers.
//! - [`arrow`](mod@arrow): the Arrow types of Parquet columns, and the assembly
//!   of nested arrays from levels.
//! - [`file`](mod@file) and [`scan`]: an opened file (footer, metadata for pruning) and
//!   a scan over it, batch by batch.
//! - [`location`]: file / row group / column / page, for error messages.
//!
//! Writer:
//! - [`write`]: schema, levels, pages, dictionaries, statistics and the footer,
//!   as Iceberg's Java writer lays them out for the same rows.
//!
//! Everything here treats its input as untrusted file content: malformed bytes
//! are CORRUPT_DATA errors, valid features this build lacks are UNSUPPORTED, and
//! no size read from a file is trusted for an allocation before it has been
//! checked against the bytes actually present.

pub mod arrow;
pub mod column;
pub mod crc;
pub mod encodings;
pub mod file;
pub mod format;
pub mod io;
pub mod location;
pub mod page;
pub mod scan;
pub mod schema;
pub mod thrift;
pub mod write;
