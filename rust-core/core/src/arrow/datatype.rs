//! Arrow data types and their C Data Interface format strings.
//!
//! A [`DataType`] says how one level of an array is laid out; nested types keep
//! their children in [`super::Field`], as `ArrowSchema` does, so that a format
//! string maps to exactly one `DataType` and back.

use std::fmt;

use crate::error::{Error, Result};

/// The resolution of a time, timestamp or duration.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TimeUnit {
    Second,
    Millisecond,
    Microsecond,
    Nanosecond,
}

impl TimeUnit {
    fn code(self) -> char {
        match self {
            TimeUnit::Second => 's',
            TimeUnit::Millisecond => 'm',
            TimeUnit::Microsecond => 'u',
            TimeUnit::Nanosecond => 'n',
        }
    }

    fn from_code(code: &str) -> Option<TimeUnit> {
        Some(match code {
            "s" => TimeUnit::Second,
            "m" => TimeUnit::Millisecond,
            "u" => TimeUnit::Microsecond,
            "n" => TimeUnit::Nanosecond,
            _ => return None,
        })
    }
}

/// The types Iceberg maps to, plus the unsigned integers, durations and large
/// variants other Arrow producers hand over.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum DataType {
    Null,
    Boolean,
    Int8,
    Int16,
    Int32,
    Int64,
    UInt8,
    UInt16,
    UInt32,
    UInt64,
    Float32,
    Float64,
    /// A 128-bit two's-complement unscaled value; precision 1..=38.
    Decimal128 {
        precision: u8,
        scale: i8,
    },
    /// Days since the epoch, 32-bit.
    Date32,
    /// Milliseconds since the epoch, 64-bit.
    Date64,
    /// Time of day. Arrow fixes the width by the unit: 32-bit for seconds and
    /// milliseconds, 64-bit for micro- and nanoseconds, so one variant cannot
    /// describe a layout that has no format string.
    Time(TimeUnit),
    /// 64-bit; `timezone` is None for a local (zone-less) timestamp.
    Timestamp {
        unit: TimeUnit,
        timezone: Option<String>,
    },
    Duration(TimeUnit),
    Utf8,
    LargeUtf8,
    Binary,
    LargeBinary,
    /// Values of exactly this many bytes (at most `i32::MAX`, as in Arrow).
    FixedSizeBinary(u32),
    Struct,
    List,
    LargeList,
    /// `keys_sorted` comes from `ARROW_FLAG_MAP_KEYS_SORTED`, not the format.
    Map {
        keys_sorted: bool,
    },
}

/// The physical layout of one array level: which buffers it has and how the
/// validator, the copier and the checksum read them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Layout {
    /// No buffers at all; every slot is null.
    Null,
    /// Validity, then a bitmap of values.
    Boolean,
    /// Validity, then values of this many bytes each.
    FixedWidth(usize),
    /// Validity, offsets of `offset_width` bytes, then the value bytes.
    Binary { offset_width: usize, utf8: bool },
    /// Validity only; the values are the children.
    Struct,
    /// Validity and offsets into the single child.
    List { offset_width: usize },
}

impl Layout {
    /// `n_buffers` in the C Data Interface, validity included.
    pub(crate) fn n_buffers(self) -> usize {
        match self {
            Layout::Null => 0,
            Layout::Struct => 1,
            Layout::Boolean | Layout::FixedWidth(_) | Layout::List { .. } => 2,
            Layout::Binary { .. } => 3,
        }
    }

    pub(crate) fn has_validity(self) -> bool {
        self != Layout::Null
    }
}

