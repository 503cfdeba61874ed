//! The enums of parquet.thrift.
//!
//! Enums that newer writers may extend without breaking old readers (encodings,
//! codecs, page types, edge algorithms) keep unknown values as `Unknown(i32)`, so
//! a footer naming a future encoding still decodes and only the pages that use
//! it fail. The others are closed: an unknown value means the file is corrupt.

use crate::compression::Codec;
use crate::error::{Error, Result};

/// A closed Thrift enum: an unknown value makes the structure holding it corrupt.
pub trait ClosedEnum: Sized + Copy {
    const NAME: &'static str;
    fn from_thrift(value: i32) -> Option<Self>;
    fn to_thrift(self) -> i32;
}

macro_rules! closed_enum {
    (
        $(#[$doc:meta])*
        $name:ident ($what:literal) { $($variant:ident = $value:literal,)* }
    ) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum $name {
            $($variant,)*
        }

        #[cfg(test)]
        impl $name {
            pub(crate) const ALL: &'static [$name] = &[$($name::$variant,)*];
        }

        impl ClosedEnum for $name {
            const NAME: &'static str = $what;

            fn from_thrift(value: i32) -> Option<Self> {
                match value {
                    $($value => Some($name::$variant),)*
                    _ => None,
                }
            }

            fn to_thrift(self) -> i32 {
                match self {
                    $($name::$variant => $value,)*
                }
            }
        }
    };
}

macro_rules! open_enum {
    (
        $(#[$doc:meta])*
        $name:ident { $($variant:ident = $value:literal,)* }
    ) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum $name {
            $($variant,)*
            /// A value this build does not know, kept so it can be reported.
            Unknown(i32),
        }

        impl $name {
            pub fn from_thrift(value: i32) -> Self {
                match value {
                    $($value => $name::$variant,)*
                    other => $name::Unknown(other),
                }
            }

            pub fn to_thrift(self) -> i32 {
                match self {
                    $($name::$variant => $value,)*
                    $name::Unknown(other) => other,
                }
            }
        }
    };
}

closed_enum! {
    /// Parquet's `Type`: how values are stored.
    PhysicalType ("physical type") {
        Boolean = 0,
        Int32 = 1,
        Int64 = 2,
        Int96 = 3,
        Float = 4,
        Double = 5,
        ByteArray = 6,
        FixedLenByteArray = 7,
    }
}

closed_enum! {
    /// The deprecated `ConvertedType`, which the spec says will not be extended.
    ConvertedType ("converted type") {
        Utf8 = 0,
        Map = 1,
        MapKeyValue = 2,
        List = 3,
        Enum = 4,
        Decimal = 5,
        Date = 6,
        TimeMillis = 7,
        TimeMicros = 8,
        TimestampMillis = 9,
        TimestampMicros = 10,
        Uint8 = 11,
        Uint16 = 12,
        Uint32 = 13,
        Uint64 = 14,
        Int8 = 15,
        Int16 = 16,
        Int32 = 17,
        Int64 = 18,
        Json = 19,
        Bson = 20,
        Interval = 21,
    }
}

closed_enum! {
    /// `FieldRepetitionType`. `Vector` is a recent addition that the schema layer
    /// reports as unsupported.
    Repetition ("repetition type") {
        Required = 0,
        Optional = 1,
        Repeated = 2,
        Vector = 3,
    }
}

closed_enum! {
    /// Whether a column index's min/max lists are sorted.
    BoundaryOrder ("boundary order") {
        Unordered = 0,
        Ascending = 1,
        Descending = 2,
    }
}

open_enum! {
    /// How a page's values (or levels) are encoded. Value 1, the never-used
    /// GROUP_VAR_INT, decodes as `Unknown(1)`.
    Encoding {
        Plain = 0,
        PlainDictionary = 2,
        Rle = 3,
        BitPacked = 4,
        DeltaBinaryPacked = 5,
        DeltaLengthByteArray = 6,
        DeltaByteArray = 7,
        RleDictionary = 8,
        ByteStreamSplit = 9,
    }
}

open_enum! {
    /// A column chunk's `CompressionCodec`.
    CompressionCodec {
        Uncompressed = 0,
        Snappy = 1,
        Gzip = 2,
        Lzo = 3,
        Brotli = 4,
        Lz4 = 5,
        Zstd = 6,
        Lz4Raw = 7,
    }
}

impl CompressionCodec {
    /// The codec implementation for this id: UNSUPPORTED for LZO and for ids this
    /// build does not know.
    pub fn codec(self) -> Result<Codec> {
        match self {
            CompressionCodec::Uncompressed => Ok(Codec::Uncompressed),
            CompressionCodec::Snappy => Ok(Codec::Snappy),
            CompressionCodec::Gzip => Ok(Codec::Gzip),
            CompressionCodec::Brotli => Ok(Codec::Brotli),
            CompressionCodec::Lz4 => Ok(Codec::Lz4Hadoop),
            CompressionCodec::Zstd => Ok(Codec::Zstd),
            CompressionCodec::Lz4Raw => Ok(Codec::Lz4Raw),
            CompressionCodec::Lzo => {
                Err(Error::unsupported("compression codec LZO is not supported"))
            }
            CompressionCodec::Unknown(id) => Err(Error::unsupported(format!(
                "unknown compression codec {id}"
            ))),
        }
    }
}

open_enum! {
    /// A page's type. Readers skip pages of types they do not know.
    PageType {
        DataPage = 0,
        IndexPage = 1,
        DictionaryPage = 2,
        DataPageV2 = 3,
    }
}

open_enum! {
    /// How a GEOGRAPHY column interpolates edges between points.
    EdgeInterpolationAlgorithm {
        Spherical = 0,
        Vincenty = 1,
        Thomas = 2,
        Andoyer = 3,
        Karney = 4,
    }
}
