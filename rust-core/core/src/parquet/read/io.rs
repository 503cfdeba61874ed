//! Getting a file's bytes: the footer, and the column chunks a row group needs.
//!
//! A file's bytes come from one of two [`ChunkSource`]s: a local file the
//! library reads itself with positional reads (`pread`, so one open file serves
//! any number of threads), or the caller, which fetches byte ranges (from object
//! storage, say) into buffers the library allocates and hands out.
//!
//! The layout this relies on: `PAR1`, the column chunks, the Thrift footer, the
//! footer's length as a 4-byte little-endian integer, and `PAR1` again.

use std::alloc::{self, Layout};
use std::fs::File;
use std::io::ErrorKind;
use std::ops::Range;
use std::os::unix::fs::FileExt;
use std::path::Path;
use std::sync::Arc;

use crate::arrow::pool::{size_class, BufferPool, Scratch};
use crate::error::{Error, Result, Status};

pub(crate) const MAGIC: [u8; 4] = *b"PAR1";
/// The magic of files whose footer is encrypted, which this build cannot read.
const ENCRYPTED_MAGIC: [u8; 4] = *b"PARE";
/// The footer length and the trailing magic.
pub(crate) const TAIL_LEN: u64 = 8;

/// The footer's length, from the file's last 8 bytes (`tail`) and its size.
/// Checks the magic and that the footer fits between the leading magic and
/// the tail.
pub fn footer_length(tail: &[u8], file_size: u64) -> Result<u32> {
    // Checked first: a caller cannot read 8 bytes from a shorter file.
    if file_size < TAIL_LEN + MAGIC.len() as u64 {
        return Err(Error::corrupt_data(format!(
            "not a Parquet file: {file_size} bytes are too few"
        )));
    }
    let Ok(tail) = <&[u8; 8]>::try_from(tail) else {
        return Err(Error::invalid_argument(format!(
            "the tail must be the file's last 8 bytes, not {} bytes",
            tail.len()
        )));
    };
    let (length, magic) = tail.split_at(4);
    if magic == ENCRYPTED_MAGIC {
        return Err(Error::unsupported(
            "the file has an encrypted footer (magic PARE), which is not supported",
        ));
    }
    if magic != MAGIC {
        return Err(Error::corrupt_data(format!(
            "not a Parquet file: it ends with {magic:02x?} instead of PAR1"
        )));
    }
    let length = u32::from_le_bytes([length[0], length[1], length[2], length[3]]);
    let room = file_size.saturating_sub(TAIL_LEN + MAGIC.len() as u64);
    if file_size < TAIL_LEN + MAGIC.len() as u64 || u64::from(length) > room {
        return Err(Error::corrupt_data(format!(
            "footer length {length} does not fit a file of {file_size} bytes"
        )));
    }
    Ok(length)
}

/// `len` zero bytes, or OUT_OF_MEMORY. Large zeroed allocations come straight
/// from the kernel already zero, so they are not zeroed twice; their pages
/// still fault in as they are first written.
pub(crate) fn zeroed_bytes(len: usize) -> Result<Vec<u8>> {
    if len == 0 {
        return Ok(Vec::new());
    }
    let layout = Layout::array::<u8>(len)
        .map_err(|_| Error::out_of_memory(format!("a buffer of {len} bytes is too large")))?;
    // SAFETY: the layout has a non-zero size.
    let ptr = unsafe { alloc::alloc_zeroed(layout) };
    if ptr.is_null() {
        return Err(Error::out_of_memory(format!(
            "allocating a buffer of {len} bytes failed"
        )));
    }
    // SAFETY: allocated by the global allocator with the layout of [u8; len], and
    // every byte is initialised (to zero).
    Ok(unsafe { Vec::from_raw_parts(ptr, len, len) })
}

/// A local file read with positional reads; `&self` suffices, so threads can
/// share it.
#[derive(Debug)]
pub(crate) struct LocalFile {
    file: File,
    size: u64,
}