impl DataType {
    /// Parses a C Data Interface format string. An Arrow format this library does
    /// not implement is `Unsupported`; anything else unknown is `InvalidArgument`.
    /// `+m` parses as a map with unsorted keys: that flag is not in the format.
    pub fn from_format(format: &str) -> Result<DataType> {
        let unsupported =
            |what: &str| Error::unsupported(format!("format '{format}' ({what}) is not supported"));
        Ok(match format {
            "n" => DataType::Null,
            "b" => DataType::Boolean,
            "c" => DataType::Int8,
            "s" => DataType::Int16,
            "i" => DataType::Int32,
            "l" => DataType::Int64,
            "C" => DataType::UInt8,
            "S" => DataType::UInt16,
            "I" => DataType::UInt32,
            "L" => DataType::UInt64,
            "f" => DataType::Float32,
            "g" => DataType::Float64,
            "u" => DataType::Utf8,
            "U" => DataType::LargeUtf8,
            "z" => DataType::Binary,
            "Z" => DataType::LargeBinary,
            "tdD" => DataType::Date32,
            "tdm" => DataType::Date64,
            "tts" => DataType::Time(TimeUnit::Second),
            "ttm" => DataType::Time(TimeUnit::Millisecond),
            "ttu" => DataType::Time(TimeUnit::Microsecond),
            "ttn" => DataType::Time(TimeUnit::Nanosecond),
            "+s" => DataType::Struct,
            "+l" => DataType::List,
            "+L" => DataType::LargeList,
            "+m" => DataType::Map { keys_sorted: false },
            "e" => return Err(unsupported("float16")),
            "vu" | "vz" => return Err(unsupported("string or binary view")),
            "tiM" | "tiD" | "tin" => return Err(unsupported("interval")),
            "+vl" | "+vL" => return Err(unsupported("list view")),
            "+r" => return Err(unsupported("run-end encoded")),
            _ => return parse_parameterised(format),
        })
    }

    /// The C Data Interface format string; [`DataType::from_format`] reads it back.
    pub fn format(&self) -> String {
        self.to_string()
    }

    pub(crate) fn layout(&self) -> Layout {
        use DataType::*;
        match self {
            Null => Layout::Null,
            Boolean => Layout::Boolean,
            Int8 | UInt8 => Layout::FixedWidth(1),
            Int16 | UInt16 => Layout::FixedWidth(2),
            Int32 | UInt32 | Float32 | Date32 => Layout::FixedWidth(4),
            Int64 | UInt64 | Float64 | Date64 | Timestamp { .. } | Duration(_) => {
                Layout::FixedWidth(8)
            }
            Time(TimeUnit::Second | TimeUnit::Millisecond) => Layout::FixedWidth(4),
            Time(TimeUnit::Microsecond | TimeUnit::Nanosecond) => Layout::FixedWidth(8),
            Decimal128 { .. } => Layout::FixedWidth(16),
            FixedSizeBinary(width) => Layout::FixedWidth(*width as usize),
            Utf8 => Layout::Binary {
                offset_width: 4,
                utf8: true,
            },
            LargeUtf8 => Layout::Binary {
                offset_width: 8,
                utf8: true,
            },
            Binary => Layout::Binary {
                offset_width: 4,
                utf8: false,
            },
            LargeBinary => Layout::Binary {
                offset_width: 8,
                utf8: false,
            },
            Struct => Layout::Struct,
            List | Map { .. } => Layout::List { offset_width: 4 },
            LargeList => Layout::List { offset_width: 8 },
        }
    }

    /// Whether the type can index a dictionary: the integers, and whether signed.
    pub(crate) fn dictionary_index(&self) -> Option<bool> {
        use DataType::*;
        match self {
            Int8 | Int16 | Int32 | Int64 => Some(true),
            UInt8 | UInt16 | UInt32 | UInt64 => Some(false),
            _ => None,
        }
    }
}

impl fmt::Display for DataType {
    /// Writes the format string.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use DataType::*;
        let simple = match self {
            Null => "n",
            Boolean => "b",
            Int8 => "c",
            Int16 => "s",
            Int32 => "i",
            Int64 => "l",
            UInt8 => "C",
            UInt16 => "S",
            UInt32 => "I",
            UInt64 => "L",
            Float32 => "f",
            Float64 => "g",
            Utf8 => "u",
            LargeUtf8 => "U",
            Binary => "z",
            LargeBinary => "Z",
            Date32 => "tdD",
            Date64 => "tdm",
            Struct => "+s",
            List => "+l",
            LargeList => "+L",
            Map { .. } => "+m",
            Decimal128 { precision, scale } => return write!(f, "d:{precision},{scale}"),
            Time(unit) => return write!(f, "tt{}", unit.code()),
            Timestamp { unit, timezone } => {
                return write!(f, "ts{}:{}", unit.code(), timezone.as_deref().unwrap_or(""))
            }
            Duration(unit) => return write!(f, "tD{}", unit.code()),
            FixedSizeBinary(width) => return write!(f, "w:{width}"),
        };
        f.write_str(simple)
    }
}

