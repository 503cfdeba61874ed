//! The footer: `FileMetaData` and everything it contains.

use super::{
    read_binary_vec, read_closed_enum, read_empty_struct, read_string_owned, required,
    ConvertedType, EdgeInterpolationAlgorithm, Encoding, PageType, PhysicalType, Repetition,
};
use super::{CompressionCodec, ThriftStruct};
use crate::error::{Error, Result};
use crate::parquet::format::ClosedEnum;
use crate::parquet::thrift::{CompactReader, CompactWriter, FieldHeader, WireType};

/// Reads a Thrift union: `member` decodes the member it knows and returns
/// `None` for the others, which are skipped and become `unrecognized(id)`.
/// Exactly one member must be present.
fn read_union<T>(
    reader: &mut CompactReader<'_>,
    name: &'static str,
    mut member: impl FnMut(&mut CompactReader<'_>, FieldHeader) -> Result<Option<T>>,
    unrecognized: impl Fn(i16) -> T,
) -> Result<T> {
    let start = reader.position();
    let mut found = None;
    reader.read_struct(name, |r, field| {
        if found.is_some() {
            return Err(Error::corrupt_data(format!(
                "{name} union starting at byte {start} has more than one member"
            )));
        }
        let known = member(r, field)?;
        let handled = known.is_some();
        found = Some(known.unwrap_or_else(|| unrecognized(field.id)));
        Ok(handled)
    })?;
    found.ok_or_else(|| {
        Error::corrupt_data(format!(
            "{name} union starting at byte {start} has no member"
        ))
    })
}

/// A key/value pair of the footer or of a column chunk, such as Iceberg's
/// `iceberg.schema`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyValue {
    pub key: String,
    pub value: Option<String>,
}

impl ThriftStruct for KeyValue {
    fn read(reader: &mut CompactReader<'_>) -> Result<Self> {
        let start = reader.position();
        let (mut key, mut value) = (None, None);
        reader.read_struct("KeyValue", |r, f| {
            match (f.id, f.ty) {
                (1, WireType::Binary) => key = Some(read_string_owned(r)?),
                (2, WireType::Binary) => value = Some(read_string_owned(r)?),
                _ => return Ok(false),
            }
            Ok(true)
        })?;
        Ok(KeyValue {
            key: required(key, "KeyValue", "key", start)?,
            value,
        })
    }

    fn write(&self, writer: &mut CompactWriter<'_>) {
        writer.write_struct(|w| {
            w.field_string(1, &self.key);
            if let Some(value) = &self.value {
                w.field_string(2, value);
            }
        });
    }
}

fn read_key_values(reader: &mut CompactReader<'_>) -> Result<Vec<KeyValue>> {
    reader.read_list(WireType::Struct, KeyValue::read)
}

fn write_struct_list<T: ThriftStruct>(writer: &mut CompactWriter<'_>, id: i16, items: &[T]) {
    writer.field_list(id, WireType::Struct, items, |w, item| item.write(w));
}

/// Column chunk or page statistics. Min/max values are PLAIN-encoded without
/// the length prefix of byte arrays.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Statistics {
    /// Deprecated signed-order maximum.
    pub max: Option<Vec<u8>>,
    /// Deprecated signed-order minimum.
    pub min: Option<Vec<u8>>,
    pub null_count: Option<i64>,
    pub distinct_count: Option<i64>,
    pub max_value: Option<Vec<u8>>,
    pub min_value: Option<Vec<u8>>,
    pub is_max_value_exact: Option<bool>,
    pub is_min_value_exact: Option<bool>,
    pub nan_count: Option<i64>,
}

impl ThriftStruct for Statistics {
    fn read(reader: &mut CompactReader<'_>) -> Result<Self> {
        let mut s = Statistics::default();
        reader.read_struct("Statistics", |r, f| {
            match (f.id, f.ty) {
                (1, WireType::Binary) => s.max = Some(read_binary_vec(r)?),
                (2, WireType::Binary) => s.min = Some(read_binary_vec(r)?),
                (3, WireType::I64) => s.null_count = Some(r.read_i64()?),
                (4, WireType::I64) => s.distinct_count = Some(r.read_i64()?),
                (5, WireType::Binary) => s.max_value = Some(read_binary_vec(r)?),
                (6, WireType::Binary) => s.min_value = Some(read_binary_vec(r)?),
                (7, WireType::Bool) => s.is_max_value_exact = Some(f.bool_value()),
                (8, WireType::Bool) => s.is_min_value_exact = Some(f.bool_value()),
                (9, WireType::I64) => s.nan_count = Some(r.read_i64()?),
                _ => return Ok(false),
            }
            Ok(true)
        })?;
        Ok(s)
    }

