//! Parquet encoder exports: `isthmus_writer_*` and `isthmus_write_result_*`
//! (declared at the end of `include/isthmus.h`).
//!
//! A writer handle owns a [`FileWriter`] behind a mutex: calls on one writer
//! are serialised, and a call that finds the writer busy on another thread
//! fails instead of waiting. A result handle is immutable.

use std::ffi::{c_char, CStr};
use std::path::Path;
use std::ptr;
use std::sync::{Mutex, MutexGuard, TryLockError};

use super::{free_handle, guard, guard_infallible, out_param, write_out, IsthmusError};
use isthmus_core::arrow::c_data::{ArrowArray, ArrowSchema};
use isthmus_core::arrow::{import_array, read_schema, DataType, Field};
use isthmus_core::error::{Error, Result};
use isthmus_core::parquet::{ColumnResult, FileWriter, WriteResult, WriterOptions};

/// `isthmus_writer`: an open (or closed, failed, aborted) writer.
pub struct IsthmusWriter {
    inner: Mutex<FileWriter>,
}

/// `isthmus_write_result`: what a closed file holds.
pub struct IsthmusWriteResult {
    result: WriteResult,
}

fn lock<'a>(writer: *const IsthmusWriter) -> Result<MutexGuard<'a, FileWriter>> {
    if writer.is_null() {
        return Err(Error::invalid_argument("writer is NULL"));
    }
    // SAFETY: the header makes a non-NULL writer a live handle from open.
    let writer = unsafe { &*writer };
    match writer.inner.try_lock() {
        Ok(guard) => Ok(guard),
        Err(TryLockError::WouldBlock) => Err(Error::invalid_argument(
            "the writer is in use by another thread; calls on one writer must not overlap",
        )),
        Err(TryLockError::Poisoned(poisoned)) => {
            let mut guard = poisoned.into_inner();
            guard.abort();
            Err(Error::internal(
                "the writer panicked during an earlier call and was aborted",
            ))
        }
    }
}

fn result_ref<'a>(result: *const IsthmusWriteResult) -> Result<&'a WriteResult> {
    if result.is_null() {
        return Err(Error::invalid_argument("result is NULL"));
    }
    // SAFETY: the header makes a non-NULL result a live handle from close.
    Ok(unsafe { &(*result).result })
}

/// Reads `count` key/value C strings into writer options.
///
/// # Safety
/// The arrays are NULL (with count 0) or hold `count` pointers to NUL-terminated strings.
unsafe fn read_options(
    keys: *const *const c_char,
    values: *const *const c_char,
    count: u32,
) -> Result<WriterOptions> {
    if count > 0 && (keys.is_null() || values.is_null()) {
        return Err(Error::invalid_argument(format!(
            "option_keys or option_values is NULL but option_count is {count}"
        )));
    }
    let text = |array: *const *const c_char, i: usize, what: &str| -> Result<String> {
        // SAFETY: per the caller, `array` holds `count` pointers.
        let pointer = unsafe { array.add(i).read() };
        if pointer.is_null() {
            return Err(Error::invalid_argument(format!("{what} {i} is NULL")));
        }
        // SAFETY: non-NULL and NUL-terminated per the caller.
        unsafe { CStr::from_ptr(pointer) }
            .to_str()
            .map(str::to_owned)
            .map_err(|_| Error::invalid_argument(format!("{what} {i} is not UTF-8")))
    };
    let mut pairs = Vec::with_capacity(count as usize);
    for i in 0..count as usize {
        pairs.push((
            text(keys, i, "option key")?,
            text(values, i, "option value")?,
        ));
    }
    WriterOptions::from_pairs(pairs.iter().map(|(k, v)| (k.as_str(), v.as_str())))
}

fn new_handle(writer: FileWriter, out_writer: *mut *mut IsthmusWriter) {
    let handle = Box::into_raw(Box::new(IsthmusWriter {
        inner: Mutex::new(writer),
    }));
    // SAFETY: checked non-NULL by the caller of this function.
    unsafe { write_out(out_writer, handle) };
}

