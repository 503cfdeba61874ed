//! A page as the file stores it: its header, with the stored size and CRC filled
//! in, then its bytes. Both the column writer (uncompressed pages, dictionaries)
//! and the compression helpers (compressed pages) lay pages out through here.

use crate::error::{Error, Result};
use crate::parquet::crc::{crc32_of, crc32_update};
use crate::parquet::format::{PageHeader, ThriftStruct};

/// Appends a page to `out`: its header (see [`append_header`]), the
/// uncompressed `prefix` (v2 levels), then `body`. Returns the header's length.
pub(crate) fn append_page(
    out: &mut Vec<u8>,
    header: PageHeader,
    prefix: &[u8],
    body: &[u8],
) -> Result<usize> {
    let start = out.len();
    append_header(out, header, prefix, body)?;
    let header_len = out.len() - start;
    out.extend_from_slice(prefix);
    out.extend_from_slice(body);
    Ok(header_len)
}

/// Appends to `out` the header of a page whose stored bytes are `prefix` then
/// `body`, with the stored size and the CRC of those bytes filled in.
pub(crate) fn append_header(
    out: &mut Vec<u8>,
    mut header: PageHeader,
    prefix: &[u8],
    body: &[u8],
) -> Result<()> {
    header.compressed_page_size = page_int(prefix.len() + body.len(), "bytes")?;
    let crc = crc32_update(crc32_of(prefix), body);
    header.crc = Some(crc as i32);
    header.encode(out)
}

/// A page count or size as the header's i32.
pub(crate) fn page_int(n: usize, what: &str) -> Result<i32> {
    i32::try_from(n).map_err(|_| {
        Error::invalid_argument(format!(
            "a page of {n} {what} exceeds the format's limit of {}",
            i32::MAX
        ))
    })
}