impl LocalFile {
    pub(crate) fn open(path: &Path) -> Result<LocalFile> {
        let io = |e: std::io::Error| Error::new(Status::Io, format!("cannot open: {e}"));
        let file = File::open(path).map_err(io)?;
        let metadata = file.metadata().map_err(io)?;
        if metadata.is_dir() {
            return Err(Error::new(Status::Io, "cannot open: it is a directory"));
        }
        Ok(LocalFile {
            file,
            size: metadata.len(),
        })
    }

    pub(crate) fn size(&self) -> u64 {
        self.size
    }

    /// Fills `buf` from `offset`. A file that ends early (it shrank since it
    /// was opened) is an IO error, as is any failing read.
    pub(crate) fn read_at(&self, offset: u64, buf: &mut [u8]) -> Result<()> {
        self.file.read_exact_at(buf, offset).map_err(|e| {
            let end = offset.saturating_add(buf.len() as u64);
            let reason = if e.kind() == ErrorKind::UnexpectedEof {
                "the file ends early".to_owned()
            } else {
                e.to_string()
            };
            Error::new(
                Status::Io,
                format!("reading bytes [{offset}, {end}) failed: {reason}"),
            )
        })
    }

    /// Reads the footer: checks both magics and returns the footer's bytes.
    pub(crate) fn read_footer(&self) -> Result<Vec<u8>> {
        if self.size < TAIL_LEN + MAGIC.len() as u64 {
            return Err(Error::corrupt_data(format!(
                "not a Parquet file: {} bytes are too few",
                self.size
            )));
        }
        let mut head = [0u8; 4];
        self.read_at(0, &mut head)?;
        let mut tail = [0u8; TAIL_LEN as usize];
        self.read_at(self.size - TAIL_LEN, &mut tail)?;
        let length = footer_length(&tail, self.size)?;
        if head != MAGIC {
            return Err(Error::corrupt_data(format!(
                "not a Parquet file: it starts with {head:02x?} instead of PAR1"
            )));
        }
        // footer_length checked that the footer lies within the file.
        let mut footer = zeroed_bytes(length as usize)?;
        self.read_at(self.size - TAIL_LEN - u64::from(length), &mut footer)?;
        Ok(footer)
    }
}

/// `[offset, offset + len)` of the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ByteRange {
    pub offset: u64,
    pub len: u64,
}

impl ByteRange {
    pub(crate) fn end(&self) -> u64 {
        self.offset + self.len
    }
}

/// The fewest ranges covering `ranges`: touching or overlapping ones merge, so
/// the adjacent column chunks of a row group become one read. Gaps are never
/// bridged, so nothing is read that no column needs.
pub(crate) fn coalesce(mut ranges: Vec<ByteRange>) -> Vec<ByteRange> {
    ranges.retain(|r| r.len > 0);
    ranges.sort_by_key(|r| r.offset);
    let mut merged: Vec<ByteRange> = Vec::with_capacity(ranges.len());
    for range in ranges {
        match merged.last_mut() {
            Some(last) if range.offset <= last.end() => {
                last.len = last.len.max(range.end() - last.offset);
            }
            _ => merged.push(range),
        }
    }
    merged
}

/// Where the bytes of a scan's column chunks come from.
#[derive(Debug)]
pub(crate) enum ChunkSource {
    /// The library reads them from a local file.
    Local(Arc<LocalFile>),
    /// The caller fills the buffers the library hands out.
    Caller,
}

