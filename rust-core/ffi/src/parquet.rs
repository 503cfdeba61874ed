//! Parquet exports: files (footer and metadata) and scans (Arrow batches).
//!
//! Handles are boxed Rust objects behind opaque C pointers. A file handle owns
//! an `Arc` of the parsed file plus the C strings its metadata calls return, so
//! those pointers live exactly as long as the handle; scans hold their own
//! `Arc`, so closing the handle first is harmless.

use std::ffi::{c_char, CStr, CString, OsStr};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::ptr::null;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use super::{
    free_handle, guard, guard_infallible, input_slice, out_param, write_out, IsthmusError,
};
use isthmus_core::arrow::c_data::{ArrowArray, ArrowSchema};
use isthmus_core::arrow::{export, export_array, export_schema, read_schema, BufferPool};
use isthmus_core::error::{Error, Result};
use isthmus_core::parquet::metadata::{ClosedEnum, LogicalType, Repetition};
use isthmus_core::parquet::{footer_length, ParquetFile, Scan, ScanOptions, Step};

/// `ISTHMUS_SCAN_FLAG_KEEP_DICTIONARIES`.
pub const SCAN_FLAG_KEEP_DICTIONARIES: u32 = 1;
/// `ISTHMUS_SCAN_FLAG_SKIP_CRC`.
pub const SCAN_FLAG_SKIP_CRC: u32 = 2;
/// `ISTHMUS_SCAN_STATE_*`.
pub const SCAN_STATE_END: i32 = 0;
pub const SCAN_STATE_BATCH: i32 = 1;
pub const SCAN_STATE_NEED_RANGES: i32 = 2;

/// `isthmus_file`: an opened file and the C strings its metadata hands out.
pub struct IsthmusFile {
    file: Arc<ParquetFile>,
    paths: Vec<CString>,
    formats: Vec<Option<CString>>,
}

/// `isthmus_scan`; `busy` turns concurrent use into an error instead of a race.
pub struct IsthmusScan {
    scan: Scan,
    busy: AtomicBool,
}

#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IsthmusFileInfo {
    pub num_rows: i64,
    pub file_size: i64,
    pub num_row_groups: u32,
    pub num_columns: u32,
    pub num_fields: u32,
}

#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IsthmusRowGroupInfo {
    pub num_rows: i64,
    pub first_row: i64,
    pub byte_offset: i64,
    pub byte_length: i64,
    pub compressed_size: i64,
    pub uncompressed_size: i64,
}

#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IsthmusColumnInfo {
    pub path: *const c_char,
    pub arrow_format: *const c_char,
    pub field_id: i32,
    pub has_field_id: i32,
    pub physical_type: i32,
    pub type_length: i32,
    pub logical_type: i32,
    pub converted_type: i32,
    pub precision: i32,
    pub scale: i32,
    pub max_definition_level: i16,
    pub max_repetition_level: i16,
    pub repetition: i32,
}

#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IsthmusColumnChunkInfo {
    pub byte_offset: i64,
    pub compressed_size: i64,
    pub uncompressed_size: i64,
    pub data_page_offset: i64,
    pub dictionary_page_offset: i64,
    pub num_values: i64,
    pub null_count: i64,
    pub min_value: *const u8,
    pub max_value: *const u8,
    pub min_length: u32,
    pub max_length: u32,
    pub codec: i32,
    pub encodings: u32,
    pub all_dictionary: i32,
    pub min_is_exact: i32,
    pub max_is_exact: i32,
}

#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct IsthmusScanOptions {
    pub field_ids: *const i32,
    pub expected_schema: *const ArrowSchema,
    pub row_groups: *const u32,
    pub first_row: i64,
    pub num_field_ids: u32,
    pub num_row_groups: u32,
    pub batch_size: u32,
    pub flags: u32,
    pub max_page_size: u64,
    pub mapped_names: *const u8,
    pub mapped_names_length: u64,
    pub memory: *const IsthmusScanMemory,
}

#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IsthmusRange {
    pub offset: i64,
    pub length: i64,
    pub buffer: *mut u8,
}

