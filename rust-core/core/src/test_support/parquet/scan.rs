//! Scans of files held in memory, through the library's Rust API, in either
//! of its I/O modes: as a local file (written to a temporary path), or from
//! its footer with the byte ranges filled by the test, as Java does.

use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use crate::arrow::{ArrayData, ArrayView, Field};
use crate::error::Result;
use crate::parquet::read::file::ParquetFile;
use crate::parquet::read::io::footer_length;
use crate::parquet::read::scan::{Scan, ScanOptions, Step};

use super::render;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Written to a temporary file and opened by path.
    Local,
    /// Opened from the footer, ranges copied in by the test.
    Ranges,
}

/// A unique temporary path for this process.
pub fn temp_path(name: &str) -> PathBuf {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let dir = std::env::temp_dir().join(format!("isthmus-tests-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(format!("{}-{name}", NEXT.fetch_add(1, Ordering::Relaxed)))
}

/// Opens `bytes` as a file named `name`.
pub fn open(bytes: &[u8], name: &str, mode: Mode) -> Result<Arc<ParquetFile>> {
    match mode {
        Mode::Local => {
            let path = temp_path(name);
            std::fs::write(&path, bytes).unwrap();
            let file = ParquetFile::open_path(&path);
            std::fs::remove_file(&path).unwrap();
            file.map(Arc::new)
        }
        Mode::Ranges => {
            let size = bytes.len() as u64;
            let tail = &bytes[bytes.len().saturating_sub(8)..];
            let length = footer_length(tail, size)? as usize;
            let footer = &bytes[bytes.len() - 8 - length..bytes.len() - 8];
            ParquetFile::open_footer(footer, size, name).map(Arc::new)
        }
    }
}

/// Every batch of a scan, filling requested ranges from `bytes`.
pub fn batches(
    file: &Arc<ParquetFile>,
    bytes: &[u8],
    options: ScanOptions,
) -> Result<(Field, Vec<ArrayData>)> {
    let mut out = Vec::new();
    let schema = for_each_batch(file, bytes, options, |_, batch| out.push(batch))?;
    Ok((schema, out))
}

/// Hands each batch of a scan to `consume` as it comes, filling requested
/// ranges from `bytes`; returns the scan's schema.
pub fn for_each_batch(
    file: &Arc<ParquetFile>,
    bytes: &[u8],
    options: ScanOptions,
    mut consume: impl FnMut(&Field, ArrayData),
) -> Result<Field> {
    let mut scan = Scan::open(file.clone(), options)?;
    loop {
        match scan.next_step()? {
            Step::Batch(batch) => consume(scan.schema(), batch),
            Step::End => break,
            Step::NeedRanges => {
                for range in scan.ranges()? {
                    let start = range.range.offset as usize;
                    let source = &bytes[start..start + range.range.len as usize];
                    // SAFETY: the scan owns `len` writable bytes at `buffer`
                    // until the next call of next().
                    unsafe {
                        std::ptr::copy_nonoverlapping(source.as_ptr(), range.buffer, source.len())
                    };
                }
            }
        }
    }
    Ok(scan.schema().clone())
}

/// Every row of a scan of `bytes` as canonical text (validating each batch
/// completely on the way). Each batch is dropped before the next is decoded,
/// so later batches reuse its memory (dirty, from the scan's pool), as a
/// streaming consumer's do.
pub fn rows(bytes: &[u8], options: ScanOptions, mode: Mode) -> Result<Vec<Vec<String>>> {
    let file = open(bytes, "test.parquet", mode)?;
    let mut rows = Vec::new();
    for_each_batch(&file, bytes, options, |schema, batch| {
        assert!(batch.len > 0, "batches are never empty");
        let view = ArrayView::from_data(&batch, schema).expect("a valid batch");
        rows.extend(render::rows(&view));
    })?;
    Ok(rows)
}

/// Options projecting `ids` with checksums checked.
pub fn project(ids: &[i32]) -> ScanOptions {
    ScanOptions {
        field_ids: ids.to_vec(),
        verify_crc: true,
        ..ScanOptions::default()
    }
}
