//! The page index: per-page locations (OffsetIndex) and min/max statistics
//! (ColumnIndex) that writers put between the row groups and the footer.

use super::{read_binary_vec, read_closed_enum, read_i64_list, required, write_i64_list};
use super::{BoundaryOrder, ClosedEnum, ThriftStruct};
use crate::error::{Error, Result};
use crate::parquet::thrift::{CompactReader, CompactWriter, WireType};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PageLocation {
    pub offset: i64,
    /// Header plus page bytes.
    pub compressed_page_size: i32,
    pub first_row_index: i64,
}

impl ThriftStruct for PageLocation {
    fn read(reader: &mut CompactReader<'_>) -> Result<Self> {
        let start = reader.position();
        let (mut offset, mut size, mut first_row) = (None, None, None);
        reader.read_struct("PageLocation", |r, f| {
            match (f.id, f.ty) {
                (1, WireType::I64) => offset = Some(r.read_i64()?),
                (2, WireType::I32) => size = Some(r.read_i32()?),
                (3, WireType::I64) => first_row = Some(r.read_i64()?),
                _ => return Ok(false),
            }
            Ok(true)
        })?;
        const NAME: &str = "PageLocation";
        Ok(PageLocation {
            offset: required(offset, NAME, "offset", start)?,
            compressed_page_size: required(size, NAME, "compressed_page_size", start)?,
            first_row_index: required(first_row, NAME, "first_row_index", start)?,
        })
    }

    fn write(&self, writer: &mut CompactWriter<'_>) {
        writer.write_struct(|w| {
            w.field_i64(1, self.offset);
            w.field_i32(2, self.compressed_page_size);
            w.field_i64(3, self.first_row_index);
        });
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OffsetIndex {
    pub page_locations: Vec<PageLocation>,
    pub unencoded_byte_array_data_bytes: Option<Vec<i64>>,
}

impl ThriftStruct for OffsetIndex {
    fn read(reader: &mut CompactReader<'_>) -> Result<Self> {
        let start = reader.position();
        let (mut locations, mut unencoded) = (None, None);
        reader.read_struct("OffsetIndex", |r, f| {
            match (f.id, f.ty) {
                (1, WireType::List) => {
                    locations = Some(r.read_list(WireType::Struct, PageLocation::read)?)
                }
                (2, WireType::List) => unencoded = Some(read_i64_list(r)?),
                _ => return Ok(false),
            }
            Ok(true)
        })?;
        let page_locations = required(locations, "OffsetIndex", "page_locations", start)?;
        if let Some(sizes) = &unencoded {
            check_len(
                sizes.len(),
                page_locations.len(),
                "OffsetIndex",
                "unencoded_byte_array_data_bytes",
                start,
            )?;
        }
        Ok(OffsetIndex {
            page_locations,
            unencoded_byte_array_data_bytes: unencoded,
        })
    }

    fn write(&self, writer: &mut CompactWriter<'_>) {
        writer.write_struct(|w| {
            w.field_list(1, WireType::Struct, &self.page_locations, |w, l| l.write(w));
            if let Some(v) = &self.unencoded_byte_array_data_bytes {
                write_i64_list(w, 2, v);
            }
        });
    }
}

fn check_len(
    actual: usize,
    pages: usize,
    structure: &str,
    field: &str,
    start: usize,
) -> Result<()> {
    if actual == pages {
        return Ok(());
    }
    Err(Error::corrupt_data(format!(
        "{structure} starting at byte {start} has {actual} {field} entries for {pages} pages"
    )))
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ColumnIndex {
    /// One per page; the lists below have the same length (checked).
    pub null_pages: Vec<bool>,
    pub min_values: Vec<Vec<u8>>,
    pub max_values: Vec<Vec<u8>>,
    pub boundary_order: BoundaryOrder,
    pub null_counts: Option<Vec<i64>>,
    /// `max_repetition_level + 1` entries per page, concatenated.
    pub repetition_level_histograms: Option<Vec<i64>>,
    /// `max_definition_level + 1` entries per page, concatenated.
    pub definition_level_histograms: Option<Vec<i64>>,
}

impl ThriftStruct for ColumnIndex {
    fn read(reader: &mut CompactReader<'_>) -> Result<Self> {
        let start = reader.position();
        let (mut null_pages, mut min_values, mut max_values) = (None, None, None);
        let (mut boundary_order, mut null_counts) = (None, None);
        let (mut rep_histograms, mut def_histograms) = (None, None);
        reader.read_struct("ColumnIndex", |r, f| {
            match (f.id, f.ty) {
                (1, WireType::List) => {
                    null_pages =
                        Some(r.read_list(WireType::Bool, CompactReader::read_bool_element)?)
                }
                (2, WireType::List) => {
                    min_values = Some(r.read_list(WireType::Binary, read_binary_vec)?)
                }
                (3, WireType::List) => {
                    max_values = Some(r.read_list(WireType::Binary, read_binary_vec)?)
                }
                (4, WireType::I32) => boundary_order = Some(read_closed_enum(r)?),
                (5, WireType::List) => null_counts = Some(read_i64_list(r)?),
                (6, WireType::List) => rep_histograms = Some(read_i64_list(r)?),
                (7, WireType::List) => def_histograms = Some(read_i64_list(r)?),
                _ => return Ok(false),
            }
            Ok(true)
        })?;
        const NAME: &str = "ColumnIndex";
        let null_pages: Vec<bool> = required(null_pages, NAME, "null_pages", start)?;
        let min_values: Vec<Vec<u8>> = required(min_values, NAME, "min_values", start)?;
        let max_values: Vec<Vec<u8>> = required(max_values, NAME, "max_values", start)?;
        let pages = null_pages.len();
        check_len(min_values.len(), pages, NAME, "min_values", start)?;
        check_len(max_values.len(), pages, NAME, "max_values", start)?;
        if let Some(counts) = &null_counts {
            check_len(counts.len(), pages, NAME, "null_counts", start)?;
        }
        Ok(ColumnIndex {
            null_pages,
            min_values,
            max_values,
            boundary_order: required(boundary_order, NAME, "boundary_order", start)?,
            null_counts,
            repetition_level_histograms: rep_histograms,
            definition_level_histograms: def_histograms,
        })
    }

    fn write(&self, writer: &mut CompactWriter<'_>) {
        writer.write_struct(|w| {
            w.field_list(1, WireType::Bool, &self.null_pages, |w, &b| {
                w.write_bool_element(b)
            });
            w.field_list(2, WireType::Binary, &self.min_values, |w, v| {
                w.write_binary(v)
            });
            w.field_list(3, WireType::Binary, &self.max_values, |w, v| {
                w.write_binary(v)
            });
            w.field_i32(4, self.boundary_order.to_thrift());
            if let Some(v) = &self.null_counts {
                write_i64_list(w, 5, v);
            }
            if let Some(v) = &self.repetition_level_histograms {
                write_i64_list(w, 6, v);
            }
            if let Some(v) = &self.definition_level_histograms {
                write_i64_list(w, 7, v);
            }
        });
    }
}
