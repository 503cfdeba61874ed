//! The pages of a column chunk: headers, checksums, decompression, and where a
//! data page's repetition levels, definition levels and values are.
//!
//! [`PageReader`] walks the chunk's bytes header by header. It skips index pages
//! and page types it does not know (as the format asks), checks each header
//! against the bytes present and the chunk's metadata, and decompresses a page
//! only when asked, into a buffer the caller reuses from page to page. A v2 data
//! page keeps its levels uncompressed in front of the values; the decompressed
//! page is laid out the same way, levels first, so both versions decode from one
//! contiguous buffer.

use std::ops::Range;

use super::io::ChunkBytes;
use super::location::Location;
use crate::compression::Codec;
use crate::error::{Error, Result, Status};
use crate::parquet::crc::verify_page_crc;
use crate::parquet::format::{Encoding, PageHeader, PageType, ThriftStruct};

/// What a page holds; counts are checked non-negative and consistent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum PageKind {
    Dictionary {
        num_values: usize,
        encoding: Encoding,
    },
    DataV1 {
        num_values: usize,
        encoding: Encoding,
        def_encoding: Encoding,
        rep_encoding: Encoding,
    },
    DataV2 {
        num_values: usize,
        num_nulls: usize,
        num_rows: usize,
        encoding: Encoding,
        /// Bytes of repetition levels, then of definition levels, at the front
        /// of the page.
        rep_len: usize,
        def_len: usize,
        is_compressed: bool,
    },
}

/// A page header and where its body lies in the chunk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct RawPage {
    /// The page's position among the chunk's page headers, from 0.
    pub ordinal: usize,
    pub kind: PageKind,
    /// The body within the chunk's bytes, as stored.
    body: Range<usize>,
    uncompressed_size: usize,
    crc: Option<i32>,
}

impl RawPage {
    /// The level entries (values including nulls) a data page holds; 0 for a
    /// dictionary page.
    pub(crate) fn num_values(&self) -> usize {
        match self.kind {
            PageKind::Dictionary { .. } => 0,
            PageKind::DataV1 { num_values, .. } | PageKind::DataV2 { num_values, .. } => num_values,
        }
    }
}

/// Bytes first offered to the header decoder; headers are mostly far smaller.
const HEADER_GUESS: usize = 4096;

/// The largest page a scan decompresses unless told otherwise: far above what
/// writers produce (about 1 MiB, dictionaries included), far below the 2 GiB a
/// damaged header can claim.
pub const DEFAULT_MAX_PAGE_SIZE: usize = 256 << 20;

/// How a [`PageReader`] treats its pages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct PageOptions {
    /// Check page checksums where pages have them.
    pub verify_crc: bool,
    /// The largest uncompressed page (bytes) to allocate for; a page declaring
    /// more is refused (CORRUPT_DATA: no writer makes such pages, a damaged
    /// header does) before anything is allocated.
    pub max_page_size: usize,
}

impl PageOptions {
    pub(crate) fn new(verify_crc: bool) -> PageOptions {
        PageOptions {
            verify_crc,
            max_page_size: DEFAULT_MAX_PAGE_SIZE,
        }
    }
}

/// Reads the pages of one column chunk.
#[derive(Debug)]
pub(crate) struct PageReader {
    location: Location,
    codec: Codec,
    options: PageOptions,
    /// Where the next header starts in the chunk.
    pos: usize,
    ordinal: usize,
    /// Level entries the chunk's metadata promises and the pages so far left.
    values_left: u64,
    total_values: u64,
    seen_data_page: bool,
}

impl PageReader {
    /// `location` names the column chunk; `num_values` is its metadata's.
    pub(crate) fn new(
        location: Location,
        codec: Codec,
        num_values: u64,
        options: PageOptions,
    ) -> Self {
        PageReader {
            location,
            codec,
            options,
            pos: 0,
            ordinal: 0,
            values_left: num_values,
            total_values: num_values,
            seen_data_page: false,
        }
    }

    /// The column chunk's location, for errors outside any one page.
    pub(crate) fn location(&self) -> &Location {
        &self.location
    }

    /// The location of page `ordinal`.
    pub(crate) fn page_location(&self, ordinal: usize) -> Location {
        self.location.page(ordinal)
    }

