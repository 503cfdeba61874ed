//! Arrow exchange exports: counters, the echo that proves both directions of
//! the C Data Interface agree, and the canonical checksum.

use super::{guard, out_param, write_out, IsthmusError};
use isthmus_core::arrow::c_data::{ArrowArray, ArrowSchema};
use isthmus_core::arrow::{
    allocated_bytes, checksum, deep_copy, export, import_array, import_schema, read_schema, stats,
    view_array,
};

/// `isthmus_arrow_stats`.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IsthmusArrowStats {
    pub exported_live: i64,
    pub exported_total: i64,
    pub exported_bytes_live: i64,
    pub imported_live: i64,
    pub imported_total: i64,
    pub allocated_bytes: i64,
}

/// # Safety
/// `out` is NULL or writable; `error` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn isthmus_arrow_stats_get(
    out: *mut IsthmusArrowStats,
    error: *mut IsthmusError,
) -> i32 {
    guard(error, || {
        let out = out_param(out, "out")?;
        let stats = stats::snapshot();
        let value = IsthmusArrowStats {
            exported_live: stats.exported_live,
            exported_total: stats.exported_total,
            exported_bytes_live: stats.exported_bytes_live,
            imported_live: stats.imported_live,
            imported_total: stats.imported_total,
            allocated_bytes: allocated_bytes() as i64,
        };
        // SAFETY: checked non-NULL; writable per the caller's contract.
        unsafe { write_out(out, value) };
        Ok(())
    })
}

/// # Safety
/// `array`/`schema` are NULL or C Data Interface structs the caller owns;
/// `out_array`/`out_schema` are NULL or writable; `error` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn isthmus_arrow_echo(
    array: *mut ArrowArray,
    schema: *mut ArrowSchema,
    out_array: *mut ArrowArray,
    out_schema: *mut ArrowSchema,
    error: *mut IsthmusError,
) -> i32 {
    guard(error, || {
        // Both inputs are moved before anything else can fail, so that the
        // caller's structs are released whatever happens next.
        // SAFETY: per the caller's contract.
        let (imported, field) = unsafe { (import_array(array), import_schema(schema)) };
        let out_array = out_param(out_array, "out_array")?;
        let out_schema = out_param(out_schema, "out_schema")?;
        let (imported, field) = (imported?, field?);
        let copy = deep_copy(&imported.view(&field)?)?;
        drop(imported);
        let (exported_array, exported_schema) = export(copy, &field)?;
        // SAFETY: checked non-NULL; writable per the caller's contract.
        unsafe {
            write_out(out_array, exported_array);
            write_out(out_schema, exported_schema);
        }
        Ok(())
    })
}

/// # Safety
/// `array`/`schema` are NULL or C Data Interface structs that stay valid during
/// the call; `out_checksum` and `error` are NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn isthmus_arrow_checksum(
    array: *const ArrowArray,
    schema: *const ArrowSchema,
    out_checksum: *mut u64,
    error: *mut IsthmusError,
) -> i32 {
    guard(error, || {
        let out_checksum = out_param(out_checksum, "out_checksum")?;
        // SAFETY: per the caller's contract; neither struct is released here.
        let field = unsafe { read_schema(schema) }?;
        // SAFETY: as above, and the array outlives the view within this call.
        let view = unsafe { view_array(array, &field) }?;
        let value = checksum(&view);
        // SAFETY: checked non-NULL; writable per the caller's contract.
        unsafe { write_out(out_checksum, value) };
        Ok(())
    })
}