impl IsthmusFile {
    fn new(file: ParquetFile) -> Result<Box<IsthmusFile>> {
        let columns = file.columns();
        let c_string = |text: String| {
            CString::new(text).map_err(|_| Error::corrupt_data("a column name contains a NUL byte"))
        };
        let paths = columns
            .iter()
            .map(|c| c_string(c.path.join(".")))
            .collect::<Result<_>>()
            .map_err(|e| file.location().wrap(e))?;
        let formats = columns
            .iter()
            .map(|c| {
                c.arrow_type()
                    .ok()
                    .and_then(|t| CString::new(t.format()).ok())
            })
            .collect();
        Ok(Box::new(IsthmusFile {
            file: Arc::new(file),
            paths,
            formats,
        }))
    }
}

/// A handle the caller passed in, as a reference for the call.
///
/// # Safety
/// `ptr` is NULL or a live handle from this module.
unsafe fn handle<'a, T>(ptr: *const T, name: &str) -> Result<&'a T> {
    // SAFETY: per the caller.
    unsafe { ptr.as_ref() }.ok_or_else(|| Error::invalid_argument(format!("{name} is NULL")))
}

/// A NUL-terminated string argument.
///
/// # Safety
/// `ptr` is NULL or NUL-terminated.
unsafe fn c_str<'a>(ptr: *const c_char, name: &str) -> Result<&'a CStr> {
    if ptr.is_null() {
        return Err(Error::invalid_argument(format!("{name} is NULL")));
    }
    // SAFETY: per the caller.
    Ok(unsafe { CStr::from_ptr(ptr) })
}

/// `value` checked against `count` of `file`'s row groups or columns.
fn index(file: &ParquetFile, value: u32, count: usize, what: &str) -> Result<usize> {
    let index = value as usize;
    if index >= count {
        return Err(file.location().wrap(Error::invalid_argument(format!(
            "{what} {value} is out of range (the file has {count})"
        ))));
    }
    Ok(index)
}

/// # Safety
/// `path` is NULL or NUL-terminated; `out_file` and `error` are NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn isthmus_file_open_path(
    path: *const c_char,
    out_file: *mut *mut IsthmusFile,
    error: *mut IsthmusError,
) -> i32 {
    guard(error, || {
        // SAFETY: per the caller.
        let path = unsafe { c_str(path, "path") }?;
        let out_file = out_param(out_file, "out_file")?;
        // Linux paths are bytes; they need not be UTF-8.
        let path = Path::new(OsStr::from_bytes(path.to_bytes()));
        let file = IsthmusFile::new(ParquetFile::open_path(path)?)?;
        // SAFETY: checked non-NULL; writable per the caller's contract.
        unsafe { write_out(out_file, Box::into_raw(file)) };
        Ok(())
    })
}

/// # Safety
/// `tail` is NULL with a zero size or readable for `tail_size` bytes;
/// `out_length` and `error` are NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn isthmus_footer_length(
    tail: *const u8,
    tail_size: u64,
    file_size: u64,
    out_length: *mut u32,
    error: *mut IsthmusError,
) -> i32 {
    guard(error, || {
        // SAFETY: per the caller.
        let tail = unsafe { input_slice(tail, tail_size, "tail", "tail_size") }?;
        let out_length = out_param(out_length, "out_length")?;
        let length = footer_length(tail, file_size)?;
        // SAFETY: checked non-NULL; writable per the caller's contract.
        unsafe { write_out(out_length, length) };
        Ok(())
    })
}

/// # Safety
/// `footer` is NULL with a zero size or readable for `footer_size` bytes;
/// `display_name` is NULL or NUL-terminated; `out_file` and `error` are NULL or
/// writable.
#[no_mangle]
pub unsafe extern "C" fn isthmus_file_open_footer(
    footer: *const u8,
    footer_size: u64,
    file_size: u64,
    display_name: *const c_char,
    out_file: *mut *mut IsthmusFile,
    error: *mut IsthmusError,
) -> i32 {
    guard(error, || {
        // SAFETY: per the caller.
        let footer = unsafe { input_slice(footer, footer_size, "footer", "footer_size") }?;
        let name = if display_name.is_null() {
            String::new()
        } else {
            // SAFETY: per the caller.
            unsafe { CStr::from_ptr(display_name) }
                .to_string_lossy()
                .into_owned()
        };
        let out_file = out_param(out_file, "out_file")?;
        let file = IsthmusFile::new(ParquetFile::open_footer(footer, file_size, &name)?)?;
        // SAFETY: checked non-NULL; writable per the caller's contract.
        unsafe { write_out(out_file, Box::into_raw(file)) };
        Ok(())
    })
}

