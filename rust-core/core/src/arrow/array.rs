//! [`ArrayData`]: an array the library owns, in the C Data Interface's shape.

use super::bitmap::{bitmap_len, count_set_bits};
use super::buffer::Buffer;
use super::datatype::{DataType, Layout};
use crate::error::{Error, Result};

/// One level of an array tree. Its buffers are the C Data Interface's, with the
/// validity bitmap held apart; children and dictionary mirror the [`super::Field`]
/// the array is exported with. A dictionary-encoded array's `data_type` is its
/// index type, as in `ArrowArray`.
///
/// Nothing here checks the buffers' contents: [`super::ArrayView::from_data`]
/// validates an `ArrayData` completely, and export checks its structure.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArrayData {
    pub data_type: DataType,
    pub len: usize,
    /// Slots to skip at the start of every buffer (and of a struct's children).
    pub offset: usize,
    pub null_count: usize,
    /// None when no slot is null, and always for the null type (which has no buffers).
    pub validity: Option<Buffer>,
    /// The buffers after validity in C Data Interface order: offsets before values.
    pub buffers: Vec<Buffer>,
    pub children: Vec<ArrayData>,
    pub dictionary: Option<Box<ArrayData>>,
}

impl ArrayData {
    /// The slots `[offset, offset + len)` of this array without copying: buffers
    /// and children are shared, and the null count is recomputed for the range.
    pub fn slice(&self, offset: usize, len: usize) -> Result<ArrayData> {
        let out_of_range = || {
            Error::invalid_argument(format!(
                "slice [{offset}, {offset}+{len}) of an array of {} slots",
                self.len
            ))
        };
        let end = offset
            .checked_add(len)
            .filter(|&end| end <= self.len)
            .and_then(|end| self.offset.checked_add(end))
            .ok_or_else(out_of_range)?;
        let start = end - len;
        let null_count = match &self.validity {
            _ if self.data_type.layout() == Layout::Null => len,
            Some(validity) if validity.len() >= bitmap_len(end) => {
                len - count_set_bits(validity.as_slice(), start, len)
            }
            Some(validity) => {
                return Err(Error::invalid_argument(format!(
                    "a validity bitmap of {} bytes cannot hold {} slots",
                    validity.len(),
                    end
                )))
            }
            None => 0,
        };
        Ok(ArrayData {
            offset: start,
            len,
            null_count,
            ..self.clone()
        })
    }
}
