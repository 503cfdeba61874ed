//! One column chunk under construction: definition and repetition levels of the current
//! page, finished pages (compressed, with their headers), and what the footer
//! and the page index will say about them.

use std::sync::Arc;

use super::blocks::ChunkBlocks;
use super::compress::{Job, Pool, Work};
use super::options::PageVersion;
use super::schema::{LeafColumn, Order};
use super::stats::{compare, truncate_max, truncate_min, COLUMN_INDEX_TRUNCATE};
use super::stored_page::{append_header, append_page, page_int};
use crate::compression::Codec;
use crate::error::{Error, Result};
use crate::parquet::encodings::append_length_prefixed;
use crate::parquet::encodings::rle::RleEncoder;
use crate::parquet::format::{
    BoundaryOrder, ColumnIndex, DataPageHeader, DataPageHeaderV2, DictionaryPageHeader, Encoding,
    OffsetIndex, PageEncodingStats, PageHeader, PageLocation, PageType, PhysicalType,
};

/// A run of validity bits: bit `offset + i` of `bits` is row `i`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Validity<'a> {
    pub bits: &'a [u8],
    pub offset: usize,
}

impl<'a> Validity<'a> {
    #[inline]
    pub(super) fn get(&self, i: usize) -> bool {
        let bit = self.offset + i;
        self.bits[bit / 8] & (1 << (bit % 8)) != 0
    }

    pub(super) fn skip(&self, rows: usize) -> Validity<'a> {
        Validity {
            bits: self.bits,
            offset: self.offset + rows,
        }
    }

    /// Calls `run(valid, count)` for maximal runs of equal bits over `len` rows,
    /// reading whole 64-bit words where they are uniform.
    pub(super) fn for_each_run(&self, len: usize, mut run: impl FnMut(bool, usize)) {
        let (mut current, mut count) = (true, 0usize);
        let mut emit = |bit: bool, n: usize, current: &mut bool, count: &mut usize| {
            if n == 0 {
                return;
            }
            if bit == *current {
                *count += n;
            } else {
                if *count > 0 {
                    run(*current, *count);
                }
                *current = bit;
                *count = n;
            }
        };
        let mut i = 0;
        while i < len {
            let bit = self.offset + i;
            if bit.is_multiple_of(8) && len - i >= 64 {
                let byte = bit / 8;
                let word =
                    u64::from_le_bytes(self.bits[byte..byte + 8].try_into().unwrap_or([0; 8]));
                if word == u64::MAX || word == 0 {
                    emit(word != 0, 64, &mut current, &mut count);
                    i += 64;
                    continue;
                }
            }
            emit(self.get(i), 1, &mut current, &mut count);
            i += 1;
        }
        if count > 0 {
            run(current, count);
        }
    }

    /// How many of the first `len` rows are valid.
    pub(super) fn count_valid(&self, len: usize) -> usize {
        crate::arrow::bitmap::count_set_bits(self.bits, self.offset, len)
    }

    /// The rows up to and including the `count`-th valid one; the caller
    /// knows that many rows are valid.
    pub(super) fn rows_holding(&self, count: usize) -> usize {
        let mut seen = 0;
        let mut row = 0;
        while seen < count {
            seen += usize::from(self.get(row));
            row += 1;
        }
        row
    }

    /// The first null row among the first `len`, if any.
    pub(super) fn first_null(&self, len: usize) -> Option<usize> {
        (0..len).find(|&i| !self.get(i))
    }
}

/// Bytes reserved in front of a page's values for its level section: enough
/// for the levels of a page without nulls or with a few runs of them.
const GAP: usize = 64;

/// Compresses `input` into `scratch` (grown, never shrunk, so its zero fill
/// happens once) and returns the compressed length.
fn compress_into(codec: Codec, level: i32, input: &[u8], scratch: &mut Vec<u8>) -> Result<usize> {
    let bound = codec.max_compressed_len(input.len())?;
    if scratch.len() < bound {
        scratch.resize(bound, 0);
    }
    codec.compress(level, input, scratch)
}