/// # Safety
/// `file` is NULL or a handle from this module, not used afterwards.
#[no_mangle]
pub unsafe extern "C" fn isthmus_file_close(file: *mut IsthmusFile) {
    // SAFETY: per this function's contract (above).
    guard_infallible((), || unsafe { free_handle(file) })
}

/// # Safety
/// `file` is NULL or a live handle; `out` and `error` are NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn isthmus_file_get_info(
    file: *const IsthmusFile,
    out: *mut IsthmusFileInfo,
    error: *mut IsthmusError,
) -> i32 {
    guard(error, || {
        // SAFETY: per the caller.
        let file = &unsafe { handle(file, "file") }?.file;
        let out = out_param(out, "out")?;
        let info = IsthmusFileInfo {
            num_rows: file.num_rows() as i64,
            file_size: file.size() as i64,
            num_row_groups: file.row_groups().len() as u32,
            num_columns: file.columns().len() as u32,
            num_fields: file.num_fields() as u32,
        };
        // SAFETY: checked non-NULL; writable per the caller's contract.
        unsafe { write_out(out, info) };
        Ok(())
    })
}

/// # Safety
/// As for [`isthmus_file_get_info`].
#[no_mangle]
pub unsafe extern "C" fn isthmus_file_row_group(
    file: *const IsthmusFile,
    row_group: u32,
    out: *mut IsthmusRowGroupInfo,
    error: *mut IsthmusError,
) -> i32 {
    guard(error, || {
        // SAFETY: per the caller.
        let file = &unsafe { handle(file, "file") }?.file;
        let out = out_param(out, "out")?;
        let row_groups = file.row_groups();
        let info = &row_groups[index(file, row_group, row_groups.len(), "row group")?];
        let value = IsthmusRowGroupInfo {
            num_rows: info.num_rows as i64,
            first_row: info.first_row as i64,
            byte_offset: info.byte_range.offset as i64,
            byte_length: info.byte_range.len as i64,
            compressed_size: info.compressed_size as i64,
            uncompressed_size: info.uncompressed_size as i64,
        };
        // SAFETY: checked non-NULL; writable per the caller's contract.
        unsafe { write_out(out, value) };
        Ok(())
    })
}

/// The union member id of a logical type, as in parquet.thrift.
fn logical_type_id(logical: &LogicalType) -> i32 {
    match logical {
        LogicalType::String => 1,
        LogicalType::Map => 2,
        LogicalType::List => 3,
        LogicalType::Enum => 4,
        LogicalType::Decimal { .. } => 5,
        LogicalType::Date => 6,
        LogicalType::Time { .. } => 7,
        LogicalType::Timestamp { .. } => 8,
        LogicalType::Integer { .. } => 10,
        LogicalType::Unknown => 11,
        LogicalType::Json => 12,
        LogicalType::Bson => 13,
        LogicalType::Uuid => 14,
        LogicalType::Float16 => 15,
        LogicalType::Variant { .. } => 16,
        LogicalType::Geometry { .. } => 17,
        LogicalType::Geography { .. } => 18,
        LogicalType::Unrecognized { field_id } => i32::from(*field_id),
    }
}

