//! Page headers, which precede every page of a column chunk.

use super::{read_empty_struct, read_non_negative_i32, required};
use super::{Encoding, PageType, Statistics, ThriftStruct};
use crate::error::Result;
use crate::parquet::thrift::{CompactReader, CompactWriter, WireType};

/// The header of a v1 data page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DataPageHeader {
    /// Values including nulls; checked non-negative.
    pub num_values: i32,
    pub encoding: Encoding,
    pub definition_level_encoding: Encoding,
    pub repetition_level_encoding: Encoding,
    pub statistics: Option<Statistics>,
}

impl ThriftStruct for DataPageHeader {
    fn read(reader: &mut CompactReader<'_>) -> Result<Self> {
        let start = reader.position();
        let (mut num_values, mut encoding, mut def_encoding) = (None, None, None);
        let (mut rep_encoding, mut statistics) = (None, None);
        reader.read_struct("DataPageHeader", |r, f| {
            match (f.id, f.ty) {
                (1, WireType::I32) => num_values = Some(read_non_negative_i32(r, "num_values")?),
                (2, WireType::I32) => encoding = Some(Encoding::from_thrift(r.read_i32()?)),
                (3, WireType::I32) => def_encoding = Some(Encoding::from_thrift(r.read_i32()?)),
                (4, WireType::I32) => rep_encoding = Some(Encoding::from_thrift(r.read_i32()?)),
                (5, WireType::Struct) => statistics = Some(Statistics::read(r)?),
                _ => return Ok(false),
            }
            Ok(true)
        })?;
        const NAME: &str = "DataPageHeader";
        Ok(DataPageHeader {
            num_values: required(num_values, NAME, "num_values", start)?,
            encoding: required(encoding, NAME, "encoding", start)?,
            definition_level_encoding: required(
                def_encoding,
                NAME,
                "definition_level_encoding",
                start,
            )?,
            repetition_level_encoding: required(
                rep_encoding,
                NAME,
                "repetition_level_encoding",
                start,
            )?,
            statistics,
        })
    }

    fn write(&self, writer: &mut CompactWriter<'_>) {
        writer.write_struct(|w| {
            w.field_i32(1, self.num_values);
            w.field_i32(2, self.encoding.to_thrift());
            w.field_i32(3, self.definition_level_encoding.to_thrift());
            w.field_i32(4, self.repetition_level_encoding.to_thrift());
            if let Some(v) = &self.statistics {
                w.field_struct(5, v);
            }
        });
    }
}

/// The header of a v2 data page, whose levels are stored uncompressed ahead of
/// the (possibly compressed) values.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DataPageHeaderV2 {
    /// Values including nulls; this and the other counts and lengths are
    /// checked non-negative.
    pub num_values: i32,
    pub num_nulls: i32,
    pub num_rows: i32,
    pub encoding: Encoding,
    pub definition_levels_byte_length: i32,
    pub repetition_levels_byte_length: i32,
    /// Whether the values section is compressed; the IDL's default is true.
    pub is_compressed: bool,
    pub statistics: Option<Statistics>,
}

impl ThriftStruct for DataPageHeaderV2 {
    fn read(reader: &mut CompactReader<'_>) -> Result<Self> {
        let start = reader.position();
        let (mut num_values, mut num_nulls, mut num_rows, mut encoding) = (None, None, None, None);
        let (mut def_length, mut rep_length, mut statistics) = (None, None, None);
        let mut is_compressed = true;
        reader.read_struct("DataPageHeaderV2", |r, f| {
            match (f.id, f.ty) {
                (1, WireType::I32) => num_values = Some(read_non_negative_i32(r, "num_values")?),
                (2, WireType::I32) => num_nulls = Some(read_non_negative_i32(r, "num_nulls")?),
                (3, WireType::I32) => num_rows = Some(read_non_negative_i32(r, "num_rows")?),
                (4, WireType::I32) => encoding = Some(Encoding::from_thrift(r.read_i32()?)),
                (5, WireType::I32) => {
                    def_length = Some(read_non_negative_i32(r, "definition_levels_byte_length")?)
                }
                (6, WireType::I32) => {
                    rep_length = Some(read_non_negative_i32(r, "repetition_levels_byte_length")?)
                }
                (7, WireType::Bool) => is_compressed = f.bool_value(),
                (8, WireType::Struct) => statistics = Some(Statistics::read(r)?),
                _ => return Ok(false),
            }
            Ok(true)
        })?;
        const NAME: &str = "DataPageHeaderV2";
        Ok(DataPageHeaderV2 {
            num_values: required(num_values, NAME, "num_values", start)?,
            num_nulls: required(num_nulls, NAME, "num_nulls", start)?,
            num_rows: required(num_rows, NAME, "num_rows", start)?,
            encoding: required(encoding, NAME, "encoding", start)?,
            definition_levels_byte_length: required(
                def_length,
                NAME,
                "definition_levels_byte_length",
                start,
            )?,
            repetition_levels_byte_length: required(
                rep_length,
                NAME,
                "repetition_levels_byte_length",
                start,
            )?,
            is_compressed,
            statistics,
        })
    }

