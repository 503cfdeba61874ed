//! Exports that describe the library itself.

use std::ffi::{c_char, CStr, CString};
use std::fmt::Write;
use std::mem::{align_of, offset_of, size_of};
use std::sync::OnceLock;

use super::arrow::{ArrowArray, ArrowSchema};
use super::arrow_exchange::IsthmusArrowStats;
use super::{guard, guard_infallible, IsthmusError};
use crate::error::Result;

/// `ISTHMUS_ABI_VERSION`: bump with any change to an export, a struct or the
/// meaning of a constant.
pub const ABI_VERSION: u32 = 2;

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
                imported_total
            ]
        );
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
             isthmus_arrow_stats 40 8 exported_live@0 exported_total@8 exported_bytes_live@16 \
             imported_live@24 imported_total@32\n"
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
        assert_eq!(isthmus_abi_version(), 2);
    }
}
