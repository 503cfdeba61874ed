//! Calling the C API from the tests: an error struct to pass, its message, and
//! the library's Arrow export counters.

use std::ffi::CStr;
use std::mem::MaybeUninit;
use std::ptr::null_mut;

use isthmus::ffi::arrow_exchange::{isthmus_arrow_stats_get, IsthmusArrowStats};
use isthmus::ffi::IsthmusError;

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