    fn write(&self, writer: &mut CompactWriter<'_>) {
        writer.write_struct(|w| {
            if let Some(v) = &self.max {
                w.field_binary(1, v);
            }
            if let Some(v) = &self.min {
                w.field_binary(2, v);
            }
            if let Some(v) = self.null_count {
                w.field_i64(3, v);
            }
            if let Some(v) = self.distinct_count {
                w.field_i64(4, v);
            }
            if let Some(v) = &self.max_value {
                w.field_binary(5, v);
            }
            if let Some(v) = &self.min_value {
                w.field_binary(6, v);
            }
            if let Some(v) = self.is_max_value_exact {
                w.field_bool(7, v);
            }
            if let Some(v) = self.is_min_value_exact {
                w.field_bool(8, v);
            }
            if let Some(v) = self.nan_count {
                w.field_i64(9, v);
            }
        });
    }
}

/// The unit of TIME and TIMESTAMP logical types.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TimeUnit {
    Millis,
    Micros,
    Nanos,
    /// A union member from a newer writer.
    Unrecognized {
        field_id: i16,
    },
}

impl ThriftStruct for TimeUnit {
    fn read(reader: &mut CompactReader<'_>) -> Result<Self> {
        read_union(
            reader,
            "TimeUnit",
            |r, f| {
                let unit = match (f.id, f.ty) {
                    (1, WireType::Struct) => TimeUnit::Millis,
                    (2, WireType::Struct) => TimeUnit::Micros,
                    (3, WireType::Struct) => TimeUnit::Nanos,
                    _ => return Ok(None),
                };
                read_empty_struct(r)?;
                Ok(Some(unit))
            },
            |field_id| TimeUnit::Unrecognized { field_id },
        )
    }

    fn write(&self, writer: &mut CompactWriter<'_>) {
        writer.write_struct(|w| {
            w.field_empty_struct(match *self {
                TimeUnit::Millis => 1,
                TimeUnit::Micros => 2,
                TimeUnit::Nanos => 3,
                TimeUnit::Unrecognized { field_id } => field_id,
            })
        });
    }
}

/// The `LogicalType` union that annotates a schema element.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum LogicalType {
    String,
    Map,
    List,
    Enum,
    Decimal {
        scale: i32,
        precision: i32,
    },
    Date,
    Time {
        is_adjusted_to_utc: bool,
        unit: TimeUnit,
    },
    Timestamp {
        is_adjusted_to_utc: bool,
        unit: TimeUnit,
    },
    Integer {
        bit_width: i8,
        is_signed: bool,
    },
    /// The spec's UNKNOWN: a column that only holds nulls.
    Unknown,
    Json,
    Bson,
    Uuid,
    Float16,
    Variant {
        specification_version: Option<i8>,
    },
    Geometry {
        crs: Option<String>,
    },
    Geography {
        crs: Option<String>,
        algorithm: Option<EdgeInterpolationAlgorithm>,
    },
    /// A union member from a newer writer; its contents were skipped.
    Unrecognized {
        field_id: i16,
    },
}

/// The two fields shared by TimeType and TimestampType.
fn read_time_fields(
    reader: &mut CompactReader<'_>,
    name: &'static str,
) -> Result<(bool, TimeUnit)> {
    let start = reader.position();
    let (mut utc, mut unit) = (None, None);
    reader.read_struct(name, |r, f| {
        match (f.id, f.ty) {
            (1, WireType::Bool) => utc = Some(f.bool_value()),
            (2, WireType::Struct) => unit = Some(TimeUnit::read(r)?),
            _ => return Ok(false),
        }
        Ok(true)
    })?;
    Ok((
        required(utc, name, "isAdjustedToUTC", start)?,
        required(unit, name, "unit", start)?,
    ))
}

fn read_decimal(reader: &mut CompactReader<'_>) -> Result<LogicalType> {
    let start = reader.position();
    let (mut scale, mut precision) = (None, None);
    reader.read_struct("DecimalType", |r, f| {
        match (f.id, f.ty) {
            (1, WireType::I32) => scale = Some(r.read_i32()?),
            (2, WireType::I32) => precision = Some(r.read_i32()?),
            _ => return Ok(false),
        }
        Ok(true)
    })?;
    Ok(LogicalType::Decimal {
        scale: required(scale, "DecimalType", "scale", start)?,
        precision: required(precision, "DecimalType", "precision", start)?,
    })
}