    fn write(&self, writer: &mut CompactWriter<'_>) {
        writer.write_struct(|w| {
            w.field_i32(1, self.num_values);
            w.field_i32(2, self.num_nulls);
            w.field_i32(3, self.num_rows);
            w.field_i32(4, self.encoding.to_thrift());
            w.field_i32(5, self.definition_levels_byte_length);
            w.field_i32(6, self.repetition_levels_byte_length);
            w.field_bool(7, self.is_compressed);
            if let Some(v) = &self.statistics {
                w.field_struct(8, v);
            }
        });
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DictionaryPageHeader {
    /// Checked non-negative.
    pub num_values: i32,
    pub encoding: Encoding,
    pub is_sorted: Option<bool>,
}

impl ThriftStruct for DictionaryPageHeader {
    fn read(reader: &mut CompactReader<'_>) -> Result<Self> {
        let start = reader.position();
        let (mut num_values, mut encoding, mut is_sorted) = (None, None, None);
        reader.read_struct("DictionaryPageHeader", |r, f| {
            match (f.id, f.ty) {
                (1, WireType::I32) => num_values = Some(read_non_negative_i32(r, "num_values")?),
                (2, WireType::I32) => encoding = Some(Encoding::from_thrift(r.read_i32()?)),
                (3, WireType::Bool) => is_sorted = Some(f.bool_value()),
                _ => return Ok(false),
            }
            Ok(true)
        })?;
        const NAME: &str = "DictionaryPageHeader";
        Ok(DictionaryPageHeader {
            num_values: required(num_values, NAME, "num_values", start)?,
            encoding: required(encoding, NAME, "encoding", start)?,
            is_sorted,
        })
    }

    fn write(&self, writer: &mut CompactWriter<'_>) {
        writer.write_struct(|w| {
            w.field_i32(1, self.num_values);
            w.field_i32(2, self.encoding.to_thrift());
            if let Some(v) = self.is_sorted {
                w.field_bool(3, v);
            }
        });
    }
}

/// The header in front of every page. The `*_header` member matching
/// `page_type` is normally the only one set; the page reader checks that.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PageHeader {
    pub page_type: PageType,
    /// Checked non-negative, as is `compressed_page_size`.
    pub uncompressed_page_size: i32,
    pub compressed_page_size: i32,
    /// CRC-32 of the page bytes after the header, as written (see
    /// `parquet::crc`); stored as the IDL's signed i32.
    pub crc: Option<i32>,
    pub data_page_header: Option<DataPageHeader>,
    /// Present for INDEX_PAGE, which no writer produces; its content is empty
    /// in the IDL and skipped.
    pub has_index_page_header: bool,
    pub dictionary_page_header: Option<DictionaryPageHeader>,
    pub data_page_header_v2: Option<DataPageHeaderV2>,
}

impl ThriftStruct for PageHeader {
    fn read(reader: &mut CompactReader<'_>) -> Result<Self> {
        let start = reader.position();
        let (mut page_type, mut uncompressed, mut compressed, mut crc) = (None, None, None, None);
        let (mut data_page_header, mut dictionary_page_header) = (None, None);
        let (mut data_page_header_v2, mut has_index_page_header) = (None, false);
        reader.read_struct("PageHeader", |r, f| {
            match (f.id, f.ty) {
                (1, WireType::I32) => page_type = Some(PageType::from_thrift(r.read_i32()?)),
                (2, WireType::I32) => {
                    uncompressed = Some(read_non_negative_i32(r, "uncompressed_page_size")?)
                }
                (3, WireType::I32) => {
                    compressed = Some(read_non_negative_i32(r, "compressed_page_size")?)
                }
                (4, WireType::I32) => crc = Some(r.read_i32()?),
                (5, WireType::Struct) => data_page_header = Some(DataPageHeader::read(r)?),
                (6, WireType::Struct) => {
                    read_empty_struct(r)?;
                    has_index_page_header = true;
                }
                (7, WireType::Struct) => {
                    dictionary_page_header = Some(DictionaryPageHeader::read(r)?)
                }
                (8, WireType::Struct) => data_page_header_v2 = Some(DataPageHeaderV2::read(r)?),
                _ => return Ok(false),
            }
            Ok(true)
        })?;
        const NAME: &str = "PageHeader";
        Ok(PageHeader {
            page_type: required(page_type, NAME, "type", start)?,
            uncompressed_page_size: required(uncompressed, NAME, "uncompressed_page_size", start)?,
            compressed_page_size: required(compressed, NAME, "compressed_page_size", start)?,
            crc,
            data_page_header,
            has_index_page_header,
            dictionary_page_header,
            data_page_header_v2,
        })
    }

    fn write(&self, writer: &mut CompactWriter<'_>) {
        writer.write_struct(|w| {
            w.field_i32(1, self.page_type.to_thrift());
            w.field_i32(2, self.uncompressed_page_size);
            w.field_i32(3, self.compressed_page_size);
            if let Some(v) = self.crc {
                w.field_i32(4, v);
            }
            if let Some(v) = &self.data_page_header {
                w.field_struct(5, v);
            }
            if self.has_index_page_header {
                w.field_empty_struct(6);
            }
            if let Some(v) = &self.dictionary_page_header {
                w.field_struct(7, v);
            }
            if let Some(v) = &self.data_page_header_v2 {
                w.field_struct(8, v);
            }
        });
    }
}
