//! Validation: an array, whether C structs from another producer or an
//! [`ArrayData`] built here, checked against its [`Field`]. What passes becomes an
//! [`ArrayView`], whose accessors can then trust every length and offset.
//!
//! Both sources go through one validator via `RawNode`, so the library holds
//! its own arrays to the rules it holds its callers to.

use std::ffi::c_void;
use std::marker::PhantomData;
use std::ops::Range;
use std::ptr::NonNull;

use super::array::ArrayData;
use super::bitmap::{bitmap_len, count_set_bits, get_bit};
use super::datatype::{DataType, Layout};
use super::field::{Field, FieldPath};
use crate::error::Result;

/// How much of an array to check.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Checks {
    /// Everything: also per-value rules (offsets monotonic, UTF-8, dictionary
    /// indices in range, null counts matching their bitmaps).
    Full,
    /// What keeps a consumer's reads in bounds when it trusts the values: counts,
    /// buffer sizes, first and last offsets, child lengths. O(1) per array level.
    Structure,
}

/// One buffer of a node as the validator receives it.
pub(crate) enum RawBuffer<'a> {
    Null,
    /// Memory of known extent, checked against what the layout needs.
    Slice(&'a [u8]),
    /// A producer's pointer, whose extent only the layout tells.
    Foreign(NonNull<u8>, PhantomData<&'a [u8]>),
}

impl<'a> RawBuffer<'a> {
    /// # Safety
    /// `ptr` is NULL, or readable and unchanging for `'a` for as many bytes as the
    /// layout of the array it belongs to requires.
    pub(crate) unsafe fn foreign(ptr: *const c_void) -> RawBuffer<'a> {
        NonNull::new(ptr.cast::<u8>().cast_mut())
            .map_or(RawBuffer::Null, |ptr| RawBuffer::Foreign(ptr, PhantomData))
    }

    /// Checks that memory of known extent holds `bytes` without making a slice of
    /// a foreign pointer, which may be dangling where nothing is to be read.
    fn check_extent(&self, bytes: usize) -> Result<(), String> {
        match self {
            RawBuffer::Slice(slice) if slice.len() < bytes => {
                Err(format!("has {} bytes but needs {bytes}", slice.len()))
            }
            _ => Ok(()),
        }
    }

    /// The first `bytes` bytes, or None for a NULL pointer. Errors complete the
    /// phrase "buffer N ...".
    fn take(self, bytes: usize) -> Result<Option<&'a [u8]>, String> {
        match self {
            RawBuffer::Null => Ok(None),
            RawBuffer::Slice(slice) => {
                self.check_extent(bytes)?;
                Ok(Some(&slice[..bytes]))
            }
            RawBuffer::Foreign(ptr, _) => {
                let address = ptr.as_ptr() as usize;
                if bytes > isize::MAX as usize || address.checked_add(bytes).is_none() {
                    return Err(format!(
                        "would span {bytes} bytes from {address:#x}, past the address space"
                    ));
                }
                // SAFETY: `foreign`'s contract covers the bytes the layout requires,
                // which is what the validator asks for; the extent fits the address space.
                Ok(Some(unsafe {
                    std::slice::from_raw_parts(ptr.as_ptr(), bytes)
                }))
            }
        }
    }
}

/// One level of an array as the validator reads it. Errors are phrases that the
/// validator prefixes with the field's path.
pub(crate) trait RawNode<'a>: Sized {
    /// The type the node claims, if it carries one: `ArrayData` does, C structs
    /// leave it to the schema.
    fn data_type(&self) -> Option<&DataType>;
    fn length(&self) -> Result<usize, String>;
    fn offset(&self) -> Result<usize, String>;
    /// None when not computed (the C Data Interface's -1).
    fn null_count(&self) -> Result<Option<usize>, String>;
    fn n_buffers(&self) -> Result<usize, String>;
    /// Buffer `i < n_buffers`, validity first.
    fn buffer(&self, i: usize) -> Result<RawBuffer<'a>, String>;
    fn n_children(&self) -> Result<usize, String>;
    /// Child `i < n_children`.
    fn child(&self, i: usize) -> Result<Self, String>;
    fn dictionary(&self) -> Result<Option<Self>, String>;
}

