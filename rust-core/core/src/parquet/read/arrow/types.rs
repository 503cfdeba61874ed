//! The Arrow type of a leaf column, and the [`Conversion`] that produces it,
//! from the column's physical type and its logical type (or, for files that
//! only have it, its converted type).
//!
//! | Parquet | Arrow |
//! | --- | --- |
//! | BOOLEAN | boolean |
//! | INT32 | int32; INTEGER(8/16, signed or not) int8/int16/uint8/uint16; INTEGER(32, unsigned) uint32; DATE date32; DECIMAL decimal128; TIME(MILLIS) time64 us |
//! | INT64 | int64; INTEGER(64, unsigned) uint64; DECIMAL decimal128; TIME(MICROS/NANOS) time64 us/ns; TIMESTAMP(unit) timestamp(unit), zone "UTC" when adjusted to UTC |
//! | INT96 | timestamp ns "UTC" (legacy Impala/Spark instants) |
//! | FLOAT, DOUBLE | float32, float64 |
//! | BYTE_ARRAY | utf8 (STRING, ENUM, JSON); decimal128 (DECIMAL); binary otherwise (BSON, GEOMETRY, GEOGRAPHY, none) |
//! | FIXED_LEN_BYTE_ARRAY(n) | fixed_size_binary(16) (UUID); decimal128 (DECIMAL, n <= 16); fixed_size_binary(n) |
//!
//! TIME(MILLIS) becomes microseconds because Iceberg's time is microseconds and
//! only other writers produce millisecond times; INT96 is "UTC" because Iceberg
//! reads it as timestamptz.

use crate::arrow::{DataType, TimeUnit};
use crate::error::{Error, Result};
use crate::parquet::format::{self, ConvertedType, LogicalType, PhysicalType};
use crate::parquet::read::column::Conversion;
use crate::parquet::schema::ColumnDescriptor;

impl ColumnDescriptor {
    /// The Arrow type a scan decodes this column into, or why it cannot.
    pub fn arrow_type(&self) -> Result<DataType> {
        leaf_type(self).map(|(data_type, _)| data_type)
    }
}

