//! The one test-support tree of the workspace: compiled for this crate's unit
//! tests (`cfg(test)`), and with the `test-support` feature for its integration
//! tests and benches and for `isthmus-ffi`'s tests. Never part of a release
//! build.
//!
//! - [`arrow`]: Arrow arrays built through the API, and hand-made C structs
//!   whose releases count.
//! - [`parquet`]: a mutation harness for damaged input, a minimal Parquet
//!   writer that writes what it is told ([`parquet::writer`]), scans of
//!   in-memory files, the canonical text of Arrow values, and Thrift structs as
//!   trees of fields.
//! - [`write`](mod@write): batches of Iceberg columns for the encoder, an
//!   independent reader of what it wrote, and the rows of the parquet-java
//!   reference files.
//! - [`encodings`]: the encoders only the test writer, the tests and the benches
//!   use, and the library's own value decoders and encoders for the benches.
//! - [`rng`]: the deterministic inputs of the tests and benches.

pub mod arrow;
pub mod encodings;
pub mod parquet;
pub mod rng;
pub mod write;

/// `rust-core/tests/data`: files written by Iceberg's Java writer and by other
/// writers, which the tests read.
pub fn data_dir() -> std::path::PathBuf {
    let workspace = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the crate lies inside the workspace");
    workspace.join("tests/data")
}