/// A validated, read-only array level. Indices given to the accessors are logical
/// (`0..len`); the array's offset is applied inside. Accessors panic on indices
/// out of range, as slices do, and on a type they do not apply to.
#[derive(Debug)]
pub struct ArrayView<'a> {
    field: &'a Field,
    layout: Layout,
    len: usize,
    offset: usize,
    null_count: usize,
    /// None when no slot in range is null.
    validity: Option<&'a [u8]>,
    /// The buffers after validity, each cut to the bytes the array spans.
    buffers: Vec<&'a [u8]>,
    children: Vec<ArrayView<'a>>,
    dictionary: Option<Box<ArrayView<'a>>>,
}

impl<'a> ArrayView<'a> {
    /// Validates `data` completely against `field`.
    pub fn from_data(data: &'a ArrayData, field: &'a Field) -> Result<ArrayView<'a>> {
        validate(&data, field, Checks::Full)
    }

    /// The type of this level: for a dictionary-encoded array, the index type.
    pub fn data_type(&self) -> &'a DataType {
        &self.field.data_type
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub(crate) fn offset(&self) -> usize {
        self.offset
    }

    pub(crate) fn layout(&self) -> Layout {
        self.layout
    }

    pub fn null_count(&self) -> usize {
        self.null_count
    }

    pub fn is_valid(&self, i: usize) -> bool {
        assert!(i < self.len, "slot {i} of {}", self.len);
        match self.validity {
            _ if self.layout == Layout::Null => false,
            Some(bits) => get_bit(bits, self.offset + i),
            None => true,
        }
    }

    /// The validity bitmap, in which bit `offset() + i` is slot `i`; None when
    /// no slot in range is null. For bulk readers such as the Parquet encoder.
    pub(crate) fn validity_bitmap(&self) -> Option<&'a [u8]> {
        self.validity
    }

    /// Buffer `i` after validity (offsets, then values), cut to the bytes the
    /// array spans; slot `i`'s entries start at `offset() + i`.
    pub(crate) fn raw_buffer(&self, i: usize) -> &'a [u8] {
        self.buffers[i]
    }

    pub fn children(&self) -> &[ArrayView<'a>] {
        &self.children
    }

    pub fn dictionary(&self) -> Option<&ArrayView<'a>> {
        self.dictionary.as_deref()
    }

    /// A fixed-width slot's bytes (native-endian), including dictionary indices.
    pub fn fixed_value(&self, i: usize) -> &'a [u8] {
        self.fixed_values(i, 1)
    }

    /// The bytes of `count` consecutive fixed-width slots from `i`.
    pub(crate) fn fixed_values(&self, i: usize, count: usize) -> &'a [u8] {
        let Layout::FixedWidth(width) = self.layout else {
            panic!("fixed_values on a {:?} array", self.layout)
        };
        assert!(i + count <= self.len, "slots {i}+{count} of {}", self.len);
        &self.buffers[0][(self.offset + i) * width..(self.offset + i + count) * width]
    }

    pub fn bool_value(&self, i: usize) -> bool {
        assert!(self.layout == Layout::Boolean && i < self.len);
        get_bit(self.buffers[0], self.offset + i)
    }

    /// For strings and binaries, the slot's byte range in the values buffer; for
    /// lists and maps, its range of child slots.
    #[inline]
    pub(crate) fn value_range(&self, i: usize) -> Range<usize> {
        let (Layout::Binary { offset_width, .. } | Layout::List { offset_width }) = self.layout
        else {
            panic!("value_range on a {:?} array", self.layout)
        };
        assert!(i < self.len, "slot {i} of {}", self.len);
        let at = |k| read_offset(self.buffers[0], k, offset_width) as usize;
        at(self.offset + i)..at(self.offset + i + 1)
    }

    pub fn binary_value(&self, i: usize) -> &'a [u8] {
        &self.buffers[1][self.value_range(i)]
    }

    /// The values buffer of a string or binary array.
    pub(crate) fn binary_values(&self) -> &'a [u8] {
        self.buffers[1]
    }

    /// Slot `i`'s index into the dictionary; in range for every valid slot.
    pub fn dictionary_key(&self, i: usize) -> usize {
        usize::try_from(self.raw_key(i)).unwrap_or(usize::MAX)
    }

    fn raw_key(&self, i: usize) -> i128 {
        let signed = self.data_type().dictionary_index() == Some(true);
        read_int(self.fixed_value(i), signed)
    }

    /// The first valid slot of a string array that is not UTF-8, and why.
    fn first_invalid_utf8(&self) -> Option<(usize, std::str::Utf8Error)> {
        let valid_slots = (0..self.len).filter(|&i| self.is_valid(i));
        if self.len > 0 {
            let start = self.value_range(0).start;
            let end = self.value_range(self.len - 1).end;
            // Usually the whole range is text, and then each value is too if it
            // starts and ends on a character boundary: one decoding pass in all.
            if let Ok(text) = std::str::from_utf8(&self.buffers[1][start..end]) {
                // Every offset on a boundary (null slots' too) is the common case and
                // needs one look at each offset; otherwise the valid slots decide.
                let on_boundary = |k: usize| text.is_char_boundary(k - start);
                if self.all_offsets(self.offset, self.offset + self.len, on_boundary) {
                    return None;
                }
                let on_boundaries = |i| {
                    let range = self.value_range(i);
                    on_boundary(range.start) && on_boundary(range.end)
                };
                if valid_slots.clone().all(on_boundaries) {
                    return None;
                }
            }
        }
        valid_slots.into_iter().find_map(|i| {
            std::str::from_utf8(self.binary_value(i))
                .err()
                .map(|e| (i, e))
        })
    }

    /// Whether `test` holds for the offsets of slots `[from, to]` (buffer positions),
    /// read in one typed pass.
    fn all_offsets(&self, from: usize, to: usize, test: impl Fn(usize) -> bool) -> bool {
        let (Layout::Binary { offset_width, .. } | Layout::List { offset_width }) = self.layout
        else {
            panic!("offsets of a {:?} array", self.layout)
        };
        let bytes = &self.buffers[0][from * offset_width..(to + 1) * offset_width];
        match offset_width {
            4 => bytes
                .chunks_exact(4)
                .all(|b| test(i32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize)),
            _ => bytes
                .chunks_exact(8)
                .all(|b| test(i64::from_le_bytes(fixed(b)) as usize)),
        }
    }

    /// The per-value rules of [`Checks::Full`], on a structurally sound view.
    fn check_values(&self, path: &FieldPath) -> Result<()> {
        let fail = |message: String| Err(path.error(self.data_type(), message));
        if let Layout::Binary { utf8: true, .. } = self.layout {
            if let Some((i, e)) = self.first_invalid_utf8() {
                return fail(format!("value {i} is not valid UTF-8 ({e})"));
            }
        }
        if let Some(dictionary) = &self.dictionary {
            for i in (0..self.len).filter(|&i| self.is_valid(i)) {
                let key = self.raw_key(i);
                if !(0..dictionary.len as i128).contains(&key) {
                    return fail(format!(
                        "index {key} at slot {i} is outside the dictionary's {} values",
                        dictionary.len
                    ));
                }
            }
        }
        if let DataType::Map { .. } = self.data_type() {
            let keys = &self.children[0].children[0];
            if keys.null_count > 0 {
                return fail(format!("the map's keys hold {} nulls", keys.null_count));
            }
        }
        Ok(())
    }
}