/// # Safety
/// As for [`isthmus_file_get_info`].
#[no_mangle]
pub unsafe extern "C" fn isthmus_file_column(
    file: *const IsthmusFile,
    column: u32,
    out: *mut IsthmusColumnInfo,
    error: *mut IsthmusError,
) -> i32 {
    guard(error, || {
        // SAFETY: per the caller.
        let handle = unsafe { handle(file, "file") }?;
        let out = out_param(out, "out")?;
        let columns = handle.file.columns();
        let k = index(&handle.file, column, columns.len(), "column")?;
        let c = &columns[k];
        let (precision, scale) = match &c.logical_type {
            Some(LogicalType::Decimal { scale, precision }) => (*precision, *scale),
            _ => (c.precision.unwrap_or(0), c.scale.unwrap_or(0)),
        };
        let value = IsthmusColumnInfo {
            path: handle.paths[k].as_ptr(),
            arrow_format: handle.formats[k].as_ref().map_or(null(), |f| f.as_ptr()),
            field_id: c.field_id.unwrap_or(0),
            has_field_id: i32::from(c.field_id.is_some()),
            physical_type: c.physical_type.to_thrift(),
            type_length: c.type_length.unwrap_or(0),
            logical_type: c.logical_type.as_ref().map_or(0, logical_type_id),
            converted_type: c.converted_type.map_or(-1, |t| t.to_thrift()),
            precision,
            scale,
            max_definition_level: c.max_def_level,
            max_repetition_level: c.max_rep_level,
            repetition: match c.repetition {
                Repetition::Required => 0,
                Repetition::Optional => 1,
                _ => 2,
            },
        };
        // SAFETY: checked non-NULL; writable per the caller's contract.
        unsafe { write_out(out, value) };
        Ok(())
    })
}

/// # Safety
/// As for [`isthmus_file_get_info`].
#[no_mangle]
pub unsafe extern "C" fn isthmus_file_column_chunk(
    file: *const IsthmusFile,
    row_group: u32,
    column: u32,
    out: *mut IsthmusColumnChunkInfo,
    error: *mut IsthmusError,
) -> i32 {
    guard(error, || {
        // SAFETY: per the caller.
        let file = &unsafe { handle(file, "file") }?.file;
        let out = out_param(out, "out")?;
        let rg = index(file, row_group, file.row_groups().len(), "row group")?;
        let c = index(file, column, file.columns().len(), "column")?;
        let chunk = &file.row_groups()[rg].chunks[c];
        let meta = file
            .chunk_metadata(rg, c)
            .ok_or_else(|| Error::internal("a chunk without metadata"))?;
        let stats = file.chunk_statistics(rg, c);
        let bytes = |value: Option<&Vec<u8>>| match value {
            Some(v) => (v.as_ptr(), v.len() as u32),
            None => (null(), 0),
        };
        let (min_value, min_length) = bytes(stats.and_then(|s| s.min_value.as_ref()));
        let (max_value, max_length) = bytes(stats.and_then(|s| s.max_value.as_ref()));
        let exact = |flag: Option<bool>| flag.map_or(-1, i32::from);
        let value = IsthmusColumnChunkInfo {
            byte_offset: chunk.range.offset as i64,
            compressed_size: meta.total_compressed_size,
            uncompressed_size: meta.total_uncompressed_size,
            data_page_offset: meta.data_page_offset,
            dictionary_page_offset: match meta.dictionary_page_offset {
                Some(offset) if chunk.range.offset as i64 == offset => offset,
                _ => -1,
            },
            num_values: meta.num_values,
            null_count: stats.and_then(|s| s.null_count).unwrap_or(-1),
            min_value,
            max_value,
            min_length,
            max_length,
            codec: meta.codec.to_thrift(),
            encodings: meta
                .encodings
                .iter()
                .filter_map(|e| u32::try_from(e.to_thrift()).ok().filter(|&e| e < 32))
                .fold(0, |bits, e| bits | 1 << e),
            all_dictionary: chunk.all_dictionary.map_or(-1, i32::from),
            min_is_exact: exact(stats.and_then(|s| s.is_min_value_exact)),
            max_is_exact: exact(stats.and_then(|s| s.is_max_value_exact)),
        };
        // SAFETY: checked non-NULL; writable per the caller's contract.
        unsafe { write_out(out, value) };
        Ok(())
    })
}

/// # Safety
/// `file` is NULL or a live handle; `out_schema` and `error` are NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn isthmus_file_schema(
    file: *const IsthmusFile,
    out_schema: *mut ArrowSchema,
    error: *mut IsthmusError,
) -> i32 {
    guard(error, || {
        // SAFETY: per the caller.
        let file = &unsafe { handle(file, "file") }?.file;
        let out_schema = out_param(out_schema, "out_schema")?;
        let schema = export_schema(&file.arrow_schema()?)?;
        // SAFETY: checked non-NULL; writable per the caller's contract.
        unsafe { write_out(out_schema, schema) };
        Ok(())
    })
}

