//! The canonical checksum of an array's logical values, defined in
//! `docs/arrow-checksum.md`. The Java side implements the same definition
//! independently, so each side can check what the other built or read.

use super::array::ArrayData;
use super::datatype::Layout;
use super::field::Field;
use super::view::ArrayView;
use crate::error::Result;

const FNV_OFFSET_BASIS: u64 = 0xcbf2_9ce4_8422_2325;
const FNV_PRIME: u64 = 0x0000_0100_0000_01b3;

/// FNV-1a, 64 bits.
struct Fnv1a(u64);

impl Fnv1a {
    fn write(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            self.0 = (self.0 ^ u64::from(byte)).wrapping_mul(FNV_PRIME);
        }
    }

    fn write_count(&mut self, count: usize) {
        self.write(&(count as u64).to_le_bytes());
    }
}

/// The checksum of every slot of a validated array.
pub fn checksum(view: &ArrayView) -> u64 {
    let mut hash = Fnv1a(FNV_OFFSET_BASIS);
    for i in 0..view.len() {
        value(view, i, &mut hash);
    }
    hash.0
}

/// Validates `data` completely, then checksums it.
pub fn checksum_data(data: &ArrayData, field: &Field) -> Result<u64> {
    Ok(checksum(&ArrayView::from_data(data, field)?))
}

/// Feeds `value(i)`. Fixed-width values are hashed as stored: Arrow data is
/// native-endian and the library only builds for little-endian targets (see the
/// module root), so that is the documented little-endian.
fn value(view: &ArrayView, i: usize, hash: &mut Fnv1a) {
    if !view.is_valid(i) {
        hash.write(&[0]);
        return;
    }
    if let Some(dictionary) = view.dictionary() {
        // The dictionary's value brings its own null marker.
        return value(dictionary, view.dictionary_key(i), hash);
    }
    hash.write(&[1]);
    match view.layout() {
        Layout::Null => {}
        Layout::Boolean => hash.write(&[u8::from(view.bool_value(i))]),
        Layout::FixedWidth(_) => hash.write(view.fixed_value(i)),
        Layout::Binary { .. } => {
            let bytes = view.binary_value(i);
            hash.write_count(bytes.len());
            hash.write(bytes);
        }
        Layout::Struct => {
            for child in view.children() {
                value(child, view.offset() + i, hash);
            }
        }
        Layout::List { .. } => {
            let range = view.value_range(i);
            hash.write_count(range.len());
            for j in range {
                value(&view.children()[0], j, hash);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arrow::bitmap::BitmapBuilder;
    use crate::arrow::{DataType, MutableBuffer};

    /// FNV-1a 64 written out from the definition, independently of `Fnv1a`.
    fn fnv(bytes: &[u8]) -> u64 {
        let mut hash: u64 = 14695981039346656037;
        for &byte in bytes {
            hash ^= byte as u64;
            hash = hash.wrapping_mul(1099511628211);
        }
        hash
    }

    #[test]
    fn fnv_matches_the_published_vectors() {
        assert_eq!(fnv(b""), 0xcbf29ce484222325);
        assert_eq!(fnv(b"a"), 0xaf63dc4c8601ec8c);
        assert_eq!(fnv(b"foobar"), 0x85944171f73967e8);
    }

    #[test]
    fn int32_one_then_null() {
        let mut validity = BitmapBuilder::default();
        validity.append(true).unwrap();
        validity.append(false).unwrap();
        let mut values = MutableBuffer::new();
        values.extend_from_slice(&[1i32, 0x5a5a_5a5a]).unwrap();
        let data = ArrayData {
            data_type: DataType::Int32,
            len: 2,
            offset: 0,
            null_count: 1,
            validity: Some(validity.finish()),
            buffers: vec![values.freeze()],
            children: vec![],
            dictionary: None,
        };
        let field = Field::new("x", DataType::Int32, true);
        // value(0) = 01 then 1 as 4 bytes LE; value(1) = 00 (the null slot's bytes do not count).
        let expected = fnv(&[0x01, 0x01, 0x00, 0x00, 0x00, 0x00]);
        assert_eq!(checksum_data(&data, &field).unwrap(), expected);
        // Pinned so that the Java implementation can check itself against the same number.
        assert_eq!(expected, 0x07fd_7bf1_b8fb_1567);
        let empty = data.slice(0, 0).unwrap();
        assert_eq!(checksum_data(&empty, &field).unwrap(), fnv(&[]));
    }
}