/// Formats with parameters: decimals, fixed-size binary, timestamps, durations,
/// and the parameterised formats this library does not implement.
fn parse_parameterised(format: &str) -> Result<DataType> {
    let invalid = |what: String| Error::invalid_argument(format!("format '{format}': {what}"));
    if let Some(spec) = format.strip_prefix("d:") {
        return parse_decimal(format, spec);
    }
    if let Some(width) = format.strip_prefix("w:") {
        let width = number::<u32>(width)
            .filter(|&w| w <= i32::MAX as u32)
            .ok_or_else(|| invalid(format!("bad byte width '{width}'")))?;
        return Ok(DataType::FixedSizeBinary(width));
    }
    if let Some(rest) = format.strip_prefix("ts") {
        let (unit, timezone) = rest
            .split_at_checked(1)
            .and_then(|(unit, rest)| Some((TimeUnit::from_code(unit)?, rest.strip_prefix(':')?)))
            .ok_or_else(|| invalid("expected ts[smun]:[timezone]".into()))?;
        let timezone = (!timezone.is_empty()).then(|| timezone.to_owned());
        return Ok(DataType::Timestamp { unit, timezone });
    }
    if let Some(unit) = format.strip_prefix("tD").and_then(TimeUnit::from_code) {
        return Ok(DataType::Duration(unit));
    }
    let unsupported = |what: &str| {
        Err(Error::unsupported(format!(
            "format '{format}' ({what}) is not supported"
        )))
    };
    if format.starts_with("+w:") {
        return unsupported("fixed-size list");
    }
    if format.starts_with("+ud:") || format.starts_with("+us:") {
        return unsupported("union");
    }
    Err(Error::invalid_argument(format!(
        "unknown format '{format}'"
    )))
}

/// `d:P,S` or `d:P,S,BITS`.
fn parse_decimal(format: &str, spec: &str) -> Result<DataType> {
    let invalid = |what: &str| {
        Error::invalid_argument(format!("format '{format}': {what} (expected d:P,S[,128])"))
    };
    let parts: Vec<&str> = spec.split(',').collect();
    let (precision, scale, bits) = match parts[..] {
        [p, s] => (p, s, "128"),
        [p, s, bits] => (p, s, bits),
        _ => return Err(invalid("not a decimal")),
    };
    match bits {
        "128" => {}
        "32" | "64" | "256" => {
            return Err(Error::unsupported(format!(
                "format '{format}' (decimal{bits}) is not supported"
            )))
        }
        _ => return Err(invalid("bad bit width")),
    }
    let precision = number::<u8>(precision)
        .filter(|p| (1..=38).contains(p))
        .ok_or_else(|| invalid("precision must be 1..=38"))?;
    let scale = signed_number(scale)
        .and_then(|s| i8::try_from(s).ok())
        .filter(|&s| s <= precision as i8)
        .ok_or_else(|| invalid("scale must be an integer no larger than the precision"))?;
    Ok(DataType::Decimal128 { precision, scale })
}

/// Digits only: `str::parse` would also take a sign, which formats never carry.
fn number<T: std::str::FromStr>(text: &str) -> Option<T> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

