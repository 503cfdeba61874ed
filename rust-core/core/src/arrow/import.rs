//! The consumer side of the C Data Interface: `ArrowArray` / `ArrowSchema`
//! structs from another producer.
//!
//! Moving a struct in (the header's rule for inputs) copies it into the library
//! and marks the caller's copy released at once, so the caller can never release
//! it too; the library then calls the producer's release exactly once, when the
//! owner drops. Borrowing reads the caller's struct and never releases it.
//!
//! Producer structs are read with unaligned loads and buffers become slices only
//! after validation has computed how many bytes each must hold.

use std::ffi::CStr;
use std::fmt;
use std::marker::PhantomData;
use std::ptr::{self, addr_of_mut};

use super::datatype::DataType;
use super::field::{metadata_len, DictionaryType, Field, FieldPath, MAX_DEPTH};
use super::stats;
use super::view::{c_count, validate, ArrayView, Checks, RawBuffer, RawNode};
use crate::arrow::c_data::{
    ArrowArray, ArrowSchema, ARROW_FLAG_DICTIONARY_ORDERED, ARROW_FLAG_MAP_KEYS_SORTED,
    ARROW_FLAG_NULLABLE,
};
use crate::error::{Error, Result};

/// An array moved into the library. Dropping it calls the producer's release.
pub struct ImportedArray {
    array: ArrowArray,
}

// SAFETY: the C Data Interface lets a consumer release a struct from any thread,
// and exported data is immutable, so reading it from several threads is fine.
unsafe impl Send for ImportedArray {}
// SAFETY: as above; `&ImportedArray` only reads.
unsafe impl Sync for ImportedArray {}

impl ImportedArray {
    /// Takes over `array`, whose original the caller has already marked released.
    ///
    /// # Safety
    /// `array` follows the C Data Interface, and no one else will release it.
    pub(crate) unsafe fn new(array: ArrowArray) -> Result<ImportedArray> {
        if array.release.is_none() {
            return Err(Error::invalid_argument("array has been released"));
        }
        stats::array_imported();
        Ok(ImportedArray { array })
    }

    /// Validates the array completely against `field`.
    pub fn view<'a>(&'a self, field: &'a Field) -> Result<ArrayView<'a>> {
        // SAFETY: the producer keeps the array's memory valid and unchanged until
        // its release, which runs only when self drops, after the view's borrow.
        let root = unsafe { CArray::read(&self.array) };
        validate(&root, field, Checks::Full)
    }
}

impl fmt::Debug for ImportedArray {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ImportedArray")
            .field("length", &self.array.length)
            .field("n_children", &self.array.n_children)
            .finish_non_exhaustive()
    }
}

impl Drop for ImportedArray {
    fn drop(&mut self) {
        if let Some(release) = self.array.release {
            // SAFETY: a live struct; the callback is the producer's own.
            unsafe { release(&mut self.array) };
        }
        stats::imported_array_released();
    }
}

/// Moves the caller's array into the library; the caller's struct is marked
/// released before this returns, on success or not (unless it was NULL).
///
/// # Safety
/// `array` is NULL or points to a C Data Interface array the caller owns.
pub unsafe fn import_array(array: *mut ArrowArray) -> Result<ImportedArray> {
    if array.is_null() {
        return Err(Error::invalid_argument("array is NULL"));
    }
    // SAFETY: per the caller; a bitwise copy is how the specification moves.
    let moved = unsafe { array.read_unaligned() };
    if moved.release.is_some() {
        // SAFETY: as above.
        unsafe { addr_of_mut!((*array).release).write_unaligned(None) };
    }
    // SAFETY: the original no longer releases; `new` refuses a released array.
    unsafe { ImportedArray::new(moved) }
}

/// Moves the caller's schema into the library, reads it and releases it.
///
/// # Safety
/// `schema` is NULL or points to a C Data Interface schema the caller owns.
pub unsafe fn import_schema(schema: *mut ArrowSchema) -> Result<Field> {
    struct Owned(ArrowSchema);
    impl Drop for Owned {
        fn drop(&mut self) {
            if let Some(release) = self.0.release {
                // SAFETY: a live struct moved into the library.
                unsafe { release(&mut self.0) };
            }
        }
    }
    if schema.is_null() {
        return Err(Error::invalid_argument("schema is NULL"));
    }
    // SAFETY: per the caller; a bitwise copy is how the specification moves.
    let owned = Owned(unsafe { schema.read_unaligned() });
    if owned.0.release.is_none() {
        return Err(Error::invalid_argument("schema has been released"));
    }
    // SAFETY: as above.
    unsafe { addr_of_mut!((*schema).release).write_unaligned(None) };
    // SAFETY: a live schema, released only when `owned` drops, after reading.
    unsafe { read_schema(&owned.0) }
}

