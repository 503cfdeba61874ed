//! A batch's Arrow arrays, built from the levels and dense values its leaf
//! columns read.
//!
//! A *slot* is one element of an Arrow array at some level of nesting. At the
//! top, each row is a slot; a list's element slots are found inside its own
//! slots. Slots are described as ranges of level entries of one leaf (the
//! first leaf below the node, whose levels carry every ancestor's structure):
//!
//! - top-level slots start at entries with repetition level 0;
//! - a list slot `[s, e)` holds elements if `def[s]` reaches the list's element
//!   level; its elements start at `s` and at every entry of `[s, e)` whose
//!   repetition level is the list's;
//! - a slot is non-null if `def[s]` reaches the node's own level;
//! - a leaf's slots are single entries, and its valid slots take the leaf's
//!   dense values in order.
//!
//! A column without repetition has one slot per entry, and a flat leaf skips
//! the slot lists: its validity comes straight from the definition levels, and
//! without nulls its values buffer is the array's as decoded.

use crate::arrow::bitmap::bitmap_len;
use crate::arrow::buffer::{Buffer, NativeType};
use crate::arrow::{ArrayData, DataType, MutableBuffer};
use crate::error::{Error, Result};
use crate::parquet::column::{LeafBatch, Output};

use super::nulls::null_array;
use super::tree::{ArrowNode, NodeKind};

/// Level-entry ranges `[start, end)` of one leaf.
type Slots = Vec<(usize, usize)>;

/// The batches of a batch's leaves, by column index.
pub struct Leaves<'a> {
    columns: &'a [usize],
    batches: &'a mut [LeafBatch],
}

impl<'a> Leaves<'a> {
    /// `batches[i]` holds column `columns[i]`.
    pub fn new(columns: &'a [usize], batches: &'a mut [LeafBatch]) -> Leaves<'a> {
        Leaves { columns, batches }
    }

    fn index(&self, column: usize) -> Result<usize> {
        self.columns
            .iter()
            .position(|&c| c == column)
            .filter(|&i| i < self.batches.len())
            .ok_or_else(|| Error::internal(format!("column {column} was not read")))
    }

    fn get(&self, column: usize) -> Result<&LeafBatch> {
        Ok(&self.batches[self.index(column)?])
    }

    fn get_mut(&mut self, column: usize) -> Result<&mut LeafBatch> {
        let index = self.index(column)?;
        Ok(&mut self.batches[index])
    }
}

/// The array of `node` for the rows its leaves read; takes their values.
pub fn assemble(node: &ArrowNode, leaves: &mut Leaves<'_>) -> Result<ArrayData> {
    build(node, &mut Vec::new(), leaves)
}

fn disagree(what: impl std::fmt::Display) -> Error {
    Error::corrupt_data(format!(
        "the column chunks disagree about the nesting: {what}"
    ))
}