/// Zeroed buffers for the caller to fill with `ranges`: each the smallest of
/// `pool`'s range buffers that holds it, the largest ranges served first so
/// that a small one never takes what a larger one needs, or else a fresh
/// buffer, for which the largest pooled one (too small for any) is freed.
/// Every range lies within the file, which the footer's validation
/// guarantees for column chunks.
///
/// Reused rather than fresh: a fresh buffer of a row group's chunks is, past
/// glibc's mmap threshold, new pages that fault in as the caller fills them,
/// which made a file read through a `FileIO` take half as long again as one
/// read locally (`docs/benchmarks.md`, Row groups read through a FileIO).
/// Zeroing a reused buffer keeps a row group from ever seeing another one's
/// bytes.
pub(crate) fn range_buffers(ranges: &[ByteRange], pool: &BufferPool) -> Result<Vec<Vec<u8>>> {
    let lens = ranges
        .iter()
        .map(|range| {
            usize::try_from(range.len).map_err(|_| {
                Error::out_of_memory(format!("a range of {} bytes is too large", range.len))
            })
        })
        .collect::<Result<Vec<usize>>>()?;
    let mut largest_first: Vec<usize> = (0..lens.len()).collect();
    largest_first.sort_by_key(|&i| std::cmp::Reverse(lens[i]));
    let mut reused: Vec<Option<Vec<u8>>> = largest_first.iter().map(|_| None).collect();
    for &i in &largest_first {
        reused[i] = pool.take_scratch_fitting(Scratch::Range, lens[i]);
    }
    lens.iter()
        .zip(reused)
        .map(|(&len, buffer)| match buffer {
            Some(mut buffer) => {
                buffer.clear();
                buffer.resize(len, 0);
                Ok(buffer)
            }
            None => {
                pool.free_largest_scratch(Scratch::Range);
                // In a size class, so that a later row group's slightly
                // larger chunks fit it; zero already, and left untouched
                // until filled.
                let class = len.checked_next_multiple_of(64).map_or(len, size_class);
                let mut fresh = zeroed_bytes(class)?;
                fresh.truncate(len);
                Ok(fresh)
            }
        })
        .collect()
}

/// Bytes read from a local file per step: a few pages, so that one reused
/// buffer per column serves a whole chunk.
pub(crate) const WINDOW: usize = 1 << 20;

/// The bytes of one column chunk, as a page reader asks for them: held in
/// memory (filled by the caller), or read from a local file a window at a
/// time into a buffer reused for the whole chunk, which keeps memory small and
/// avoids touching fresh pages for every megabyte read.
#[derive(Debug)]
pub(crate) enum ChunkBytes {
    Memory {
        buffer: Arc<Vec<u8>>,
        range: Range<usize>,
    },
    File {
        file: Arc<LocalFile>,
        /// The chunk's range in the file.
        range: ByteRange,
        window: Vec<u8>,
        /// The chunk offset of `window[0]`, and how many bytes it holds.
        window_start: usize,
        window_len: usize,
    },
}

impl ChunkBytes {
    /// `range` of `buffer`, which must lie within it.
    pub(crate) fn memory(buffer: Arc<Vec<u8>>, range: Range<usize>) -> Result<ChunkBytes> {
        if buffer.get(range.clone()).is_none() {
            return Err(Error::internal("a column chunk outside its buffer"));
        }
        Ok(ChunkBytes::Memory { buffer, range })
    }

    /// `range` of a local file, read on demand into `window`, whose capacity
    /// is reused (its contents are overwritten).
    pub(crate) fn file(
        file: Arc<LocalFile>,
        range: ByteRange,
        window: Vec<u8>,
    ) -> Result<ChunkBytes> {
        usize::try_from(range.len)
            .map_err(|_| Error::out_of_memory(format!("a chunk of {} bytes", range.len)))?;
        Ok(ChunkBytes::File {
            file,
            range,
            window,
            window_start: 0,
            window_len: 0,
        })
    }

    /// The chunk's buffer and its kind, for later reads: a local file's read
    /// window, or the caller-filled range this chunk shares with the row
    /// group's other chunks, once none of them holds it any more (empty until
    /// then). Nothing is read from the chunk after.
    pub(crate) fn take_buffer(&mut self) -> (Scratch, Vec<u8>) {
        match self {
            ChunkBytes::Memory { buffer, range } => {
                *range = 0..0;
                let shared = std::mem::take(buffer);
                (Scratch::Range, Arc::try_unwrap(shared).unwrap_or_default())
            }
            ChunkBytes::File {
                window, window_len, ..
            } => {
                *window_len = 0;
                (Scratch::Window, std::mem::take(window))
            }
        }
    }

