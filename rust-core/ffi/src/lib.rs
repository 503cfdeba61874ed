//! libisthmus.so: the C ABI declared in `include/isthmus.h`, which Java 25
//! calls through the FFM API, over the Rust API of `isthmus-core`.
//!
//! This crate holds only the boundary: it checks and converts what crosses it.
//! Raw pointers become slices, handles become the core's objects, [`Error`]s
//! become a status code plus a message in the caller's [`IsthmusError`], and
//! panics become [`Status::Internal`]. The work itself is the core's:
//! [`isthmus_core::compression`] for the codec exports ([`codec`]),
//! [`isthmus_core::arrow`] for the Arrow exchange ([`arrow_exchange`]),
//! [`isthmus_core::parquet`] for files and scans ([`parquet`]) and for the writer
//! ([`parquet_write`]); [`library`] describes the library itself (versions, the
//! layout manifest of the header's structs).
//!
//! Every export runs its body through the crate's `guard` (or
//! `guard_infallible`), both over [`isthmus_core::panic_guard`], so no panic
//! unwinds into foreign frames. The Arrow C Data structs it passes are
//! [`isthmus_core::arrow::c_data`]'s; the header's other structs are defined
//! here, `#[repr(C)]`.
//!
//! Every exported (unmangled) function of the workspace is in this crate: the
//! tests' `header_contract` checks that, and that each matches its prototype in
//! the header; `ci/check-native-lib.sh` checks the built library's exports. The
//! crate is also an rlib so that its tests can call the exports as Rust
//! functions.

#![deny(unsafe_op_in_unsafe_fn)]

pub mod arrow_exchange;
pub mod codec;
pub mod library;
pub mod parquet;
pub mod parquet_write;

use std::os::raw::c_char;
use std::ptr::{self, addr_of_mut};

use isthmus_core::error::{Error, Result, Status};
use isthmus_core::panic_guard::catch;
pub(crate) use isthmus_core::panic_guard::guard_infallible;

/// `ISTHMUS_ERROR_MESSAGE_CAPACITY`: message bytes including the terminating NUL.
pub const ERROR_MESSAGE_CAPACITY: usize = 1024;

/// `isthmus_error`: filled by a failing call, owned by the caller.
#[repr(C)]
pub struct IsthmusError {
    pub code: i32,
    /// Message length in bytes, excluding the terminating NUL.
    pub message_length: u32,
    /// NUL-terminated UTF-8.
    pub message: [c_char; ERROR_MESSAGE_CAPACITY],
}

/// Runs an export's body: returns `ISTHMUS_OK`, or the error's status after
/// writing it to `error` (which may be NULL). A panic becomes
/// `ISTHMUS_ERR_INTERNAL` with its message and location.
pub(crate) fn guard(error: *mut IsthmusError, body: impl FnOnce() -> Result<()>) -> i32 {
    match catch(body).and_then(|result| result) {
        Ok(()) => Status::Ok.code(),
        Err(e) => {
            // SAFETY: the header makes `error` NULL or a writable isthmus_error.
            unsafe { write_error(error, &e) };
            e.status().code()
        }
    }
}

/// Writes `e` into the caller's error struct, truncating the message on a UTF-8
/// boundary. Uses unaligned raw writes: the memory may be uninitialised, and a
/// reference to it would assert more than the caller promises.
///
/// # Safety
/// `error` is NULL or points to `size_of::<IsthmusError>()` writable bytes.
pub(crate) unsafe fn write_error(error: *mut IsthmusError, e: &Error) {
    if error.is_null() {
        return;
    }
    let text = truncate_message(e.message());
    // SAFETY: the caller guarantees `error` is writable; the message fits the array.
    unsafe {
        addr_of_mut!((*error).code).write_unaligned(e.status().code());
        addr_of_mut!((*error).message_length).write_unaligned(text.len() as u32);
        let message = addr_of_mut!((*error).message).cast::<u8>();
        ptr::copy_nonoverlapping(text.as_ptr(), message, text.len());
        message.add(text.len()).write(0);
    }
}

/// The longest prefix that fits the message array with its NUL, cut on a char
/// boundary, with interior NULs (which C would read as the end) replaced.
fn truncate_message(message: &str) -> String {
    let mut end = message.len().min(ERROR_MESSAGE_CAPACITY - 1);
    while !message.is_char_boundary(end) {
        end -= 1;
    }
    let cut = &message[..end];
    if !cut.contains('\0') {
        return cut.to_owned();
    }
    truncate_message(&cut.replace('\0', "\u{FFFD}"))
}

/// A caller's `(pointer, length)` input buffer as a slice; NULL is allowed only
/// with length 0.
///
/// # Safety
/// A non-NULL `ptr` must be readable for `len` bytes for the returned lifetime.
pub(crate) unsafe fn input_slice<'a>(
    ptr: *const u8,
    len: u64,
    name: &str,
    len_name: &str,
) -> Result<&'a [u8]> {
    let len = checked_len(ptr, len, name, len_name)?;
    if len == 0 {
        return Ok(&[]);
    }
    // SAFETY: non-NULL (checked above) and readable per the caller's contract.
    Ok(unsafe { std::slice::from_raw_parts(ptr, len) })
}