/// Validates `raw` against `field` (which is checked first) and returns the view.
pub(crate) fn validate<'a, N: RawNode<'a>>(
    raw: &N,
    field: &'a Field,
    checks: Checks,
) -> Result<ArrayView<'a>> {
    field.check()?;
    node(raw, field, &FieldPath::root(&field.name), checks)
}

/// Recursion follows the field's tree, whose depth `Field::check` bounds, so a
/// cyclic C struct cannot send it round forever.
fn node<'a, N: RawNode<'a>>(
    raw: &N,
    field: &'a Field,
    path: &FieldPath,
    checks: Checks,
) -> Result<ArrayView<'a>> {
    let fail = |message: String| path.error(&field.data_type, message);
    if let Some(data_type) = raw.data_type() {
        if *data_type != field.data_type {
            return Err(fail(format!("the array's type is '{data_type}'")));
        }
    }
    let len = raw.length().map_err(fail)?;
    let offset = raw.offset().map_err(fail)?;
    let end = offset
        .checked_add(len)
        .ok_or_else(|| fail(format!("offset {offset} + length {len} overflows")))?;
    let declared_nulls = raw.null_count().map_err(fail)?;
    if let Some(nulls) = declared_nulls.filter(|&n| n > len) {
        return Err(fail(format!("null_count {nulls} exceeds the length {len}")));
    }

    let layout = field.data_type.layout();
    let n_buffers = raw.n_buffers().map_err(fail)?;
    if n_buffers != layout.n_buffers() {
        return Err(fail(format!(
            "n_buffers is {n_buffers}, the format needs {}",
            layout.n_buffers()
        )));
    }
    let n_children = raw.n_children().map_err(fail)?;
    if n_children != field.children.len() {
        return Err(fail(format!(
            "n_children is {n_children}, the schema has {}",
            field.children.len()
        )));
    }
    let raw_dictionary = raw.dictionary().map_err(fail)?;
    match (&raw_dictionary, &field.dictionary) {
        (Some(_), None) => return Err(fail("has a dictionary the schema does not declare".into())),
        (None, Some(_)) => return Err(fail("has no dictionary, the schema declares one".into())),
        _ => {}
    }

    // Buffer `i` cut to `bytes`, None if NULL. An empty array's buffers are never
    // read, so other producers may leave them NULL, short or dangling; memory of
    // known extent (this library's own) must still span them, for consumers that
    // read an empty array's offsets anyway.
    let buffer = |i: usize, bytes: usize| -> Result<Option<&'a [u8]>> {
        let raw_buffer = raw.buffer(i).map_err(fail)?;
        let at = |e: String| fail(format!("buffer {i} {e}"));
        if len == 0 {
            raw_buffer.check_extent(bytes).map_err(at)?;
            return Ok(None);
        }
        raw_buffer.take(bytes).map_err(at)
    };
    // A buffer the layout needs: NULL only where it would hold nothing.
    let required = |i: usize, bytes: Option<usize>, why: &dyn Fn() -> String| {
        let bytes =
            bytes.ok_or_else(|| fail(format!("buffer {i} would exceed the address space")))?;
        match buffer(i, bytes)? {
            _ if len == 0 || bytes == 0 => Ok(&[][..]),
            Some(slice) => Ok(slice),
            None => Err(fail(format!("buffer {i} is NULL but {}", why()))),
        }
    };
    let length_is = || format!("length is {len}");

    let (validity, null_count) = match layout {
        Layout::Null => (None, len),
        _ => match buffer(0, bitmap_len(end))? {
            None => match declared_nulls {
                Some(nulls) if nulls > 0 => {
                    return Err(fail(format!(
                        "buffer 0 (validity) is NULL but null_count is {nulls}"
                    )))
                }
                _ => (None, 0),
            },
            Some(bits) => {
                let nulls = match (checks, declared_nulls) {
                    (Checks::Structure, Some(nulls)) => nulls,
                    _ => len - count_set_bits(bits, offset, len),
                };
                if let Some(declared) = declared_nulls.filter(|&n| n != nulls) {
                    return Err(fail(format!(
                        "null_count is {declared} but the validity bitmap has {nulls} nulls"
                    )));
                }
                ((nulls > 0).then_some(bits), nulls)
            }
        },
    };

    let mut children = Vec::with_capacity(n_children);
    for (i, child_field) in field.children.iter().enumerate() {
        let child = raw.child(i).map_err(fail)?;
        children.push(node(
            &child,
            child_field,
            &path.child(&child_field.name),
            checks,
        )?);
    }
    let dictionary = match (raw_dictionary, &field.dictionary) {
        (Some(raw_dictionary), Some(dictionary)) => Some(Box::new(node(
            &raw_dictionary,
            &dictionary.values,
            &path.dictionary(),
            checks,
        )?)),
        _ => None,
    };

    let mut buffers = Vec::with_capacity(2);
    match layout {
        Layout::Null | Layout::Struct => {}
        Layout::Boolean => buffers.push(required(1, Some(bitmap_len(end)), &length_is)?),
        Layout::FixedWidth(width) => buffers.push(required(1, end.checked_mul(width), &length_is)?),
        Layout::Binary { offset_width, .. } | Layout::List { offset_width } => {
            let bytes = end.checked_add(1).and_then(|n| n.checked_mul(offset_width));
            let offsets = required(1, bytes, &length_is)?;
            let last = match len {
                0 => 0,
                _ => check_offsets(offsets, offset, end, offset_width, checks).map_err(fail)?,
            };
            buffers.push(offsets);
            if let Layout::Binary { .. } = layout {
                buffers.push(required(2, Some(last), &|| {
                    format!("the offsets end at {last}")
                })?);
            } else if children[0].len < last {
                return Err(fail(format!(
                    "the offsets end at {last}, past the {} slots of child '{}'",
                    children[0].len, field.children[0].name
                )));
            }
        }
    }
    if layout == Layout::Struct {
        if let Some((child, short)) = field
            .children
            .iter()
            .zip(&children)
            .find(|(_, c)| c.len < end)
        {
            return Err(fail(format!(
                "child '{}' has {} slots, the struct spans {end}",
                child.name, short.len
            )));
        }
    }

    let view = ArrayView {
        field,
        layout,
        len,
        // An empty array's buffers were not taken, so there is nothing to offset into.
        offset: if len == 0 { 0 } else { offset },
        null_count,
        validity,
        buffers,
        children,
        dictionary,
    };
    if checks == Checks::Full {
        view.check_values(path)?;
    }
    Ok(view)
}