fn signed_number(text: &str) -> Option<i64> {
    match text.strip_prefix('-') {
        Some(digits) => number::<i64>(digits).map(|n| -n),
        None => number(text),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Status;

    fn every_type() -> Vec<DataType> {
        use DataType::*;
        let units = [
            TimeUnit::Second,
            TimeUnit::Millisecond,
            TimeUnit::Microsecond,
            TimeUnit::Nanosecond,
        ];
        let mut types = vec![
            Null,
            Boolean,
            Int8,
            Int16,
            Int32,
            Int64,
            UInt8,
            UInt16,
            UInt32,
            UInt64,
            Float32,
            Float64,
            Decimal128 {
                precision: 38,
                scale: 10,
            },
            Decimal128 {
                precision: 5,
                scale: -3,
            },
            Date32,
            Date64,
            Utf8,
            LargeUtf8,
            Binary,
            LargeBinary,
            FixedSizeBinary(16),
            FixedSizeBinary(0),
            Struct,
            List,
            LargeList,
            Map { keys_sorted: false },
        ];
        for unit in units {
            types.push(Time(unit));
            types.push(Duration(unit));
            types.push(Timestamp {
                unit,
                timezone: None,
            });
            types.push(Timestamp {
                unit,
                timezone: Some("Europe/Paris".into()),
            });
        }
        types
    }

    #[test]
    fn every_type_round_trips_through_its_format() {
        for data_type in every_type() {
            let format = data_type.format();
            assert_eq!(
                DataType::from_format(&format).unwrap(),
                data_type,
                "{format}"
            );
        }
    }

    #[test]
    fn formats_are_the_specifications() {
        let cases = [
            ("d:10,2", "d:10,2"),
            ("d:10,2,128", "d:10,2"),
            ("d:38,-5", "d:38,-5"),
            ("w:16", "w:16"),
            ("tss:", "tss:"),
            ("tsu:UTC", "tsu:UTC"),
            ("tsn:+01:00", "tsn:+01:00"),
            ("ttm", "ttm"),
            ("tDn", "tDn"),
            ("+m", "+m"),
        ];
        for (format, rendered) in cases {
            assert_eq!(DataType::from_format(format).unwrap().format(), rendered);
        }
        assert_eq!(
            DataType::from_format("tsu:+01:00").unwrap(),
            DataType::Timestamp {
                unit: TimeUnit::Microsecond,
                timezone: Some("+01:00".into())
            }
        );
        assert_eq!(
            DataType::Time(TimeUnit::Millisecond).layout(),
            Layout::FixedWidth(4)
        );
        assert_eq!(
            DataType::Time(TimeUnit::Microsecond).layout(),
            Layout::FixedWidth(8)
        );
    }

    #[test]
    fn bad_formats_are_rejected() {
        let invalid = [
            ("", "unknown format ''"),
            ("x", "unknown format 'x'"),
            ("ii", "unknown format 'ii'"),
            ("+", "unknown format '+'"),
            ("w:", "format 'w:': bad byte width ''"),
            ("w:-1", "bad byte width '-1'"),
            ("w:2147483648", "bad byte width"),
            ("d:", "not a decimal"),
            ("d:10", "not a decimal"),
            ("d:0,0", "precision must be 1..=38"),
            ("d:39,0", "precision must be 1..=38"),
            ("d:+5,1", "precision must be 1..=38"),
            ("d:5,6", "scale must be"),
            ("d:5,x", "scale must be"),
            ("d:5,1,127", "bad bit width"),
            ("d:5,1,128,0", "not a decimal"),
            ("ts", "expected ts[smun]:[timezone]"),
            ("tsu", "expected ts[smun]:[timezone]"),
            ("tsx:", "expected ts[smun]:[timezone]"),
            ("tDx", "unknown format 'tDx'"),
            ("tt", "unknown format 'tt'"),
        ];
        for (format, message) in invalid {
            let err = DataType::from_format(format).unwrap_err();
            assert_eq!(err.status(), Status::InvalidArgument, "{format}: {err}");
            assert!(err.message().contains(message), "{format}: {err}");
        }
        let unsupported = [
            ("e", "float16"),
            ("vu", "view"),
            ("d:5,1,256", "decimal256"),
            ("d:5,1,32", "decimal32"),
            ("+w:4", "fixed-size list"),
            ("+ud:0,1", "union"),
            ("+r", "run-end"),
            ("tiM", "interval"),
        ];
        for (format, what) in unsupported {
            let err = DataType::from_format(format).unwrap_err();
            assert_eq!(err.status(), Status::Unsupported, "{format}: {err}");
            assert!(err.message().contains(what), "{format}: {err}");
        }
    }
}