    /// The next dictionary or data page of `chunk`, or None once the data pages
    /// have covered the chunk's values.
    pub(crate) fn next_page(&mut self, chunk: &mut ChunkBytes) -> Result<Option<RawPage>> {
        loop {
            if self.values_left == 0 {
                return Ok(None);
            }
            let ordinal = self.ordinal;
            let page = self
                .read_header(chunk)
                .map_err(|e| self.location.page(ordinal).wrap(e))?;
            if let Some(page) = page {
                return Ok(Some(page));
            }
        }
    }

    /// Reads one header and moves past its page; None for a skipped page.
    fn read_header(&mut self, chunk: &mut ChunkBytes) -> Result<Option<RawPage>> {
        let rest = chunk.len().saturating_sub(self.pos);
        if rest == 0 {
            return Err(Error::corrupt_data(format!(
                "the column chunk's {} bytes end after {} of its {} values",
                chunk.len(),
                self.total_values - self.values_left,
                self.total_values
            )));
        }
        // A header's length is known only once decoded: try with what is at
        // hand, and with more while the chunk has more, in case it was cut.
        let mut want = HEADER_GUESS.min(rest);
        let (header, header_len) = loop {
            let bytes = chunk.get(self.pos, want)?;
            let available = bytes.len();
            match PageHeader::decode(bytes) {
                Ok(decoded) => break decoded,
                Err(_) if available < rest => want = available.saturating_mul(2).min(rest),
                Err(e) => return Err(e.context("page header")),
            }
        };
        let compressed = header.compressed_page_size as usize;
        let body_start = self.pos + header_len;
        if compressed > chunk.len() - body_start {
            return Err(Error::corrupt_data(format!(
                "compressed_page_size {compressed} exceeds the {} bytes left in the column chunk",
                chunk.len() - body_start
            )));
        }
        self.pos = body_start + compressed;
        self.ordinal += 1;
        let uncompressed = header.uncompressed_page_size as usize;
        let kind = match header.page_type {
            PageType::DictionaryPage => {
                let Some(dictionary) = &header.dictionary_page_header else {
                    return Err(missing("DICTIONARY_PAGE", "dictionary_page_header"));
                };
                if self.seen_data_page {
                    return Err(Error::corrupt_data(
                        "a dictionary page follows a data page (or another dictionary page)",
                    ));
                }
                self.seen_data_page = true;
                PageKind::Dictionary {
                    num_values: dictionary.num_values as usize,
                    encoding: dictionary.encoding,
                }
            }
            PageType::DataPage => {
                let Some(data) = &header.data_page_header else {
                    return Err(missing("DATA_PAGE", "data_page_header"));
                };
                PageKind::DataV1 {
                    num_values: data.num_values as usize,
                    encoding: data.encoding,
                    def_encoding: data.definition_level_encoding,
                    rep_encoding: data.repetition_level_encoding,
                }
            }
            PageType::DataPageV2 => {
                let Some(data) = &header.data_page_header_v2 else {
                    return Err(missing("DATA_PAGE_V2", "data_page_header_v2"));
                };
                let (rep_len, def_len) = (
                    data.repetition_levels_byte_length as usize,
                    data.definition_levels_byte_length as usize,
                );
                let levels = rep_len + def_len;
                if levels > compressed || levels > uncompressed {
                    return Err(Error::corrupt_data(format!(
                        "{levels} bytes of levels exceed the page's size ({compressed} bytes stored, \
                         {uncompressed} uncompressed)"
                    )));
                }
                if data.num_nulls > data.num_values || data.num_rows > data.num_values {
                    return Err(Error::corrupt_data(format!(
                        "num_nulls {} or num_rows {} exceeds num_values {}",
                        data.num_nulls, data.num_rows, data.num_values
                    )));
                }
                PageKind::DataV2 {
                    num_values: data.num_values as usize,
                    num_nulls: data.num_nulls as usize,
                    num_rows: data.num_rows as usize,
                    encoding: data.encoding,
                    rep_len,
                    def_len,
                    is_compressed: data.is_compressed,
                }
            }
            // Index pages are never written; unknown types are skipped as the
            // format asks readers to.
            PageType::IndexPage | PageType::Unknown(_) => return Ok(None),
        };
        let page = RawPage {
            ordinal: self.ordinal - 1,
            kind,
            body: body_start..body_start + compressed,
            uncompressed_size: uncompressed,
            crc: header.crc,
        };
        let values = page.num_values() as u64;
        if values > self.values_left {
            return Err(Error::corrupt_data(format!(
                "the page holds {values} values but only {} of the column chunk's {} remain",
                self.values_left, self.total_values
            )));
        }
        if let PageKind::DataV1 { .. } | PageKind::DataV2 { .. } = page.kind {
            self.seen_data_page = true;
        }
        self.values_left -= values;
        Ok(Some(page))
    }