/// What the writer settles once per file and every page of every column uses.
#[derive(Debug, Clone, Copy)]
pub(crate) struct PageConfig {
    pub codec: Codec,
    pub level: i32,
    pub version: PageVersion,
    /// Pages are cut once their estimated size reaches this (parquet-java cuts
    /// within 10% of the page size).
    pub page_threshold: usize,
    pub page_row_limit: usize,
    pub dictionary_size: usize,
}

/// One data page as the page index sees it.
#[derive(Debug, Clone)]
pub(crate) struct PageMeta {
    /// Start of the page header, relative to the chunk's first data page.
    pub offset: usize,
    /// Header plus stored body.
    pub size: usize,
    pub first_row: u64,
    /// Level slots, nulls included.
    pub values: usize,
    pub nulls: usize,
    /// Column index bounds (zero-widened floats, truncated byte arrays); empty
    /// for a page of nulls.
    pub min: Vec<u8>,
    pub max: Vec<u8>,
    pub unencoded: i64,
}

/// The finished chunk's pieces the file writer lays out.
#[derive(Debug, Default)]
pub(crate) struct ChunkOutput {
    pub num_values: i64,
    pub uncompressed_size: i64,
    pub compressed_size: i64,
    pub encodings: Vec<Encoding>,
    pub encoding_stats: Vec<PageEncodingStats>,
    pub has_dictionary: bool,
    /// Bytes of the dictionary page (header included) at the chunk's start.
    pub dictionary_len: usize,
    pub pages: Vec<PageMeta>,
    pub column_index: bool,
}

pub(crate) struct ChunkBuilder {
    pub config: PageConfig,
    max_def: i16,
    max_rep: i16,
    /// Whether the levels come from [`ChunkBuilder::queue_levels`] (a leaf
    /// inside a struct, list or map) rather than from validity bits.
    nested: bool,
    physical: PhysicalType,
    order: Order,
    utf8: bool,
    byte_array: bool,
    levels: RleEncoder,
    rep_levels: RleEncoder,
    /// The levels of a nested leaf's values the writer is about to append.
    queued: QueuedLevels,
    /// Level slots (values, nulls included) of the current page; for a
    /// top-level column, its rows.
    pub page_values: usize,
    page_records: usize,
    pub page_nulls: usize,
    /// Values and rows of this chunk in finished pages.
    chunk_values: u64,
    chunk_records: u64,
    /// The dictionary page, then the data pages, as stored.
    dictionary: Vec<u8>,
    pub data: ChunkBlocks,
    /// The header of the page being stored, before it goes into `data`.
    header_buf: Vec<u8>,
    pages: Vec<PageMeta>,
    encodings: Vec<Encoding>,
    encoding_stats: Vec<PageEncodingStats>,
    uncompressed: i64,
    nulls: u64,
    /// False once a page's bounds are unusable (a float page with NaN).
    column_index: bool,
    /// Offset and size of the last page stored on this thread.
    last_stored: (usize, usize),
    page_buf: Vec<u8>,
    compressed: Vec<u8>,
    /// Helper threads compressing pages, when the writer has them.
    pool: Option<Arc<Pool>>,
    /// Pages handed to the pool, in order, not yet in `data`.
    pending: std::collections::VecDeque<Pending>,
    /// Per data page of the chunk: its size before compression (plus a
    /// header allowance), and once stored, its stored size.
    raw_sizes: Vec<usize>,
    stored_sizes: Vec<usize>,
    /// Pages written before the writer's previous row group size check.
    marked: usize,
    /// Running sums for `pages_size`: all raw sizes, the raw sizes of the
    /// marked pages, and the stored sizes of the first `stored_counted` pages.
    raw_total: usize,
    raw_marked: usize,
    stored_counted: usize,
    stored_total: usize,
    /// Page buffers back from the pool.
    spare: Vec<Vec<u8>>,
}

/// Levels queued for the values a writer appends next.
#[derive(Default)]
struct QueuedLevels {
    def: Vec<i16>,
    rep: Vec<i16>,
    at: usize,
}