fn read_integer(reader: &mut CompactReader<'_>) -> Result<LogicalType> {
    let start = reader.position();
    let (mut bit_width, mut is_signed) = (None, None);
    reader.read_struct("IntType", |r, f| {
        match (f.id, f.ty) {
            (1, WireType::I8) => bit_width = Some(r.read_i8()?),
            (2, WireType::Bool) => is_signed = Some(f.bool_value()),
            _ => return Ok(false),
        }
        Ok(true)
    })?;
    Ok(LogicalType::Integer {
        bit_width: required(bit_width, "IntType", "bitWidth", start)?,
        is_signed: required(is_signed, "IntType", "isSigned", start)?,
    })
}

fn read_variant(reader: &mut CompactReader<'_>) -> Result<LogicalType> {
    let mut specification_version = None;
    reader.read_struct("VariantType", |r, f| {
        match (f.id, f.ty) {
            (1, WireType::I8) => specification_version = Some(r.read_i8()?),
            _ => return Ok(false),
        }
        Ok(true)
    })?;
    Ok(LogicalType::Variant {
        specification_version,
    })
}

fn read_geometry(reader: &mut CompactReader<'_>) -> Result<LogicalType> {
    let mut crs = None;
    reader.read_struct("GeometryType", |r, f| {
        match (f.id, f.ty) {
            (1, WireType::Binary) => crs = Some(read_string_owned(r)?),
            _ => return Ok(false),
        }
        Ok(true)
    })?;
    Ok(LogicalType::Geometry { crs })
}

fn read_geography(reader: &mut CompactReader<'_>) -> Result<LogicalType> {
    let (mut crs, mut algorithm) = (None, None);
    reader.read_struct("GeographyType", |r, f| {
        match (f.id, f.ty) {
            (1, WireType::Binary) => crs = Some(read_string_owned(r)?),
            (2, WireType::I32) => {
                algorithm = Some(EdgeInterpolationAlgorithm::from_thrift(r.read_i32()?))
            }
            _ => return Ok(false),
        }
        Ok(true)
    })?;
    Ok(LogicalType::Geography { crs, algorithm })
}

impl ThriftStruct for LogicalType {
    fn read(reader: &mut CompactReader<'_>) -> Result<Self> {
        read_union(
            reader,
            "LogicalType",
            |r, f| {
                if f.ty != WireType::Struct {
                    return Ok(None);
                }
                let empty = |r: &mut CompactReader<'_>, value| read_empty_struct(r).map(|()| value);
                let value = match f.id {
                    1 => empty(r, LogicalType::String)?,
                    2 => empty(r, LogicalType::Map)?,
                    3 => empty(r, LogicalType::List)?,
                    4 => empty(r, LogicalType::Enum)?,
                    5 => read_decimal(r)?,
                    6 => empty(r, LogicalType::Date)?,
                    7 => {
                        let (is_adjusted_to_utc, unit) = read_time_fields(r, "TimeType")?;
                        LogicalType::Time {
                            is_adjusted_to_utc,
                            unit,
                        }
                    }
                    8 => {
                        let (is_adjusted_to_utc, unit) = read_time_fields(r, "TimestampType")?;
                        LogicalType::Timestamp {
                            is_adjusted_to_utc,
                            unit,
                        }
                    }
                    10 => read_integer(r)?,
                    11 => empty(r, LogicalType::Unknown)?,
                    12 => empty(r, LogicalType::Json)?,
                    13 => empty(r, LogicalType::Bson)?,
                    14 => empty(r, LogicalType::Uuid)?,
                    15 => empty(r, LogicalType::Float16)?,
                    16 => read_variant(r)?,
                    17 => read_geometry(r)?,
                    18 => read_geography(r)?,
                    _ => return Ok(None),
                };
                Ok(Some(value))
            },
            |field_id| LogicalType::Unrecognized { field_id },
        )
    }