/// # Safety
/// See `isthmus_writer_open_path` in the header.
#[no_mangle]
pub unsafe extern "C" fn isthmus_writer_open_path(
    path: *const c_char,
    schema: *const ArrowSchema,
    option_keys: *const *const c_char,
    option_values: *const *const c_char,
    option_count: u32,
    out_writer: *mut *mut IsthmusWriter,
    error: *mut IsthmusError,
) -> i32 {
    guard(error, || {
        let out_writer = out_param(out_writer, "out_writer")?;
        if path.is_null() {
            return Err(Error::invalid_argument("path is NULL"));
        }
        // SAFETY: a non-NULL path is NUL-terminated per the header.
        let bytes = unsafe { CStr::from_ptr(path) }.to_bytes();
        if bytes.is_empty() {
            return Err(Error::invalid_argument("path is empty"));
        }
        let path = Path::new(<std::ffi::OsStr as std::os::unix::ffi::OsStrExt>::from_bytes(bytes));
        // SAFETY: per the header; the schema is borrowed for this call.
        let field = unsafe { read_schema(schema) }?;
        // SAFETY: per the header.
        let options = unsafe { read_options(option_keys, option_values, option_count) }?;
        new_handle(FileWriter::open_path(path, &field, options)?, out_writer);
        Ok(())
    })
}

/// # Safety
/// See `isthmus_writer_open_buffered` in the header.
#[no_mangle]
pub unsafe extern "C" fn isthmus_writer_open_buffered(
    schema: *const ArrowSchema,
    option_keys: *const *const c_char,
    option_values: *const *const c_char,
    option_count: u32,
    out_writer: *mut *mut IsthmusWriter,
    error: *mut IsthmusError,
) -> i32 {
    guard(error, || {
        let out_writer = out_param(out_writer, "out_writer")?;
        // SAFETY: per the header; the schema is borrowed for this call.
        let field = unsafe { read_schema(schema) }?;
        // SAFETY: per the header.
        let options = unsafe { read_options(option_keys, option_values, option_count) }?;
        new_handle(FileWriter::open_buffered(&field, options)?, out_writer);
        Ok(())
    })
}

/// The first column whose type differs between the batch's schema and the
/// writer's.
fn check_batch_schema(batch: &Field, writer: &Field) -> Result<()> {
    if batch.data_type != DataType::Struct {
        return Err(Error::invalid_argument(format!(
            "the batch's schema is '{}', not a struct of columns ('+s')",
            batch.data_type
        )));
    }
    if batch.children.len() != writer.children.len() {
        return Err(Error::invalid_argument(format!(
            "the batch has {} columns, the writer's schema {}",
            batch.children.len(),
            writer.children.len()
        )));
    }
    for (b, w) in batch.children.iter().zip(&writer.children) {
        if b.data_type != w.data_type || b.dictionary.is_some() != w.dictionary.is_some() {
            return Err(Error::invalid_argument(format!(
                "column '{}': the batch's type is '{}', the writer's schema says '{}'",
                w.name, b.data_type, w.data_type
            )));
        }
    }
    Ok(())
}

/// # Safety
/// See `isthmus_writer_write` in the header.
#[no_mangle]
pub unsafe extern "C" fn isthmus_writer_write(
    writer: *mut IsthmusWriter,
    array: *mut ArrowArray,
    schema: *const ArrowSchema,
    error: *mut IsthmusError,
) -> i32 {
    guard(error, || {
        // Moved in first, so that it is released whatever fails next.
        // SAFETY: per the header.
        let imported = unsafe { import_array(array) };
        let mut writer = lock(writer)?;
        writer.check_open()?;
        let imported = imported.inspect_err(|e| writer.poison(e))?;
        let outcome = (|| {
            if !schema.is_null() {
                // SAFETY: per the header; borrowed for this call.
                let batch_schema = unsafe { read_schema(schema) }?;
                check_batch_schema(&batch_schema, writer.arrow_schema())?;
            }
            let root = writer.arrow_schema().clone();
            let view = imported.view(&root)?;
            writer.write(&view)
        })();
        drop(imported);
        outcome.inspect_err(|e| writer.poison(e))
    })
}