/// # Safety
/// `file` is NULL or a live handle; `bytes` is NULL with a zero size or
/// readable for `size` bytes; `out_array`, `out_schema` and `error` are NULL or
/// writable.
#[no_mangle]
pub unsafe extern "C" fn isthmus_file_dictionary(
    file: *const IsthmusFile,
    row_group: u32,
    column: u32,
    bytes: *const u8,
    size: u64,
    out_array: *mut ArrowArray,
    out_schema: *mut ArrowSchema,
    error: *mut IsthmusError,
) -> i32 {
    guard(error, || {
        // SAFETY: per the caller.
        let file = &unsafe { handle(file, "file") }?.file;
        // SAFETY: per the caller.
        let bytes = unsafe { input_slice(bytes, size, "bytes", "size") }?;
        let out_array = out_param(out_array, "out_array")?;
        let out_schema = out_param(out_schema, "out_schema")?;
        let rg = index(file, row_group, file.row_groups().len(), "row group")?;
        let c = index(file, column, file.columns().len(), "column")?;
        let (field, data) = file.dictionary(rg, c, bytes, true)?;
        let (array, schema) = export(data, &field)?;
        // SAFETY: checked non-NULL; writable per the caller's contract.
        unsafe {
            write_out(out_schema, schema);
            write_out(out_array, array);
        }
        Ok(())
    })
}

/// Reads the caller's options into [`ScanOptions`].
///
/// # Safety
/// The pointers in `options` follow the header's contract for the call.
unsafe fn scan_options(options: &IsthmusScanOptions) -> Result<ScanOptions> {
    // SAFETY: per the caller; arrays of plain integers need only alignment,
    // which input_slice's byte view does not, so they are read unaligned.
    let ids = unsafe {
        input_slice(
            options.field_ids.cast(),
            u64::from(options.num_field_ids) * 4,
            "field_ids",
            "num_field_ids",
        )
    }?;
    let field_ids: Vec<i32> = ids
        .chunks_exact(4)
        .map(|b| i32::from_ne_bytes([b[0], b[1], b[2], b[3]]))
        .collect();
    let row_groups = if options.row_groups.is_null() {
        if options.num_row_groups != 0 {
            return Err(Error::invalid_argument(format!(
                "row_groups is NULL but num_row_groups is {}",
                options.num_row_groups
            )));
        }
        None
    } else {
        // SAFETY: as above.
        let bytes = unsafe {
            input_slice(
                options.row_groups.cast(),
                u64::from(options.num_row_groups) * 4,
                "row_groups",
                "num_row_groups",
            )
        }?;
        Some(
            bytes
                .chunks_exact(4)
                .map(|b| u32::from_ne_bytes([b[0], b[1], b[2], b[3]]) as usize)
                .collect(),
        )
    };
    let expected = if options.expected_schema.is_null() {
        None
    } else {
        // SAFETY: per the caller; the schema is only read.
        Some(
            unsafe { read_schema(options.expected_schema) }
                .map_err(|e| e.context("expected_schema"))?,
        )
    };
    let mapped_names = if options.mapped_names.is_null() && options.mapped_names_length == 0 {
        None
    } else {
        // SAFETY: per the caller, as above.
        let bytes = unsafe {
            input_slice(
                options.mapped_names,
                options.mapped_names_length,
                "mapped_names",
                "mapped_names_length",
            )
        }?;
        Some(name_lists(bytes, field_ids.len())?)
    };
    let first_row = u64::try_from(options.first_row).map_err(|_| {
        Error::invalid_argument(format!("first_row is negative ({})", options.first_row))
    })?;
    let known = SCAN_FLAG_KEEP_DICTIONARIES | SCAN_FLAG_SKIP_CRC;
    if options.flags & !known != 0 {
        return Err(Error::invalid_argument(format!(
            "unknown flags {:#x}",
            options.flags & !known
        )));
    }
    Ok(ScanOptions {
        field_ids,
        expected,
        row_groups,
        first_row,
        batch_size: options.batch_size as usize,
        keep_dictionaries: options.flags & SCAN_FLAG_KEEP_DICTIONARIES != 0,
        verify_crc: options.flags & SCAN_FLAG_SKIP_CRC == 0,
        // Beyond the address space is no limit at all, which a u64 may say.
        max_page_size: usize::try_from(options.max_page_size).unwrap_or(usize::MAX),
        mapped_names,
        // SAFETY: per the caller, NULL or a live hold, which the scan then
        // shares rather than borrows.
        pool: unsafe { options.memory.as_ref() }.map(|memory| Arc::clone(&memory.pool)),
    })
}