    fn write(&self, writer: &mut CompactWriter<'_>) {
        writer.write_struct(|w| match self {
            LogicalType::String => w.field_empty_struct(1),
            LogicalType::Map => w.field_empty_struct(2),
            LogicalType::List => w.field_empty_struct(3),
            LogicalType::Enum => w.field_empty_struct(4),
            LogicalType::Decimal { scale, precision } => {
                w.field_begin(5, WireType::Struct);
                w.write_struct(|w| {
                    w.field_i32(1, *scale);
                    w.field_i32(2, *precision);
                });
            }
            LogicalType::Date => w.field_empty_struct(6),
            LogicalType::Time {
                is_adjusted_to_utc,
                unit,
            } => write_time_fields(w, 7, *is_adjusted_to_utc, unit),
            LogicalType::Timestamp {
                is_adjusted_to_utc,
                unit,
            } => write_time_fields(w, 8, *is_adjusted_to_utc, unit),
            LogicalType::Integer {
                bit_width,
                is_signed,
            } => {
                w.field_begin(10, WireType::Struct);
                w.write_struct(|w| {
                    w.field_i8(1, *bit_width);
                    w.field_bool(2, *is_signed);
                });
            }
            LogicalType::Unknown => w.field_empty_struct(11),
            LogicalType::Json => w.field_empty_struct(12),
            LogicalType::Bson => w.field_empty_struct(13),
            LogicalType::Uuid => w.field_empty_struct(14),
            LogicalType::Float16 => w.field_empty_struct(15),
            LogicalType::Variant {
                specification_version,
            } => {
                w.field_begin(16, WireType::Struct);
                w.write_struct(|w| {
                    if let Some(v) = specification_version {
                        w.field_i8(1, *v);
                    }
                });
            }
            LogicalType::Geometry { crs } => {
                w.field_begin(17, WireType::Struct);
                w.write_struct(|w| {
                    if let Some(crs) = crs {
                        w.field_string(1, crs);
                    }
                });
            }
            LogicalType::Geography { crs, algorithm } => {
                w.field_begin(18, WireType::Struct);
                w.write_struct(|w| {
                    if let Some(crs) = crs {
                        w.field_string(1, crs);
                    }
                    if let Some(algorithm) = algorithm {
                        w.field_i32(2, algorithm.to_thrift());
                    }
                });
            }
            LogicalType::Unrecognized { field_id } => w.field_empty_struct(*field_id),
        });
    }
}

fn write_time_fields(writer: &mut CompactWriter<'_>, id: i16, utc: bool, unit: &TimeUnit) {
    writer.field_begin(id, WireType::Struct);
    writer.write_struct(|w| {
        w.field_bool(1, utc);
        w.field_struct(2, unit);
    });
}

/// One node of the flattened schema tree (turned into a tree by `parquet::schema`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SchemaElement {
    /// Set for leaves only.
    pub physical_type: Option<PhysicalType>,
    /// The byte width of FIXED_LEN_BYTE_ARRAY values.
    pub type_length: Option<i32>,
    /// Unset only for the root.
    pub repetition: Option<Repetition>,
    pub name: String,
    /// Set for groups only (some writers also write 0 for leaves).
    pub num_children: Option<i32>,
    pub converted_type: Option<ConvertedType>,
    pub scale: Option<i32>,
    pub precision: Option<i32>,
    /// Iceberg's field id.
    pub field_id: Option<i32>,
    pub logical_type: Option<LogicalType>,
}

impl ThriftStruct for SchemaElement {
    fn read(reader: &mut CompactReader<'_>) -> Result<Self> {
        let start = reader.position();
        let mut e = SchemaElement::default();
        let mut name = None;
        reader.read_struct("SchemaElement", |r, f| {
            match (f.id, f.ty) {
                (1, WireType::I32) => e.physical_type = Some(read_closed_enum(r)?),
                (2, WireType::I32) => e.type_length = Some(r.read_i32()?),
                (3, WireType::I32) => e.repetition = Some(read_closed_enum(r)?),
                (4, WireType::Binary) => name = Some(read_string_owned(r)?),
                (5, WireType::I32) => e.num_children = Some(r.read_i32()?),
                (6, WireType::I32) => e.converted_type = Some(read_closed_enum(r)?),
                (7, WireType::I32) => e.scale = Some(r.read_i32()?),
                (8, WireType::I32) => e.precision = Some(r.read_i32()?),
                (9, WireType::I32) => e.field_id = Some(r.read_i32()?),
                (10, WireType::Struct) => e.logical_type = Some(LogicalType::read(r)?),
                _ => return Ok(false),
            }
            Ok(true)
        })?;
        e.name = required(name, "SchemaElement", "name", start)?;
        Ok(e)
    }