/// The bit width of levels up to `max`.
fn level_width(max: i16) -> u8 {
    (16 - (max.max(0) as u16).leading_zeros()) as u8
}

/// A page being compressed by the pool.
struct Pending {
    job: Arc<Job>,
    meta: PageMeta,
    uncompressed: usize,
}

impl ChunkBuilder {
    pub(super) fn new(
        config: PageConfig,
        column: &LeafColumn,
        pool: Option<Arc<Pool>>,
    ) -> ChunkBuilder {
        ChunkBuilder {
            config,
            max_def: column.max_def,
            max_rep: column.max_rep,
            nested: column.is_nested(),
            physical: column.physical,
            order: column.order,
            utf8: column.utf8,
            byte_array: column.physical == PhysicalType::ByteArray,
            levels: RleEncoder::new(level_width(column.max_def)),
            rep_levels: RleEncoder::new(level_width(column.max_rep)),
            queued: QueuedLevels::default(),
            page_values: 0,
            page_records: 0,
            page_nulls: 0,
            chunk_values: 0,
            chunk_records: 0,
            dictionary: Vec::new(),
            data: ChunkBlocks::default(),
            header_buf: Vec::new(),
            pages: Vec::new(),
            encodings: Vec::new(),
            encoding_stats: Vec::new(),
            uncompressed: 0,
            nulls: 0,
            column_index: true,
            last_stored: (0, 0),
            page_buf: vec![0; GAP],
            compressed: Vec::new(),
            pool: pool.filter(|_| config.codec != Codec::Uncompressed),
            pending: Default::default(),
            raw_sizes: Vec::new(),
            stored_sizes: Vec::new(),
            marked: 0,
            raw_total: 0,
            raw_marked: 0,
            stored_counted: 0,
            stored_total: 0,
            spare: Vec::new(),
        }
    }

    /// Appends the first `count` data pages of the chunk to `data`, waiting
    /// for (and helping with) those the pool is still compressing.
    fn store_pages(&mut self, count: usize) -> Result<()> {
        let Some(pool) = &self.pool else {
            return Ok(());
        };
        while self.stored_sizes.len() < count {
            let Some(mut pending) = self.pending.pop_front() else {
                return Err(Error::internal(
                    "a page went missing on its way to the pool",
                ));
            };
            let done = pool.wait(&pending.job, &mut self.compressed)?;
            pending.meta.offset = self.data.len();
            pending.meta.size = done.bytes.len();
            self.data.extend_from_slice(&done.bytes);
            self.uncompressed += (done.header_len + pending.uncompressed) as i64;
            self.stored_sizes.push(done.bytes.len());
            self.pages.push(pending.meta);
            if self.spare.len() < 4 {
                self.spare.push(done.buffer);
            }
        }
        Ok(())
    }

    /// The bytes the chunk's data pages take, for row group sizing: stored
    /// sizes for the pages written before the previous check, sizes before
    /// compression for the later ones. The rule depends only on the data, so
    /// the file is the same whether or not pages are compressed on helper
    /// threads, and the call waits only for pages that had time to finish.
    pub(super) fn pages_size(&mut self) -> Result<usize> {
        self.store_pages(self.marked)?;
        while self.stored_counted < self.marked {
            self.stored_total += self.stored_sizes[self.stored_counted];
            self.stored_counted += 1;
        }
        Ok(self.stored_total + (self.raw_total - self.raw_marked))
    }

    /// Lets go of the helper threads (the last holder stops them).
    pub(super) fn release_pool(&mut self) {
        self.pool = None;
    }

    /// Notes a row group size check: pages written so far count at their
    /// stored size from the next check on.
    pub(super) fn mark(&mut self) {
        self.marked = self.raw_sizes.len();
        self.raw_marked = self.raw_total;
    }

    /// The current page's value section, which column writers encode into
    /// (after a reserved gap the levels usually fit in, so that they need not
    /// be copied in front of the values).
    #[inline]
    pub(super) fn values(&mut self) -> &mut Vec<u8> {
        &mut self.page_buf
    }

    /// Bytes of the current page's value section.
    #[inline]
    pub(super) fn values_len(&self) -> usize {
        self.page_buf.len() - GAP
    }