    /// The chunk's length in bytes.
    pub(crate) fn len(&self) -> usize {
        match self {
            ChunkBytes::Memory { range, .. } => range.len(),
            ChunkBytes::File { range, .. } => range.len as usize,
        }
    }

    /// The chunk's bytes from `from` on: at least `min_len` of them (fewer
    /// only where the chunk ends), possibly more.
    pub(crate) fn get(&mut self, from: usize, min_len: usize) -> Result<&[u8]> {
        let end = self.len();
        if from > end {
            return Err(Error::internal("reading past a column chunk"));
        }
        let wanted = min_len.min(end - from);
        match self {
            ChunkBytes::Memory { buffer, range } => Ok(&buffer[range.start + from..range.end]),
            ChunkBytes::File {
                file,
                range,
                window,
                window_start,
                window_len,
            } => {
                let held = from >= *window_start && from + wanted <= *window_start + *window_len;
                if !held {
                    let len = wanted.max(WINDOW).min(end - from);
                    if window.len() < len {
                        window.try_reserve(len - window.len()).map_err(|_| {
                            Error::out_of_memory(format!(
                                "cannot allocate a {len}-byte read buffer"
                            ))
                        })?;
                        window.resize(len, 0);
                    }
                    // A failed read leaves the window partly overwritten.
                    *window_len = 0;
                    file.read_at(range.offset + from as u64, &mut window[..len])?;
                    *window_start = from;
                    *window_len = len;
                }
                let skip = from - *window_start;
                Ok(&window[skip..*window_len])
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn tail(length: u32, magic: &[u8; 4]) -> Vec<u8> {
        let mut tail = length.to_le_bytes().to_vec();
        tail.extend_from_slice(magic);
        tail
    }

    #[test]
    fn footer_length_checks_magic_and_size() {
        assert_eq!(footer_length(&tail(100, b"PAR1"), 112).unwrap(), 100);
        let err = footer_length(&tail(101, b"PAR1"), 112).unwrap_err();
        assert_eq!(err.status(), Status::CorruptData);
        assert_eq!(
            err.message(),
            "footer length 101 does not fit a file of 112 bytes"
        );
        let err = footer_length(&tail(0, b"PAR1"), 11).unwrap_err();
        assert_eq!(err.message(), "not a Parquet file: 11 bytes are too few");
        let err = footer_length(&[1, 2, 3], 3).unwrap_err();
        assert_eq!(
            err.status(),
            Status::CorruptData,
            "a short file, not a short tail"
        );
        let err = footer_length(&tail(10, b"PARE"), 100).unwrap_err();
        assert_eq!(err.status(), Status::Unsupported);
        let err = footer_length(&tail(10, b"ORC\0"), 100).unwrap_err();
        assert_eq!(
            err.message(),
            "not a Parquet file: it ends with [4f, 52, 43, 00] instead of PAR1"
        );
        let err = footer_length(&[0; 7], 100).unwrap_err();
        assert_eq!(err.status(), Status::InvalidArgument);
        assert_eq!(
            footer_length(&tail(u32::MAX, b"PAR1"), u64::MAX).unwrap(),
            u32::MAX
        );
    }

    #[test]
    fn ranges_coalesce_only_when_they_touch() {
        let r = |offset, len| ByteRange { offset, len };
        assert_eq!(
            coalesce(vec![r(10, 5), r(0, 10), r(16, 4), r(18, 10), r(40, 0)]),
            vec![r(0, 15), r(16, 12)]
        );
        assert_eq!(coalesce(vec![r(0, 10), r(2, 3)]), vec![r(0, 10)]);
        assert!(coalesce(vec![]).is_empty());
    }

    #[test]
    fn local_files_read_positionally_and_report_short_reads() {
        let dir = std::env::temp_dir().join(format!("isthmus-io-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("short.parquet");
        let mut file = File::create(&path).unwrap();
        let mut bytes = b"PAR1".to_vec();
        bytes.extend_from_slice(b"footer");
        bytes.extend_from_slice(&tail(6, b"PAR1"));
        file.write_all(&bytes).unwrap();
        drop(file);
        let local = LocalFile::open(&path).unwrap();
        assert_eq!(local.size(), 18);
        assert_eq!(local.read_footer().unwrap(), b"footer");
        let mut buf = [0u8; 4];
        let err = local.read_at(16, &mut buf).unwrap_err();
        assert_eq!(err.status(), Status::Io);
        assert_eq!(
            err.message(),
            "reading bytes [16, 20) failed: the file ends early"
        );
        let mut chunk =
            ChunkBytes::file(Arc::new(local), ByteRange { offset: 4, len: 6 }, Vec::new()).unwrap();
        assert_eq!(
            chunk.get(0, 2).unwrap(),
            b"footer",
            "a window holds more than asked"
        );
        assert_eq!(chunk.get(4, 100).unwrap(), b"er", "clipped to the chunk");
        assert_eq!(chunk.len(), 6);
        assert!(chunk.get(7, 0).is_err());
        let buffers =
            range_buffers(&[ByteRange { offset: 4, len: 3 }], &BufferPool::default()).unwrap();
        assert_eq!(buffers, [vec![0, 0, 0]]);
        let mut memory = ChunkBytes::memory(Arc::new(b"xxfooterxx".to_vec()), 2..8).unwrap();
        assert_eq!(memory.get(1, 1).unwrap(), b"ooter");
        assert!(ChunkBytes::memory(Arc::new(vec![0; 3]), 2..8).is_err());
        let err = LocalFile::open(&dir.join("missing")).unwrap_err();
        assert_eq!(err.status(), Status::Io);
        assert!(LocalFile::open(&dir)
            .unwrap_err()
            .message()
            .contains("directory"));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn range_buffers_reuse_the_best_fitting_buffer_zeroed() {
        let pool = BufferPool::default();
        let range = |len| ByteRange { offset: 0, len };
        let ranges = [range(100), range(70_000)];
        let first = range_buffers(&ranges, &pool).unwrap();
        let places: Vec<_> = first.iter().map(|b| b.as_ptr()).collect();
        // Given back large first, so that first fit would differ from best fit.
        for mut buffer in first.into_iter().rev() {
            buffer.fill(0xab);
            pool.give_scratch(Scratch::Range, buffer);
        }
        let again = range_buffers(&ranges, &pool).unwrap();
        assert_eq!(pool.scratch_buffers(Scratch::Range), 0, "both taken");
        assert_eq!(again.iter().map(|b| b.as_ptr()).collect::<Vec<_>>(), places);
        assert_eq!(
            again.iter().map(Vec::len).collect::<Vec<_>>(),
            [100, 70_000]
        );
        assert!(again.iter().flatten().all(|&b| b == 0), "zeroed again");
        for buffer in again {
            pool.give_scratch(Scratch::Range, buffer);
        }
        // A small range beside one larger than either: the small one takes the
        // small buffer, and the outgrown large one is freed, not kept.
        let larger = range_buffers(&[range(90), range(200_000)], &pool).unwrap();
        assert_eq!(larger[0].as_ptr(), places[0]);
        assert_eq!(pool.scratch_buffers(Scratch::Range), 0);
        assert_eq!(larger[1].len(), 200_000);
        assert!(larger.iter().flatten().all(|&b| b == 0));
    }

    #[test]
    fn zeroed_bytes_reports_impossible_sizes() {
        assert!(zeroed_bytes(0).unwrap().is_empty());
        assert_eq!(zeroed_bytes(3).unwrap(), [0, 0, 0]);
        assert_eq!(
            zeroed_bytes(usize::MAX).unwrap_err().status(),
            Status::OutOfMemory
        );
    }
}