/// `count` lists of names, each name NUL-terminated UTF-8 and each list ended
/// by an empty name, filling `bytes` exactly.
fn name_lists(bytes: &[u8], count: usize) -> Result<Vec<Vec<String>>> {
    let bad = |what: &str| Error::invalid_argument(format!("mapped_names: {what}"));
    let mut lists = Vec::with_capacity(count);
    let mut names = Vec::new();
    let mut rest = bytes;
    while !rest.is_empty() {
        let end = rest
            .iter()
            .position(|&b| b == 0)
            .ok_or_else(|| bad("a name is not NUL-terminated"))?;
        let (name, tail) = (&rest[..end], &rest[end + 1..]);
        rest = tail;
        if name.is_empty() {
            lists.push(std::mem::take(&mut names));
            continue;
        }
        let name = std::str::from_utf8(name).map_err(|_| bad("a name is not UTF-8"))?;
        names.push(name.to_owned());
    }
    if !names.is_empty() {
        return Err(bad("the last list of names is not ended by an empty name"));
    }
    if lists.len() != count {
        return Err(bad(&format!(
            "{} lists of names for {count} field ids",
            lists.len()
        )));
    }
    Ok(lists)
}

/// # Safety
/// `file` is NULL or a live handle; `options` is NULL or points to options whose
/// pointers follow the header; `out_scan` and `error` are NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn isthmus_scan_open(
    file: *const IsthmusFile,
    options: *const IsthmusScanOptions,
    out_scan: *mut *mut IsthmusScan,
    error: *mut IsthmusError,
) -> i32 {
    guard(error, || {
        // SAFETY: per the caller.
        let file = unsafe { handle(file, "file") }?.file.clone();
        if options.is_null() {
            return Err(file
                .location()
                .wrap(Error::invalid_argument("options is NULL")));
        }
        // SAFETY: per the caller; the struct may be unaligned.
        let options = unsafe { scan_options(&options.read_unaligned()) }
            .map_err(|e| file.location().wrap(e))?;
        let out_scan = out_param(out_scan, "out_scan")?;
        let scan = Box::new(IsthmusScan {
            scan: Scan::open(file, options)?,
            busy: AtomicBool::new(false),
        });
        // SAFETY: checked non-NULL; writable per the caller's contract.
        unsafe { write_out(out_scan, Box::into_raw(scan)) };
        Ok(())
    })
}

/// # Safety
/// `scan` is NULL or a live scan; `out_schema` and `error` are NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn isthmus_scan_schema(
    scan: *const IsthmusScan,
    out_schema: *mut ArrowSchema,
    error: *mut IsthmusError,
) -> i32 {
    guard(error, || {
        let out_schema = out_param(out_schema, "out_schema")?;
        // SAFETY: per the caller; scans are allocated mutable (Box::into_raw).
        let schema = unsafe { with_scan(scan.cast_mut(), |scan| export_schema(scan.schema())) }?;
        // SAFETY: checked non-NULL; writable per the caller's contract.
        unsafe { write_out(out_schema, schema) };
        Ok(())
    })
}

/// `isthmus_scan_memory`: a hold on the memory of a scan's batches.
pub struct IsthmusScanMemory {
    pool: Arc<BufferPool>,
}

/// # Safety
/// `scan` is NULL or a live scan; `out_memory` and `error` are NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn isthmus_scan_hold_memory(
    scan: *const IsthmusScan,
    out_memory: *mut *mut IsthmusScanMemory,
    error: *mut IsthmusError,
) -> i32 {
    guard(error, || {
        let out_memory = out_param(out_memory, "out_memory")?;
        // SAFETY: per the caller; scans are allocated mutable (Box::into_raw).
        let pool = unsafe { with_scan(scan.cast_mut(), |scan| Ok(Arc::clone(scan.pool()))) }?;
        let memory = Box::into_raw(Box::new(IsthmusScanMemory { pool }));
        // SAFETY: checked non-NULL; writable per the caller's contract.
        unsafe { write_out(out_memory, memory) };
        Ok(())
    })
}

