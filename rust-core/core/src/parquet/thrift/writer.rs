//! Encoding of the compact protocol into a `Vec<u8>`.

use super::{ThriftStruct, WireType};
use crate::error::{Error, Result};

/// Appends compact-protocol values to a byte vector.
///
/// Writes cannot fail one by one: the only invalid input is a length beyond the
/// protocol's signed 32-bit sizes, which is recorded and reported by
/// [`CompactWriter::finish`].
pub(crate) struct CompactWriter<'a> {
    out: &'a mut Vec<u8>,
    last_field_id: i16,
    error: Option<Error>,
}

impl<'a> CompactWriter<'a> {
    pub(crate) fn new(out: &'a mut Vec<u8>) -> Self {
        CompactWriter {
            out,
            last_field_id: 0,
            error: None,
        }
    }

    /// Reports the first length that could not be encoded, if any.
    pub(crate) fn finish(self) -> Result<()> {
        match self.error {
            Some(error) => Err(error),
            None => Ok(()),
        }
    }

    /// Checks a length against the signed 32-bit limit every Thrift reader has.
    fn length(&mut self, len: usize, what: &str) -> Option<u32> {
        match i32::try_from(len) {
            Ok(len) => Some(len as u32),
            Err(_) => {
                self.error.get_or_insert_with(|| {
                    Error::invalid_argument(format!(
                        "thrift: {what} of {len} exceeds the protocol's limit of {}",
                        i32::MAX
                    ))
                });
                None
            }
        }
    }

    pub(crate) fn write_varint(&mut self, mut value: u64) {
        while value >= 0x80 {
            self.out.push(value as u8 | 0x80);
            value >>= 7;
        }
        self.out.push(value as u8);
    }

    pub(crate) fn write_i8(&mut self, value: i8) {
        self.out.push(value as u8);
    }

    pub(crate) fn write_i16(&mut self, value: i16) {
        self.write_i32(i32::from(value));
    }

    pub(crate) fn write_i32(&mut self, value: i32) {
        self.write_varint(u64::from(((value << 1) ^ (value >> 31)) as u32));
    }

    pub(crate) fn write_i64(&mut self, value: i64) {
        self.write_varint(((value << 1) ^ (value >> 63)) as u64);
    }

    /// No structure of parquet.thrift that this library writes holds a double;
    /// the tests' generic struct writer does.
    #[cfg(any(test, feature = "test-support"))]
    pub(crate) fn write_double(&mut self, value: f64) {
        self.out.extend_from_slice(&value.to_le_bytes());
    }

    pub(crate) fn write_binary(&mut self, value: &[u8]) {
        if let Some(len) = self.length(value.len(), "binary length") {
            self.write_varint(u64::from(len));
            self.out.extend_from_slice(value);
        }
    }

    pub(crate) fn write_string(&mut self, value: &str) {
        self.write_binary(value.as_bytes());
    }

    /// A bool inside a container, written as parquet-java does (1 true, 2 false).
    pub(crate) fn write_bool_element(&mut self, value: bool) {
        self.out.push(if value { 1 } else { 2 });
    }

    /// Writes a struct: `body` writes the fields in increasing id order (which
    /// keeps the headers in their one-byte form), then the stop byte follows.
    pub(crate) fn write_struct(&mut self, body: impl FnOnce(&mut Self)) {
        let saved_id = std::mem::replace(&mut self.last_field_id, 0);
        body(self);
        self.out.push(0);
        self.last_field_id = saved_id;
    }

    fn field_header(&mut self, id: i16, nibble: u8) {
        let delta = i32::from(id) - i32::from(self.last_field_id);
        if (1..=15).contains(&delta) {
            self.out.push(((delta as u8) << 4) | nibble);
        } else {
            self.out.push(nibble);
            self.write_i16(id);
        }
        self.last_field_id = id;
    }

    /// The header of a field whose value the caller writes next. Bool fields use
    /// [`CompactWriter::field_bool`] instead, as their value is in the header.
    pub(crate) fn field_begin(&mut self, id: i16, ty: WireType) {
        debug_assert_ne!(ty, WireType::Bool, "bool fields go through field_bool");
        self.field_header(id, ty.element_nibble());
    }

    pub(crate) fn field_bool(&mut self, id: i16, value: bool) {
        self.field_header(id, if value { 1 } else { 2 });
    }

    pub(crate) fn field_i8(&mut self, id: i16, value: i8) {
        self.field_begin(id, WireType::I8);
        self.write_i8(value);
    }

    pub(crate) fn field_i16(&mut self, id: i16, value: i16) {
        self.field_begin(id, WireType::I16);
        self.write_i16(value);
    }

    pub(crate) fn field_i32(&mut self, id: i16, value: i32) {
        self.field_begin(id, WireType::I32);
        self.write_i32(value);
    }

    pub(crate) fn field_i64(&mut self, id: i16, value: i64) {
        self.field_begin(id, WireType::I64);
        self.write_i64(value);
    }

    pub(crate) fn field_binary(&mut self, id: i16, value: &[u8]) {
        self.field_begin(id, WireType::Binary);
        self.write_binary(value);
    }

    pub(crate) fn field_string(&mut self, id: i16, value: &str) {
        self.field_binary(id, value.as_bytes());
    }

    pub(crate) fn field_struct<T: ThriftStruct>(&mut self, id: i16, value: &T) {
        self.field_begin(id, WireType::Struct);
        value.write(self);
    }

    /// A field holding an empty struct: how unions mark members without data.
    pub(crate) fn field_empty_struct(&mut self, id: i16) {
        self.field_begin(id, WireType::Struct);
        self.write_struct(|_| {});
    }

    pub(crate) fn list_begin(&mut self, elem: WireType, len: usize) {
        let Some(len) = self.length(len, "list size") else {
            return;
        };
        let nibble = elem.element_nibble();
        if len < 15 {
            self.out.push(((len as u8) << 4) | nibble);
        } else {
            self.out.push(0xf0 | nibble);
            self.write_varint(u64::from(len));
        }
    }

    pub(crate) fn field_list<T>(
        &mut self,
        id: i16,
        elem: WireType,
        items: &[T],
        mut write_elem: impl FnMut(&mut Self, &T),
    ) {
        self.field_begin(id, WireType::List);
        self.list_begin(elem, items.len());
        for item in items {
            write_elem(self, item);
        }
    }
}
