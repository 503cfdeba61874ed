//! Exports that describe the library itself.

use std::ffi::{c_char, CStr, CString};
use std::fmt::Write;
use std::mem::{align_of, offset_of, size_of};
use std::sync::OnceLock;

use super::arrow_exchange::IsthmusArrowStats;
use super::parquet::{
    IsthmusColumnChunkInfo, IsthmusColumnInfo, IsthmusFileInfo, IsthmusRange, IsthmusRowGroupInfo,
    IsthmusScanOptions,
};
use super::{guard, guard_infallible, IsthmusError};
use isthmus_core::arrow::c_data::{ArrowArray, ArrowSchema};
use isthmus_core::error::Result;

/// `ISTHMUS_ABI_VERSION`: bump with any change to an export, a struct or the
/// meaning of a constant.
pub const ABI_VERSION: u32 = 10;

const VERSION: &CStr =
    match CStr::from_bytes_with_nul(concat!(env!("CARGO_PKG_VERSION"), "\0").as_bytes()) {
        Ok(version) => version,
        Err(_) => panic!("CARGO_PKG_VERSION contains a NUL"),
    };

#[no_mangle]
pub extern "C" fn isthmus_abi_version() -> u32 {
    guard_infallible(ABI_VERSION, || ABI_VERSION)
}

#[no_mangle]
pub extern "C" fn isthmus_version() -> *const c_char {
    guard_infallible(VERSION.as_ptr(), || VERSION.as_ptr())
}

#[no_mangle]
pub extern "C" fn isthmus_layout_manifest() -> *const c_char {
    guard_infallible(c"".as_ptr(), || layout_manifest().as_ptr())
}

/// # Safety
/// `message` is NULL or a NUL-terminated string; `error` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn isthmus_debug_panic(
    message: *const c_char,
    error: *mut IsthmusError,
) -> i32 {
    guard(error, || -> Result<()> {
        let text = if message.is_null() {
            "isthmus_debug_panic called".into()
        } else {
            // SAFETY: the caller passes a NUL-terminated string.
            unsafe { CStr::from_ptr(message) }.to_string_lossy()
        };
        panic!("{text}")
    })
}

