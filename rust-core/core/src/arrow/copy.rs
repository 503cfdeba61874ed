//! Deep copies of validated arrays into library memory, normalised: offset 0,
//! offsets starting at 0, validity only where a slot is null, exact null counts.
//! Dictionary-encoded arrays stay encoded, with their whole dictionary copied.

use super::array::ArrayData;
use super::bitmap::BitmapBuilder;
use super::buffer::{Buffer, MutableBuffer};
use super::datatype::Layout;
use super::view::ArrayView;
use crate::error::Result;

/// Copies every slot of `view`.
pub fn deep_copy(view: &ArrayView) -> Result<ArrayData> {
    copy_range(view, 0, view.len())
}

/// Copies the logical slots `[start, start + len)` of `view`.
fn copy_range(view: &ArrayView, start: usize, len: usize) -> Result<ArrayData> {
    let layout = view.layout();
    let slots = start..start + len;
    let null_count = match layout {
        Layout::Null => len,
        _ => slots.clone().filter(|&i| !view.is_valid(i)).count(),
    };
    let validity = match layout {
        Layout::Null => None,
        _ if null_count == 0 => None,
        _ => Some(bitmap(slots.clone().map(|i| view.is_valid(i)), len)?),
    };
    let mut buffers = Vec::new();
    let mut children = Vec::new();
    match layout {
        Layout::Null => {}
        Layout::Boolean => buffers.push(bitmap(slots.map(|i| view.bool_value(i)), len)?),
        Layout::FixedWidth(_) => buffers.push(bytes(view.fixed_values(start, len))?),
        Layout::Binary { offset_width, .. } => {
            let (offsets, values) = rebase_offsets(view, start, len, offset_width)?;
            buffers.push(offsets);
            buffers.push(bytes(&view.binary_values()[values])?);
        }
        Layout::List { offset_width } => {
            let (offsets, values) = rebase_offsets(view, start, len, offset_width)?;
            buffers.push(offsets);
            children.push(copy_range(&view.children()[0], values.start, values.len())?);
        }
        Layout::Struct => {
            // A struct's offset applies to its children.
            for child in view.children() {
                children.push(copy_range(child, view.offset() + start, len)?);
            }
        }
    }
    let dictionary = match view.dictionary() {
        Some(dictionary) => Some(Box::new(deep_copy(dictionary)?)),
        None => None,
    };
    Ok(ArrayData {
        data_type: view.data_type().clone(),
        len,
        offset: 0,
        null_count,
        validity,
        buffers,
        children,
        dictionary,
    })
}

fn bitmap(bits: impl Iterator<Item = bool>, len: usize) -> Result<Buffer> {
    let mut builder = BitmapBuilder::with_capacity(len)?;
    for bit in bits {
        builder.append(bit)?;
    }
    Ok(builder.finish())
}

fn bytes(slice: &[u8]) -> Result<Buffer> {
    let mut buffer = MutableBuffer::with_capacity(slice.len())?;
    buffer.extend_from_slice(slice)?;
    Ok(buffer.freeze())
}

/// The offsets of slots `[start, start + len)` shifted to start at 0 (one offset
/// even for no slots, so that the copy reads like any other array), and the
/// range of values or child slots they covered.
fn rebase_offsets(
    view: &ArrayView,
    start: usize,
    len: usize,
    width: usize,
) -> Result<(Buffer, std::ops::Range<usize>)> {
    let base = if len == 0 {
        0
    } else {
        view.value_range(start).start
    };
    let mut offsets = MutableBuffer::with_capacity((len + 1) * width)?;
    let mut push = |offset: usize| -> Result<()> {
        // The source's offsets had this width and these are smaller, so they fit.
        let offset = (offset - base) as i64;
        match width {
            4 => offsets.push(offset as i32),
            _ => offsets.push(offset),
        }
    };
    push(base)?;
    let mut end = base;
    for i in start..start + len {
        end = view.value_range(i).end;
        push(end)?;
    }
    Ok((offsets.freeze(), base..end))
}
