//! All-null arrays of any type: the columns of fields a file does not have
//! (added to the table after the file was written).

use crate::arrow::bitmap::bitmap_len;
use crate::arrow::datatype::Layout;
use crate::arrow::{ArrayData, Field, MutableBuffer};
use crate::error::Result;

/// An array of `len` nulls of `field`'s type. Lists and maps are null, not
/// empty, so their children have no slots; a struct's children are null too.
pub(crate) fn null_array(field: &Field, len: usize) -> Result<ArrayData> {
    let zeros = |bytes: usize| -> Result<_> {
        let mut buffer = MutableBuffer::with_capacity(bytes)?;
        buffer.extend_zeros(bytes)?;
        Ok(buffer.freeze())
    };
    let layout = field.data_type.layout();
    let validity = match layout {
        Layout::Null => None,
        _ => Some(zeros(bitmap_len(len))?),
    };
    let mut buffers = Vec::new();
    let mut children = Vec::new();
    match layout {
        Layout::Null | Layout::Struct => {}
        Layout::Boolean => buffers.push(zeros(bitmap_len(len))?),
        Layout::FixedWidth(width) => buffers.push(zeros(len.saturating_mul(width))?),
        Layout::Binary { offset_width, .. } => {
            buffers.push(zeros((len + 1) * offset_width)?);
            buffers.push(zeros(0)?);
        }
        Layout::List { offset_width } => buffers.push(zeros((len + 1) * offset_width)?),
    }
    match layout {
        Layout::Struct => {
            for child in &field.children {
                children.push(null_array(child, len)?);
            }
        }
        Layout::List { .. } => {
            for child in &field.children {
                children.push(null_array(child, 0)?);
            }
        }
        _ => {}
    }
    let dictionary = match &field.dictionary {
        Some(dictionary) => Some(Box::new(null_array(&dictionary.values, 0)?)),
        None => None,
    };
    Ok(ArrayData {
        data_type: field.data_type.clone(),
        len,
        offset: 0,
        null_count: len,
        validity,
        buffers,
        children,
        dictionary,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arrow::checksum::checksum_data;
    use crate::arrow::DataType;

    #[test]
    fn every_layout_has_a_null_array() {
        let fields = [
            Field::new("n", DataType::Null, true),
            Field::new("b", DataType::Boolean, true),
            Field::new(
                "d",
                DataType::Decimal128 {
                    precision: 5,
                    scale: 1,
                },
                true,
            ),
            Field::new("s", DataType::Utf8, true),
            Field::new("L", DataType::LargeBinary, true),
            Field::new("l", DataType::List, true).with_children(vec![Field::new(
                "element",
                DataType::Int32,
                false,
            )]),
            Field::new("st", DataType::Struct, true).with_children(vec![
                Field::new("a", DataType::Int64, false),
                Field::new("m", DataType::Map { keys_sorted: false }, true).with_children(vec![
                    Field::new("entries", DataType::Struct, false).with_children(vec![
                        Field::new("key", DataType::Utf8, false),
                        Field::new("value", DataType::Float64, true),
                    ]),
                ]),
            ]),
            Field::new("dict", DataType::Int32, true)
                .with_dictionary(Field::new("", DataType::Utf8, true), false),
        ];
        for field in &fields {
            let array = null_array(field, 3).unwrap();
            // value(i) of a null slot is the single byte 00, so FNV-1a of three
            // zero bytes: xor with 0 leaves the hash, the multiply remains.
            let mut h: u64 = 0xcbf29ce484222325;
            for _ in 0..3 {
                h = h.wrapping_mul(0x100000001b3);
            }
            assert_eq!(checksum_data(&array, field).unwrap(), h, "{}", field.name);
        }
    }
}