    /// Drops the current page's encoded values (to encode them differently).
    pub(super) fn clear_values(&mut self) {
        self.page_buf.truncate(GAP);
    }

    /// Records the levels of the next `len` values and returns how many are
    /// null: from `validity` for a top-level column (required ones have no
    /// levels; the caller has checked for nulls), from the queue for a nested
    /// leaf.
    pub(super) fn add_levels(&mut self, validity: Option<Validity<'_>>, len: usize) -> usize {
        self.page_values += len;
        if self.nested {
            return self.add_queued_levels(len);
        }
        self.page_records += len;
        if self.max_def == 0 {
            return 0;
        }
        let nulls = match validity {
            None => {
                self.levels.put_repeated(1, len);
                0
            }
            Some(validity) => {
                let mut nulls = 0;
                let levels = &mut self.levels;
                validity.for_each_run(len, |valid, count| {
                    levels.put_repeated(u32::from(valid), count);
                    if !valid {
                        nulls += count;
                    }
                });
                nulls
            }
        };
        self.page_nulls += nulls;
        nulls
    }

    /// Queues the levels of a nested leaf's next values (one per slot the
    /// writer then appends, in [`LeafLevels`](super::levels::LeafLevels)'s
    /// form). Takes them rather than copying, and hands back the previous
    /// queue's buffers (contents unspecified) for reuse.
    pub(super) fn queue_levels(&mut self, def: &mut Vec<i16>, rep: &mut Vec<i16>) {
        std::mem::swap(&mut self.queued.def, def);
        std::mem::swap(&mut self.queued.rep, rep);
        self.queued.at = 0;
    }

    /// Whether every queued level has been added.
    pub(super) fn queue_drained(&self) -> bool {
        self.queued.at == self.queued.def.len()
    }

    fn add_queued_levels(&mut self, len: usize) -> usize {
        let range = self.queued.at..self.queued.at + len;
        self.queued.at += len;
        let (def, rep) = (&self.queued.def[range.clone()], &self.queued.rep[range]);
        let max_def = self.max_def;
        self.levels.put_levels(def);
        let nulls = def.iter().filter(|&&d| d < max_def).count();
        if self.max_rep > 0 {
            self.rep_levels.put_levels(rep);
            self.page_records += rep.iter().filter(|&&r| r == 0).count();
        } else {
            // Without repetition every level slot starts a row.
            self.page_records += def.len();
        }
        self.page_nulls += nulls;
        nulls
    }

    /// Whether the next value starts a row: pages end only there.
    fn at_row_start(&self) -> bool {
        !self.nested || self.queue_drained() || self.queued.rep[self.queued.at] == 0
    }

    /// How many of the next `remaining` values the page may take: up to its
    /// row limit, or the rest of the row it is in the middle of.
    pub(super) fn room(&self, remaining: usize) -> usize {
        if self.at_row_start() {
            let rows = self.config.page_row_limit.saturating_sub(self.page_records);
            return rows.min(remaining);
        }
        let rest = &self.queued.rep[self.queued.at..];
        let row_end = rest.iter().position(|&r| r == 0).unwrap_or(rest.len());
        row_end.min(remaining)
    }

    /// Whether the page is due to end: at a row's start, once it holds the
    /// row limit or `size_reached` says its values reached the threshold.
    pub(super) fn page_full(&self, size_reached: bool) -> bool {
        self.at_row_start() && (self.page_records >= self.config.page_row_limit || size_reached)
    }

    fn note_encoding(&mut self, encoding: Encoding) {
        if !self.encodings.contains(&encoding) {
            self.encodings.push(encoding);
        }
    }

    fn note_page(&mut self, page_type: PageType, encoding: Encoding) {
        match self
            .encoding_stats
            .iter_mut()
            .find(|s| s.page_type == page_type && s.encoding == encoding)
        {
            Some(stats) => stats.count += 1,
            None => self.encoding_stats.push(PageEncodingStats {
                page_type,
                encoding,
                count: 1,
            }),
        }
    }

