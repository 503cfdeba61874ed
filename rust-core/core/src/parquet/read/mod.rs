//! The Parquet decoder: a file's footer and column chunks in, Arrow batches
//! out. `docs/decoder.md` describes the design, what it supports and how it is
//! tested.
//!
//! - [`io`]: the footer, and where column chunk bytes come from (a local file
//!   read with positional reads, or byte ranges the caller fills).
//! - [`page`]: page headers, checksums, decompression, level/value split.
//! - [`column`](mod@column): one leaf column's levels and values, decoded
//!   straight into Arrow buffers.
//! - [`arrow`]: the Arrow types of Parquet columns, and the assembly of nested
//!   arrays from levels.
//! - [`file`](mod@file): an opened file, its footer decoded and checked once.
//! - [`scan`]: the projected columns of a file's row groups, a batch at a time.
//! - [`location`]: file / row group / column / page, which every error names.

pub(crate) mod arrow;
pub(crate) mod column;
pub(crate) mod file;
pub(crate) mod io;
pub(crate) mod location;
pub(crate) mod page;
pub(crate) mod scan;
