//! Calling the C API from the tests: an error struct to pass, its message, the
//! library's Arrow export counters, and a file opened from its footer.

use std::ffi::CStr;
use std::mem::MaybeUninit;
use std::ptr::null_mut;

use isthmus::arrow_exchange::{isthmus_arrow_stats_get, IsthmusArrowStats};
use isthmus::parquet::{isthmus_file_open_footer, isthmus_footer_length, IsthmusFile};
use isthmus::IsthmusError;

pub fn error() -> IsthmusError {
    // SAFETY: all-zero is a valid isthmus_error.
    unsafe { MaybeUninit::zeroed().assume_init() }
}

pub fn message(e: &IsthmusError) -> String {
    unsafe { CStr::from_ptr(e.message.as_ptr()) }
        .to_str()
        .unwrap()
        .to_owned()
}

pub fn stats() -> IsthmusArrowStats {
    let mut out = MaybeUninit::<IsthmusArrowStats>::uninit();
    assert_eq!(
        unsafe { isthmus_arrow_stats_get(out.as_mut_ptr(), null_mut()) },
        0
    );
    unsafe { out.assume_init() }
}

/// `bytes` opened through the C API from its footer, as Java opens a file it
/// reads through a FileIO; the caller closes the handle.
pub fn open_footer(bytes: &[u8], name: &CStr) -> *mut IsthmusFile {
    let mut e = error();
    let mut length = 0u32;
    let tail = &bytes[bytes.len() - 8..];
    let mut file = null_mut();
    unsafe {
        assert_eq!(
            isthmus_footer_length(tail.as_ptr(), 8, bytes.len() as u64, &mut length, &mut e),
            0,
            "{}",
            message(&e)
        );
        let footer = &bytes[bytes.len() - 8 - length as usize..bytes.len() - 8];
        assert_eq!(
            isthmus_file_open_footer(
                footer.as_ptr(),
                footer.len() as u64,
                bytes.len() as u64,
                name.as_ptr(),
                &mut file,
                &mut e
            ),
            0,
            "{}",
            message(&e)
        );
    }
    file
}