/// Checks the offsets of slots `[offset, end)` and returns the last one: the
/// extent of the values (or child slots) the array uses.
fn check_offsets(
    offsets: &[u8],
    offset: usize,
    end: usize,
    width: usize,
    checks: Checks,
) -> Result<usize, String> {
    let first = read_offset(offsets, offset, width);
    let last = read_offset(offsets, end, width);
    if first < 0 {
        return Err(format!("offset of slot 0 is negative ({first})"));
    }
    if checks == Checks::Full {
        let span = &offsets[offset * width..(end + 1) * width];
        let decreasing = match width {
            4 => first_decrease(
                span.chunks_exact(4)
                    .map(|b| i64::from(i32::from_le_bytes(fixed(b)))),
            ),
            _ => first_decrease(span.chunks_exact(8).map(|b| i64::from_le_bytes(fixed(b)))),
        };
        if let Some((k, previous, next)) = decreasing {
            return Err(format!(
                "offsets decrease at slot {k}: {previous} then {next}"
            ));
        }
    } else if last < first {
        return Err(format!(
            "offsets decrease: {first} at the start, {last} at the end"
        ));
    }
    usize::try_from(last).map_err(|_| format!("last offset {last} exceeds the address space"))
}

/// Inlined, with the two widths Arrow has spelled out: the nested writer reads a
/// list's offsets slot by slot.
#[inline]
fn read_offset(offsets: &[u8], k: usize, width: usize) -> i64 {
    match width {
        4 => i32::from_ne_bytes(fixed(&offsets[k * 4..k * 4 + 4])).into(),
        8 => i64::from_ne_bytes(fixed(&offsets[k * 8..k * 8 + 8])),
        _ => read_int(&offsets[k * width..(k + 1) * width], true) as i64,
    }
}