    /// Ends the current page, whose encoded values are in [`Self::values`]:
    /// `bounds` its min/max (PLAIN bytes, untruncated) if it holds a non-null
    /// value, `nan` whether it holds a NaN (float columns), `unencoded` the
    /// byte array bytes it holds.
    pub(super) fn write_data_page(
        &mut self,
        encoding: Encoding,
        bounds: Option<(&[u8], &[u8])>,
        nan: bool,
        unencoded: i64,
    ) -> Result<()> {
        let values = self.page_values;
        let rows = self.page_records;
        let nulls = self.page_nulls;
        let num_values = page_int(values, "values")?;
        let def_width = level_width(self.max_def);
        let levels = std::mem::replace(&mut self.levels, RleEncoder::new(def_width)).finish();
        let levels: &[u8] = if self.max_def > 0 { &levels } else { &[] };
        let rep_width = level_width(self.max_rep);
        let rep_levels =
            std::mem::replace(&mut self.rep_levels, RleEncoder::new(rep_width)).finish();
        let rep_levels: &[u8] = if self.max_rep > 0 { &rep_levels } else { &[] };
        let values_len = self.values_len();
        let v2 = self.config.version == PageVersion::V2;
        let raw = self.config.codec == Codec::Uncompressed;
        let both;
        let (header, prefix, body_start) = if v2 {
            // Levels stay uncompressed in front of the (compressed) values,
            // repetition levels first.
            let prefix: &[u8] = if rep_levels.is_empty() {
                levels
            } else {
                both = [rep_levels, levels].concat();
                &both
            };
            let header = PageHeader {
                page_type: PageType::DataPageV2,
                uncompressed_page_size: page_int(prefix.len() + values_len, "bytes")?,
                compressed_page_size: 0,
                crc: None,
                data_page_header: None,
                has_index_page_header: false,
                dictionary_page_header: None,
                data_page_header_v2: Some(DataPageHeaderV2 {
                    num_values,
                    num_nulls: page_int(nulls, "nulls")?,
                    num_rows: page_int(rows, "rows")?,
                    encoding,
                    definition_levels_byte_length: page_int(levels.len(), "bytes")?,
                    repetition_levels_byte_length: page_int(rep_levels.len(), "bytes")?,
                    is_compressed: true,
                    statistics: None,
                }),
            };
            (header, prefix, GAP)
        } else {
            // The level sections (repetition, then definition) go right before
            // the values, in the gap if they fit.
            let start = if levels.is_empty() && rep_levels.is_empty() {
                GAP
            } else {
                let mut section = Vec::with_capacity(rep_levels.len() + levels.len() + 8);
                if !rep_levels.is_empty() {
                    append_length_prefixed(rep_levels, &mut section, "repetition levels")?;
                }
                if !levels.is_empty() {
                    append_length_prefixed(levels, &mut section, "definition levels")?;
                }
                if section.len() <= GAP {
                    self.page_buf[GAP - section.len()..GAP].copy_from_slice(&section);
                    GAP - section.len()
                } else {
                    self.page_buf.splice(..GAP, section);
                    0
                }
            };
            let header = PageHeader {
                page_type: PageType::DataPage,
                uncompressed_page_size: page_int(self.page_buf.len() - start, "bytes")?,
                compressed_page_size: 0,
                crc: None,
                data_page_header: Some(DataPageHeader {
                    num_values,
                    encoding,
                    definition_level_encoding: if self.max_def > 0 {
                        Encoding::Rle
                    } else {
                        Encoding::BitPacked
                    },
                    repetition_level_encoding: if self.max_rep > 0 {
                        Encoding::Rle
                    } else {
                        Encoding::BitPacked
                    },
                    statistics: None,
                }),
                has_index_page_header: false,
                dictionary_page_header: None,
                data_page_header_v2: None,
            };
            (header, &[][..], start)
        };
        if !v2 {
            if self.max_def > 0 || self.max_rep > 0 {
                self.note_encoding(Encoding::Rle);
            }
            if self.max_rep == 0 {
                self.note_encoding(Encoding::BitPacked);
            }
        }
        self.note_encoding(encoding);
        self.note_page(header.page_type, encoding);
        let uncompressed = header.uncompressed_page_size as usize;
        /// A header allowance for pages not stored yet.
        const HEADER: usize = 32;
        self.raw_sizes.push(HEADER + prefix.len() + uncompressed);
        self.raw_total += HEADER + prefix.len() + uncompressed;
        // Stored now, or by the pool (then offset and size come when stored).
        let queued = match &self.pool {
            Some(pool) => {
                let mut buffer = self.spare.pop().unwrap_or_default();
                buffer.clear();
                buffer.resize(GAP, 0);
                let page = std::mem::replace(&mut self.page_buf, buffer);
                let work = Work {
                    codec: self.config.codec,
                    level: self.config.level,
                    header,
                    prefix: prefix.to_vec(),
                    buffer: page,
                    body_start,
                };
                let job = pool.submit(work, &mut self.compressed);
                Some(job)
            }
            None => {
                let stored = if raw {
                    self.page_buf.len() - body_start
                } else {
                    compress_into(
                        self.config.codec,
                        self.config.level,
                        &self.page_buf[body_start..],
                        &mut self.compressed,
                    )?
                };
                let body: &[u8] = if raw {
                    &self.page_buf[body_start..]
                } else {
                    &self.compressed[..stored]
                };
                let offset = self.data.len();
                self.header_buf.clear();
                append_header(&mut self.header_buf, header, prefix, body)?;
                let header_len = self.header_buf.len();
                self.data.extend_from_slice(&self.header_buf);
                self.data.extend_from_slice(prefix);
                self.data.extend_from_slice(body);
                self.uncompressed += (header_len + uncompressed) as i64;
                // What stays in the gap is overwritten by the next page's levels.
                self.page_buf.truncate(GAP);
                self.last_stored = (offset, self.data.len() - offset);
                self.stored_sizes.push(self.data.len() - offset);
                None
            }
        };

        let (min, max) = match bounds {
            Some((min, max)) if values > nulls => {
                if nan {
                    self.column_index = false;
                }
                if matches!(
                    self.physical,
                    PhysicalType::ByteArray | PhysicalType::FixedLenByteArray
                ) {
                    (
                        truncate_min(min, COLUMN_INDEX_TRUNCATE, self.utf8),
                        truncate_max(max, COLUMN_INDEX_TRUNCATE, self.utf8),
                    )
                } else {
                    (min.to_vec(), max.to_vec())
                }
            }
            _ => (Vec::new(), Vec::new()),
        };
        let meta = PageMeta {
            offset: self.last_stored.0,
            size: self.last_stored.1,
            first_row: self.chunk_records,
            values,
            nulls,
            min,
            max,
            unencoded,
        };
        match queued {
            Some(job) => self.pending.push_back(Pending {
                job,
                meta,
                uncompressed,
            }),
            None => self.pages.push(meta),
        }
        self.chunk_values += values as u64;
        self.chunk_records += rows as u64;
        self.nulls += nulls as u64;
        self.page_values = 0;
        self.page_records = 0;
        self.page_nulls = 0;
        Ok(())
    }

