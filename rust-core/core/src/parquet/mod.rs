//! Parquet both ways: [`ParquetFile`] and [`Scan`] turn a file's column chunks
//! into Arrow batches, and [`FileWriter`] turns Arrow batches into a file.
//!
//! - [`ParquetFile`]: an opened file, its footer decoded and checked once, with
//!   its row groups ([`RowGroupInfo`], [`ChunkInfo`]), leaf columns and chunk
//!   metadata ([`metadata`]), its Arrow schema and dictionary pages. Opened by
//!   path, or from footer bytes the caller read ([`footer_length`]).
//! - [`Scan`]: batches of the projected fields ([`ScanOptions`]), step by step
//!   ([`Step`]); a file opened from its footer asks for byte ranges
//!   ([`PendingRange`]) that the caller fills.
//! - [`FileWriter`]: batches in, a data file out (to a path, or buffered for the
//!   caller to take), with Iceberg's table properties as [`WriterOptions`] and
//!   the metrics Iceberg records per column as a [`WriteResult`].
//! - [`Location`]: file / row group / column / page, which every error names.
//!
//! Inside:
//! - the format layer, independent of any in-memory format: `thrift` (the
//!   compact protocol metadata is written in), `format` (parquet.thrift's
//!   structures: footer, page headers, page index), `schema` (the flat schema
//!   list as a tree with per-column levels), `encodings` (value and level
//!   encodings), `crc` (the page checksum);
//! - the reader, `read`: `io` (the footer, and where column chunk bytes come
//!   from), `page` (page headers, checksums, decompression, level/value split),
//!   `column` (one leaf column's levels and values, decoded straight into Arrow
//!   buffers), `arrow` (the Arrow types of Parquet columns, and the assembly of
//!   nested arrays from levels), `file` and `scan`, `location`;
//! - the writer, `write`: schema, levels, pages, dictionaries, statistics and
//!   the footer, as Iceberg's Java writer lays them out for the same rows.
//!
//! `read` and `write` both build on the format layer and neither uses the
//! other.
//!
//! Everything here treats its input as untrusted file content: malformed bytes
//! are CORRUPT_DATA errors, valid features this build lacks are UNSUPPORTED, and
//! no size read from a file is trusted for an allocation before it has been
//! checked against the bytes actually present.

pub(crate) mod crc;
pub(crate) mod encodings;
pub(crate) mod format;
pub(crate) mod read;
pub(crate) mod schema;
pub(crate) mod thrift;
pub(crate) mod write;

pub use read::file::{ChunkInfo, ParquetFile, RowGroupInfo};
pub use read::io::{footer_length, ByteRange};
pub use read::location::Location;
pub use read::page::DEFAULT_MAX_PAGE_SIZE;
pub use read::scan::{PendingRange, Scan, ScanOptions, Step, DEFAULT_BATCH_SIZE};
pub use write::{ColumnMetrics, ColumnResult, FileWriter, PageVersion, WriteResult, WriterOptions};

/// What a file's footer says about its columns, as [`ParquetFile`] hands it
/// out: the leaf columns of the schema, each chunk's metadata and statistics,
/// and the parquet.thrift enums and unions they are written in.
pub mod metadata {
    pub use super::format::{
        ClosedEnum, ColumnMetaData, CompressionCodec, ConvertedType, EdgeInterpolationAlgorithm,
        Encoding, KeyValue, LogicalType, PageEncodingStats, PageType, PhysicalType, Repetition,
        Statistics, TimeUnit,
    };
    pub use super::schema::ColumnDescriptor;
}