    fn write(&self, writer: &mut CompactWriter<'_>) {
        writer.write_struct(|w| {
            if let Some(v) = self.physical_type {
                w.field_i32(1, v.to_thrift());
            }
            if let Some(v) = self.type_length {
                w.field_i32(2, v);
            }
            if let Some(v) = self.repetition {
                w.field_i32(3, v.to_thrift());
            }
            w.field_string(4, &self.name);
            if let Some(v) = self.num_children {
                w.field_i32(5, v);
            }
            if let Some(v) = self.converted_type {
                w.field_i32(6, v.to_thrift());
            }
            if let Some(v) = self.scale {
                w.field_i32(7, v);
            }
            if let Some(v) = self.precision {
                w.field_i32(8, v);
            }
            if let Some(v) = self.field_id {
                w.field_i32(9, v);
            }
            if let Some(v) = &self.logical_type {
                w.field_struct(10, v);
            }
        });
    }
}

/// How many pages of a type use an encoding, per column chunk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PageEncodingStats {
    pub page_type: PageType,
    pub encoding: Encoding,
    pub count: i32,
}

impl ThriftStruct for PageEncodingStats {
    fn read(reader: &mut CompactReader<'_>) -> Result<Self> {
        let start = reader.position();
        let (mut page_type, mut encoding, mut count) = (None, None, None);
        reader.read_struct("PageEncodingStats", |r, f| {
            match (f.id, f.ty) {
                (1, WireType::I32) => page_type = Some(PageType::from_thrift(r.read_i32()?)),
                (2, WireType::I32) => encoding = Some(Encoding::from_thrift(r.read_i32()?)),
                (3, WireType::I32) => count = Some(r.read_i32()?),
                _ => return Ok(false),
            }
            Ok(true)
        })?;
        const NAME: &str = "PageEncodingStats";
        Ok(PageEncodingStats {
            page_type: required(page_type, NAME, "page_type", start)?,
            encoding: required(encoding, NAME, "encoding", start)?,
            count: required(count, NAME, "count", start)?,
        })
    }

    fn write(&self, writer: &mut CompactWriter<'_>) {
        writer.write_struct(|w| {
            w.field_i32(1, self.page_type.to_thrift());
            w.field_i32(2, self.encoding.to_thrift());
            w.field_i32(3, self.count);
        });
    }
}

/// A column chunk's metadata: where its pages are and how they are encoded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ColumnMetaData {
    pub physical_type: PhysicalType,
    pub encodings: Vec<Encoding>,
    pub path_in_schema: Vec<String>,
    pub codec: CompressionCodec,
    pub num_values: i64,
    pub total_uncompressed_size: i64,
    pub total_compressed_size: i64,
    pub key_value_metadata: Option<Vec<KeyValue>>,
    pub data_page_offset: i64,
    pub index_page_offset: Option<i64>,
    pub dictionary_page_offset: Option<i64>,
    pub statistics: Option<Statistics>,
    pub encoding_stats: Option<Vec<PageEncodingStats>>,
    pub bloom_filter_offset: Option<i64>,
    pub bloom_filter_length: Option<i32>,
}

