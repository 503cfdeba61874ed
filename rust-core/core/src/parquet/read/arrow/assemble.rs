//! A batch's Arrow arrays, built from the levels and dense values its leaf
//! columns read.
//!
//! A *slot* is one element of an Arrow array at some level of nesting. At the
//! top, each row is a slot; a list's element slots are found inside its own
//! slots. A node's slots are read from the levels of one leaf (the first below
//! the node, whose levels carry every ancestor's structure), and each slot
//! *starts* at one of its level entries:
//!
//! - the slots of a node below no list start at the entries with repetition
//!   level 0 (every entry, in a column without repetition);
//! - the slots of a node inside lists are the elements of the innermost list:
//!   they start at the entries whose repetition level is at most that list's
//!   and whose definition level reaches its element level (a lower definition
//!   level means that the list, or an ancestor, is null or empty, so the entry
//!   holds no element; a higher repetition level continues an element);
//! - a slot is non-null if the definition level of its first entry reaches the
//!   node's own level;
//! - a list slot's elements are the element starts from its own start up to the
//!   next slot's;
//! - a leaf's valid slots take the leaf's dense values in order.
//!
//! So every node is one pass over its leaf's levels, whatever the depth: no
//! slot lists are built, and a column without repetition takes its validity
//! straight from the definition levels (without nulls, its values buffer is the
//! array's as decoded).

use crate::arrow::bitmap::bitmap_len;
use crate::arrow::buffer::{Buffer, NativeType};
use crate::arrow::{ArrayData, DataType, MutableBuffer};
use crate::error::{Error, Result};
use crate::parquet::read::column::{LeafBatch, Output};

use super::nulls::null_array;
use super::tree::{ArrowNode, NodeKind};

/// The batches of a batch's leaves, by column index.
pub(crate) struct Leaves<'a> {
    columns: &'a [usize],
    batches: &'a mut [LeafBatch],
}

impl<'a> Leaves<'a> {
    /// `batches[i]` holds column `columns[i]`.
    pub(crate) fn new(columns: &'a [usize], batches: &'a mut [LeafBatch]) -> Leaves<'a> {
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
pub(crate) fn assemble(node: &ArrowNode, leaves: &mut Leaves<'_>) -> Result<ArrayData> {
    build(node, None, leaves)
}

fn disagree(what: impl std::fmt::Display) -> Error {
    Error::corrupt_data(format!(
        "the column chunks disagree about the nesting: {what}"
    ))
}

/// Which level entries start a node's slots (see the module's description).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Starts {
    /// Every entry: the node is below no list and its leaf has no repetition.
    Every,
    /// The entries whose repetition level is at most `rep` and whose definition
    /// level is at least `def`.
    Where { def: i16, rep: i16 },
}

/// `list` is the (element level, repetition level) of the innermost list above
/// `node`, if any.
fn build(node: &ArrowNode, list: Option<(i16, i16)>, leaves: &mut Leaves<'_>) -> Result<ArrayData> {
    let column = node
        .first_column()
        .ok_or_else(|| Error::internal("a node without leaves"))?;
    let batch = leaves.get(column)?;
    let starts = match list {
        Some((def, rep)) => Starts::Where { def, rep },
        None if batch.rep.is_empty() => Starts::Every,
        None => Starts::Where { def: 0, rep: 0 },
    };
    if let NodeKind::Leaf { conversion, .. } = &node.kind {
        let output = conversion.output();
        return leaf(node, output, leaves.get_mut(column)?, starts);
    }
    let levels = Levels::new(batch, starts)?;
    let slots = levels.slots(node.def_level, node.field.nullable)?;
    let len = slots.len;
    match &node.kind {
        NodeKind::Leaf { .. } => Err(Error::internal("leaves are built above")),
        NodeKind::Missing => Err(Error::internal("a missing field has no levels of its own")),
        NodeKind::Struct { children } => {
            let mut arrays = Vec::with_capacity(children.len());
            for child in children {
                let array = match child.kind {
                    NodeKind::Missing => null_array(&child.field, len)?,
                    _ => build(child, list, leaves)?,
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
                null_count: slots.nulls,
                validity: slots.validity,
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
            let (offsets, total) = levels.offsets(len, *element_def, *rep_level)?;
            let child = build(element, Some((*element_def, *rep_level)), leaves)?;
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
                null_count: slots.nulls,
                validity: slots.validity,
                buffers: vec![offsets],
                children: vec![child],
                dictionary: None,
            })
        }
    }
}