/// # Safety
/// `memory` is NULL or from `isthmus_scan_hold_memory`, not used afterwards.
#[no_mangle]
pub unsafe extern "C" fn isthmus_scan_memory_release(memory: *mut IsthmusScanMemory) {
    // SAFETY: per this function's contract (above).
    guard_infallible((), || unsafe { free_handle(memory) })
}

/// Runs `body` with exclusive use of the scan, or fails if another call has it.
///
/// # Safety
/// `scan` is NULL or a live scan.
unsafe fn with_scan<T>(
    scan: *mut IsthmusScan,
    body: impl FnOnce(&mut Scan) -> Result<T>,
) -> Result<T> {
    // SAFETY: per the caller; only the flag is touched through a shared reference.
    let shared = unsafe { handle(scan.cast_const(), "scan") }?;
    if shared.busy.swap(true, Ordering::Acquire) {
        return Err(Error::invalid_argument(
            "the scan is in use by another call (a scan is for one thread at a time)",
        ));
    }
    // SAFETY: the flag makes this call the only one using the scan's reader.
    let result = body(unsafe { &mut (*scan).scan });
    shared.busy.store(false, Ordering::Release);
    result
}

/// # Safety
/// `scan` is NULL or a live scan; `out_array`, `out_state` and `error` are NULL
/// or writable.
#[no_mangle]
pub unsafe extern "C" fn isthmus_scan_next(
    scan: *mut IsthmusScan,
    out_array: *mut ArrowArray,
    out_state: *mut i32,
    error: *mut IsthmusError,
) -> i32 {
    guard(error, || {
        let out_array = out_param(out_array, "out_array")?;
        let out_state = out_param(out_state, "out_state")?;
        // SAFETY: per the caller.
        unsafe {
            with_scan(scan, |scan| {
                let state = match scan.next_step()? {
                    Step::Batch(batch) => {
                        let array = export_array(batch, scan.schema())?;
                        write_out(out_array, array);
                        SCAN_STATE_BATCH
                    }
                    Step::NeedRanges => SCAN_STATE_NEED_RANGES,
                    Step::End => SCAN_STATE_END,
                };
                write_out(out_state, state);
                Ok(())
            })
        }
    })
}

/// # Safety
/// `scan` is NULL or a live scan; `ranges` is NULL with a zero capacity or
/// writable for `capacity` ranges; `out_count` and `error` are NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn isthmus_scan_ranges(
    scan: *mut IsthmusScan,
    ranges: *mut IsthmusRange,
    capacity: u32,
    out_count: *mut u32,
    error: *mut IsthmusError,
) -> i32 {
    guard(error, || {
        if ranges.is_null() && capacity != 0 {
            return Err(Error::invalid_argument(format!(
                "ranges is NULL but capacity is {capacity}"
            )));
        }
        let out_count = out_param(out_count, "out_count")?;
        // SAFETY: per the caller.
        let pending = unsafe { with_scan(scan, |scan| scan.ranges()) }?;
        if pending.len() <= capacity as usize {
            for (k, range) in pending.iter().enumerate() {
                let value = IsthmusRange {
                    offset: range.range.offset as i64,
                    length: range.range.len as i64,
                    buffer: range.buffer,
                };
                // SAFETY: k < capacity, and the caller made `ranges` writable for it.
                unsafe { write_out(ranges.add(k), value) };
            }
        }
        // SAFETY: checked non-NULL; writable per the caller's contract.
        unsafe { write_out(out_count, pending.len() as u32) };
        Ok(())
    })
}

/// # Safety
/// `scan` is NULL or a scan from this module, not used afterwards.
#[no_mangle]
pub unsafe extern "C" fn isthmus_scan_close(scan: *mut IsthmusScan) {
    // SAFETY: per this function's contract (above).
    guard_infallible((), || unsafe { free_handle(scan) })
}

/// Files are shared by threads (the header lets any thread call the file
/// functions concurrently, and scans hold the file); scans move between them.
const _: () = {
    const fn shared<T: Send + Sync>() {}
    const fn movable<T: Send>() {}
    shared::<IsthmusFile>();
    movable::<IsthmusScan>();
};