/// # Safety
/// See `isthmus_writer_take_output` in the header.
#[no_mangle]
pub unsafe extern "C" fn isthmus_writer_take_output(
    writer: *mut IsthmusWriter,
    out_data: *mut *const u8,
    out_length: *mut u64,
    error: *mut IsthmusError,
) -> i32 {
    guard(error, || {
        let out_data = out_param(out_data, "out_data")?;
        let out_length = out_param(out_length, "out_length")?;
        let mut writer = lock(writer)?;
        let bytes = writer.take_output()?;
        let (data, len) = if bytes.is_empty() {
            (ptr::null(), 0)
        } else {
            (bytes.as_ptr(), bytes.len() as u64)
        };
        // SAFETY: checked non-NULL; writable per the header. The bytes live in
        // the writer until its next take_output, abort or free.
        unsafe {
            write_out(out_data, data);
            write_out(out_length, len);
        }
        Ok(())
    })
}

/// # Safety
/// See `isthmus_writer_size` in the header.
#[no_mangle]
pub unsafe extern "C" fn isthmus_writer_size(
    writer: *const IsthmusWriter,
    out_bytes_written: *mut u64,
    out_estimated_length: *mut u64,
    error: *mut IsthmusError,
) -> i32 {
    guard(error, || {
        let out_bytes_written = out_param(out_bytes_written, "out_bytes_written")?;
        let out_estimated_length = out_param(out_estimated_length, "out_estimated_length")?;
        let mut writer = lock(writer)?;
        let (written, estimated) = (writer.bytes_written(), writer.estimated_length()?);
        // SAFETY: checked non-NULL; writable per the header.
        unsafe {
            write_out(out_bytes_written, written);
            write_out(out_estimated_length, estimated);
        }
        Ok(())
    })
}

/// # Safety
/// See `isthmus_writer_close` in the header.
#[no_mangle]
pub unsafe extern "C" fn isthmus_writer_close(
    writer: *mut IsthmusWriter,
    out_result: *mut *mut IsthmusWriteResult,
    error: *mut IsthmusError,
) -> i32 {
    guard(error, || {
        let out_result = out_param(out_result, "out_result")?;
        let result = lock(writer)?.close()?;
        let handle = Box::into_raw(Box::new(IsthmusWriteResult { result }));
        // SAFETY: checked non-NULL; writable per the header.
        unsafe { write_out(out_result, handle) };
        Ok(())
    })
}

/// # Safety
/// See `isthmus_writer_abort` in the header.
#[no_mangle]
pub unsafe extern "C" fn isthmus_writer_abort(
    writer: *mut IsthmusWriter,
    error: *mut IsthmusError,
) -> i32 {
    guard(error, || {
        lock(writer)?.abort();
        Ok(())
    })
}

/// # Safety
/// See `isthmus_writer_free` in the header.
#[no_mangle]
pub unsafe extern "C" fn isthmus_writer_free(writer: *mut IsthmusWriter) {
    guard_infallible((), || {
        if !writer.is_null() {
            // SAFETY: a handle from open, freed once per the header.
            let handle = unsafe { Box::from_raw(writer) };
            // Dropping aborts a writer that was not closed.
            drop(handle.inner.into_inner().unwrap_or_else(|p| p.into_inner()));
        }
    })
}

/// # Safety
/// See `isthmus_write_result_file` in the header.
#[no_mangle]
pub unsafe extern "C" fn isthmus_write_result_file(
    result: *const IsthmusWriteResult,
    out_record_count: *mut u64,
    out_file_size: *mut u64,
    out_column_count: *mut u32,
    error: *mut IsthmusError,
) -> i32 {
    guard(error, || {
        let out_record_count = out_param(out_record_count, "out_record_count")?;
        let out_file_size = out_param(out_file_size, "out_file_size")?;
        let out_column_count = out_param(out_column_count, "out_column_count")?;
        let result = result_ref(result)?;
        // SAFETY: checked non-NULL; writable per the header.
        unsafe {
            write_out(out_record_count, result.record_count);
            write_out(out_file_size, result.file_size);
            write_out(out_column_count, result.columns.len() as u32);
        }
        Ok(())
    })
}