/// `lists` holds (element level, repetition level) of the lists above `node`.
fn build(
    node: &ArrowNode,
    lists: &mut Vec<(i16, i16)>,
    leaves: &mut Leaves<'_>,
) -> Result<ArrayData> {
    let column = node
        .first_column()
        .ok_or_else(|| Error::internal("a node without leaves"))?;
    let batch = leaves.get(column)?;
    let slots = (!lists.is_empty() || !batch.rep.is_empty()).then(|| slots_for(batch, lists));
    let slots = slots.transpose()?;
    let len = slots.as_ref().map_or(batch.entries, Vec::len);
    let def_at = |s: usize| batch.def.get(s).copied().unwrap_or(0);
    if let NodeKind::Leaf { conversion, .. } = &node.kind {
        let output = conversion.output();
        return leaf(node, output, leaves.get_mut(column)?, slots.as_deref());
    }
    let (validity, null_count) = if node.field.nullable && !batch.def.is_empty() {
        match &slots {
            Some(slots) => bitmap(slots.iter().map(|&(s, _)| def_at(s) >= node.def_level), len)?,
            None => bitmap(batch.def.iter().map(|&d| d >= node.def_level), len)?,
        }
    } else {
        (None, 0)
    };
    match &node.kind {
        NodeKind::Leaf { .. } => Err(Error::internal("leaves are built above")),
        NodeKind::Missing => Err(Error::internal("a missing field has no levels of its own")),
        NodeKind::Struct { children } => {
            let mut arrays = Vec::with_capacity(children.len());
            for child in children {
                let array = match child.kind {
                    NodeKind::Missing => null_array(&child.field, len)?,
                    _ => build(child, lists, leaves)?,
                };
                if array.len != len {
                    return Err(disagree(format_args!(
                        "'{}' has {} slots where '{}' has {len}",
                        child.field.name, array.len, node.field.name
                    )));
                }
                arrays.push(array);
            }
            Ok(ArrayData {
                data_type: node.field.data_type.clone(),
                len,
                offset: 0,
                null_count,
                validity,
                buffers: vec![],
                children: arrays,
                dictionary: None,
            })
        }
        NodeKind::List {
            element,
            element_def,
            rep_level,
        } => {
            let slots = match slots {
                Some(slots) => slots,
                None => (0..len).map(|i| (i, i + 1)).collect(),
            };
            let mut offsets = MutableBuffer::with_capacity((len + 1) * 4)?;
            let mut total = 0usize;
            offsets.push(0i32)?;
            for &(s, e) in &slots {
                if def_at(s) >= *element_def {
                    let more = batch.rep.get(s + 1..e).unwrap_or_default();
                    total += 1 + more.iter().filter(|&&r| r == *rep_level).count();
                }
                let end = i32::try_from(total).map_err(|_| {
                    Error::unsupported(
                        "a batch's list holds more than 2^31 elements; use a smaller batch size",
                    )
                })?;
                offsets.push(end)?;
            }
            lists.push((*element_def, *rep_level));
            let child = build(element, lists, leaves);
            lists.pop();
            let child = child?;
            if child.len != total {
                return Err(disagree(format_args!(
                    "'{}' has {} elements where its list has {total}",
                    element.field.name, child.len
                )));
            }
            Ok(ArrayData {
                data_type: node.field.data_type.clone(),
                len,
                offset: 0,
                null_count,
                validity,
                buffers: vec![offsets.freeze()],
                children: vec![child],
                dictionary: None,
            })
        }
    }
}

/// The slots of a node below `lists`, in the entries of `batch`'s leaf.
fn slots_for(batch: &LeafBatch, lists: &[(i16, i16)]) -> Result<Slots> {
    let entries = batch.entries;
    let mut slots: Slots = if batch.rep.is_empty() {
        (0..entries).map(|i| (i, i + 1)).collect()
    } else {
        let starts: Vec<usize> = (0..entries).filter(|&i| batch.rep[i] == 0).collect();
        starts
            .iter()
            .enumerate()
            .map(|(k, &s)| (s, starts.get(k + 1).copied().unwrap_or(entries)))
            .collect()
    };
    for &(element_def, rep_level) in lists {
        let mut elements = Vec::with_capacity(slots.len());
        for &(s, e) in &slots {
            if batch.def.get(s).copied().unwrap_or(0) < element_def {
                continue;
            }
            let mut start = s;
            for i in s + 1..e {
                if batch.rep.get(i).copied().unwrap_or(0) <= rep_level {
                    elements.push((start, i));
                    start = i;
                }
            }
            elements.push((start, e));
        }
        slots = elements;
    }
    Ok(slots)
}

/// A validity bitmap of `len` bits, or None if every bit is set, with the
/// number of clear bits.
fn bitmap(bits: impl Iterator<Item = bool>, len: usize) -> Result<(Option<Buffer>, usize)> {
    let mut buffer = MutableBuffer::with_capacity(bitmap_len(len))?;
    buffer.extend_zeros(bitmap_len(len))?;
    let bytes = buffer.as_mut_slice();
    let mut set = 0;
    for (i, bit) in bits.take(len).enumerate() {
        bytes[i / 8] |= u8::from(bit) << (i % 8);
        set += usize::from(bit);
    }
    let nulls = len - set;
    Ok(((nulls > 0).then(|| buffer.freeze()), nulls))
}