/// A native-endian integer of 1, 2, 4 or 8 bytes.
fn read_int(bytes: &[u8], signed: bool) -> i128 {
    match (bytes.len(), signed) {
        (1, true) => i8::from_ne_bytes([bytes[0]]).into(),
        (1, false) => bytes[0].into(),
        (2, true) => i16::from_ne_bytes([bytes[0], bytes[1]]).into(),
        (2, false) => u16::from_ne_bytes([bytes[0], bytes[1]]).into(),
        (4, true) => i32::from_ne_bytes(fixed(bytes)).into(),
        (4, false) => u32::from_ne_bytes(fixed(bytes)).into(),
        (8, true) => i64::from_ne_bytes(fixed(bytes)).into(),
        (8, false) => u64::from_ne_bytes(fixed(bytes)).into(),
        (width, _) => panic!("no {width}-byte integer"),
    }
}

/// The first slot whose end offset is below its start, with both offsets. The
/// common answer (none) comes from a branch-free pass the compiler vectorises.
fn first_decrease(offsets: impl Iterator<Item = i64> + Clone) -> Option<(usize, i64, i64)> {
    let pairs = offsets.clone().zip(offsets.skip(1));
    if pairs.clone().fold(true, |ok, (a, b)| ok & (a <= b)) {
        return None;
    }
    pairs
        .enumerate()
        .find(|(_, (a, b))| b < a)
        .map(|(k, (a, b))| (k, a, b))
}