/// # Safety
/// See `isthmus_write_result_split_offsets` in the header.
#[no_mangle]
pub unsafe extern "C" fn isthmus_write_result_split_offsets(
    result: *const IsthmusWriteResult,
    out_offsets: *mut *const i64,
    out_count: *mut u32,
    error: *mut IsthmusError,
) -> i32 {
    guard(error, || {
        let out_offsets = out_param(out_offsets, "out_offsets")?;
        let out_count = out_param(out_count, "out_count")?;
        let offsets = &result_ref(result)?.split_offsets;
        let count = u32::try_from(offsets.len())
            .map_err(|_| Error::internal("more row groups than fit a uint32"))?;
        // SAFETY: checked non-NULL; writable per the header. The offsets live
        // as long as the result.
        unsafe {
            write_out(
                out_offsets,
                if count == 0 {
                    ptr::null()
                } else {
                    offsets.as_ptr()
                },
            );
            write_out(out_count, count);
        }
        Ok(())
    })
}

fn column_of(result: &WriteResult, column: u32) -> Result<&ColumnResult> {
    result.columns.get(column as usize).ok_or_else(|| {
        Error::invalid_argument(format!(
            "column {column} is out of range: the file has {} columns",
            result.columns.len()
        ))
    })
}

/// # Safety
/// See `isthmus_write_result_column` in the header.
#[no_mangle]
pub unsafe extern "C" fn isthmus_write_result_column(
    result: *const IsthmusWriteResult,
    column: u32,
    out_field_id: *mut i32,
    out_value_count: *mut i64,
    out_null_count: *mut i64,
    out_nan_count: *mut i64,
    out_compressed_size: *mut i64,
    error: *mut IsthmusError,
) -> i32 {
    guard(error, || {
        let out_field_id = out_param(out_field_id, "out_field_id")?;
        let out_value_count = out_param(out_value_count, "out_value_count")?;
        let out_null_count = out_param(out_null_count, "out_null_count")?;
        let out_nan_count = out_param(out_nan_count, "out_nan_count")?;
        let out_compressed_size = out_param(out_compressed_size, "out_compressed_size")?;
        let column = column_of(result_ref(result)?, column)?;
        let metrics = &column.metrics;
        let count = |n: u64| i64::try_from(n).unwrap_or(i64::MAX);
        // SAFETY: checked non-NULL; writable per the header.
        unsafe {
            write_out(out_field_id, column.field_id);
            write_out(out_value_count, count(metrics.value_count));
            write_out(out_null_count, count(metrics.null_count));
            write_out(out_nan_count, metrics.nan_count.map_or(-1, count));
            write_out(out_compressed_size, count(metrics.compressed_size));
        }
        Ok(())
    })
}

/// # Safety
/// See `isthmus_write_result_column_bounds` in the header.
#[no_mangle]
pub unsafe extern "C" fn isthmus_write_result_column_bounds(
    result: *const IsthmusWriteResult,
    column: u32,
    out_min: *mut *const u8,
    out_min_length: *mut u64,
    out_max: *mut *const u8,
    out_max_length: *mut u64,
    error: *mut IsthmusError,
) -> i32 {
    guard(error, || {
        let out_min = out_param(out_min, "out_min")?;
        let out_min_length = out_param(out_min_length, "out_min_length")?;
        let out_max = out_param(out_max, "out_max")?;
        let out_max_length = out_param(out_max_length, "out_max_length")?;
        let metrics = &column_of(result_ref(result)?, column)?.metrics;
        // An absent bound is NULL; a present one is never NULL, even when empty
        // (an empty Vec's pointer is dangling but not NULL).
        let bound = |b: &Option<Vec<u8>>| match b {
            Some(bytes) => (bytes.as_ptr(), bytes.len() as u64),
            None => (ptr::null(), 0),
        };
        let (min, min_len) = bound(&metrics.min);
        let (max, max_len) = bound(&metrics.max);
        // SAFETY: checked non-NULL; writable per the header. The bytes live as
        // long as the result.
        unsafe {
            write_out(out_min, min);
            write_out(out_min_length, min_len);
            write_out(out_max, max);
            write_out(out_max_length, max_len);
        }
        Ok(())
    })
}

/// # Safety
/// See `isthmus_write_result_free` in the header.
#[no_mangle]
pub unsafe extern "C" fn isthmus_write_result_free(result: *mut IsthmusWriteResult) {
    // SAFETY: per this function's contract (above).
    guard_infallible((), || unsafe { free_handle(result) })
}