/// A leaf's array: its slots' validity, and its dense values spread over the
/// valid slots.
fn leaf(
    node: &ArrowNode,
    output: Output,
    batch: &mut LeafBatch,
    slots: Option<&[(usize, usize)]>,
) -> Result<ArrayData> {
    let max_def = node.def_level;
    let len = slots.map_or(batch.entries, <[_]>::len);
    if node.field.data_type == DataType::Null {
        return null_leaf(node, batch, len);
    }
    let (validity, null_count) = match slots {
        // Without nulls the bitmap is not even computed.
        None if batch.def.is_empty() || batch.count == len => (None, 0),
        None => bitmap(batch.def.iter().map(|&d| d >= max_def), len)?,
        Some(slots) => bitmap(
            slots
                .iter()
                .map(|&(s, _)| batch.def.get(s).is_some_and(|&d| d >= max_def)),
            len,
        )?,
    };
    if len - null_count != batch.count {
        return Err(disagree(format_args!(
            "column '{}' has {} values for {} non-null slots",
            node.field.name,
            batch.count,
            len - null_count
        )));
    }
    let valid = validity.as_ref().map(Buffer::as_slice);
    let (mut values, mut offsets) = batch.take_values();
    let dictionary = batch.dictionary.take();
    let mut data_type = node.field.data_type.clone();
    let buffers = match (output, &dictionary) {
        (_, Some(_)) => {
            data_type = DataType::Int32;
            spread_fixed::<i32>(&mut values, valid, len, batch.count)?;
            vec![values.freeze()]
        }
        (Output::Fixed(width), None) => {
            match width {
                1 => spread_fixed::<u8>(&mut values, valid, len, batch.count)?,
                2 => spread_fixed::<i16>(&mut values, valid, len, batch.count)?,
                4 => spread_fixed::<i32>(&mut values, valid, len, batch.count)?,
                8 => spread_fixed::<i64>(&mut values, valid, len, batch.count)?,
                16 => spread_fixed::<i128>(&mut values, valid, len, batch.count)?,
                _ => spread_bytes(&mut values, width, valid, len, batch.count)?,
            }
            vec![values.freeze()]
        }
        (Output::Boolean, None) => vec![pack_booleans(&values, valid, len)?],
        (Output::Bytes, None) => {
            if offsets.is_empty() {
                offsets.push(0i32)?;
            }
            spread_offsets(&mut offsets, valid, len, batch.count)?;
            vec![offsets.freeze(), values.freeze()]
        }
    };
    Ok(ArrayData {
        data_type,
        len,
        offset: 0,
        null_count,
        validity,
        buffers,
        children: vec![],
        dictionary: dictionary.map(Box::new),
    })
}

/// A column of logical type UNKNOWN: nulls, and no values.
fn null_leaf(node: &ArrowNode, batch: &LeafBatch, len: usize) -> Result<ArrayData> {
    if batch.count > 0 {
        return Err(Error::corrupt_data(format!(
            "column '{}' holds {} values, but its logical type UNKNOWN allows only nulls",
            node.field.name, batch.count
        )));
    }
    super::nulls::null_array(&node.field, len)
}

fn is_set(bits: &[u8], i: usize) -> bool {
    bits.get(i / 8).is_some_and(|b| b & (1 << (i % 8)) != 0)
}

/// Spreads `count` dense values over `len` slots, valid ones per `valid`
/// (all of them when None), in place from the back; null slots read 0.
fn spread_fixed<T: NativeType + Default>(
    values: &mut MutableBuffer,
    valid: Option<&[u8]>,
    len: usize,
    count: usize,
) -> Result<()> {
    let width = std::mem::size_of::<T>();
    values.extend_zeros((len - count) * width)?;
    let Some(valid) = valid else { return Ok(()) };
    let slots = values.typed_mut::<T>();
    let mut src = count;
    for i in (0..len).rev() {
        if src == i + 1 {
            // Every slot before is valid and already in place.
            break;
        }
        if is_set(valid, i) {
            src -= 1;
            slots[i] = slots[src];
        } else {
            slots[i] = T::default();
        }
    }
    Ok(())
}

/// [`spread_fixed`] for values of any width.
fn spread_bytes(
    values: &mut MutableBuffer,
    width: usize,
    valid: Option<&[u8]>,
    len: usize,
    count: usize,
) -> Result<()> {
    values.extend_zeros((len - count) * width)?;
    let Some(valid) = valid else { return Ok(()) };
    let bytes = values.as_mut_slice();
    let mut src = count;
    for i in (0..len).rev() {
        if src == i + 1 {
            break;
        }
        if is_set(valid, i) {
            src -= 1;
            bytes.copy_within(src * width..(src + 1) * width, i * width);
        } else {
            bytes[i * width..(i + 1) * width].fill(0);
        }
    }
    Ok(())
}