/// Reads a schema into a [`Field`] without taking it over, and checks it.
///
/// # Safety
/// `schema` is NULL or points to a C Data Interface schema, valid for the call.
pub unsafe fn read_schema(schema: *const ArrowSchema) -> Result<Field> {
    if schema.is_null() {
        return Err(Error::invalid_argument("schema is NULL"));
    }
    // SAFETY: per the caller.
    let schema = unsafe { schema.read_unaligned() };
    if schema.release.is_none() {
        return Err(Error::invalid_argument("schema has been released"));
    }
    // SAFETY: a live schema.
    let field = unsafe { read_field(&schema, &FieldPath::root, 0) }?;
    field.check()?;
    Ok(field)
}

/// Validates the caller's array against `field` without taking it over.
///
/// # Safety
/// `array` is NULL or points to a C Data Interface array whose memory stays valid
/// and unchanged for `'a`.
pub unsafe fn view_array<'a>(array: *const ArrowArray, field: &'a Field) -> Result<ArrayView<'a>> {
    if array.is_null() {
        return Err(Error::invalid_argument("array is NULL"));
    }
    // SAFETY: per the caller.
    let root = unsafe { CArray::read(array) };
    if root.array.release.is_none() {
        return Err(Error::invalid_argument("array has been released"));
    }
    validate(&root, field, Checks::Full)
}

/// One schema level; `path_of` turns its name into its path.
///
/// # Safety
/// `schema` is a live C Data Interface schema.
unsafe fn read_field(
    schema: &ArrowSchema,
    path_of: &dyn Fn(&str) -> FieldPath,
    depth: usize,
) -> Result<Field> {
    let name = if schema.name.is_null() {
        String::new()
    } else {
        // SAFETY: a non-NULL name is NUL-terminated.
        let name = unsafe { CStr::from_ptr(schema.name) };
        name.to_str()
            .map_err(|_| {
                let lossy = name.to_string_lossy();
                Error::invalid_argument(format!("{}: the name is not UTF-8", path_of(&lossy)))
            })?
            .to_owned()
    };
    let path = path_of(&name);
    if depth >= MAX_DEPTH {
        return Err(Error::invalid_argument(format!(
            "{path}: nested deeper than {MAX_DEPTH} levels"
        )));
    }
    if schema.format.is_null() {
        return Err(Error::invalid_argument(format!("{path}: format is NULL")));
    }
    // SAFETY: a non-NULL format is NUL-terminated.
    let format = unsafe { CStr::from_ptr(schema.format) }
        .to_str()
        .map_err(|_| Error::invalid_argument(format!("{path}: the format is not UTF-8")))?;
    let mut data_type = DataType::from_format(format).map_err(|e| e.context(&path))?;
    if let DataType::Map { keys_sorted } = &mut data_type {
        *keys_sorted = schema.flags & ARROW_FLAG_MAP_KEYS_SORTED != 0;
    }
    let fail = |message: String| path.error(&data_type, message);

    let n_children = c_count(schema.n_children, "n_children").map_err(fail)?;
    if n_children > 0 && schema.children.is_null() {
        return Err(fail(format!(
            "children is NULL but n_children is {n_children}"
        )));
    }
    let mut children = Vec::new();
    for i in 0..n_children {
        // SAFETY: `children` holds n_children pointers.
        let child = unsafe { schema.children.add(i).read_unaligned() };
        // SAFETY: checked non-NULL; producer structs are valid while the parent is live.
        let child = unsafe { live_struct(child, i, |s: &ArrowSchema| s.release.is_some()) }
            .map_err(fail)?;
        // SAFETY: a live child of a live schema.
        children.push(unsafe { read_field(&child, &|name| path.child(name), depth + 1) }?);
    }
    let dictionary = if schema.dictionary.is_null() {
        None
    } else {
        // SAFETY: a non-NULL dictionary pointer points to a schema.
        let values = unsafe { schema.dictionary.read_unaligned() };
        if values.release.is_none() {
            return Err(fail("the dictionary has been released".into()));
        }
        Some(Box::new(DictionaryType {
            ordered: schema.flags & ARROW_FLAG_DICTIONARY_ORDERED != 0,
            // SAFETY: a live dictionary of a live schema.
            values: unsafe { read_field(&values, &|_| path.dictionary(), depth + 1) }?,
        }))
    };
    let metadata = if schema.metadata.is_null() {
        None
    } else {
        let base = schema.metadata.cast::<u8>();
        // SAFETY: non-NULL metadata is a well-formed encoding, whose int32s we
        // read one by one to learn its extent.
        let read = |at: usize| Ok(unsafe { base.add(at).cast::<i32>().read_unaligned() });
        let len = metadata_len(read).map_err(|e| fail(format!("bad metadata: {e}")))?;
        // SAFETY: the encoding spans `len` bytes.
        Some(unsafe { std::slice::from_raw_parts(base, len) }.to_vec())
    };
    Ok(Field {
        name,
        nullable: schema.flags & ARROW_FLAG_NULLABLE != 0,
        data_type,
        children,
        dictionary,
        metadata,
    })
}

