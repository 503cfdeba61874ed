//! Decoding of the compact protocol from a borrowed buffer.

use std::fmt;
use std::mem::size_of;

use super::{WireType, MAX_DEPTH};
use crate::error::{Error, Result};

/// A field's id and type, as read from its header. A bool field's value lives in
/// the header itself, hence [`FieldHeader::bool_value`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct FieldHeader {
    pub id: i16,
    pub ty: WireType,
    bool_value: bool,
}

impl FieldHeader {
    /// The value of a `Bool` field; `false` for any other type.
    pub(crate) fn bool_value(&self) -> bool {
        self.bool_value
    }
}

/// Reads compact-protocol values from the front of a byte slice.
///
/// Every error is CORRUPT_DATA and names the byte offset (relative to the start
/// of the slice) where the bad value starts.
pub(crate) struct CompactReader<'a> {
    buf: &'a [u8],
    pos: usize,
    depth: usize,
    last_field_id: i16,
}

impl<'a> CompactReader<'a> {
    pub(crate) fn new(buf: &'a [u8]) -> Self {
        CompactReader {
            buf,
            pos: 0,
            depth: 0,
            last_field_id: 0,
        }
    }

    /// Bytes consumed so far.
    pub(crate) fn position(&self) -> usize {
        self.pos
    }

    fn remaining(&self) -> usize {
        self.buf.len() - self.pos
    }

    fn error_at(&self, offset: usize, what: impl fmt::Display) -> Error {
        Error::corrupt_data(format!("thrift: {what} at byte {offset}"))
    }

    fn read_u8(&mut self) -> Result<u8> {
        match self.buf.get(self.pos) {
            Some(&byte) => {
                self.pos += 1;
                Ok(byte)
            }
            None => Err(self.error_at(self.pos, "unexpected end of input")),
        }
    }