    /// Stores the dictionary page (PLAIN values) of the finished chunk.
    pub(super) fn write_dictionary_page(&mut self, body: &[u8], entries: usize) -> Result<()> {
        let encoding = match self.config.version {
            PageVersion::V1 => Encoding::PlainDictionary,
            PageVersion::V2 => Encoding::Plain,
        };
        let raw = self.config.codec == Codec::Uncompressed;
        let stored = if raw {
            body.len()
        } else {
            compress_into(
                self.config.codec,
                self.config.level,
                body,
                &mut self.compressed,
            )?
        };
        let header = PageHeader {
            page_type: PageType::DictionaryPage,
            uncompressed_page_size: page_int(body.len(), "bytes")?,
            compressed_page_size: 0,
            crc: None,
            data_page_header: None,
            has_index_page_header: false,
            dictionary_page_header: Some(DictionaryPageHeader {
                num_values: page_int(entries, "values")?,
                encoding,
                is_sorted: None,
            }),
            data_page_header_v2: None,
        };
        self.dictionary.clear();
        let stored_body = if raw {
            body
        } else {
            &self.compressed[..stored]
        };
        let header_len = append_page(&mut self.dictionary, header, &[], stored_body)?;
        self.uncompressed += (header_len + body.len()) as i64;
        self.encodings.insert(0, encoding);
        self.encoding_stats.insert(
            0,
            PageEncodingStats {
                page_type: PageType::DictionaryPage,
                encoding,
                count: 1,
            },
        );
        Ok(())
    }