/// Reads child `i` of a struct, refusing a NULL or released one.
///
/// # Safety
/// `child` is NULL or points to a readable struct.
unsafe fn live_struct<T>(
    child: *const T,
    i: usize,
    is_live: impl Fn(&T) -> bool,
) -> Result<T, String> {
    if child.is_null() {
        return Err(format!("child {i} is NULL"));
    }
    // SAFETY: per the caller.
    let child = unsafe { child.read_unaligned() };
    if !is_live(&child) {
        return Err(format!("child {i} has been released"));
    }
    Ok(child)
}

/// A producer's array level as the validator reads it: a bitwise copy of the
/// struct, whose pointers stay valid for `'a`.
struct CArray<'a> {
    array: ArrowArray,
    _producer: PhantomData<&'a ArrowArray>,
}

impl<'a> CArray<'a> {
    /// # Safety
    /// `array` points to a C Data Interface array whose memory stays valid and
    /// unchanged for `'a`.
    unsafe fn read(array: *const ArrowArray) -> CArray<'a> {
        CArray {
            // SAFETY: per the caller; ArrowArray has no Drop, so a copy owns nothing.
            array: unsafe { ptr::read_unaligned(array) },
            _producer: PhantomData,
        }
    }
}

impl<'a> RawNode<'a> for CArray<'a> {
    fn data_type(&self) -> Option<&DataType> {
        None
    }

    fn length(&self) -> Result<usize, String> {
        c_count(self.array.length, "length")
    }

    fn offset(&self) -> Result<usize, String> {
        c_count(self.array.offset, "offset")
    }

    fn null_count(&self) -> Result<Option<usize>, String> {
        match self.array.null_count {
            -1 => Ok(None),
            n => c_count(n, "null_count").map(Some),
        }
    }

    fn n_buffers(&self) -> Result<usize, String> {
        c_count(self.array.n_buffers, "n_buffers")
    }

    fn buffer(&self, i: usize) -> Result<RawBuffer<'a>, String> {
        if self.array.buffers.is_null() {
            return Err(format!(
                "buffers is NULL but n_buffers is {}",
                self.array.n_buffers
            ));
        }
        // SAFETY: `buffers` holds n_buffers pointers and i < n_buffers; each
        // buffer is valid for 'a and as large as the layout requires, which the
        // producer guarantees and the validator relies on through `foreign`.
        unsafe {
            Ok(RawBuffer::foreign(
                self.array.buffers.add(i).read_unaligned(),
            ))
        }
    }

    fn n_children(&self) -> Result<usize, String> {
        c_count(self.array.n_children, "n_children")
    }

    fn child(&self, i: usize) -> Result<CArray<'a>, String> {
        if self.array.children.is_null() {
            return Err(format!(
                "children is NULL but n_children is {}",
                self.array.n_children
            ));
        }
        // SAFETY: `children` holds n_children pointers and i < n_children.
        let child = unsafe { self.array.children.add(i).read_unaligned() };
        // SAFETY: a non-NULL child pointer points to an array valid for 'a.
        let child = unsafe { live_struct(child, i, |a: &ArrowArray| a.release.is_some()) }?;
        Ok(CArray {
            array: child,
            _producer: PhantomData,
        })
    }

    fn dictionary(&self) -> Result<Option<CArray<'a>>, String> {
        if self.array.dictionary.is_null() {
            return Ok(None);
        }
        // SAFETY: a non-NULL dictionary points to an array valid for 'a.
        let dictionary = unsafe { CArray::read(self.array.dictionary) };
        if dictionary.array.release.is_none() {
            return Err("the dictionary has been released".into());
        }
        Ok(Some(dictionary))
    }
}
