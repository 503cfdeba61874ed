//! The Parquet encoder: Arrow batches in, a Parquet data file out, with the
//! schema, encodings and statistics Iceberg's Java writer (parquet-java)
//! produces for the same table. `docs/encoder.md` describes the design and
//! what matches parquet-java.
//!
//! - [`options`]: Iceberg's table properties and their defaults.
//! - [`schema`]: Arrow fields (with Iceberg field ids) to Parquet schema elements.
//! - [`hash`]: the dictionary tables.
//! - [`stats`]: orderings, min/max, truncation for the column index.
//! - `levels`: definition and repetition levels of leaves inside structs,
//!   lists and maps.
//! - `page` and `column`: pages and per-column encoding with dictionary fallback.
//! - `blocks`: the stored pages' bytes, in blocks a process-wide cache recycles.
//! - `output`: a local file (moved into place when complete) or buffers the
//!   caller drains.
//! - [`writer`]: row groups, page index, footer, and the result for Iceberg's
//!   metrics.

mod blocks;
mod column;
mod compress;
pub(crate) mod hash;
mod levels;
pub(crate) mod options;
mod output;
mod page;
pub(crate) mod schema;
pub(crate) mod stats;
mod stored_page;
pub(crate) mod writer;

pub use column::ColumnMetrics;
pub use options::{PageVersion, WriterOptions};
pub use writer::{ColumnResult, FileWriter, WriteResult};