impl ThriftStruct for ColumnMetaData {
    fn read(reader: &mut CompactReader<'_>) -> Result<Self> {
        let start = reader.position();
        let (mut physical_type, mut encodings, mut path, mut codec) = (None, None, None, None);
        let (mut num_values, mut uncompressed, mut compressed) = (None, None, None);
        let (mut key_value_metadata, mut data_page_offset, mut index_page_offset) =
            (None, None, None);
        let (mut dictionary_page_offset, mut statistics, mut encoding_stats) = (None, None, None);
        let (mut bloom_filter_offset, mut bloom_filter_length) = (None, None);
        reader.read_struct("ColumnMetaData", |r, f| {
            match (f.id, f.ty) {
                (1, WireType::I32) => physical_type = Some(read_closed_enum(r)?),
                (2, WireType::List) => {
                    encodings =
                        Some(r.read_list(WireType::I32, |r| {
                            Ok(Encoding::from_thrift(r.read_i32()?))
                        })?)
                }
                (3, WireType::List) => {
                    path = Some(r.read_list(WireType::Binary, read_string_owned)?)
                }
                (4, WireType::I32) => codec = Some(CompressionCodec::from_thrift(r.read_i32()?)),
                (5, WireType::I64) => num_values = Some(r.read_i64()?),
                (6, WireType::I64) => uncompressed = Some(r.read_i64()?),
                (7, WireType::I64) => compressed = Some(r.read_i64()?),
                (8, WireType::List) => key_value_metadata = Some(read_key_values(r)?),
                (9, WireType::I64) => data_page_offset = Some(r.read_i64()?),
                (10, WireType::I64) => index_page_offset = Some(r.read_i64()?),
                (11, WireType::I64) => dictionary_page_offset = Some(r.read_i64()?),
                (12, WireType::Struct) => statistics = Some(Statistics::read(r)?),
                (13, WireType::List) => {
                    encoding_stats = Some(r.read_list(WireType::Struct, PageEncodingStats::read)?)
                }
                (14, WireType::I64) => bloom_filter_offset = Some(r.read_i64()?),
                (15, WireType::I32) => bloom_filter_length = Some(r.read_i32()?),
                _ => return Ok(false),
            }
            Ok(true)
        })?;
        const NAME: &str = "ColumnMetaData";
        Ok(ColumnMetaData {
            physical_type: required(physical_type, NAME, "type", start)?,
            encodings: required(encodings, NAME, "encodings", start)?,
            path_in_schema: required(path, NAME, "path_in_schema", start)?,
            codec: required(codec, NAME, "codec", start)?,
            num_values: required(num_values, NAME, "num_values", start)?,
            total_uncompressed_size: required(
                uncompressed,
                NAME,
                "total_uncompressed_size",
                start,
            )?,
            total_compressed_size: required(compressed, NAME, "total_compressed_size", start)?,
            key_value_metadata,
            data_page_offset: required(data_page_offset, NAME, "data_page_offset", start)?,
            index_page_offset,
            dictionary_page_offset,
            statistics,
            encoding_stats,
            bloom_filter_offset,
            bloom_filter_length,
        })
    }

    fn write(&self, writer: &mut CompactWriter<'_>) {
        writer.write_struct(|w| {
            w.field_i32(1, self.physical_type.to_thrift());
            w.field_list(2, WireType::I32, &self.encodings, |w, e| {
                w.write_i32(e.to_thrift())
            });
            w.field_list(3, WireType::Binary, &self.path_in_schema, |w, p| {
                w.write_string(p)
            });
            w.field_i32(4, self.codec.to_thrift());
            w.field_i64(5, self.num_values);
            w.field_i64(6, self.total_uncompressed_size);
            w.field_i64(7, self.total_compressed_size);
            if let Some(v) = &self.key_value_metadata {
                write_struct_list(w, 8, v);
            }
            w.field_i64(9, self.data_page_offset);
            if let Some(v) = self.index_page_offset {
                w.field_i64(10, v);
            }
            if let Some(v) = self.dictionary_page_offset {
                w.field_i64(11, v);
            }
            if let Some(v) = &self.statistics {
                w.field_struct(12, v);
            }
            if let Some(v) = &self.encoding_stats {
                write_struct_list(w, 13, v);
            }
            if let Some(v) = self.bloom_filter_offset {
                w.field_i64(14, v);
            }
            if let Some(v) = self.bloom_filter_length {
                w.field_i32(15, v);
            }
        });
    }
}

/// One column of one row group.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ColumnChunk {
    pub file_path: Option<String>,
    /// Deprecated; writers set 0. Missing means 0, the IDL's default.
    pub file_offset: i64,
    /// Optional in the IDL but written by every writer; absent for columns
    /// encrypted with their own key.
    pub meta_data: Option<ColumnMetaData>,
    pub offset_index_offset: Option<i64>,
    pub offset_index_length: Option<i32>,
    pub column_index_offset: Option<i64>,
    pub column_index_length: Option<i32>,
}

impl ThriftStruct for ColumnChunk {
    fn read(reader: &mut CompactReader<'_>) -> Result<Self> {
        let mut c = ColumnChunk {
            file_path: None,
            file_offset: 0,
            meta_data: None,
            offset_index_offset: None,
            offset_index_length: None,
            column_index_offset: None,
            column_index_length: None,
        };
        reader.read_struct("ColumnChunk", |r, f| {
            match (f.id, f.ty) {
                (1, WireType::Binary) => c.file_path = Some(read_string_owned(r)?),
                (2, WireType::I64) => c.file_offset = r.read_i64()?,
                (3, WireType::Struct) => c.meta_data = Some(ColumnMetaData::read(r)?),
                (4, WireType::I64) => c.offset_index_offset = Some(r.read_i64()?),
                (5, WireType::I32) => c.offset_index_length = Some(r.read_i32()?),
                (6, WireType::I64) => c.column_index_offset = Some(r.read_i64()?),
                (7, WireType::I32) => c.column_index_length = Some(r.read_i32()?),
                _ => return Ok(false),
            }
            Ok(true)
        })?;
        Ok(c)
    }

