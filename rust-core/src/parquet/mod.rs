//! The Parquet format layer: metadata structures, the schema tree and the value
//! encodings, independent of any in-memory format such as Arrow.
//!
//! - [`thrift`]: the Thrift compact protocol that metadata is written in.
//! - [`format`](mod@format): parquet.thrift's structures (footer, page headers, page index).
//! - [`schema`]: the flat schema list turned into a tree with per-column levels.
//! - [`encodings`]: value and level encodings, decoders and encoders.
//! - [`crc`]: the page checksum.
//!
//! Everything here treats its input as untrusted file content: malformed bytes
//! are CORRUPT_DATA errors, valid features this build lacks are UNSUPPORTED, and
//! no size read from a file is trusted for an allocation before it has been
//! checked against the bytes actually present.

pub mod crc;
pub mod encodings;
pub mod format;
pub mod schema;
pub mod thrift;