/// A node's slots in one batch: how many, and which are null.
#[derive(Debug)]
struct Slots {
    len: usize,
    /// None when no slot is null.
    validity: Option<Buffer>,
    nulls: usize,
}

/// The levels of a node's first leaf, checked to cover its entries, and
/// which of them start the node's slots.
struct Levels<'a> {
    /// Empty for [`Starts::Every`] when every entry is defined.
    def: &'a [i16],
    /// Empty for [`Starts::Every`].
    rep: &'a [i16],
    entries: usize,
    starts: Starts,
}

impl<'a> Levels<'a> {
    fn new(batch: &'a LeafBatch, starts: Starts) -> Result<Levels<'a>> {
        let entries = batch.entries;
        let covered = match starts {
            Starts::Every => batch.def.is_empty() || batch.def.len() == entries,
            Starts::Where { .. } => batch.def.len() == entries && batch.rep.len() == entries,
        };
        if !covered {
            return Err(Error::internal(format!(
                "a leaf batch of {entries} entries holds {} definition and {} repetition levels",
                batch.def.len(),
                batch.rep.len()
            )));
        }
        Ok(Levels {
            def: &batch.def,
            rep: &batch.rep,
            entries,
            starts,
        })
    }

    /// The slots, and with `nullable` their validity: non-null where the
    /// definition level of the slot's start reaches `level`.
    fn slots(&self, level: i16, nullable: bool) -> Result<Slots> {
        match self.starts {
            Starts::Every if !nullable || self.def.is_empty() => Ok(Slots {
                len: self.entries,
                validity: None,
                nulls: 0,
            }),
            Starts::Every => entry_bitmap(self.def, level),
            Starts::Where { def, rep } if !nullable => Ok(Slots {
                len: self.count(def, rep),
                validity: None,
                nulls: 0,
            }),
            Starts::Where { def, rep } => start_bitmap(self.def, self.rep, (def, rep), level),
        }
    }

    /// How many entries have a repetition level at most `rep` and a definition
    /// level at least `def`.
    fn count(&self, def: i16, rep: i16) -> usize {
        self.rep
            .iter()
            .zip(self.def)
            .map(|(&r, &d)| usize::from((r <= rep) & (d >= def)))
            .sum()
    }

    /// The `len + 1` offsets of a list whose `len` slots start here and whose
    /// elements start at the entries with a repetition level at most `rep` and
    /// a definition level at least `def`; and how many elements there are.
    fn offsets(&self, len: usize, def: i16, rep: i16) -> Result<(Buffer, usize)> {
        let Starts::Where {
            def: slot_def,
            rep: slot_rep,
        } = self.starts
        else {
            return Err(Error::internal(
                "a list whose leaf has no repetition levels",
            ));
        };
        if i32::try_from(self.entries).is_err() {
            return Err(Error::unsupported(
                "a batch's list holds more than 2^31 elements; use a smaller batch size",
            ));
        }
        let mut buffer = MutableBuffer::with_capacity((len + 1) * 4)?;
        buffer.extend_zeros((len + 1) * 4)?;
        let offsets = buffer.typed_mut::<i32>();
        let (mut slot, mut total) = (0usize, 0u32);
        // Whether the slot before the next entry holds elements.
        let mut open = false;
        let mut stray = false;
        for (defs, reps) in self.def.chunks(WORD).zip(self.rep.chunks(WORD)) {
            let boundaries = mask(reps, |r| r <= slot_rep);
            let mut starts = boundaries & mask(defs, |d| d >= slot_def);
            let listed = mask(reps, |r| r <= rep);
            let elements = listed & mask(defs, |d| d >= def);
            let entries = u64::MAX >> (WORD - reps.len());
            if listed == entries {
                stray |= strays(boundaries, elements, entries, open);
                open = (elements >> (reps.len() - 1)) & 1 == 1;
            } else {
                let (strayed, still_open) = strays_by_entry(reps, defs, (slot_rep, rep, def), open);
                (stray, open) = (stray | strayed, still_open);
            }
            while starts != 0 {
                let before = (1u64 << starts.trailing_zeros()) - 1;
                if let Some(offset) = offsets.get_mut(slot) {
                    *offset = (total + (elements & before).count_ones()) as i32;
                }
                slot += 1;
                starts &= starts - 1;
            }
            total += elements.count_ones();
        }
        offsets[len] = total as i32;
        if stray {
            return Err(disagree(
                "an entry adds an element to a list that is null or empty, or adds none",
            ));
        }
        Ok((buffer.freeze(), total as usize))
    }
}

/// Whether a word of entries, all at a list's level or above, holds one to
/// refuse: an entry that is not a boundary goes on with the current slot, so
/// it must add an element, right after an element (`open`: the entry before
/// the word is one). In a well-formed list only elements go on with a slot,
/// so this tells what [`strays_by_entry`] tells, without its state.
fn strays(boundaries: u64, elements: u64, entries: u64, open: bool) -> bool {
    let goes_on = !boundaries & entries;
    let after_element = (elements << 1) | u64::from(open);
    goes_on & !(elements & after_element) != 0
}

/// [`strays`] for entries some of which are below the list's level (deeper
/// lists go on there), entry by entry: the slot is open from a boundary that
/// is an element to the next boundary. Also returns whether it is open after.
fn strays_by_entry(rep: &[i16], def: &[i16], levels: (i16, i16, i16), open: bool) -> (bool, bool) {
    let (slot_rep, list_rep, element_def) = levels;
    let (mut open, mut stray) = (open, false);
    for (&r, &d) in rep.iter().zip(def) {
        // `&`, not `&&`: the levels vary at random, so branches mispredict.
        let boundary = r <= slot_rep;
        let element = (r <= list_rep) & (d >= element_def);
        stray |= !boundary & (r <= list_rep) & !(element & open);
        open = (boundary & element) | (!boundary & open);
    }
    (stray, open)
}

/// Level entries per mask word.
const WORD: usize = 64;

/// Bit `j` set where `test(levels[j])`, for up to [`WORD`] levels. The tests
/// go to a byte each, which the compiler vectorises, and eight bytes of 0 or
/// 1 become eight bits in one multiplication (byte `k` lands on bit `56 + k`
/// and nothing else reaches the top byte).
#[inline(always)]
fn mask(levels: &[i16], test: impl Fn(i16) -> bool) -> u64 {
    let mut bytes = [0u8; WORD];
    for (byte, &level) in bytes.iter_mut().zip(levels) {
        *byte = u8::from(test(level));
    }
    let mut word = 0;
    for (k, group) in bytes.chunks_exact(8).enumerate() {
        let group = u64::from_le_bytes(group.try_into().unwrap_or_default());
        word |= (group.wrapping_mul(0x0102_0408_1020_4080) >> 56) << (8 * k);
    }
    word
}

/// The bits of `x` where `m` is set, moved down to the lowest bits in order
/// (x86's PEXT, which baseline x86-64 lacks): six rounds of parallel prefix
/// steps, as in Hacker's Delight (7-4), far fewer operations than a bit at a
/// time.
fn compress(x: u64, mut m: u64) -> u64 {
    if m == u64::MAX {
        return x;
    }
    let mut x = x & m;
    // Bits with a 0 of `m` to their right, an odd number of which is the
    // distance a bit moves in each round.
    let mut mk = !m << 1;
    for round in 0..6 {
        let mut mp = mk ^ (mk << 1);
        mp ^= mp << 2;
        mp ^= mp << 4;
        mp ^= mp << 8;
        mp ^= mp << 16;
        mp ^= mp << 32;
        let mv = mp & m;
        m = (m ^ mv) | (mv >> (1 << round));
        let t = x & mv;
        x = (x ^ t) | (t >> (1 << round));
        mk &= !mp;
    }
    x
}

/// The slot validity of every entry: non-null where the definition level
/// reaches `level`.
fn entry_bitmap(def: &[i16], level: i16) -> Result<Slots> {
    let mut buffer = zeroed_words(def.len())?;
    for (word, chunk) in buffer.typed_mut::<u64>().iter_mut().zip(def.chunks(WORD)) {
        *word = mask(chunk, |d| d >= level);
    }
    Ok(finish_bitmap(buffer, def.len()))
}

/// The slot validity of the entries that start slots (repetition level at
/// most `starts.1`, definition level at least `starts.0`): non-null where the
/// definition level reaches `level`. The starts of 64 entries at a time take
/// their bits out of the word of all 64.
fn start_bitmap(def: &[i16], rep: &[i16], starts: (i16, i16), level: i16) -> Result<Slots> {
    let (start_def, start_rep) = starts;
    // A word more, so that a word's bits can spill into the next one.
    let mut buffer = zeroed_words(def.len() + WORD)?;
    let words = buffer.typed_mut::<u64>();
    let mut len = 0;
    for (def, rep) in def.chunks(WORD).zip(rep.chunks(WORD)) {
        let starts = mask(rep, |r| r <= start_rep) & mask(def, |d| d >= start_def);
        let bits = compress(mask(def, |d| d >= level), starts);
        let (at, shift) = (len / WORD, len % WORD);
        if let [first, second, ..] = &mut words[at..] {
            *first |= bits << shift;
            // Shifted in two steps, so that a shift of 0 moves nothing out.
            *second |= (bits >> 1) >> (WORD - 1 - shift);
        }
        len += starts.count_ones() as usize;
    }
    Ok(finish_bitmap(buffer, len))
}

/// Zeroed whole words for a bitmap of up to `bits` bits.
fn zeroed_words(bits: usize) -> Result<MutableBuffer> {
    let bytes = bits.div_ceil(WORD) * 8;
    let mut buffer = MutableBuffer::with_capacity(bytes)?;
    buffer.extend_zeros(bytes)?;
    Ok(buffer)
}

/// The slots of a bitmap whose first `len` bits are written (the rest clear).
fn finish_bitmap(mut buffer: MutableBuffer, len: usize) -> Slots {
    let set: usize = buffer
        .typed::<u64>()
        .iter()
        .map(|w| w.count_ones() as usize)
        .sum();
    buffer.truncate(bitmap_len(len));
    let nulls = len.saturating_sub(set);
    Slots {
        len,
        validity: (nulls > 0).then(|| buffer.freeze()),
        nulls,
    }
}

/// A leaf's array: its slots' validity, and its dense values spread over the
/// valid slots. A leaf's validity does not depend on its field's nullability:
/// a required field is null below a null ancestor.
fn leaf(
    node: &ArrowNode,
    output: Output,
    batch: &mut LeafBatch,
    starts: Starts,
) -> Result<ArrayData> {
    let levels = Levels::new(batch, starts)?;
    let slots = match starts {
        // Without nulls the bitmap is not even computed.
        Starts::Every if batch.count == batch.entries => Slots {
            len: batch.entries,
            validity: None,
            nulls: 0,
        },
        _ => levels.slots(node.def_level, true)?,
    };
    let len = slots.len;
    if node.field.data_type == DataType::Null {
        return null_leaf(node, batch, len);
    }
    if len - slots.nulls != batch.count {
        return Err(disagree(format_args!(
            "column '{}' has {} values for {} non-null slots",
            node.field.name,
            batch.count,
            len - slots.nulls
        )));
    }
    let valid = slots.validity.as_ref().map(Buffer::as_slice);
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
        null_count: slots.nulls,
        validity: slots.validity,
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

/// Word `w` of a validity bitmap (bits `64 w` on), zero past its end.
fn valid_word(valid: &[u8], w: usize) -> u64 {
    let part = valid.get(w * 8..).unwrap_or_default();
    let mut bytes = [0u8; 8];
    let n = part.len().min(8);
    bytes[..n].copy_from_slice(&part[..n]);
    u64::from_le_bytes(bytes)
}

/// Spreads `count` dense values over `len` slots, valid ones per `valid`
/// (all of them when None), in place from the back; null slots read 0.
/// A word of valid slots moves in one copy; in the others every slot is
/// written with a select rather than a branch, since nulls scattered at
/// random would mispredict one. Stops where the slots before are all valid,
/// as they are then in place.
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
    // `src` counts the valid slots before `end`, so it never passes `end`.
    let (mut src, mut end) = (count, len);
    while src < end {
        let start = (end - 1) / WORD * WORD;
        let word = valid_word(valid, start / WORD);
        let n = end - start;
        if word == u64::MAX >> (WORD - n) && src >= n && end <= slots.len() {
            slots.copy_within(src - n..src, start);
            src -= n;
        } else {
            for i in (start..end).rev() {
                let set = (word >> (i - start)) & 1 == 1;
                src = src.saturating_sub(usize::from(set));
                let value = slots.get(src).copied().unwrap_or_default();
                if let Some(slot) = slots.get_mut(i) {
                    *slot = if set { value } else { T::default() };
                }
            }
        }
        end = start;
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
/// offset before it. A word at a time, as [`spread_fixed`].
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
    let (mut src, mut end) = (count, len);
    while src < end {
        let start = (end - 1) / WORD * WORD;
        let word = valid_word(valid, start / WORD);
        let n = end - start;
        if word == u64::MAX >> (WORD - n) && src >= n && end < slots.len() {
            slots.copy_within(src + 1 - n..src + 1, start + 1);
            src -= n;
        } else {
            for i in (start..end).rev() {
                let offset = slots.get(src).copied().unwrap_or_default();
                if let Some(slot) = slots.get_mut(i + 1) {
                    *slot = offset;
                }
                src = src.saturating_sub(((word >> (i - start)) & 1) as usize);
            }
        }
        end = start;
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
    use crate::arrow::Field;
    use crate::error::Status;
    use crate::parquet::read::column::Conversion;

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
    fn spreading_moves_whole_words_of_valid_slots() {
        // A null in the first word, none in the next two, one in the last.
        let len = 64 * 3 + 10;
        let valid: Vec<bool> = (0..len).map(|i| i != 5 && i != len - 3).collect();
        let dense: Vec<i64> = (1..=len as i64 - 2).collect();
        let mut values = MutableBuffer::new();
        values.extend_from_slice(&dense).unwrap();
        spread_fixed::<i64>(&mut values, Some(&bits(&valid)), len, dense.len()).unwrap();
        let mut next = dense.iter();
        let expected: Vec<i64> = valid
            .iter()
            .map(|&v| if v { *next.next().unwrap() } else { 0 })
            .collect();
        assert_eq!(values.typed::<i64>(), expected);

        let dense: Vec<i32> = (0..len as i32 - 1).map(|i| i * 2).collect();
        let mut offsets = MutableBuffer::new();
        offsets.extend_from_slice(&dense).unwrap();
        spread_offsets(&mut offsets, Some(&bits(&valid)), len, dense.len() - 1).unwrap();
        let mut at = 0;
        let mut expected = vec![0];
        for &v in &valid {
            at += usize::from(v);
            expected.push(dense[at]);
        }
        assert_eq!(offsets.typed::<i32>(), expected);
    }

    #[test]
    fn bitmaps_pack_whole_words_and_tails() {
        for len in [0, 1, 63, 64, 65, 130] {
            let def: Vec<i16> = (0..len).map(|i| (i % 3 != 1) as i16).collect();
            let expected: Vec<bool> = def.iter().map(|&d| d >= 1).collect();
            let nulls = expected.iter().filter(|v| !**v).count();
            let slots = entry_bitmap(&def, 1).unwrap();
            assert_eq!((slots.len, slots.nulls), (len, nulls));
            let bytes = slots.validity.as_ref().map(|b| b.as_slice().to_vec());
            assert_eq!(bytes, (nulls > 0).then(|| bits(&expected)), "len {len}");
            // Every other entry continues a list, so only the rest are slots.
            let rep: Vec<i16> = (0..2 * len).map(|i| (i % 2) as i16).collect();
            let doubled: Vec<i16> = def.iter().flat_map(|&d| [d, 1]).collect();
            let slots = start_bitmap(&doubled, &rep, (0, 0), 1).unwrap();
            assert_eq!((slots.len, slots.nulls), (len, nulls));
            let bytes = slots.validity.as_ref().map(|b| b.as_slice().to_vec());
            assert_eq!(bytes, (nulls > 0).then(|| bits(&expected)), "len {len}");
        }
    }

    #[test]
    fn compress_keeps_the_masked_bits_in_order() {
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for case in 0..2000 {
            let (x, m) = match case {
                0 => (u64::MAX, 0),
                1 => (u64::MAX, u64::MAX),
                2 => (0x8000_0000_0000_0001, 0x8000_0000_0000_0001),
                _ => (next(), next() & next()),
            };
            let mut expected = 0u64;
            let mut at = 0;
            for i in 0..64 {
                if m >> i & 1 == 1 {
                    expected |= (x >> i & 1) << at;
                    at += 1;
                }
            }
            assert_eq!(compress(x, m), expected, "{x:#x} by {m:#x}");
        }
    }

    fn int_leaf(name: &str, column: usize, def_level: i16, nullable: bool) -> ArrowNode {
        ArrowNode {
            field: Field::new(name, DataType::Int32, nullable),
            field_id: None,
            def_level,
            kind: NodeKind::Leaf {
                column,
                conversion: Conversion::Int32,
            },
        }
    }

    fn struct_node(name: &str, def_level: i16, children: Vec<ArrowNode>) -> ArrowNode {
        let fields = children.iter().map(|c| c.field.clone()).collect();
        ArrowNode {
            field: Field::new(name, DataType::Struct, true).with_children(fields),
            field_id: None,
            def_level,
            kind: NodeKind::Struct { children },
        }
    }

    /// An optional list at `def_level` whose elements are at `element_def`.
    fn list_node(name: &str, def_level: i16, levels: (i16, i16), element: ArrowNode) -> ArrowNode {
        ArrowNode {
            field: Field::new(name, DataType::List, true)
                .with_children(vec![element.field.clone()]),
            field_id: None,
            def_level,
            kind: NodeKind::List {
                element: Box::new(element),
                element_def: levels.0,
                rep_level: levels.1,
            },
        }
    }

    fn int_batch(def: &[i16], rep: &[i16], values: &[i32]) -> LeafBatch {
        let mut batch = LeafBatch {
            def: def.to_vec(),
            rep: rep.to_vec(),
            entries: def.len(),
            count: values.len(),
            ..LeafBatch::default()
        };
        batch.values.extend_from_slice(values).unwrap();
        batch
    }

    fn run(node: &ArrowNode, batches: Vec<LeafBatch>) -> Result<ArrayData> {
        let columns: Vec<usize> = (0..batches.len()).collect();
        let mut batches = batches;
        assemble(node, &mut Leaves::new(&columns, &mut batches))
    }

    fn validity(array: &ArrayData) -> Vec<bool> {
        let bits = array.validity.as_ref().map(Buffer::as_slice);
        (0..array.len)
            .map(|i| bits.is_none_or(|b| is_set(b, i)))
            .collect()
    }

    fn ints(buffer: &Buffer) -> Vec<i32> {
        buffer
            .as_slice()
            .chunks_exact(4)
            .map(|c| i32::from_le_bytes(c.try_into().unwrap()))
            .collect()
    }

    /// `[[1, null], null, []]`, null, `[]`, `[[2], [null, 3]]` in an optional
    /// list of optional lists of optional ints: nulls and empties at each level.
    #[test]
    fn lists_of_lists_take_their_slots_from_the_innermost_list() {
        let inner = list_node("inner", 3, (4, 2), int_leaf("x", 0, 5, true));
        let outer = list_node("outer", 1, (2, 1), inner);
        let batch = int_batch(
            &[5, 4, 2, 3, 0, 1, 5, 4, 5],
            &[0, 2, 1, 1, 0, 0, 0, 1, 2],
            &[1, 2, 3],
        );
        let array = run(&outer, vec![batch]).unwrap();
        assert_eq!(validity(&array), [true, false, true, true]);
        assert_eq!(ints(&array.buffers[0]), [0, 3, 3, 3, 5]);
        let inner = &array.children[0];
        assert_eq!(validity(inner), [true, false, true, true, true]);
        assert_eq!(ints(&inner.buffers[0]), [0, 2, 2, 2, 3, 5]);
        let leaf = &inner.children[0];
        assert_eq!(validity(leaf), [true, false, true, false, true]);
        assert_eq!(ints(&leaf.buffers[0]), [1, 0, 2, 0, 3]);
        assert_eq!(leaf.null_count, 2);
    }

    /// Lists longer than a word of entries, in lists and alone, with null and
    /// empty lists between them.
    #[test]
    fn long_lists_go_on_across_words() {
        let (mut def, mut rep, mut values) = (vec![], vec![], vec![]);
        for (row, len) in [100, 0, 0, 70, 0, 65].into_iter().enumerate() {
            if len == 0 {
                // Alternately a null and an empty list.
                def.push(if row % 2 == 1 { 0 } else { 1 });
                rep.push(0);
            }
            for k in 0..len {
                def.push(if k % 7 == 3 { 2 } else { 3 });
                rep.push(i16::from(k > 0));
                if k % 7 != 3 {
                    values.push(k);
                }
            }
        }
        let list = list_node("l", 1, (2, 1), int_leaf("x", 0, 3, true));
        let array = run(&list, vec![int_batch(&def, &rep, &values)]).unwrap();
        assert_eq!(ints(&array.buffers[0]), [0, 100, 100, 100, 170, 170, 235]);
        assert_eq!(validity(&array), [true, false, true, true, true, true]);
        let leaf = &array.children[0];
        assert_eq!(leaf.len, 235);
        let expected: Vec<bool> = [100, 70, 65]
            .into_iter()
            .flat_map(|n| (0..n).map(|k| k % 7 != 3))
            .collect();
        assert_eq!(validity(leaf), expected);

        // The same rows as the only element of an outer list each: the inner
        // list's entries now go on below the outer list's level.
        let outer = list_node(
            "o",
            1,
            (2, 1),
            list_node("l", 3, (4, 2), int_leaf("x", 0, 5, true)),
        );
        let def: Vec<i16> = def.iter().map(|&d| d + 2).collect();
        let rep: Vec<i16> = rep.iter().map(|&r| if r == 0 { 0 } else { 2 }).collect();
        let array = run(&outer, vec![int_batch(&def, &rep, &values)]).unwrap();
        assert_eq!(ints(&array.buffers[0]), [0, 1, 2, 3, 4, 5, 6]);
        let inner = &array.children[0];
        assert_eq!(ints(&inner.buffers[0]), [0, 100, 100, 100, 170, 170, 235]);
        assert_eq!(validity(&inner.children[0]), expected);
    }

    /// `s: struct<l: list<struct<a: int, b: required int>>>` with rows
    /// `{[{1,10}, null, {null,11}]}`, null, `{null}`, `{[]}`, `{[{2,12}]}`.
    fn struct_list_struct() -> (ArrowNode, LeafBatch, LeafBatch) {
        let mut b = int_leaf("b", 1, 4, false);
        b.field.nullable = false;
        let element = struct_node("element", 4, vec![int_leaf("a", 0, 5, true), b]);
        let node = struct_node("s", 1, vec![list_node("l", 2, (3, 1), element)]);
        let rep = [0, 1, 1, 0, 0, 0, 0];
        let a = int_batch(&[5, 3, 4, 0, 1, 2, 5], &rep, &[1, 2]);
        let b = int_batch(&[4, 3, 4, 0, 1, 2, 4], &rep, &[10, 11, 12]);
        (node, a, b)
    }

    #[test]
    fn structs_inside_lists_inside_structs_share_the_element_slots() {
        let (node, a, b) = struct_list_struct();
        let array = run(&node, vec![a, b]).unwrap();
        assert_eq!(validity(&array), [true, false, true, true, true]);
        let list = &array.children[0];
        assert_eq!(validity(list), [true, false, false, true, true]);
        assert_eq!(ints(&list.buffers[0]), [0, 3, 3, 3, 3, 4]);
        let element = &list.children[0];
        assert_eq!(validity(element), [true, false, true, true]);
        let (a, b) = (&element.children[0], &element.children[1]);
        assert_eq!(validity(a), [true, false, false, true]);
        assert_eq!(ints(&a.buffers[0]), [1, 0, 0, 2]);
        assert_eq!(
            validity(b),
            [true, false, true, true],
            "null below a null element"
        );
        assert_eq!(ints(&b.buffers[0]), [10, 0, 11, 12]);
    }

    #[test]
    fn leaves_that_disagree_about_the_slots_are_corrupt() {
        let (node, a, _) = struct_list_struct();
        // b's second row holds an element more than a's.
        let b = int_batch(
            &[4, 3, 4, 0, 4, 2, 4],
            &[0, 1, 1, 0, 1, 0, 0],
            &[10, 11, 0, 12],
        );
        let error = run(&node, vec![a, b]).unwrap_err();
        assert_eq!(error.status(), Status::CorruptData);
        assert_eq!(
            error.message(),
            "the column chunks disagree about the nesting: 'b' has 5 slots where 'element' has 4"
        );
        // An element continuing a null list.
        let list = list_node("l", 1, (2, 1), int_leaf("x", 0, 3, true));
        let batch = int_batch(&[0, 3], &[0, 1], &[7]);
        let error = run(&list, vec![batch]).unwrap_err();
        assert_eq!(error.status(), Status::CorruptData);
        // An element below the element level.
        let batch = int_batch(&[3, 1], &[0, 1], &[7]);
        let error = run(&list, vec![batch]).unwrap_err();
        assert_eq!(error.status(), Status::CorruptData);
        // An inner element continuing an inner list across a null outer one.
        let inner = list_node("inner", 3, (4, 2), int_leaf("x", 0, 5, true));
        let outer = list_node("outer", 1, (2, 1), inner);
        let batch = int_batch(&[5, 0, 5], &[0, 0, 2], &[1, 2]);
        let error = run(&outer, vec![batch]).unwrap_err();
        assert_eq!(
            error.message(),
            "the column chunks disagree about the nesting: an entry adds an element to a list \
             that is null or empty, or adds none"
        );
    }

    #[test]
    fn flat_structs_read_validity_from_the_levels() {
        let node = struct_node("s", 1, vec![int_leaf("x", 0, 2, true)]);
        let def: Vec<i16> = (0..100).map(|i| [2, 1, 0, 2][i % 4]).collect();
        let values: Vec<i32> = (0..50).collect();
        let array = run(&node, vec![int_batch(&def, &[], &values)]).unwrap();
        assert_eq!(array.null_count, 25);
        assert_eq!(
            validity(&array),
            def.iter().map(|&d| d >= 1).collect::<Vec<_>>()
        );
        let x = &array.children[0];
        assert_eq!(x.null_count, 50);
        let expected: Vec<i32> = (0..100)
            .map(|i| if i % 4 == 0 || i % 4 == 3 { i / 2 } else { 0 })
            .collect();
        assert_eq!(ints(&x.buffers[0]), expected);
    }
}