/// The Arrow type of `column` and how its values become that type's.
pub(crate) fn leaf_type(column: &ColumnDescriptor) -> Result<(DataType, Conversion)> {
    use Conversion as C;
    use PhysicalType as P;
    let unsupported = |what: String| {
        Err(Error::unsupported(format!(
            "column '{}': {what} is not supported",
            column.path.join(".")
        )))
    };
    let decimal = |precision: i32, scale: i32| -> Result<DataType> {
        match (u8::try_from(precision), i8::try_from(scale)) {
            (Ok(p @ 1..=38), Ok(s)) if s >= 0 && i32::from(s) <= precision => {
                Ok(DataType::Decimal128 {
                    precision: p,
                    scale: s,
                })
            }
            _ => Err(Error::unsupported(format!(
                "column '{}': DECIMAL({precision}, {scale}) is not supported (precision 1..=38, \
                 scale 0..=precision)",
                column.path.join(".")
            ))),
        }
    };
    let width = column.type_length.unwrap_or(0).max(0) as usize;
    let logical = match &column.logical_type {
        // The format asks readers to ignore logical types they do not know and
        // read the column by its physical (or converted) type.
        Some(LogicalType::Unrecognized { .. }) | None => converted_as_logical(column),
        Some(logical) => Some(logical.clone()),
    };
    let utc = |adjusted: bool| adjusted.then(|| "UTC".to_owned());
    Ok(match (column.physical_type, logical) {
        (P::Boolean, None) => (DataType::Boolean, C::Boolean),
        (P::Int32, None) => (DataType::Int32, C::Int32),
        (
            P::Int32,
            Some(LogicalType::Integer {
                bit_width,
                is_signed,
            }),
        ) => match (bit_width, is_signed) {
            (8, true) => (DataType::Int8, C::Int32To8),
            (16, true) => (DataType::Int16, C::Int32To16),
            (32, true) => (DataType::Int32, C::Int32),
            (8, false) => (DataType::UInt8, C::Int32To8),
            (16, false) => (DataType::UInt16, C::Int32To16),
            (32, false) => (DataType::UInt32, C::Int32),
            _ => return unsupported(format!("INT32 with INTEGER({bit_width}, {is_signed})")),
        },
        (P::Int32, Some(LogicalType::Date)) => (DataType::Date32, C::Int32),
        (P::Int32, Some(LogicalType::Decimal { scale, precision })) => {
            (decimal(precision, scale)?, C::Int32ToDecimal)
        }
        (
            P::Int32,
            Some(LogicalType::Time {
                unit: format::TimeUnit::Millis,
                ..
            }),
        ) => (DataType::Time(TimeUnit::Microsecond), C::TimeMillisToMicros),
        (P::Int64, None) => (DataType::Int64, C::Int64),
        (
            P::Int64,
            Some(LogicalType::Integer {
                bit_width: 64,
                is_signed,
            }),
        ) => {
            let data_type = if is_signed {
                DataType::Int64
            } else {
                DataType::UInt64
            };
            (data_type, C::Int64)
        }
        (P::Int64, Some(LogicalType::Decimal { scale, precision })) => {
            (decimal(precision, scale)?, C::Int64ToDecimal)
        }
        (P::Int64, Some(LogicalType::Time { unit, .. })) => match unit {
            format::TimeUnit::Micros => (DataType::Time(TimeUnit::Microsecond), C::Int64),
            format::TimeUnit::Nanos => (DataType::Time(TimeUnit::Nanosecond), C::Int64),
            _ => return unsupported(format!("INT64 TIME({unit:?})")),
        },
        (
            P::Int64,
            Some(LogicalType::Timestamp {
                is_adjusted_to_utc,
                unit,
            }),
        ) => {
            let unit = match unit {
                format::TimeUnit::Millis => TimeUnit::Millisecond,
                format::TimeUnit::Micros => TimeUnit::Microsecond,
                format::TimeUnit::Nanos => TimeUnit::Nanosecond,
                format::TimeUnit::Unrecognized { field_id } => {
                    return unsupported(format!(
                        "a TIMESTAMP unit unknown to this build (id {field_id})"
                    ))
                }
            };
            let timezone = utc(is_adjusted_to_utc);
            (DataType::Timestamp { unit, timezone }, C::Int64)
        }
        (P::Int96, None) => (
            DataType::Timestamp {
                unit: TimeUnit::Nanosecond,
                timezone: utc(true),
            },
            C::Int96ToNanos,
        ),
        (P::Float, None) => (DataType::Float32, C::Float),
        (P::Double, None) => (DataType::Float64, C::Double),
        (P::ByteArray, None | Some(LogicalType::Bson)) => (DataType::Binary, C::ByteArray),
        (P::ByteArray, Some(LogicalType::Geometry { .. } | LogicalType::Geography { .. })) => {
            (DataType::Binary, C::ByteArray)
        }
        (P::ByteArray, Some(LogicalType::String | LogicalType::Enum | LogicalType::Json)) => {
            (DataType::Utf8, C::Utf8)
        }
        (P::ByteArray, Some(LogicalType::Decimal { scale, precision })) => {
            (decimal(precision, scale)?, C::ByteArrayToDecimal)
        }
        (P::FixedLenByteArray, None) => (
            DataType::FixedSizeBinary(checked_width(column, width)?),
            C::FixedLen(width),
        ),
        (P::FixedLenByteArray, Some(LogicalType::Uuid)) if width == 16 => {
            (DataType::FixedSizeBinary(16), C::FixedLen(16))
        }
        (P::FixedLenByteArray, Some(LogicalType::Decimal { scale, precision })) => {
            if width > 16 {
                return unsupported(format!("a DECIMAL stored in {width} bytes"));
            }
            (decimal(precision, scale)?, C::FixedLenToDecimal(width))
        }
        // Only nulls, whatever the physical type: levels are read, and a value
        // found is CORRUPT_DATA (parquet/read/arrow/assemble).
        (physical, Some(LogicalType::Unknown)) => {
            let conversion = match physical {
                P::Boolean => C::Boolean,
                P::Int32 => C::Int32,
                P::Int64 => C::Int64,
                P::Int96 => C::Int96ToNanos,
                P::Float => C::Float,
                P::Double => C::Double,
                P::ByteArray => C::ByteArray,
                P::FixedLenByteArray => C::FixedLen(width),
            };
            (DataType::Null, conversion)
        }
        (physical, Some(logical)) => {
            return unsupported(format!("{physical:?} with logical type {logical:?}"))
        }
    })
}