    /// Rules out declared sizes beyond the limit, and sizes the stored
    /// values cannot produce (as far as the codec can tell from their framing),
    /// before anything is allocated for them.
    fn check_size(&self, page: &RawPage, codec: Codec, levels: usize, values: &[u8]) -> Result<()> {
        let declared = page.uncompressed_size;
        let bound = if values.is_empty() {
            Some(0)
        } else {
            codec.max_decompressed_len(values)?
        };
        if let Some(bound) = bound.filter(|&bound| declared - levels > bound) {
            return Err(Error::corrupt_data(format!(
                "uncompressed_page_size {declared} is impossible for {} stored bytes with codec \
                 {codec}: they hold at most {}",
                page.body.len(),
                levels.saturating_add(bound)
            )));
        }
        if declared > self.options.max_page_size {
            return Err(Error::corrupt_data(format!(
                "uncompressed_page_size {declared} exceeds the scan's limit of {} bytes per page \
                 (the max_page_size scan option)",
                self.options.max_page_size
            )));
        }
        Ok(())
    }

    /// Checks `page`'s CRC (if it has one and checking is on) and decompresses
    /// it into the front of `buffer`, which grows as needed and is never
    /// shrunk, so that one allocation serves a whole chunk. Returns the page's
    /// uncompressed length.
    pub(crate) fn decompress(
        &self,
        page: &RawPage,
        chunk: &mut ChunkBytes,
        buffer: &mut Vec<u8>,
    ) -> Result<usize> {
        self.decompress_page(page, chunk, buffer)
            .map_err(|e| self.location.page(page.ordinal).wrap(e))
    }

    fn decompress_page(
        &self,
        page: &RawPage,
        chunk: &mut ChunkBytes,
        buffer: &mut Vec<u8>,
    ) -> Result<usize> {
        let body = chunk
            .get(page.body.start, page.body.len())?
            .get(..page.body.len())
            .ok_or_else(|| Error::internal("a page's body lies outside its chunk"))?;
        if let (Some(crc), true) = (page.crc, self.options.verify_crc) {
            verify_page_crc(crc, body)?;
        }
        let (levels, codec) = page.levels_and_codec(self.codec);
        // read_header made sure the levels fit both sides.
        let (stored_levels, values) = body.split_at(levels);
        self.check_size(page, codec, levels, values)?;
        let size = page.uncompressed_size;
        // Decompressed into capacity never filled beforehand: a size that passed
        // the checks above may still be a lie, and costs nothing until written.
        buffer.clear();
        buffer.try_reserve(size).map_err(|_| {
            Error::out_of_memory(format!("cannot allocate {size} bytes for a page"))
        })?;
        let out = &mut buffer.spare_capacity_mut()[..size];
        let (out_levels, out_values) = out.split_at_mut(levels);
        for (slot, &byte) in out_levels.iter_mut().zip(stored_levels) {
            slot.write(byte);
        }
        // A v2 page without values (all nulls) stores none: no codec framing
        // to decompress.
        let written = if values.is_empty() {
            0
        } else {
            codec
                .decompress_uninit(values, out_values)
                .map_err(|e| match e.status() {
                    // The data is larger than the header says: the file is
                    // wrong, not the caller's buffer.
                    Status::BufferTooSmall | Status::InvalidArgument => {
                        Error::corrupt_data(e.message().to_owned())
                    }
                    _ => e,
                })?
        };
        if levels + written != size {
            return Err(Error::corrupt_data(format!(
                "the page decompressed to {} bytes, its header says {size}",
                levels + written
            )));
        }
        // SAFETY: the levels and the `written` bytes after them, `size` in all,
        // were written just above.
        unsafe { buffer.set_len(size) };
        Ok(size)
    }
}

impl RawPage {
    /// Bytes of levels stored uncompressed in front (v2), and the codec of
    /// the rest.
    fn levels_and_codec(&self, chunk_codec: Codec) -> (usize, Codec) {
        match self.kind {
            PageKind::DataV2 {
                rep_len,
                def_len,
                is_compressed,
                ..
            } => (
                rep_len + def_len,
                if is_compressed {
                    chunk_codec
                } else {
                    Codec::Uncompressed
                },
            ),
            _ => (0, chunk_codec),
        }
    }
}