/// Spreads `count + 1` dense offsets over `len + 1`: a null slot repeats the
/// offset before it.
fn spread_offsets(
    offsets: &mut MutableBuffer,
    valid: Option<&[u8]>,
    len: usize,
    count: usize,
) -> Result<()> {
    offsets.extend_zeros((len - count) * 4)?;
    let Some(valid) = valid else { return Ok(()) };
    let slots = offsets.typed_mut::<i32>();
    // Writes go to i + 1 and reads come from src <= i + 1, so nothing is read
    // after it was overwritten.
    let mut src = count;
    for i in (0..len).rev() {
        slots[i + 1] = slots[src];
        if is_set(valid, i) {
            src -= 1;
        }
    }
    Ok(())
}

/// A bitmap of `len` booleans from dense bytes, false in null slots.
fn pack_booleans(dense: &MutableBuffer, valid: Option<&[u8]>, len: usize) -> Result<Buffer> {
    let dense = dense.as_slice();
    let mut src = 0;
    let bits = (0..len).map(|i| {
        if valid.is_some_and(|v| !is_set(v, i)) {
            return false;
        }
        let bit = dense.get(src).is_some_and(|&b| b != 0);
        src += 1;
        bit
    });
    let mut buffer = MutableBuffer::with_capacity(bitmap_len(len))?;
    buffer.extend_zeros(bitmap_len(len))?;
    let bytes = buffer.as_mut_slice();
    for (i, bit) in bits.enumerate() {
        bytes[i / 8] |= u8::from(bit) << (i % 8);
    }
    Ok(buffer.freeze())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bits(valid: &[bool]) -> Vec<u8> {
        let mut out = vec![0u8; valid.len().div_ceil(8)];
        for (i, &v) in valid.iter().enumerate() {
            out[i / 8] |= u8::from(v) << (i % 8);
        }
        out
    }

    #[test]
    fn spreading_places_values_in_valid_slots() {
        let valid = [false, true, true, false, true, false];
        let mut values = MutableBuffer::new();
        values.extend_from_slice(&[1i64, 2, 3]).unwrap();
        spread_fixed::<i64>(&mut values, Some(&bits(&valid)), 6, 3).unwrap();
        assert_eq!(values.typed::<i64>(), &[0, 1, 2, 0, 3, 0]);

        let mut values = MutableBuffer::new();
        values.extend_from_slice(&[1u8, 2, 3, 4, 5, 6]).unwrap();
        spread_bytes(&mut values, 2, Some(&bits(&valid)), 6, 3).unwrap();
        assert_eq!(values.as_slice(), &[0, 0, 1, 2, 3, 4, 0, 0, 5, 6, 0, 0]);

        let mut offsets = MutableBuffer::new();
        offsets.extend_from_slice(&[0i32, 2, 2, 5]).unwrap();
        spread_offsets(&mut offsets, Some(&bits(&valid)), 6, 3).unwrap();
        assert_eq!(offsets.typed::<i32>(), &[0, 0, 2, 2, 2, 5, 5]);

        let mut dense = MutableBuffer::new();
        dense.extend_from_slice(&[1u8, 0, 1]).unwrap();
        let packed = pack_booleans(&dense, Some(&bits(&valid)), 6).unwrap();
        assert_eq!(packed.as_slice(), &[0b0001_0010]);
    }

    #[test]
    fn list_slots_follow_the_levels() {
        // Rows: [[1, 2], null, [], [3]] of an optional list of required ints:
        // list slot valid at def >= 1, element at def >= 2.
        let batch = LeafBatch {
            def: vec![2, 2, 0, 1, 2],
            rep: vec![0, 1, 0, 0, 0],
            entries: 5,
            ..LeafBatch::default()
        };
        let top = slots_for(&batch, &[]).unwrap();
        assert_eq!(top, vec![(0, 2), (2, 3), (3, 4), (4, 5)]);
        let elements = slots_for(&batch, &[(2, 1)]).unwrap();
        assert_eq!(elements, vec![(0, 1), (1, 2), (4, 5)]);
    }
}
