//! The one test-support tree of the integration tests (and of the `column`
//! bench): [`arrow`] builds Arrow arrays and hand-made C structs whose releases
//! count; [`parquet`] holds a deterministic PRNG, damaged-input harnesses, a
//! minimal Parquet writer and scans of in-memory files; [`write`] builds
//! batches of Iceberg columns for the encoder and reads its files back.

// Each test binary uses a different subset.
#![allow(dead_code)]

pub mod arrow;
pub mod parquet;
pub mod rng;
pub mod write;