/// The logical type a legacy converted type stands for; None for none (and
/// for INTERVAL, read as its raw 12 bytes).
fn converted_as_logical(column: &ColumnDescriptor) -> Option<LogicalType> {
    use ConvertedType as CT;
    let integer = |bit_width, is_signed| LogicalType::Integer {
        bit_width,
        is_signed,
    };
    let micros_or_millis = |millis: bool| {
        if millis {
            format::TimeUnit::Millis
        } else {
            format::TimeUnit::Micros
        }
    };
    Some(match column.converted_type? {
        CT::Utf8 => LogicalType::String,
        CT::Enum => LogicalType::Enum,
        CT::Json => LogicalType::Json,
        CT::Bson => LogicalType::Bson,
        CT::Decimal => LogicalType::Decimal {
            scale: column.scale.unwrap_or(0),
            precision: column.precision.unwrap_or(0),
        },
        CT::Date => LogicalType::Date,
        CT::TimeMillis | CT::TimeMicros => LogicalType::Time {
            is_adjusted_to_utc: true,
            unit: micros_or_millis(column.converted_type == Some(CT::TimeMillis)),
        },
        CT::TimestampMillis | CT::TimestampMicros => LogicalType::Timestamp {
            is_adjusted_to_utc: true,
            unit: micros_or_millis(column.converted_type == Some(CT::TimestampMillis)),
        },
        CT::Int8 => integer(8, true),
        CT::Int16 => integer(16, true),
        CT::Int32 => integer(32, true),
        CT::Int64 => integer(64, true),
        CT::Uint8 => integer(8, false),
        CT::Uint16 => integer(16, false),
        CT::Uint32 => integer(32, false),
        CT::Uint64 => integer(64, false),
        // Annotations of groups, and INTERVAL's raw bytes.
        CT::Map | CT::MapKeyValue | CT::List | CT::Interval => return None,
    })
}

