//! The producer side of the C Data Interface: [`ArrayData`] and [`Field`] handed
//! out as `ArrowArray` / `ArrowSchema` structs for a consumer to release.
//!
//! Every struct, children and dictionaries included, has its own private data and
//! release callback. A consumer may therefore move children out and release them
//! on their own, as the specification allows: the parent's release releases only
//! the children still live (release != NULL), then frees the child structs'
//! memory, which it owns either way.

use std::ffi::{c_void, CString};
use std::ptr::{null, null_mut};

use super::array::ArrayData;
use super::buffer::Buffer;
use super::field::{Field, FieldPath};
use super::stats;
use super::view::{validate, Checks};
use super::DataType;
use crate::arrow::c_data::{
    ArrowArray, ArrowSchema, ARROW_FLAG_DICTIONARY_ORDERED, ARROW_FLAG_MAP_KEYS_SORTED,
    ARROW_FLAG_NULLABLE,
};
use crate::error::Result;
use crate::panic_guard::guard_infallible;

/// Exports `field` as a schema the caller must release (or hand to a consumer).
pub fn export_schema(field: &Field) -> Result<ArrowSchema> {
    field.check()?;
    Ok(encode(field, &FieldPath::root(&field.name))?.assemble())
}

/// Exports `data`, described by `field`, as an array the caller must release (or
/// hand to a consumer). Checks the structure (counts, and that every buffer spans
/// what the lengths and the first and last offsets imply) in O(1) per level, so
/// the memory a consumer sizes from them exists; per-value rules (monotonic
/// offsets, dictionary indices, UTF-8) are left to whoever built `data`.
pub fn export_array(data: ArrayData, field: &Field) -> Result<ArrowArray> {
    validate(&&data, field, Checks::Structure)?;
    Ok(assemble_array(data, true))
}

/// Both at once, all or nothing: on error nothing was exported.
pub fn export(data: ArrayData, field: &Field) -> Result<(ArrowArray, ArrowSchema)> {
    validate(&&data, field, Checks::Structure)?;
    let schema = encode(field, &FieldPath::root(&field.name))?;
    Ok((assemble_array(data, true), schema.assemble()))
}

// ------------------------------------------------------------------ schema

/// A schema node's C strings and flags, made before anything is handed out so
/// that a failure (a NUL inside a name) leaves nothing half-exported.
struct EncodedSchema {
    format: CString,
    name: CString,
    metadata: Option<Vec<u8>>,
    flags: i64,
    children: Vec<EncodedSchema>,
    dictionary: Option<Box<EncodedSchema>>,
}

fn encode(field: &Field, path: &FieldPath) -> Result<EncodedSchema> {
    let c_string = |text: String, what: &str| {
        CString::new(text)
            .map_err(|_| path.error(&field.data_type, format!("{what} contains a NUL")))
    };
    let mut flags = 0;
    if field.nullable {
        flags |= ARROW_FLAG_NULLABLE;
    }
    if let DataType::Map { keys_sorted: true } = field.data_type {
        flags |= ARROW_FLAG_MAP_KEYS_SORTED;
    }
    if field.dictionary.as_ref().is_some_and(|d| d.ordered) {
        flags |= ARROW_FLAG_DICTIONARY_ORDERED;
    }
    Ok(EncodedSchema {
        format: c_string(field.data_type.format(), "the format")?,
        name: c_string(field.name.clone(), "the name")?,
        metadata: field.metadata.clone(),
        flags,
        children: field
            .children
            .iter()
            .map(|child| encode(child, &path.child(&child.name)))
            .collect::<Result<_>>()?,
        dictionary: field
            .dictionary
            .as_ref()
            .map(|d| encode(&d.values, &path.dictionary()).map(Box::new))
            .transpose()?,
    })
}

/// What an exported schema struct points into.
struct PrivateSchema {
    format: CString,
    name: CString,
    metadata: Option<Vec<u8>>,
    children: Vec<*mut ArrowSchema>,
    dictionary: *mut ArrowSchema,
}

impl EncodedSchema {
    fn assemble(self) -> ArrowSchema {
        let mut private = Box::new(PrivateSchema {
            children: self
                .children
                .into_iter()
                .map(|c| boxed(c.assemble()))
                .collect(),
            dictionary: self.dictionary.map_or(null_mut(), |d| boxed(d.assemble())),
            format: self.format,
            name: self.name,
            metadata: self.metadata,
        });
        // The pointers below stay valid while `private` lives: moving a CString or
        // a Vec does not move its heap data.
        ArrowSchema {
            format: private.format.as_ptr(),
            name: private.name.as_ptr(),
            metadata: private
                .metadata
                .as_ref()
                .map_or(null(), |m| m.as_ptr().cast()),
            flags: self.flags,
            n_children: private.children.len() as i64,
            children: first_or_null(&mut private.children),
            dictionary: private.dictionary,
            release: Some(release_schema),
            private_data: Box::into_raw(private).cast(),
        }
    }
}

impl Drop for PrivateSchema {
    fn drop(&mut self) {
        for &child in &self.children {
            // SAFETY: allocated by `boxed` in assemble and freed only here.
            unsafe { free_child(child) };
        }
        // SAFETY: as above, or NULL.
        unsafe { free_child(self.dictionary) };
    }
}

unsafe extern "C" fn release_schema(schema: *mut ArrowSchema) {
    // SAFETY: the consumer passes a struct this module filled.
    guard_infallible((), || unsafe { release::<_, PrivateSchema>(schema) })
}

