//! The metadata structures of parquet.thrift and their compact-protocol codecs.
//!
//! The structs mirror the Thrift IDL field for field, with Rust names; optional
//! Thrift fields are `Option`s and required ones are plain values whose absence
//! is CORRUPT_DATA. Fields this layer does not model yet (encryption metadata,
//! size and geospatial statistics) are skipped when decoding, as are fields
//! added by newer writers, and union members this build does not know decode to
//! an `Unrecognized` variant instead of failing.
//!
//! Decoding also checks the sizes and counts a page reader will use (page sizes,
//! value counts, level lengths) for negative values, and that the parallel lists
//! of a column index agree in length, so later stages can convert them without
//! re-checking signs.

mod enums;
mod metadata;
mod page;
mod page_index;

// Public: the types `crate::parquet::metadata` exposes, and the two that
// `crate::test_support` hands the tests (schema elements, page headers).
pub use enums::{
    ClosedEnum, CompressionCodec, ConvertedType, EdgeInterpolationAlgorithm, Encoding, PageType,
    PhysicalType, Repetition,
};
pub use metadata::{
    ColumnMetaData, KeyValue, LogicalType, PageEncodingStats, SchemaElement, Statistics, TimeUnit,
};
pub use page::PageHeader;

pub(crate) use enums::BoundaryOrder;
#[cfg(test)]
pub(crate) use metadata::SortingColumn;
pub(crate) use metadata::{ColumnChunk, ColumnOrder, FileMetaData, RowGroup};
pub(crate) use page::{DataPageHeader, DataPageHeaderV2, DictionaryPageHeader};
pub(crate) use page_index::{ColumnIndex, OffsetIndex, PageLocation};

pub(crate) use super::thrift::ThriftStruct;
use super::thrift::{CompactReader, CompactWriter, WireType};
use crate::error::{Error, Result};

/// The value of a required field, or the error naming it and where its struct
/// started.
fn required<T>(value: Option<T>, structure: &str, field: &str, start: usize) -> Result<T> {
    value.ok_or_else(|| {
        Error::corrupt_data(format!(
            "{structure} starting at byte {start} lacks required field {field}"
        ))
    })
}

fn read_closed_enum<T: ClosedEnum>(reader: &mut CompactReader<'_>) -> Result<T> {
    let start = reader.position();
    let value = reader.read_i32()?;
    T::from_thrift(value)
        .ok_or_else(|| Error::corrupt_data(format!("unknown {} {value} at byte {start}", T::NAME)))
}

/// A count or size that must not be negative, checked once here so that users
/// of the decoded struct can convert it to `usize` without surprises.
fn read_non_negative_i32(reader: &mut CompactReader<'_>, field: &str) -> Result<i32> {
    let start = reader.position();
    let value = reader.read_i32()?;
    if value < 0 {
        return Err(Error::corrupt_data(format!(
            "{field} is negative ({value}) at byte {start}"
        )));
    }
    Ok(value)
}

fn read_binary_vec(reader: &mut CompactReader<'_>) -> Result<Vec<u8>> {
    Ok(reader.read_binary()?.to_vec())
}

fn read_string_owned(reader: &mut CompactReader<'_>) -> Result<String> {
    Ok(reader.read_string()?.to_owned())
}

fn read_i64_list(reader: &mut CompactReader<'_>) -> Result<Vec<i64>> {
    reader.read_list(WireType::I64, CompactReader::read_i64)
}

fn write_i64_list(writer: &mut CompactWriter<'_>, id: i16, values: &[i64]) {
    writer.field_list(id, WireType::I64, values, |w, &v| w.write_i64(v));
}

/// Reads a struct with no fields of interest (a union member marker), skipping
/// whatever a newer writer may have put in it.
fn read_empty_struct(reader: &mut CompactReader<'_>) -> Result<()> {
    reader.read_struct("empty struct", |_, _| Ok(false))
}