fn fixed<const N: usize>(bytes: &[u8]) -> [u8; N] {
    let mut out = [0; N];
    out.copy_from_slice(bytes);
    out
}

impl<'a> RawNode<'a> for &'a ArrayData {
    fn data_type(&self) -> Option<&DataType> {
        Some(&self.data_type)
    }

    fn length(&self) -> Result<usize, String> {
        fits_c(self.len, "length")
    }

    fn offset(&self) -> Result<usize, String> {
        fits_c(self.offset, "offset")
    }

    fn null_count(&self) -> Result<Option<usize>, String> {
        fits_c(self.null_count, "null_count").map(Some)
    }

    fn n_buffers(&self) -> Result<usize, String> {
        Ok(usize::from(has_validity_slot(self)) + self.buffers.len())
    }

    fn buffer(&self, i: usize) -> Result<RawBuffer<'a>, String> {
        Ok(match (has_validity_slot(self), i) {
            (true, 0) => self
                .validity
                .as_ref()
                .map_or(RawBuffer::Null, |v| RawBuffer::Slice(v.as_slice())),
            (true, i) => RawBuffer::Slice(self.buffers[i - 1].as_slice()),
            (false, i) => RawBuffer::Slice(self.buffers[i].as_slice()),
        })
    }

    fn n_children(&self) -> Result<usize, String> {
        Ok(self.children.len())
    }

    fn child(&self, i: usize) -> Result<Self, String> {
        Ok(&self.children[i])
    }

    fn dictionary(&self) -> Result<Option<Self>, String> {
        Ok(self.dictionary.as_deref())
    }
}

/// Whether buffer 0 is `data`'s validity. The null type has no buffers at all,
/// so a validity buffer there counts as an extra one, which the validator rejects.
fn has_validity_slot(data: &ArrayData) -> bool {
    data.data_type.layout().has_validity() || data.validity.is_some()
}

/// Lengths cross the C Data Interface as int64.
fn fits_c(n: usize, what: &str) -> Result<usize, String> {
    i64::try_from(n)
        .map(|_| n)
        .map_err(|_| format!("{what} {n} exceeds int64"))
}

/// Turns a raw count from a C struct into a usize.
pub(crate) fn c_count(n: i64, what: &str) -> Result<usize, String> {
    usize::try_from(n).map_err(|_| format!("{what} is negative ({n})"))
}