// ------------------------------------------------------------------ array

/// What an exported array struct points into; dropping it releases the children
/// still live and frees the buffers (unless shared elsewhere).
struct PrivateArray {
    _buffers: Vec<Buffer>,
    pointers: Vec<*const c_void>,
    children: Vec<*mut ArrowArray>,
    dictionary: *mut ArrowArray,
    /// This struct's own buffer bytes, as counted in the stats.
    bytes: usize,
    /// Whether the stats count this struct as an exported array.
    top_level: bool,
}

/// Turns a structurally validated `data` into C structs.
fn assemble_array(data: ArrayData, top_level: bool) -> ArrowArray {
    let ArrayData {
        data_type,
        len,
        offset,
        null_count,
        validity,
        buffers,
        children,
        dictionary,
    } = data;
    let mut pointers = Vec::with_capacity(buffers.len() + 1);
    if data_type.layout().has_validity() {
        pointers.push(validity.as_ref().map_or(null(), |v| v.as_ptr().cast()));
    }
    pointers.extend(buffers.iter().map(|b| b.as_ptr().cast::<c_void>()));
    let buffers: Vec<Buffer> = validity.into_iter().chain(buffers).collect();
    let bytes = buffers
        .iter()
        .fold(0usize, |sum, b| sum.saturating_add(b.len()));
    stats::exported_bytes(bytes, false);
    if top_level {
        stats::array_exported();
    }
    let mut private = Box::new(PrivateArray {
        _buffers: buffers,
        pointers,
        children: children
            .into_iter()
            .map(|c| boxed(assemble_array(c, false)))
            .collect(),
        dictionary: dictionary.map_or(null_mut(), |d| boxed(assemble_array(*d, false))),
        bytes,
        top_level,
    });
    // Validation bounded these by int64, so the casts are exact.
    ArrowArray {
        length: len as i64,
        null_count: null_count as i64,
        offset: offset as i64,
        n_buffers: private.pointers.len() as i64,
        n_children: private.children.len() as i64,
        buffers: first_or_null(&mut private.pointers),
        children: first_or_null(&mut private.children),
        dictionary: private.dictionary,
        release: Some(release_array),
        private_data: Box::into_raw(private).cast(),
    }
}

impl Drop for PrivateArray {
    fn drop(&mut self) {
        for &child in &self.children {
            // SAFETY: allocated by `boxed` in assemble_array and freed only here.
            unsafe { free_child(child) };
        }
        // SAFETY: as above, or NULL.
        unsafe { free_child(self.dictionary) };
        stats::exported_bytes(self.bytes, true);
        if self.top_level {
            stats::exported_array_released();
        }
    }
}

unsafe extern "C" fn release_array(array: *mut ArrowArray) {
    // SAFETY: the consumer passes a struct this module filled.
    guard_infallible((), || unsafe { release::<_, PrivateArray>(array) })
}

// ------------------------------------------------------------------ both

/// The fields the release protocol touches, common to both structs.
trait Releasable: Sized {
    fn release_slot(&mut self) -> &mut Option<unsafe extern "C" fn(*mut Self)>;
    fn private_slot(&mut self) -> &mut *mut c_void;
}

impl Releasable for ArrowSchema {
    fn release_slot(&mut self) -> &mut Option<unsafe extern "C" fn(*mut Self)> {
        &mut self.release
    }
    fn private_slot(&mut self) -> &mut *mut c_void {
        &mut self.private_data
    }
}

impl Releasable for ArrowArray {
    fn release_slot(&mut self) -> &mut Option<unsafe extern "C" fn(*mut Self)> {
        &mut self.release
    }
    fn private_slot(&mut self) -> &mut *mut c_void {
        &mut self.private_data
    }
}

/// A release callback's body: marks the struct released first, so that even a
/// panic while freeing (caught by the caller) cannot lead to a second release,
/// then drops its private data `P`.
///
/// # Safety
/// `c_struct` is NULL or a struct this module filled, with private data of type `P`.
unsafe fn release<T: Releasable, P>(c_struct: *mut T) {
    // SAFETY: per the caller.
    let Some(c_struct) = (unsafe { c_struct.as_mut() }) else {
        return;
    };
    // Releasing twice breaks the protocol; ignoring it beats a double free.
    if c_struct.release_slot().take().is_none() {
        return;
    }
    let private = std::mem::replace(c_struct.private_slot(), null_mut());
    // SAFETY: set by assemble from Box::into_raw of a P, and taken only here.
    drop(unsafe { Box::from_raw(private.cast::<P>()) });
}

fn boxed<T>(c_struct: T) -> *mut T {
    Box::into_raw(Box::new(c_struct))
}

/// Releases a child struct unless its consumer moved it out (release NULL) or
/// released it already, then frees the struct itself.
///
/// # Safety
/// `child` is NULL or came from [`boxed`] and is freed only here.
unsafe fn free_child<T: Releasable>(child: *mut T) {
    if child.is_null() {
        return;
    }
    // SAFETY: per the caller.
    let mut child = unsafe { Box::from_raw(child) };
    if let Some(release) = *child.release_slot() {
        // SAFETY: a live struct with its own release callback.
        unsafe { release(&mut *child) };
    }
}

/// The C Data Interface allows NULL for an empty pointer array, and it says
/// "nothing here" more plainly than a dangling pointer.
fn first_or_null<T>(items: &mut [T]) -> *mut T {
    if items.is_empty() {
        null_mut()
    } else {
        items.as_mut_ptr()
    }
}
