//! The crate's tests by area, as unit tests: they reach internals through `crate::`,
//! and share the fixtures of [`crate::test_support`].

mod arrow_checksum;
mod arrow_validation;
mod parquet_decode;
mod parquet_encodings;
mod parquet_errors;
mod parquet_fixtures;
mod parquet_fuzz;
mod parquet_metadata;
mod parquet_other_writers;
mod parquet_reader_parity;
mod parquet_schema;
mod parquet_thrift;
mod parquet_write_nested;
mod parquet_write_reference;
mod parquet_write_roundtrip;
mod parquet_write_stats;
