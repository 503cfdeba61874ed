//! The CRC-32 of page checksums: the IEEE/zlib polynomial, computed over the
//! page bytes that follow the header (compressed, as stored).
//!
//! zlib is linked statically for GZIP already, and its `crc32` is a fast
//! slicing/folding implementation; it takes `uInt` lengths, so longer inputs
//! are fed in pieces.

use std::os::raw::{c_uint, c_ulong};

extern "C" {
    fn crc32(crc: c_ulong, buf: *const u8, len: c_uint) -> c_ulong;
}

/// Extends `crc` (the value for the bytes so far; 0 to start) with `data`.
pub fn crc32_update(crc: u32, data: &[u8]) -> u32 {
    let mut crc = c_ulong::from(crc);
    for chunk in data.chunks(c_uint::MAX as usize) {
        // SAFETY: the pointer and length describe `chunk`, which zlib only reads.
        crc = unsafe { crc32(crc, chunk.as_ptr(), chunk.len() as c_uint) };
    }
    // zlib keeps the CRC in the low 32 bits of its unsigned long.
    crc as u32
}

pub fn crc32_of(data: &[u8]) -> u32 {
    crc32_update(0, data)
}

/// Compares a page's stored checksum (the header's signed `crc` field) with its
/// bytes.
pub fn verify_page_crc(expected: i32, page: &[u8]) -> crate::error::Result<()> {
    let actual = crc32_of(page);
    if actual == expected as u32 {
        return Ok(());
    }
    Err(crate::error::Error::corrupt_data(format!(
        "page checksum mismatch: header says {:#010x}, the {} page bytes give {actual:#010x}",
        expected as u32,
        page.len()
    )))
}