fn missing(page_type: &str, field: &str) -> Error {
    Error::corrupt_data(format!("a {page_type} header lacks its {field}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parquet::crc::crc32_of;
    use crate::parquet::format::{DataPageHeader, DataPageHeaderV2, DictionaryPageHeader};

    fn location() -> Location {
        Location::file("t.parquet".into())
            .row_group(0)
            .column("c".into())
    }

    fn header(page_type: PageType, body: &[u8], uncompressed: usize) -> PageHeader {
        PageHeader {
            page_type,
            uncompressed_page_size: uncompressed as i32,
            compressed_page_size: body.len() as i32,
            crc: Some(crc32_of(body) as i32),
            data_page_header: None,
            has_index_page_header: false,
            dictionary_page_header: None,
            data_page_header_v2: None,
        }
    }

    fn v1(num_values: i32) -> DataPageHeader {
        DataPageHeader {
            num_values,
            encoding: Encoding::Plain,
            definition_level_encoding: Encoding::Rle,
            repetition_level_encoding: Encoding::Rle,
            statistics: None,
        }
    }

    fn memory(bytes: &[u8]) -> ChunkBytes {
        ChunkBytes::memory(std::sync::Arc::new(bytes.to_vec()), 0..bytes.len()).unwrap()
    }

    fn append(chunk: &mut Vec<u8>, header: &PageHeader, body: &[u8]) {
        header.encode(chunk).unwrap();
        chunk.extend_from_slice(body);
    }

    #[test]
    fn pages_are_read_skipped_and_decompressed() {
        let plain = b"0123456789abcdef".repeat(8);
        let mut compressed = vec![0; Codec::Zstd.max_compressed_len(plain.len()).unwrap()];
        let n = Codec::Zstd.compress(0, &plain, &mut compressed).unwrap();
        compressed.truncate(n);

        let mut chunk = Vec::new();
        let mut dictionary = header(PageType::DictionaryPage, &compressed, plain.len());
        dictionary.dictionary_page_header = Some(DictionaryPageHeader {
            num_values: 4,
            encoding: Encoding::PlainDictionary,
            is_sorted: None,
        });
        append(&mut chunk, &dictionary, &compressed);
        let mut index = header(PageType::IndexPage, b"xyz", 3);
        index.has_index_page_header = true;
        append(&mut chunk, &index, b"xyz");
        let mut unknown = header(PageType::Unknown(9), b"", 0);
        unknown.crc = None;
        append(&mut chunk, &unknown, b"");
        // v2: 3 bytes of levels stay uncompressed in front.
        let mut v2_body = b"LLL".to_vec();
        v2_body.extend_from_slice(&compressed);
        let mut data = header(PageType::DataPageV2, &v2_body, 3 + plain.len());
        data.data_page_header_v2 = Some(DataPageHeaderV2 {
            num_values: 10,
            num_nulls: 1,
            num_rows: 10,
            encoding: Encoding::Plain,
            definition_levels_byte_length: 2,
            repetition_levels_byte_length: 1,
            is_compressed: true,
            statistics: None,
        });
        append(&mut chunk, &data, &v2_body);
        chunk.extend_from_slice(b"trailing bytes are never read");
        let chunk = &mut memory(&chunk);

        let mut reader = PageReader::new(location(), Codec::Zstd, 10, PageOptions::new(true));
        let mut buffer = Vec::new();
        let first = reader.next_page(chunk).unwrap().unwrap();
        assert_eq!(first.ordinal, 0);
        assert_eq!(
            first.kind,
            PageKind::Dictionary {
                num_values: 4,
                encoding: Encoding::PlainDictionary
            }
        );
        assert_eq!(
            reader.decompress(&first, chunk, &mut buffer).unwrap(),
            plain.len()
        );
        assert_eq!(&buffer[..plain.len()], &plain[..]);
        let second = reader.next_page(chunk).unwrap().unwrap();
        assert_eq!(second.ordinal, 3, "the index and unknown pages count");
        assert_eq!(second.num_values(), 10);
        let len = reader.decompress(&second, chunk, &mut buffer).unwrap();
        assert_eq!(&buffer[..3], b"LLL");
        assert_eq!(&buffer[3..len], &plain[..]);
        assert!(reader.next_page(chunk).unwrap().is_none());
    }

    fn single_page(header: &PageHeader, body: &[u8], codec: Codec, num_values: u64) -> Error {
        let mut bytes = Vec::new();
        append(&mut bytes, header, body);
        let chunk = &mut memory(&bytes);
        let mut reader = PageReader::new(location(), codec, num_values, PageOptions::new(true));
        match reader.next_page(chunk) {
            Err(e) => e,
            Ok(page) => {
                let page = page.unwrap();
                reader
                    .decompress(&page, chunk, &mut Vec::new())
                    .unwrap_err()
            }
        }
    }

    #[test]
    fn damaged_headers_and_pages_are_corrupt_with_their_location() {
        let body = b"abcdefgh";
        let mut data = header(PageType::DataPage, body, body.len());
        data.data_page_header = Some(v1(4));

        let mut bad_crc = data.clone();
        bad_crc.crc = Some(1);
        let err = single_page(&bad_crc, body, Codec::Uncompressed, 4);
        assert_eq!(err.status(), Status::CorruptData);
        assert_eq!(
            err.message(),
            format!(
                "t.parquet: row group 0, column 'c', page 0: page checksum mismatch: header says \
                 0x00000001, the 8 page bytes give {:#010x}",
                crc32_of(body)
            )
        );

        let err = single_page(&data, body, Codec::Uncompressed, 3);
        assert!(
            err.message().ends_with(
                "page 0: the page holds 4 values but only 3 of the column chunk's 3 remain"
            ),
            "{err}"
        );

        let mut long = data.clone();
        long.compressed_page_size = 9;
        let err = single_page(&long, body, Codec::Uncompressed, 4);
        assert!(
            err.message()
                .ends_with("compressed_page_size 9 exceeds the 8 bytes left in the column chunk"),
            "{err}"
        );

        let mut huge = data.clone();
        huge.uncompressed_page_size = i32::MAX;
        let err = single_page(&huge, body, Codec::Zstd, 4);
        assert!(
            err.message().ends_with(
                "page 0: zstd decompress: input is not a sequence of zstd frames (8 bytes)"
            ),
            "{err}"
        );
        let err = single_page(&huge, body, Codec::Gzip, 4);
        assert!(
            err.message().ends_with(
                "uncompressed_page_size 2147483647 is impossible for 8 stored bytes with codec \
                 gzip: they hold at most 8256"
            ),
            "{err}"
        );
        let mut unequal = data.clone();
        unequal.uncompressed_page_size = 9;
        let err = single_page(&unequal, body, Codec::Uncompressed, 4);
        assert!(
            err.message().ends_with(
                "uncompressed_page_size 9 is impossible for 8 stored bytes with codec \
                 uncompressed: they hold at most 8"
            ),
            "{err}"
        );
        unequal.uncompressed_page_size = 7;
        let err = single_page(&unequal, body, Codec::Uncompressed, 4);
        assert_eq!(err.status(), Status::CorruptData, "{err}");

        let err = single_page(&data, body, Codec::Snappy, 4);
        assert_eq!(err.status(), Status::CorruptData, "{err}");
        assert!(err.message().contains("page 0: snappy decompress"), "{err}");

        let mut headless = data.clone();
        headless.data_page_header = None;
        let err = single_page(&headless, body, Codec::Uncompressed, 4);
        assert!(err
            .message()
            .ends_with("a DATA_PAGE header lacks its data_page_header"));

        let mut bytes = Vec::new();
        append(&mut bytes, &data, body);
        let chunk = &mut memory(&bytes);
        let mut reader =
            PageReader::new(location(), Codec::Uncompressed, 5, PageOptions::new(true));
        assert!(reader.next_page(chunk).unwrap().is_some());
        let err = reader.next_page(chunk).unwrap_err();
        assert!(
            err.message().contains("page 1: the column chunk's"),
            "{err}"
        );
        assert!(
            err.message().ends_with("bytes end after 4 of its 5 values"),
            "{err}"
        );

        let mut reader =
            PageReader::new(location(), Codec::Uncompressed, 1, PageOptions::new(true));
        let err = reader.next_page(&mut memory(&[0x15, 0x99])).unwrap_err();
        assert!(err
            .message()
            .starts_with("t.parquet: row group 0, column 'c', page 0: page header"));
    }

    #[test]
    fn v2_levels_must_fit_and_crc_checks_can_be_skipped() {
        let body = b"levels+values";
        let mut data = header(PageType::DataPageV2, body, body.len());
        data.crc = Some(0);
        data.data_page_header_v2 = Some(DataPageHeaderV2 {
            num_values: 3,
            num_nulls: 0,
            num_rows: 3,
            encoding: Encoding::Plain,
            definition_levels_byte_length: 10,
            repetition_levels_byte_length: 10,
            is_compressed: false,
            statistics: None,
        });
        let err = single_page(&data, body, Codec::Snappy, 3);
        assert!(
            err.message().ends_with(
                "20 bytes of levels exceed the page's size (13 bytes stored, 13 uncompressed)"
            ),
            "{err}"
        );

        if let Some(v2) = &mut data.data_page_header_v2 {
            v2.definition_levels_byte_length = 2;
            v2.repetition_levels_byte_length = 0;
        }
        let mut bytes = Vec::new();
        append(&mut bytes, &data, body);
        let chunk = &mut memory(&bytes);
        let mut reader = PageReader::new(location(), Codec::Snappy, 3, PageOptions::new(false));
        let page = reader.next_page(chunk).unwrap().unwrap();
        let mut buffer = Vec::with_capacity(100);
        assert_eq!(reader.decompress(&page, chunk, &mut buffer).unwrap(), 13);
        assert_eq!(&buffer[..], body, "uncompressed values are copied");
        assert!(buffer.capacity() >= 100, "the buffer never shrinks");
    }

    /// A zstd page of `plain` whose header claims `claimed` bytes, read with
    /// `options`.
    fn zstd_page(plain: &[u8], claimed: i32, options: PageOptions) -> Result<Vec<u8>> {
        let mut compressed = vec![0; Codec::Zstd.max_compressed_len(plain.len()).unwrap()];
        let n = Codec::Zstd.compress(0, plain, &mut compressed).unwrap();
        compressed.truncate(n);
        let mut data = header(PageType::DataPage, &compressed, plain.len());
        data.uncompressed_page_size = claimed;
        data.data_page_header = Some(v1(4));
        let mut bytes = Vec::new();
        append(&mut bytes, &data, &compressed);
        let chunk = &mut memory(&bytes);
        let mut reader = PageReader::new(location(), Codec::Zstd, 4, options);
        let page = reader.next_page(chunk)?.unwrap();
        let mut buffer = Vec::new();
        reader.decompress(&page, chunk, &mut buffer)?;
        Ok(buffer)
    }

    #[test]
    fn page_sizes_are_bounded_by_the_codec_and_the_limit_before_allocating() {
        let plain = vec![b'x'; 100_000];
        let options = PageOptions::new(true);
        assert_eq!(zstd_page(&plain, 100_000, options).unwrap(), plain);
        // The frame records its content size, so nothing else is possible,
        // however much a ratio would allow.
        let err = zstd_page(&plain, 100_001, options).unwrap_err();
        assert_eq!(err.status(), Status::CorruptData, "{err}");
        assert!(
            err.message()
                .starts_with("t.parquet: row group 0, column 'c', page 0: ")
                && err
                    .message()
                    .ends_with("with codec zstd: they hold at most 100000"),
            "{err}"
        );
        let small = PageOptions {
            max_page_size: 99_999,
            ..options
        };
        let err = zstd_page(&plain, 100_000, small).unwrap_err();
        assert_eq!(err.status(), Status::CorruptData, "{err}");
        assert_eq!(
            err.message(),
            "t.parquet: row group 0, column 'c', page 0: uncompressed_page_size 100000 exceeds \
             the scan's limit of 99999 bytes per page (the max_page_size scan option)"
        );
    }

    #[test]
    fn v2_pages_without_value_bytes_are_not_decompressed() {
        let body = b"LL";
        let mut data = header(PageType::DataPageV2, body, body.len());
        data.data_page_header_v2 = Some(DataPageHeaderV2 {
            num_values: 3,
            num_nulls: 3,
            num_rows: 3,
            encoding: Encoding::Plain,
            definition_levels_byte_length: 2,
            repetition_levels_byte_length: 0,
            is_compressed: true,
            statistics: None,
        });
        for codec in Codec::ALL {
            let mut bytes = Vec::new();
            append(&mut bytes, &data, body);
            let chunk = &mut memory(&bytes);
            let mut reader = PageReader::new(location(), codec, 3, PageOptions::new(true));
            let page = reader.next_page(chunk).unwrap().unwrap();
            let mut buffer = Vec::new();
            assert_eq!(
                reader.decompress(&page, chunk, &mut buffer).unwrap(),
                2,
                "{codec}"
            );
            assert_eq!(buffer, body);
        }
    }
}
