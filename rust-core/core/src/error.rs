//! Status codes and the error type shared by every module.
//!
//! The codes mirror the `ISTHMUS_OK` / `ISTHMUS_ERR_*` constants of
//! `include/isthmus.h`; `isthmus-ffi`'s `tests/header_contract.rs` checks that they agree.

use std::fmt;

/// The status an export returns; the numeric values are part of the C ABI.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(i32)]
pub enum Status {
    Ok = 0,
    /// A NULL pointer, an out-of-range enum value or an inconsistent length.
    InvalidArgument = 1,
    /// An output buffer cannot hold the result.
    BufferTooSmall = 2,
    /// Malformed input bytes.
    CorruptData = 3,
    /// Valid input that this build does not implement.
    Unsupported = 4,
    /// An operating-system I/O call failed.
    Io = 5,
    /// An allocation failed or a size exceeds what the library will allocate.
    OutOfMemory = 6,
    /// A bug in the library, including a caught panic.
    Internal = 7,
}

impl Status {
    pub const fn code(self) -> i32 {
        self as i32
    }
}

/// A failure with a human-readable message meant for the caller's log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    status: Status,
    message: String,
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// `status` must not be [`Status::Ok`]: an error always reports a failure.
    pub fn new(status: Status, message: impl Into<String>) -> Self {
        debug_assert_ne!(status, Status::Ok, "an Error cannot carry Status::Ok");
        Error {
            status,
            message: message.into(),
        }
    }

    pub fn invalid_argument(message: impl Into<String>) -> Self {
        Self::new(Status::InvalidArgument, message)
    }

    pub fn buffer_too_small(message: impl Into<String>) -> Self {
        Self::new(Status::BufferTooSmall, message)
    }

    pub fn corrupt_data(message: impl Into<String>) -> Self {
        Self::new(Status::CorruptData, message)
    }

    pub fn unsupported(message: impl Into<String>) -> Self {
        Self::new(Status::Unsupported, message)
    }

    pub fn out_of_memory(message: impl Into<String>) -> Self {
        Self::new(Status::OutOfMemory, message)
    }

    pub fn internal(message: impl Into<String>) -> Self {
        Self::new(Status::Internal, message)
    }

    pub fn status(&self) -> Status {
        self.status
    }

    pub fn message(&self) -> &str {
        &self.message
    }

    /// Prefixes the message with where the error happened, e.g. "zstd decompress".
    pub fn context(mut self, context: impl fmt::Display) -> Self {
        self.message = format!("{context}: {}", self.message);
        self
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}: {}", self.status, self.message)
    }
}

impl std::error::Error for Error {}