    fn write(&self, writer: &mut CompactWriter<'_>) {
        writer.write_struct(|w| {
            if let Some(v) = &self.file_path {
                w.field_string(1, v);
            }
            w.field_i64(2, self.file_offset);
            if let Some(v) = &self.meta_data {
                w.field_struct(3, v);
            }
            if let Some(v) = self.offset_index_offset {
                w.field_i64(4, v);
            }
            if let Some(v) = self.offset_index_length {
                w.field_i32(5, v);
            }
            if let Some(v) = self.column_index_offset {
                w.field_i64(6, v);
            }
            if let Some(v) = self.column_index_length {
                w.field_i32(7, v);
            }
        });
    }
}

/// A sort key of a row group.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SortingColumn {
    pub column_idx: i32,
    pub descending: bool,
    pub nulls_first: bool,
}

impl ThriftStruct for SortingColumn {
    fn read(reader: &mut CompactReader<'_>) -> Result<Self> {
        let start = reader.position();
        let (mut column_idx, mut descending, mut nulls_first) = (None, None, None);
        reader.read_struct("SortingColumn", |r, f| {
            match (f.id, f.ty) {
                (1, WireType::I32) => column_idx = Some(r.read_i32()?),
                (2, WireType::Bool) => descending = Some(f.bool_value()),
                (3, WireType::Bool) => nulls_first = Some(f.bool_value()),
                _ => return Ok(false),
            }
            Ok(true)
        })?;
        const NAME: &str = "SortingColumn";
        Ok(SortingColumn {
            column_idx: required(column_idx, NAME, "column_idx", start)?,
            descending: required(descending, NAME, "descending", start)?,
            nulls_first: required(nulls_first, NAME, "nulls_first", start)?,
        })
    }

    fn write(&self, writer: &mut CompactWriter<'_>) {
        writer.write_struct(|w| {
            w.field_i32(1, self.column_idx);
            w.field_bool(2, self.descending);
            w.field_bool(3, self.nulls_first);
        });
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RowGroup {
    pub columns: Vec<ColumnChunk>,
    pub total_byte_size: i64,
    pub num_rows: i64,
    pub sorting_columns: Option<Vec<SortingColumn>>,
    pub file_offset: Option<i64>,
    pub total_compressed_size: Option<i64>,
    pub ordinal: Option<i16>,
}

impl ThriftStruct for RowGroup {
    fn read(reader: &mut CompactReader<'_>) -> Result<Self> {
        let start = reader.position();
        let (mut columns, mut total_byte_size, mut num_rows) = (None, None, None);
        let (mut sorting_columns, mut file_offset) = (None, None);
        let (mut total_compressed_size, mut ordinal) = (None, None);
        reader.read_struct("RowGroup", |r, f| {
            match (f.id, f.ty) {
                (1, WireType::List) => {
                    columns = Some(r.read_list(WireType::Struct, ColumnChunk::read)?)
                }
                (2, WireType::I64) => total_byte_size = Some(r.read_i64()?),
                (3, WireType::I64) => num_rows = Some(r.read_i64()?),
                (4, WireType::List) => {
                    sorting_columns = Some(r.read_list(WireType::Struct, SortingColumn::read)?)
                }
                (5, WireType::I64) => file_offset = Some(r.read_i64()?),
                (6, WireType::I64) => total_compressed_size = Some(r.read_i64()?),
                (7, WireType::I16) => ordinal = Some(r.read_i16()?),
                _ => return Ok(false),
            }
            Ok(true)
        })?;
        const NAME: &str = "RowGroup";
        Ok(RowGroup {
            columns: required(columns, NAME, "columns", start)?,
            total_byte_size: required(total_byte_size, NAME, "total_byte_size", start)?,
            num_rows: required(num_rows, NAME, "num_rows", start)?,
            sorting_columns,
            file_offset,
            total_compressed_size,
            ordinal,
        })
    }

    fn write(&self, writer: &mut CompactWriter<'_>) {
        writer.write_struct(|w| {
            write_struct_list(w, 1, &self.columns);
            w.field_i64(2, self.total_byte_size);
            w.field_i64(3, self.num_rows);
            if let Some(v) = &self.sorting_columns {
                write_struct_list(w, 4, v);
            }
            if let Some(v) = self.file_offset {
                w.field_i64(5, v);
            }
            if let Some(v) = self.total_compressed_size {
                w.field_i64(6, v);
            }
            if let Some(v) = self.ordinal {
                w.field_i16(7, v);
            }
        });
    }
}

/// The order min/max statistics of a leaf column follow.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ColumnOrder {
    TypeDefinedOrder,
    Ieee754TotalOrder,
    Int96TimestampOrder,
    /// A union member from a newer writer: the column's statistics must be
    /// ignored, as the spec says for orders a reader does not know.
    Unrecognized {
        field_id: i16,
    },
}

impl ThriftStruct for ColumnOrder {
    fn read(reader: &mut CompactReader<'_>) -> Result<Self> {
        read_union(
            reader,
            "ColumnOrder",
            |r, f| {
                let order = match (f.id, f.ty) {
                    (1, WireType::Struct) => ColumnOrder::TypeDefinedOrder,
                    (2, WireType::Struct) => ColumnOrder::Ieee754TotalOrder,
                    (3, WireType::Struct) => ColumnOrder::Int96TimestampOrder,
                    _ => return Ok(None),
                };
                read_empty_struct(r)?;
                Ok(Some(order))
            },
            |field_id| ColumnOrder::Unrecognized { field_id },
        )
    }