    /// Whether the current page holds rows.
    pub(super) fn page_is_empty(&self) -> bool {
        self.page_values == 0
    }

    /// The chunk's description; the dictionary and data bytes stay in
    /// `self.dictionary` / `self.data` for the writer to emit.
    pub(super) fn finish(&mut self, statistics_enabled: bool) -> Result<ChunkOutput> {
        self.store_pages(self.raw_sizes.len())?;
        let mut encodings = std::mem::take(&mut self.encodings);
        dedup_in_order(&mut encodings);
        Ok(ChunkOutput {
            num_values: self.chunk_values as i64,
            uncompressed_size: self.uncompressed,
            compressed_size: (self.dictionary.len() + self.data.len()) as i64,
            encodings,
            encoding_stats: std::mem::take(&mut self.encoding_stats),
            has_dictionary: !self.dictionary.is_empty(),
            dictionary_len: self.dictionary.len(),
            pages: std::mem::take(&mut self.pages),
            column_index: self.column_index && statistics_enabled,
        })
    }

    /// The stored dictionary page (empty without one) and data pages.
    pub(super) fn bytes(&mut self) -> (&mut Vec<u8>, &mut ChunkBlocks) {
        (&mut self.dictionary, &mut self.data)
    }

    /// Readies the builder for the next chunk (buffers keep their capacity;
    /// the data's blocks go back to the cache).
    pub(super) fn reset(&mut self) {
        self.levels = RleEncoder::new(level_width(self.max_def));
        self.rep_levels = RleEncoder::new(level_width(self.max_rep));
        self.page_values = 0;
        self.page_records = 0;
        self.page_nulls = 0;
        self.chunk_values = 0;
        self.chunk_records = 0;
        self.dictionary.clear();
        self.data.clear();
        self.pages.clear();
        self.encodings.clear();
        self.encoding_stats.clear();
        self.uncompressed = 0;
        self.nulls = 0;
        self.column_index = true;
        self.page_buf.truncate(GAP);
        self.pending.clear();
        self.raw_sizes.clear();
        self.stored_sizes.clear();
        self.marked = 0;
        self.raw_total = 0;
        self.raw_marked = 0;
        self.stored_counted = 0;
        self.stored_total = 0;
    }

    /// The page index of the finished chunk, with page offsets made absolute
    /// from `data_start` (the file offset of its first data page).
    pub(super) fn page_index(
        &self,
        output: &ChunkOutput,
        data_start: u64,
    ) -> (Option<ColumnIndex>, OffsetIndex) {
        let pages = &output.pages;
        let offset_index = OffsetIndex {
            page_locations: pages
                .iter()
                .map(|p| PageLocation {
                    offset: (data_start + p.offset as u64) as i64,
                    compressed_page_size: p.size as i32,
                    first_row_index: p.first_row as i64,
                })
                .collect(),
            unencoded_byte_array_data_bytes: self
                .byte_array
                .then(|| pages.iter().map(|p| p.unencoded).collect()),
        };
        if !output.column_index {
            return (None, offset_index);
        }
        let null_pages: Vec<bool> = pages.iter().map(|p| p.values == p.nulls).collect();
        let column_index = ColumnIndex {
            boundary_order: boundary_order(self.order, self.physical, pages, &null_pages),
            null_pages,
            min_values: pages.iter().map(|p| p.min.clone()).collect(),
            max_values: pages.iter().map(|p| p.max.clone()).collect(),
            null_counts: Some(pages.iter().map(|p| p.nulls as i64).collect()),
            repetition_level_histograms: None,
            definition_level_histograms: None,
        };
        (Some(column_index), offset_index)
    }
}