/// Like [`input_slice`] for an output buffer.
///
/// # Safety
/// A non-NULL `ptr` must be writable for `len` bytes for the returned lifetime,
/// and no other live reference may overlap it.
pub(crate) unsafe fn output_slice<'a>(
    ptr: *mut u8,
    len: u64,
    name: &str,
    len_name: &str,
) -> Result<&'a mut [u8]> {
    let len = checked_len(ptr, len, name, len_name)?;
    if len == 0 {
        return Ok(&mut []);
    }
    // SAFETY: non-NULL (checked above) and writable per the caller's contract.
    Ok(unsafe { std::slice::from_raw_parts_mut(ptr, len) })
}

fn checked_len<T>(ptr: *const T, len: u64, name: &str, len_name: &str) -> Result<usize> {
    if ptr.is_null() && len != 0 {
        return Err(Error::invalid_argument(format!(
            "{name} is NULL but {len_name} is {len}"
        )));
    }
    usize::try_from(len)
        .ok()
        .filter(|&n| n <= isize::MAX as usize && (ptr as usize).checked_add(n).is_some())
        .ok_or_else(|| {
            Error::invalid_argument(format!(
                "{len_name} {len} exceeds the address space ({name} at {ptr:p})"
            ))
        })
}

/// Rejects overlapping input and output buffers, which Rust may not alias and no
/// codec supports.
pub(crate) fn check_disjoint(input: &[u8], output: *const u8, output_len: u64) -> Result<()> {
    let (a_start, a_end) = (
        input.as_ptr() as u64,
        input.as_ptr() as u64 + input.len() as u64,
    );
    let (b_start, b_end) = (output as u64, (output as u64).saturating_add(output_len));
    if input.is_empty() || output_len == 0 || a_end <= b_start || b_end <= a_start {
        return Ok(());
    }
    Err(Error::invalid_argument(format!(
        "input [{a_start:#x}, {a_end:#x}) and output [{b_start:#x}, {b_end:#x}) overlap"
    )))
}

/// Checks an out-parameter up front so that a NULL fails before any work is done.
pub(crate) fn out_param<T>(ptr: *mut T, name: &str) -> Result<*mut T> {
    if ptr.is_null() {
        return Err(Error::invalid_argument(format!("{name} is NULL")));
    }
    Ok(ptr)
}

/// Frees a handle the library boxed and handed out (the `*_close`, `*_free`
/// and `*_release` functions); NULL is a no-op.
///
/// # Safety
/// `handle` is NULL or came from `Box::into_raw` of a `Box<T>`, and the caller
/// never uses it again.
pub(crate) unsafe fn free_handle<T>(handle: *mut T) {
    if !handle.is_null() {
        // SAFETY: per the caller: a Box from Box::into_raw, freed once.
        drop(unsafe { Box::from_raw(handle) });
    }
}

/// Writes a checked out-parameter; only called once the export has succeeded.
///
/// # Safety
/// `ptr` came from [`out_param`] and is writable for a `T`.
pub(crate) unsafe fn write_out<T>(ptr: *mut T, value: T) {
    // SAFETY: per the caller; callers' memory need not be aligned for T.
    unsafe { ptr.write_unaligned(value) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn truncation_respects_utf8_and_capacity() {
        let long = "é".repeat(2000);
        let cut = truncate_message(&long);
        assert_eq!(
            cut.len(),
            ERROR_MESSAGE_CAPACITY - 2,
            "1023 would split a 2-byte char"
        );
        assert!(cut.chars().all(|c| c == 'é'));
        let mixed = format!("{}€", "a".repeat(1021));
        assert_eq!(truncate_message(&mixed), "a".repeat(1021));
        assert_eq!(truncate_message("a\0b"), "a\u{FFFD}b");
        assert_eq!(truncate_message(""), "");
    }

    #[test]
    fn lengths_are_checked() {
        let err = unsafe { input_slice(ptr::null(), 65536, "input", "input_size") }.unwrap_err();
        assert_eq!(err.message(), "input is NULL but input_size is 65536");
        assert!(
            unsafe { input_slice(ptr::null(), 0, "input", "input_size") }
                .unwrap()
                .is_empty()
        );
        let byte = 0u8;
        let err = unsafe { input_slice(&byte, u64::MAX, "input", "input_size") }.unwrap_err();
        assert!(
            err.message()
                .starts_with("input_size 18446744073709551615 exceeds the address space"),
            "{err}"
        );
    }

    #[test]
    fn overlap_is_detected() {
        let buffer = [0u8; 100];
        let base = buffer.as_ptr();
        assert!(check_disjoint(&buffer[..50], unsafe { base.add(50) }, 50).is_ok());
        assert!(check_disjoint(&buffer[..51], unsafe { base.add(50) }, 50).is_err());
        assert!(check_disjoint(&buffer[10..20], base, 11).is_err());
        assert!(check_disjoint(&buffer[10..20], base, 10).is_ok());
        assert!(check_disjoint(&buffer[..0], base, 100).is_ok());
    }
}
