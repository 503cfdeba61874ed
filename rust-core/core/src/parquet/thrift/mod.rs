//! Thrift's compact protocol, the encoding of every Parquet metadata structure.
//!
//! Only what Parquet needs is here: structs, unions, lists, sets, maps and the
//! scalar types, without messages or services. [`CompactReader`] borrows its
//! input so strings and binaries come back as slices; [`CompactWriter`] appends
//! to a `Vec<u8>`. A struct type implements [`ThriftStruct`] to get
//! `decode`/`encode` over byte buffers.
//!
//! The reader treats its input as hostile: every length is checked against the
//! bytes that remain, containers cannot claim more elements than there are bytes
//! left (each element takes at least one), and nesting is limited to
//! [`MAX_DEPTH`] so that skipping unknown fields cannot overflow the stack.

mod reader;
mod writer;

pub(crate) use reader::{CompactReader, FieldHeader};
pub(crate) use writer::CompactWriter;

use crate::error::Result;

/// Deepest nesting of structs and containers the reader accepts. Parquet's own
/// structures nest at most 6 deep; the margin is for unknown fields from newer
/// writers, which are skipped recursively.
pub(crate) const MAX_DEPTH: usize = 64;

/// The value types of the compact protocol.
///
/// Field headers and container headers number them slightly differently (a
/// field's bool carries its value in the type nibble), so the conversions live
/// in the reader and the writer rather than as one numbering here.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum WireType {
    Bool,
    I8,
    I16,
    I32,
    I64,
    Double,
    Binary,
    List,
    Set,
    Map,
    Struct,
    Uuid,
}

impl WireType {
    /// The element-type nibble of list, set and map headers (also the field-type
    /// nibble of every type but `Bool`).
    pub(crate) const fn element_nibble(self) -> u8 {
        match self {
            // parquet-java and arrow-rs write 1 here; every reader accepts 1 or 2.
            WireType::Bool => 1,
            WireType::I8 => 3,
            WireType::I16 => 4,
            WireType::I32 => 5,
            WireType::I64 => 6,
            WireType::Double => 7,
            WireType::Binary => 8,
            WireType::List => 9,
            WireType::Set => 10,
            WireType::Map => 11,
            WireType::Struct => 12,
            WireType::Uuid => 13,
        }
    }

    pub(crate) const fn from_element_nibble(nibble: u8) -> Option<WireType> {
        Some(match nibble {
            1 | 2 => WireType::Bool,
            3 => WireType::I8,
            4 => WireType::I16,
            5 => WireType::I32,
            6 => WireType::I64,
            7 => WireType::Double,
            8 => WireType::Binary,
            9 => WireType::List,
            10 => WireType::Set,
            11 => WireType::Map,
            12 => WireType::Struct,
            13 => WireType::Uuid,
            _ => return None,
        })
    }
}

/// A Thrift struct (or union) with a compact-protocol encoding.
pub(crate) trait ThriftStruct: Sized {
    fn read(reader: &mut CompactReader<'_>) -> Result<Self>;

    fn write(&self, writer: &mut CompactWriter<'_>);

    /// Decodes one value from the front of `buf` and returns it with the number
    /// of bytes it took; a page header is followed by the page, so trailing bytes
    /// are expected.
    fn decode(buf: &[u8]) -> Result<(Self, usize)> {
        let mut reader = CompactReader::new(buf);
        let value = Self::read(&mut reader)?;
        Ok((value, reader.position()))
    }

    /// Appends the encoding to `out`. Fails only if a length does not fit the
    /// protocol's 32-bit sizes; `out` then holds a partial encoding.
    fn encode(&self, out: &mut Vec<u8>) -> Result<()> {
        let mut writer = CompactWriter::new(out);
        self.write(&mut writer);
        writer.finish()
    }
}