    fn write(&self, writer: &mut CompactWriter<'_>) {
        writer.write_struct(|w| {
            w.field_empty_struct(match *self {
                ColumnOrder::TypeDefinedOrder => 1,
                ColumnOrder::Ieee754TotalOrder => 2,
                ColumnOrder::Int96TimestampOrder => 3,
                ColumnOrder::Unrecognized { field_id } => field_id,
            })
        });
    }
}

/// The footer of a Parquet file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileMetaData {
    pub version: i32,
    /// The schema tree flattened depth-first; the root comes first.
    pub schema: Vec<SchemaElement>,
    pub num_rows: i64,
    pub row_groups: Vec<RowGroup>,
    pub key_value_metadata: Option<Vec<KeyValue>>,
    pub created_by: Option<String>,
    /// One per leaf column, in schema order.
    pub column_orders: Option<Vec<ColumnOrder>>,
}

impl ThriftStruct for FileMetaData {
    fn read(reader: &mut CompactReader<'_>) -> Result<Self> {
        let start = reader.position();
        let (mut version, mut schema, mut num_rows, mut row_groups) = (None, None, None, None);
        let (mut key_value_metadata, mut created_by, mut column_orders) = (None, None, None);
        reader.read_struct("FileMetaData", |r, f| {
            match (f.id, f.ty) {
                (1, WireType::I32) => version = Some(r.read_i32()?),
                (2, WireType::List) => {
                    schema = Some(r.read_list(WireType::Struct, SchemaElement::read)?)
                }
                (3, WireType::I64) => num_rows = Some(r.read_i64()?),
                (4, WireType::List) => {
                    row_groups = Some(r.read_list(WireType::Struct, RowGroup::read)?)
                }
                (5, WireType::List) => key_value_metadata = Some(read_key_values(r)?),
                (6, WireType::Binary) => created_by = Some(read_string_owned(r)?),
                (7, WireType::List) => {
                    column_orders = Some(r.read_list(WireType::Struct, ColumnOrder::read)?)
                }
                _ => return Ok(false),
            }
            Ok(true)
        })?;
        const NAME: &str = "FileMetaData";
        Ok(FileMetaData {
            version: required(version, NAME, "version", start)?,
            schema: required(schema, NAME, "schema", start)?,
            num_rows: required(num_rows, NAME, "num_rows", start)?,
            row_groups: required(row_groups, NAME, "row_groups", start)?,
            key_value_metadata,
            created_by,
            column_orders,
        })
    }

    fn write(&self, writer: &mut CompactWriter<'_>) {
        writer.write_struct(|w| {
            w.field_i32(1, self.version);
            write_struct_list(w, 2, &self.schema);
            w.field_i64(3, self.num_rows);
            write_struct_list(w, 4, &self.row_groups);
            if let Some(v) = &self.key_value_metadata {
                write_struct_list(w, 5, v);
            }
            if let Some(v) = &self.created_by {
                w.field_string(6, v);
            }
            if let Some(v) = &self.column_orders {
                write_struct_list(w, 7, v);
            }
        });
    }
}