    fn read_bytes(&mut self, len: usize) -> Result<&'a [u8]> {
        let start = self.pos;
        let bytes = start
            .checked_add(len)
            .and_then(|end| self.buf.get(start..end))
            .ok_or_else(|| {
                self.error_at(
                    start,
                    format_args!("{len} bytes needed but only {} remain", self.remaining()),
                )
            })?;
        self.pos += len;
        Ok(bytes)
    }

    /// An unsigned LEB128 varint of at most 64 bits.
    pub(crate) fn read_varint(&mut self) -> Result<u64> {
        let start = self.pos;
        let mut value = 0u64;
        let mut shift = 0u32;
        loop {
            let Some(&byte) = self.buf.get(self.pos) else {
                return Err(self.error_at(start, "truncated varint"));
            };
            self.pos += 1;
            // The tenth byte holds the 64th bit only; anything more overflows.
            if shift == 63 && byte > 1 {
                return Err(self.error_at(start, "varint longer than 64 bits"));
            }
            value |= u64::from(byte & 0x7f) << shift;
            if byte & 0x80 == 0 {
                return Ok(value);
            }
            shift += 7;
        }
    }

    fn read_varint_u32(&mut self, what: &str) -> Result<u32> {
        let start = self.pos;
        let value = self.read_varint()?;
        u32::try_from(value)
            .map_err(|_| self.error_at(start, format_args!("{what} {value} exceeds 32 bits")))
    }

    pub(crate) fn read_i8(&mut self) -> Result<i8> {
        Ok(i8::from_le_bytes([self.read_u8()?]))
    }

    pub(crate) fn read_i16(&mut self) -> Result<i16> {
        let start = self.pos;
        let value = self.read_i32()?;
        i16::try_from(value)
            .map_err(|_| self.error_at(start, format_args!("i16 value {value} out of range")))
    }

    pub(crate) fn read_i32(&mut self) -> Result<i32> {
        let zigzag = self.read_varint_u32("i32 varint")?;
        Ok((zigzag >> 1) as i32 ^ -((zigzag & 1) as i32))
    }

    pub(crate) fn read_i64(&mut self) -> Result<i64> {
        let zigzag = self.read_varint()?;
        Ok((zigzag >> 1) as i64 ^ -((zigzag & 1) as i64))
    }

    /// No structure of parquet.thrift that this library reads holds a double;
    /// the tests' generic struct reader does.
    #[cfg(any(test, feature = "test-support"))]
    pub(crate) fn read_double(&mut self) -> Result<f64> {
        let bytes = self.read_bytes(8)?;
        let mut array = [0u8; 8];
        array.copy_from_slice(bytes);
        Ok(f64::from_le_bytes(array))
    }

    pub(crate) fn read_binary(&mut self) -> Result<&'a [u8]> {
        let len = self.read_varint_u32("binary length")?;
        self.read_bytes(len as usize)
    }

    pub(crate) fn read_string(&mut self) -> Result<&'a str> {
        let start = self.pos;
        let bytes = self.read_binary()?;
        std::str::from_utf8(bytes)
            .map_err(|e| self.error_at(start, format_args!("string is not valid UTF-8 ({e})")))
    }

    /// A bool inside a list, set or map: one byte, 1 for true. Writers disagree on
    /// false (the spec says 0, parquet-java and arrow-rs write 2); both are read.
    pub(crate) fn read_bool_element(&mut self) -> Result<bool> {
        let start = self.pos;
        match self.read_u8()? {
            1 => Ok(true),
            0 | 2 => Ok(false),
            other => Err(self.error_at(start, format_args!("invalid bool element {other}"))),
        }
    }

    fn enter(&mut self) -> Result<()> {
        if self.depth >= MAX_DEPTH {
            return Err(self.error_at(
                self.pos,
                format_args!("nesting deeper than {MAX_DEPTH} levels"),
            ));
        }
        self.depth += 1;
        Ok(())
    }

    fn leave(&mut self) {
        self.depth = self.depth.saturating_sub(1);
    }

    /// The next field header of the current struct, or `None` at its stop byte.
    fn read_field_header(&mut self) -> Result<Option<FieldHeader>> {
        let start = self.pos;
        let byte = self.read_u8()?;
        if byte == 0 {
            return Ok(None);
        }
        let (ty, bool_value) = match byte & 0x0f {
            1 => (WireType::Bool, true),
            2 => (WireType::Bool, false),
            nibble => match WireType::from_element_nibble(nibble) {
                Some(ty) => (ty, false),
                None => {
                    return Err(self.error_at(start, format_args!("unknown field type {nibble}")))
                }
            },
        };
        let delta = byte >> 4;
        let id = if delta == 0 {
            self.read_i16()?
        } else {
            self.last_field_id
                .checked_add(i16::from(delta))
                .ok_or_else(|| self.error_at(start, "field id overflows i16"))?
        };
        self.last_field_id = id;
        Ok(Some(FieldHeader { id, ty, bool_value }))
    }

    /// Reads a struct, handing each field to `on_field`, which reads the value and
    /// returns `true`, or returns `false` to have the field skipped. Thrift
    /// generated code skips fields it does not know or whose type differs from the
    /// IDL; so does this, which keeps newer writers' files readable.
    pub(crate) fn read_struct(
        &mut self,
        name: &'static str,
        mut on_field: impl FnMut(&mut Self, FieldHeader) -> Result<bool>,
    ) -> Result<()> {
        self.enter()?;
        let saved_id = std::mem::replace(&mut self.last_field_id, 0);
        while let Some(field) = self.read_field_header()? {
            let result = match on_field(self, field) {
                Ok(true) => Ok(()),
                Ok(false) => self.skip_field(field),
                Err(e) => Err(e),
            };
            result.map_err(|e| e.context(format_args!("{name} field {}", field.id)))?;
        }
        self.last_field_id = saved_id;
        self.leave();
        Ok(())
    }

    fn skip_field(&mut self, field: FieldHeader) -> Result<()> {
        match field.ty {
            // The header already held the value.
            WireType::Bool => Ok(()),
            ty => self.skip(ty),
        }
    }

    /// A list or set header: the element type and the element count, which is
    /// checked against the remaining input (every element takes a byte or more).
    pub(crate) fn read_list_header(&mut self) -> Result<(WireType, usize)> {
        let start = self.pos;
        let byte = self.read_u8()?;
        let nibble = byte & 0x0f;
        let Some(ty) = WireType::from_element_nibble(nibble) else {
            return Err(self.error_at(start, format_args!("unknown list element type {nibble}")));
        };
        let len = match byte >> 4 {
            15 => self.read_varint_u32("list size")? as usize,
            short => usize::from(short),
        };
        if len > self.remaining() {
            return Err(self.error_at(
                start,
                format_args!(
                    "list of {len} elements cannot fit in the {} bytes left",
                    self.remaining()
                ),
            ));
        }
        Ok((ty, len))
    }

    /// Reads a list (or set: same header) whose elements are `elem`, each with
    /// `read_elem`.
    pub(crate) fn read_list<T>(
        &mut self,
        elem: WireType,
        mut read_elem: impl FnMut(&mut Self) -> Result<T>,
    ) -> Result<Vec<T>> {
        let start = self.pos;
        let (ty, len) = self.read_list_header()?;
        if ty != elem && len > 0 {
            return Err(self.error_at(
                start,
                format_args!("list of {ty:?} where a list of {elem:?} was expected"),
            ));
        }
        self.enter()?;
        // The count was checked against the input, but a small encoding can still
        // decode to large values; start from what the bytes could hold and grow.
        let capacity = len.min(self.remaining() / size_of::<T>().max(1));
        let mut items = Vec::with_capacity(capacity);
        for index in 0..len {
            let item = read_elem(self).map_err(|e| e.context(format_args!("element {index}")))?;
            items.push(item);
        }
        self.leave();
        Ok(items)
    }

    /// Skips one value of type `ty` in element position (a bool is one byte).
    pub(crate) fn skip(&mut self, ty: WireType) -> Result<()> {
        match ty {
            WireType::Bool => self.read_bool_element().map(drop),
            WireType::I8 => self.read_u8().map(drop),
            WireType::I16 | WireType::I32 | WireType::I64 => self.read_varint().map(drop),
            WireType::Double => self.read_bytes(8).map(drop),
            WireType::Uuid => self.read_bytes(16).map(drop),
            WireType::Binary => self.read_binary().map(drop),
            WireType::Struct => self.read_struct("skipped struct", |_, _| Ok(false)),
            WireType::List | WireType::Set => {
                let (elem, len) = self.read_list_header()?;
                self.enter()?;
                for _ in 0..len {
                    self.skip(elem)?;
                }
                self.leave();
                Ok(())
            }
            WireType::Map => self.skip_map(),
        }
    }

    fn skip_map(&mut self) -> Result<()> {
        let start = self.pos;
        let len = self.read_varint_u32("map size")? as usize;
        if len == 0 {
            return Ok(());
        }
        let types = self.read_u8()?;
        let (Some(key), Some(value)) = (
            WireType::from_element_nibble(types >> 4),
            WireType::from_element_nibble(types & 0x0f),
        ) else {
            return Err(self.error_at(
                start,
                format_args!("invalid map key/value types {types:#04x}"),
            ));
        };
        if len > self.remaining() / 2 {
            return Err(self.error_at(
                start,
                format_args!(
                    "map of {len} entries cannot fit in the {} bytes left",
                    self.remaining()
                ),
            ));
        }
        self.enter()?;
        for _ in 0..len {
            self.skip(key)?;
            self.skip(value)?;
        }
        self.leave();
        Ok(())
    }
}