fn dedup_in_order(encodings: &mut Vec<Encoding>) {
    let mut seen = Vec::with_capacity(encodings.len());
    encodings.retain(|e| {
        if seen.contains(e) {
            false
        } else {
            seen.push(*e);
            true
        }
    });
}

/// ASCENDING if the non-null pages' mins and maxes never decrease, DESCENDING
/// if they never increase, else UNORDERED (ASCENDING wins a tie, as in
/// parquet-java's ColumnIndexBuilder).
fn boundary_order(
    order: Order,
    physical: PhysicalType,
    pages: &[PageMeta],
    null_pages: &[bool],
) -> BoundaryOrder {
    let bounded: Vec<&PageMeta> = pages
        .iter()
        .zip(null_pages)
        .filter(|(_, &null)| !null)
        .map(|(p, _)| p)
        .collect();
    let holds = |want: std::cmp::Ordering| {
        bounded.windows(2).all(|w| {
            compare(order, physical, &w[0].min, &w[1].min) != want.reverse()
                && compare(order, physical, &w[0].max, &w[1].max) != want.reverse()
        })
    };
    if holds(std::cmp::Ordering::Less) {
        BoundaryOrder::Ascending
    } else if holds(std::cmp::Ordering::Greater) {
        BoundaryOrder::Descending
    } else {
        BoundaryOrder::Unordered
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_of_validity_bits() {
        let mut bits = vec![0xffu8; 40];
        bits[9] = 0b1110_1111;
        bits[20] = 0;
        for offset in [0, 3, 8, 61] {
            let validity = Validity {
                bits: &bits,
                offset,
            };
            let len = 40 * 8 - offset;
            let mut runs = Vec::new();
            validity.for_each_run(len, |valid, count| runs.push((valid, count)));
            let mut expected: Vec<(bool, usize)> = Vec::new();
            for i in 0..len {
                let bit = validity.get(i);
                match expected.last_mut() {
                    Some((b, n)) if *b == bit => *n += 1,
                    _ => expected.push((bit, 1)),
                }
            }
            assert_eq!(runs, expected, "offset {offset}");
            assert_eq!(
                validity.first_null(len),
                (0..len).find(|&i| !validity.get(i))
            );
        }
    }

    #[test]
    fn repeated_puts_encode_like_single_ones() {
        let runs: &[&[(u32, usize)]] = &[
            &[(1, 1000)],
            &[(1, 3), (0, 5), (1, 20), (0, 1), (1, 7), (0, 64)],
            &[(0, 7), (1, 9), (1, 9)],
            &[(1, 8), (0, 8), (1, 1)],
        ];
        for runs in runs {
            let mut repeated = RleEncoder::new(1);
            let mut single = RleEncoder::new(1);
            for &(value, count) in *runs {
                repeated.put_repeated(value, count);
                for _ in 0..count {
                    single.put(value);
                }
            }
            assert_eq!(repeated.finish(), single.finish(), "{runs:?}");
        }
    }

    #[test]
    fn level_slices_encode_like_single_levels() {
        // SplitMix-ish levels of width 2, mostly the maximum, with runs of
        // every length around a group of eight.
        let mut state = 7u64;
        let mut levels = Vec::new();
        while levels.len() < 5000 {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let level = if state >> 62 == 0 {
                (state >> 40) as i16 % 3
            } else {
                3
            };
            levels.extend(std::iter::repeat_n(level, 1 + (state >> 20) as usize % 19));
        }
        let mut single = RleEncoder::new(2);
        levels.iter().for_each(|&l| single.put(l as u32));
        let single = single.finish();
        // Whole, and cut into slices of every length a page's levels come in.
        for cut in [levels.len(), 1, 3, 8, 13, 64] {
            let mut bulk = RleEncoder::new(2);
            levels.chunks(cut).for_each(|slice| bulk.put_levels(slice));
            assert_eq!(bulk.finish(), single, "slices of {cut}");
        }
    }
}
