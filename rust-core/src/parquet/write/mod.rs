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
//! - `output`: a local file (moved into place when complete) or buffers the
//!   caller drains.
//! - [`writer`]: row groups, page index, footer, and the result for Iceberg's
//!   metrics.

mod column;
mod compress;
pub mod hash;
mod levels;
pub mod options;
mod output;
mod page;
pub mod schema;
pub mod stats;
mod stored_page;
pub mod writer;

pub use column::ColumnMetrics;
pub use options::{PageVersion, WriterOptions};
pub use schema::WriteSchema;
pub use writer::{created_by, ColumnResult, FileWriter, WriteResult};