fn checked_width(column: &ColumnDescriptor, width: usize) -> Result<u32> {
    u32::try_from(width)
        .ok()
        .filter(|&w| w <= i32::MAX as u32)
        .ok_or_else(|| {
            Error::corrupt_data(format!(
                "column '{}': FIXED_LEN_BYTE_ARRAY width {width} is out of range",
                column.path.join(".")
            ))
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Status;
    use crate::parquet::format::Repetition;

    fn column(physical: PhysicalType, logical: Option<LogicalType>) -> ColumnDescriptor {
        ColumnDescriptor {
            path: vec!["s".into(), "c".into()],
            physical_type: physical,
            type_length: Some(16),
            repetition: Repetition::Optional,
            max_def_level: 1,
            max_rep_level: 0,
            logical_type: logical,
            converted_type: None,
            scale: None,
            precision: None,
            field_id: Some(1),
            node: 2,
        }
    }

    #[test]
    fn logical_types_pick_arrow_types() {
        let cases = [
            (PhysicalType::Int32, Some(LogicalType::Date), "tdD"),
            (
                PhysicalType::Int32,
                Some(LogicalType::Integer {
                    bit_width: 8,
                    is_signed: false,
                }),
                "C",
            ),
            (
                PhysicalType::Int32,
                Some(LogicalType::Time {
                    is_adjusted_to_utc: false,
                    unit: format::TimeUnit::Millis,
                }),
                "ttu",
            ),
            (
                PhysicalType::Int64,
                Some(LogicalType::Timestamp {
                    is_adjusted_to_utc: true,
                    unit: format::TimeUnit::Nanos,
                }),
                "tsn:UTC",
            ),
            (
                PhysicalType::Int64,
                Some(LogicalType::Timestamp {
                    is_adjusted_to_utc: false,
                    unit: format::TimeUnit::Micros,
                }),
                "tsu:",
            ),
            (PhysicalType::Int96, None, "tsn:UTC"),
            (PhysicalType::ByteArray, Some(LogicalType::Json), "u"),
            (PhysicalType::ByteArray, None, "z"),
            (
                PhysicalType::ByteArray,
                Some(LogicalType::Decimal {
                    scale: 2,
                    precision: 30,
                }),
                "d:30,2",
            ),
            (
                PhysicalType::FixedLenByteArray,
                Some(LogicalType::Uuid),
                "w:16",
            ),
            (
                PhysicalType::FixedLenByteArray,
                Some(LogicalType::Decimal {
                    scale: 0,
                    precision: 38,
                }),
                "d:38,0",
            ),
            (PhysicalType::FixedLenByteArray, None, "w:16"),
        ];
        for (physical, logical, format) in cases {
            let (data_type, _) = leaf_type(&column(physical, logical.clone())).unwrap();
            assert_eq!(data_type.format(), format, "{physical:?} {logical:?}");
        }
    }

    #[test]
    fn converted_types_stand_in_for_logical_ones() {
        let mut legacy = column(PhysicalType::Int64, None);
        legacy.converted_type = Some(ConvertedType::TimestampMillis);
        assert_eq!(leaf_type(&legacy).unwrap().0.format(), "tsm:UTC");
        legacy.converted_type = Some(ConvertedType::Decimal);
        legacy.precision = Some(18);
        legacy.scale = Some(3);
        assert_eq!(
            leaf_type(&legacy).unwrap(),
            (
                DataType::Decimal128 {
                    precision: 18,
                    scale: 3
                },
                Conversion::Int64ToDecimal
            )
        );
        let mut text = column(PhysicalType::ByteArray, None);
        text.converted_type = Some(ConvertedType::Utf8);
        assert_eq!(leaf_type(&text).unwrap().1, Conversion::Utf8);
    }

    #[test]
    fn unsupported_types_name_the_column() {
        let err = leaf_type(&column(
            PhysicalType::FixedLenByteArray,
            Some(LogicalType::Float16),
        ))
        .unwrap_err();
        assert_eq!(err.status(), Status::Unsupported);
        assert_eq!(
            err.message(),
            "column 's.c': FixedLenByteArray with logical type Float16 is not supported"
        );
        let err = leaf_type(&column(
            PhysicalType::Int32,
            Some(LogicalType::Decimal {
                scale: 5,
                precision: 3,
            }),
        ))
        .unwrap_err();
        assert!(
            err.message().contains("DECIMAL(3, 5) is not supported"),
            "{err}"
        );
    }

    #[test]
    fn unknown_annotations_are_ignored_and_unknown_columns_are_null() {
        let future = column(
            PhysicalType::Int64,
            Some(LogicalType::Unrecognized { field_id: 40 }),
        );
        assert_eq!(
            leaf_type(&future).unwrap(),
            (DataType::Int64, Conversion::Int64)
        );
        let mut legacy = future.clone();
        legacy.converted_type = Some(ConvertedType::TimestampMillis);
        assert_eq!(leaf_type(&legacy).unwrap().1, Conversion::Int64);
        assert!(matches!(
            leaf_type(&legacy).unwrap().0,
            DataType::Timestamp {
                unit: TimeUnit::Millisecond,
                ..
            }
        ));
        let nulls = column(PhysicalType::ByteArray, Some(LogicalType::Unknown));
        assert_eq!(
            leaf_type(&nulls).unwrap(),
            (DataType::Null, Conversion::ByteArray)
        );
    }
}