/// One line per struct in the header, "name size align field@offset ...", as Rust
/// lays them out; the header contract test and the Java bindings compare it with
/// their own view.
fn layout_manifest() -> &'static CStr {
    static MANIFEST: OnceLock<CString> = OnceLock::new();
    MANIFEST.get_or_init(|| {
        macro_rules! line {
            ($out:ident, $name:literal, $ty:ty, [$($field:ident),+]) => {{
                let _ = write!($out, "{} {} {}", $name, size_of::<$ty>(), align_of::<$ty>());
                $(let _ = write!($out, " {}@{}", stringify!($field), offset_of!($ty, $field));)+
                $out.push('\n');
            }};
        }
        let mut out = String::new();
        line!(
            out,
            "isthmus_error",
            IsthmusError,
            [code, message_length, message]
        );
        line!(
            out,
            "ArrowSchema",
            ArrowSchema,
            [
                format,
                name,
                metadata,
                flags,
                n_children,
                children,
                dictionary,
                release,
                private_data
            ]
        );
        line!(
            out,
            "ArrowArray",
            ArrowArray,
            [
                length,
                null_count,
                offset,
                n_buffers,
                n_children,
                buffers,
                children,
                dictionary,
                release,
                private_data
            ]
        );
        line!(
            out,
            "isthmus_arrow_stats",
            IsthmusArrowStats,
            [
                exported_live,
                exported_total,
                exported_bytes_live,
                imported_live,
                imported_total,
                allocated_bytes
            ]
        );
        line!(
            out,
            "isthmus_file_info",
            IsthmusFileInfo,
            [num_rows, file_size, num_row_groups, num_columns, num_fields]
        );
        line!(
            out,
            "isthmus_row_group_info",
            IsthmusRowGroupInfo,
            [
                num_rows,
                first_row,
                byte_offset,
                byte_length,
                compressed_size,
                uncompressed_size
            ]
        );
        line!(
            out,
            "isthmus_column_info",
            IsthmusColumnInfo,
            [
                path,
                arrow_format,
                field_id,
                has_field_id,
                physical_type,
                type_length,
                logical_type,
                converted_type,
                precision,
                scale,
                max_definition_level,
                max_repetition_level,
                repetition
            ]
        );
        line!(
            out,
            "isthmus_column_chunk_info",
            IsthmusColumnChunkInfo,
            [
                byte_offset,
                compressed_size,
                uncompressed_size,
                data_page_offset,
                dictionary_page_offset,
                num_values,
                null_count,
                min_value,
                max_value,
                min_length,
                max_length,
                codec,
                encodings,
                all_dictionary,
                min_is_exact,
                max_is_exact
            ]
        );
        line!(
            out,
            "isthmus_scan_options",
            IsthmusScanOptions,
            [
                field_ids,
                expected_schema,
                row_groups,
                first_row,
                num_field_ids,
                num_row_groups,
                batch_size,
                flags,
                max_page_size,
                mapped_names,
                mapped_names_length,
                memory
            ]
        );
        line!(out, "isthmus_range", IsthmusRange, [offset, length, buffer]);
        CString::new(out).expect("the manifest has no NUL")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn manifest_describes_the_c_layout() {
        let manifest = unsafe { CStr::from_ptr(isthmus_layout_manifest()) }
            .to_str()
            .unwrap();
        assert_eq!(
            manifest,
            "isthmus_error 1032 4 code@0 message_length@4 message@8\n\
             ArrowSchema 72 8 format@0 name@8 metadata@16 flags@24 n_children@32 children@40 \
             dictionary@48 release@56 private_data@64\n\
             ArrowArray 80 8 length@0 null_count@8 offset@16 n_buffers@24 n_children@32 buffers@40 \
             children@48 dictionary@56 release@64 private_data@72\n\
             isthmus_arrow_stats 48 8 exported_live@0 exported_total@8 exported_bytes_live@16 \
             imported_live@24 imported_total@32 allocated_bytes@40\n\
             isthmus_file_info 32 8 num_rows@0 file_size@8 num_row_groups@16 num_columns@20 \
             num_fields@24\n\
             isthmus_row_group_info 48 8 num_rows@0 first_row@8 byte_offset@16 byte_length@24 \
             compressed_size@32 uncompressed_size@40\n\
             isthmus_column_info 56 8 path@0 arrow_format@8 field_id@16 has_field_id@20 \
             physical_type@24 type_length@28 logical_type@32 converted_type@36 precision@40 \
             scale@44 max_definition_level@48 max_repetition_level@50 repetition@52\n\
             isthmus_column_chunk_info 104 8 byte_offset@0 compressed_size@8 \
             uncompressed_size@16 data_page_offset@24 dictionary_page_offset@32 num_values@40 \
             null_count@48 min_value@56 max_value@64 min_length@72 max_length@76 codec@80 \
             encodings@84 all_dictionary@88 min_is_exact@92 max_is_exact@96\n\
             isthmus_scan_options 80 8 field_ids@0 expected_schema@8 row_groups@16 first_row@24 \
             num_field_ids@32 num_row_groups@36 batch_size@40 flags@44 \
             max_page_size@48 mapped_names@56 mapped_names_length@64 memory@72\n\
             isthmus_range 24 8 offset@0 length@8 buffer@16\n"
        );
        assert_eq!(
            isthmus_layout_manifest(),
            isthmus_layout_manifest(),
            "built once"
        );
    }

    #[test]
    fn version_is_the_package_version() {
        let version = unsafe { CStr::from_ptr(isthmus_version()) };
        assert_eq!(version.to_str().unwrap(), env!("CARGO_PKG_VERSION"));
        assert_eq!(isthmus_abi_version(), 10);
    }
}
