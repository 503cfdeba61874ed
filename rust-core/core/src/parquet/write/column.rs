//! Column writers: values of one leaf column, page by page, with parquet-java's
//! encoding choices.
//!
//! - Dictionary encoding first (when enabled and the type allows it: not for
//!   BOOLEAN, and not for FIXED_LEN_BYTE_ARRAY in v1 pages, as in parquet-java).
//!   The chunk falls back for good when the dictionary outgrows its byte budget
//!   (the values of the current page are re-encoded; pages already written keep
//!   the dictionary, which then holds only the entries they use), or when the
//!   first page is not smaller dictionary-encoded than raw (then no dictionary
//!   page is written at all).
//! - Fallback: PLAIN in v1 pages; in v2 pages DELTA_BINARY_PACKED for INT32 and
//!   INT64, DELTA_BYTE_ARRAY for byte arrays, PLAIN for floats. Booleans are
//!   PLAIN (v1) or RLE (v2).
//! - Pages end at the page row limit or when their estimated size (values as
//!   parquet-java counts them: 4 bytes per dictionary index) reaches the page
//!   threshold.

use std::sync::Arc;

use super::compress::Pool;
use super::options::PageVersion;
use super::page::{ChunkBuilder, ChunkOutput, PageConfig, Validity};
use super::schema::{LeafColumn, Order};
use super::stats::{
    as_bytes, compare_signed_bytes, compare_unsigned_bytes, le_bytes, Numeric, NumericStats,
};
use crate::error::Result;
use crate::parquet::encodings::delta::{DeltaBinaryPackedEncoder, DeltaByteArrayEncoder};
use crate::parquet::encodings::plain::PlainBooleanEncoder;
use crate::parquet::encodings::rle::{encode_dictionary_indices, encode_rle_booleans};
use crate::parquet::format::{Encoding, PhysicalType, Statistics};

/// parquet-java's limit on statistics it writes to the footer: min plus max
/// must stay below this many bytes, or the chunk gets no statistics at all.
const MAX_STATS_SIZE: usize = 4096;

/// What a column has written to the file so far, summed over its chunks, for the result.
#[derive(Default)]
struct FileTotals {
    nulls: u64,
    values: u64,
    compressed: u64,
}

impl FileTotals {
    fn add(&mut self, nulls: u64, chunk: &ChunkOutput) {
        self.nulls += nulls;
        self.values += chunk.num_values as u64;
        self.compressed += chunk.compressed_size as u64;
    }
}

/// Min/max and counts over a whole column, for the caller's metrics.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ColumnMetrics {
    pub value_count: u64,
    pub null_count: u64,
    /// None for columns other than float and double.
    pub nan_count: Option<u64>,
    /// PLAIN bytes of the physical type; NaN left out.
    pub min: Option<Vec<u8>>,
    pub max: Option<Vec<u8>>,
    pub compressed_size: u64,
}

/// Footer statistics in parquet-java's shape.
fn footer_statistics(
    column: &LeafColumn,
    nulls: u64,
    bounds: Option<(Vec<u8>, Vec<u8>)>,
    enabled: bool,
) -> Statistics {
    let mut statistics = Statistics {
        null_count: Some(nulls as i64),
        ..Statistics::default()
    };
    let Some((min, max)) = bounds.filter(|_| enabled) else {
        return statistics;
    };
    if min.len() + max.len() >= MAX_STATS_SIZE {
        // parquet-java drops oversized statistics entirely, null count included.
        return Statistics::default();
    }
    if column.legacy_stats || min == max {
        statistics.min = Some(min.clone());
        statistics.max = Some(max.clone());
    }
    statistics.min_value = Some(min);
    statistics.max_value = Some(max);
    statistics
}

/// How many of the next `max_rows` rows the page takes: up to and including
/// the row whose value brings the page's estimate to `room` more bytes, each
/// valid row `i` adding `cost(i)`. Exact, so that pages end at the same row
/// however the rows arrive in batches. Rows without a bitmap take
/// [`bisected_rows_to_fill`] or [`constant_rows_to_fill`].
#[inline]
fn rows_to_fill(
    room: usize,
    max_rows: usize,
    validity: Validity<'_>,
    mut cost: impl FnMut(usize) -> usize,
) -> usize {
    if room == 0 {
        return max_rows.min(1);
    }
    let mut used = 0;
    for i in 0..max_rows {
        if validity.get(i) {
            used += cost(i);
            if used >= room {
                return i + 1;
            }
        }
    }
    max_rows
}

/// [`rows_to_fill`] for rows without nulls whose first `k` cost `cost_of_first(k)` bytes
/// together, a sum that grows with every row: bisected, instead of a walk over the rows.
fn bisected_rows_to_fill(
    room: usize,
    max_rows: usize,
    cost_of_first: impl Fn(usize) -> usize,
) -> usize {
    if room == 0 {
        return max_rows.min(1);
    }
    if cost_of_first(max_rows) < room {
        return max_rows;
    }
    // The fewest rows that bring the page to `room`.
    let (mut low, mut high) = (1, max_rows);
    while low < high {
        let mid = low + (high - low) / 2;
        if cost_of_first(mid) >= room {
            high = mid;
        } else {
            low = mid + 1;
        }
    }
    low
}

/// [`rows_to_fill`] when every value costs `cost` bytes.
#[inline]
fn constant_rows_to_fill(
    room: usize,
    max_rows: usize,
    validity: Option<Validity<'_>>,
    cost: usize,
) -> usize {
    let values = room.div_ceil(cost.max(1)).max(1);
    match validity {
        None => max_rows.min(values),
        // Most slices end long before the page fills: a count settles them.
        Some(validity) if validity.count_valid(max_rows) < values => max_rows,
        Some(validity) => {
            // The row holding the `values`-th valid value, found run by run.
            let (mut row, mut seen, mut found) = (0, 0, None);
            validity.for_each_run(max_rows, |valid, count| {
                if found.is_none() {
                    if valid && seen + count >= values {
                        found = Some(row + (values - seen));
                    }
                    if valid {
                        seen += count;
                    }
                    row += count;
                }
            });
            found.unwrap_or(max_rows)
        }
    }
}

/// Which encoding a chunk currently uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    Dictionary,
    Fallback,
}

/// Dictionary bookkeeping shared by the numeric and byte array writers.
#[derive(Debug)]
struct DictionaryState {
    enabled: bool,
    mode: Mode,
    /// Entries referenced by pages already written (parquet-java's
    /// lastUsedDictionarySize): what the dictionary page will hold.
    used: usize,
    first_page: bool,
    /// The current page's indices.
    indices: Vec<u32>,
    /// The current page's values as raw bytes (parquet-java's rawDataByteSize).
    raw_size: usize,
}

impl DictionaryState {
    fn new(enabled: bool) -> DictionaryState {
        DictionaryState {
            enabled,
            mode: if enabled {
                Mode::Dictionary
            } else {
                Mode::Fallback
            },
            used: 0,
            first_page: true,
            indices: Vec::new(),
            raw_size: 0,
        }
    }

    fn reset(&mut self) {
        let enabled = self.enabled;
        let indices = std::mem::take(&mut self.indices);
        *self = DictionaryState::new(enabled);
        self.indices = indices;
        self.indices.clear();
    }
}

/// INT32, INT64, FLOAT and DOUBLE columns.
pub(crate) struct NumericWriter<T: Numeric> {
    chunk: ChunkBuilder,
    column: LeafColumn,
    statistics: bool,
    delta: bool,
    dict: DictionaryState,
    interner: super::hash::ValueInterner,
    fallback: Vec<T>,
    page_stats: NumericStats<T>,
    chunk_stats: NumericStats<T>,
    file_stats: NumericStats<T>,
    totals: FileTotals,
    gathered: Vec<T>,
}

impl<T: Numeric> NumericWriter<T> {
    pub(super) fn new(
        config: PageConfig,
        column: &LeafColumn,
        pool: Option<Arc<Pool>>,
        dictionary: bool,
        statistics: bool,
    ) -> Self {
        NumericWriter {
            chunk: ChunkBuilder::new(config, column, pool),
            column: column.clone(),
            statistics,
            delta: config.version == PageVersion::V2 && !T::FLOAT,
            dict: DictionaryState::new(dictionary),
            interner: Default::default(),
            fallback: Vec::new(),
            page_stats: NumericStats::default(),
            chunk_stats: NumericStats::default(),
            file_stats: NumericStats::default(),
            totals: FileTotals::default(),
            gathered: Vec::new(),
        }
    }

    fn page_estimate(&self) -> usize {
        match self.dict.mode {
            Mode::Dictionary => self.dict.indices.len() * 4,
            Mode::Fallback => self.chunk.values_len() + self.fallback.len() * T::WIDTH,
        }
    }

    /// Estimated bytes this column holds for the current row group.
    pub(super) fn buffered_size(&mut self) -> Result<usize> {
        let dictionary = match self.dict.mode {
            Mode::Dictionary => self.interner.len(),
            Mode::Fallback => self.dict.used,
        } * T::WIDTH;
        Ok(self.chunk.pages_size()?
            + dictionary
            + self.page_estimate()
            + self.chunk.page_values / 8)
    }

    /// Appends rows: `values` has one slot per row (null slots hold anything).
    pub(super) fn append(&mut self, values: &[T], validity: Option<Validity<'_>>) -> Result<()> {
        let config = self.chunk.config;
        let mut done = 0;
        while done < values.len() {
            let per_row = match self.dict.mode {
                Mode::Dictionary => 4,
                Mode::Fallback => T::WIDTH,
            };
            let row_room = self.chunk.room(values.len() - done);
            let byte_room = config.page_threshold.saturating_sub(self.page_estimate());
            let validity_here = validity.map(|v| v.skip(done));
            let n = constant_rows_to_fill(byte_room, row_room, validity_here, per_row);
            let nulls = validity_here.map_or(0, |v| n - v.count_valid(n));
            let slice = &values[done..done + n];
            let mut gathered = std::mem::take(&mut self.gathered);
            let present: &[T] = if nulls == 0 {
                slice
            } else {
                let validity = validity_here.expect("nulls come from a bitmap");
                gathered.clear();
                gathered.extend((0..n).filter(|&i| validity.get(i)).map(|i| slice[i]));
                &gathered
            };
            // Leaving the dictionary ends the mini-batch (the page's size counts
            // differently from there on).
            let mode = self.dict.mode;
            let encoded = self.encode(present);
            self.page_stats.update(&present[..encoded]);
            let rows = match validity_here {
                _ if self.dict.mode == mode => n,
                Some(validity) if nulls > 0 => validity.rows_holding(encoded),
                _ => encoded,
            };
            self.gathered = gathered;
            self.chunk.add_levels(validity_here, rows);
            done += rows;
            if self
                .chunk
                .page_full(self.page_estimate() >= config.page_threshold)
            {
                self.flush_page()?;
            }
        }
        Ok(())
    }

    /// Encodes `values` and returns how many: all of them, or up to and
    /// including the one that made the chunk leave its dictionary.
    fn encode(&mut self, values: &[T]) -> usize {
        if self.dict.mode == Mode::Fallback {
            self.encode_fallback(values);
            return values.len();
        }
        let limit = self.chunk.config.dictionary_size;
        for (i, &value) in values.iter().enumerate() {
            self.dict.raw_size += T::WIDTH;
            let (index, new) = self.interner.intern(value.to_bits());
            self.dict.indices.push(index);
            if new && self.interner.len() * T::WIDTH > limit {
                self.fall_back();
                return i + 1;
            }
        }
        values.len()
    }

    /// PLAIN values go straight into the page; DELTA_BINARY_PACKED ones wait
    /// for the page's end.
    #[inline]
    fn encode_fallback(&mut self, values: &[T]) {
        if self.delta {
            self.fallback.extend_from_slice(values);
        } else {
            self.chunk.values().extend_from_slice(as_bytes(values));
        }
    }

    /// Leaves the dictionary for the rest of the chunk; the current page's
    /// values move to the fallback encoding.
    fn fall_back(&mut self) {
        let dictionary = self.interner.values();
        let values: Vec<T> = self
            .dict
            .indices
            .iter()
            .map(|&i| T::from_bits(dictionary[i as usize]))
            .collect();
        self.dict.indices.clear();
        self.dict.mode = Mode::Fallback;
        self.encode_fallback(&values);
    }

    fn flush_page(&mut self) -> Result<()> {
        if self.chunk.page_is_empty() {
            return Ok(());
        }
        let mut encoding = Encoding::Plain;
        if self.dict.mode == Mode::Dictionary {
            encode_dictionary_indices(
                &self.dict.indices,
                self.interner.len(),
                self.chunk.values(),
            )?;
            let dictionary_bytes = self.interner.len() * T::WIDTH;
            if self.dict.first_page
                && self.chunk.values_len() + dictionary_bytes >= self.dict.raw_size
            {
                self.chunk.clear_values();
                self.fall_back();
            } else {
                encoding = dictionary_encoding(self.chunk.config.version);
                self.dict.used = self.interner.len();
            }
        }
        if self.dict.mode == Mode::Fallback && self.delta {
            encoding = Encoding::DeltaBinaryPacked;
            T::encode_delta(&self.fallback, self.chunk.values());
            self.fallback.clear();
        }
        self.dict.indices.clear();
        self.dict.raw_size = 0;
        self.dict.first_page = false;
        let stats = std::mem::take(&mut self.page_stats);
        let bounds = stats.iceberg_bounds().map(|(min, max)| {
            if T::FLOAT {
                (
                    le_bytes(min.widen_zero_min()),
                    le_bytes(max.widen_zero_max()),
                )
            } else {
                (le_bytes(min), le_bytes(max))
            }
        });
        let nan = stats.nans > 0;
        let bounds = match (bounds, nan) {
            (None, true) => Some((le_bytes(T::canonical_nan()), le_bytes(T::canonical_nan()))),
            (bounds, _) => bounds,
        };
        self.chunk.write_data_page(
            encoding,
            bounds.as_ref().map(|(a, b)| (a.as_slice(), b.as_slice())),
            nan,
            0,
        )?;
        self.chunk_stats.merge(&stats);
        Ok(())
    }

    /// Ends the chunk; its bytes stay in the builder until `reset`.
    pub(super) fn finish_chunk(&mut self) -> Result<(ChunkOutput, Statistics)> {
        self.flush_page()?;
        if self.dict.used > 0 {
            let values: Vec<T> = self.interner.values()[..self.dict.used]
                .iter()
                .map(|&bits| T::from_bits(bits))
                .collect();
            self.chunk
                .write_dictionary_page(as_bytes(&values), self.dict.used)?;
        }
        let output = self.chunk.finish(self.statistics)?;
        let nulls = output.num_values as u64 - self.chunk_stats.count - self.chunk_stats.nans;
        let bounds = self
            .chunk_stats
            .parquet_bounds()
            .map(|(min, max)| (le_bytes(min), le_bytes(max)));
        let statistics = footer_statistics(&self.column, nulls, bounds, self.statistics);
        self.file_stats.merge(&self.chunk_stats);
        self.totals.add(nulls, &output);
        Ok((output, statistics))
    }

    pub(super) fn chunk(&mut self) -> &mut ChunkBuilder {
        &mut self.chunk
    }

    pub(super) fn reset_chunk(&mut self) {
        self.chunk.reset();
        self.dict.reset();
        self.interner.clear();
        self.chunk_stats = NumericStats::default();
    }

    pub(super) fn metrics(&self) -> ColumnMetrics {
        // Iceberg's writer tracks float and double bounds itself, with or without Parquet
        // statistics; other columns' bounds come from the statistics.
        let bounds = self
            .file_stats
            .iceberg_bounds()
            .filter(|_| self.statistics || T::FLOAT);
        ColumnMetrics {
            value_count: self.totals.values,
            null_count: self.totals.nulls,
            nan_count: T::FLOAT.then_some(self.file_stats.nans),
            min: bounds.map(|(min, _)| le_bytes(min)),
            max: bounds.map(|(_, max)| le_bytes(max)),
            compressed_size: self.totals.compressed,
        }
    }
}

fn dictionary_encoding(version: PageVersion) -> Encoding {
    match version {
        PageVersion::V1 => Encoding::PlainDictionary,
        PageVersion::V2 => Encoding::RleDictionary,
    }
}

/// Byte array values of one column slice.
#[derive(Debug, Clone, Copy)]
pub(crate) enum ByteValues<'a> {
    /// Arrow offsets (`rows + 1` entries of 4 or 8 bytes, little-endian) into `data`.
    Offsets {
        offsets: &'a [u8],
        wide: bool,
        data: &'a [u8],
    },
    /// Values of `width` bytes back to back.
    Fixed { data: &'a [u8], width: usize },
}

impl<'a> ByteValues<'a> {
    #[inline(always)]
    fn offset(offsets: &[u8], wide: bool, i: usize) -> usize {
        if wide {
            let bytes: [u8; 8] = offsets[i * 8..i * 8 + 8].try_into().unwrap_or_default();
            i64::from_le_bytes(bytes) as usize
        } else {
            let bytes: [u8; 4] = offsets[i * 4..i * 4 + 4].try_into().unwrap_or_default();
            i32::from_le_bytes(bytes) as u32 as usize
        }
    }

    #[inline(always)]
    pub(super) fn get(&self, i: usize) -> &'a [u8] {
        let (data, start, end) = self.locate(i);
        &data[start..end]
    }

    /// Value `i` as where it lies: the data buffer, its start and its end.
    #[inline(always)]
    fn locate(&self, i: usize) -> (&'a [u8], usize, usize) {
        match *self {
            ByteValues::Offsets {
                offsets,
                wide,
                data,
            } => (
                data,
                Self::offset(offsets, wide, i),
                Self::offset(offsets, wide, i + 1),
            ),
            ByteValues::Fixed { data, width } => (data, i * width, (i + 1) * width),
        }
    }

    /// Bytes of rows `[from, to)` (nulls included).
    fn span(&self, from: usize, to: usize) -> usize {
        match *self {
            ByteValues::Offsets { offsets, wide, .. } => {
                Self::offset(offsets, wide, to) - Self::offset(offsets, wide, from)
            }
            ByteValues::Fixed { width, .. } => (to - from) * width,
        }
    }
}

/// The fallback encoding of a byte array page: PLAIN (straight into the
/// page), or DELTA_BYTE_ARRAY in v2 pages.
struct BytesFallback {
    fixed: bool,
    delta: Option<DeltaByteArrayEncoder>,
    /// DELTA_BYTE_ARRAY pages: the size estimate (PLAIN bytes).
    delta_size: usize,
}

impl BytesFallback {
    #[inline(always)]
    fn push(&mut self, value: &[u8], page: &mut Vec<u8>) {
        if let Some(encoder) = &mut self.delta {
            self.delta_size += value.len() + 4;
            // The writer refuses values beyond i32 lengths before they get
            // here, which is the encoder's only error.
            let _ = encoder.put(value);
        } else if self.fixed {
            page.extend_from_slice(value);
        } else {
            page.extend_from_slice(&(value.len() as u32).to_le_bytes());
            page.extend_from_slice(value);
        }
    }

    /// Finishes the page's values in `page` and returns their encoding.
    fn finish(&mut self, page: &mut Vec<u8>) -> Encoding {
        match &mut self.delta {
            Some(encoder) => {
                std::mem::take(encoder).finish(page);
                self.delta_size = 0;
                Encoding::DeltaByteArray
            }
            None => Encoding::Plain,
        }
    }
}

/// Running min/max of byte strings.
#[derive(Debug, Clone, Default)]
struct ByteBounds {
    min: Vec<u8>,
    max: Vec<u8>,
    some: bool,
}

impl ByteBounds {
    #[inline]
    fn update(&mut self, value: &[u8], signed: bool) {
        if !self.some {
            self.min.extend_from_slice(value);
            self.max.extend_from_slice(value);
            self.some = true;
            return;
        }
        let (below, above) = if signed {
            (
                compare_signed_bytes(value, &self.min).is_lt(),
                compare_signed_bytes(value, &self.max).is_gt(),
            )
        } else {
            (
                compare_unsigned_bytes(value, &self.min).is_lt(),
                compare_unsigned_bytes(value, &self.max).is_gt(),
            )
        };
        if below {
            self.min.clear();
            self.min.extend_from_slice(value);
        }
        if above {
            self.max.clear();
            self.max.extend_from_slice(value);
        }
    }

    fn merge(&mut self, other: &ByteBounds, signed: bool) {
        if other.some {
            self.update(&other.min, signed);
            self.update(&other.max, signed);
        }
    }

    fn take(&mut self) -> ByteBounds {
        std::mem::take(self)
    }

    fn pair(&self) -> Option<(Vec<u8>, Vec<u8>)> {
        self.some.then(|| (self.min.clone(), self.max.clone()))
    }
}

/// BYTE_ARRAY and FIXED_LEN_BYTE_ARRAY columns.
pub(crate) struct BytesWriter {
    chunk: ChunkBuilder,
    column: LeafColumn,
    statistics: bool,
    fixed: bool,
    signed: bool,
    dict: DictionaryState,
    interner: super::hash::BytesInterner,
    /// Per dictionary entry, the last page whose bounds have seen it.
    seen: Vec<u32>,
    epoch: u32,
    fallback: BytesFallback,
    unencoded: i64,
    page_bounds: ByteBounds,
    chunk_bounds: ByteBounds,
    file_bounds: ByteBounds,
    totals: FileTotals,
}

impl BytesWriter {
    pub(super) fn new(
        config: PageConfig,
        column: &LeafColumn,
        pool: Option<Arc<Pool>>,
        dictionary: bool,
        statistics: bool,
    ) -> Self {
        let fixed = column.physical == PhysicalType::FixedLenByteArray;
        // parquet-java's v1 writers never dictionary-encode FIXED_LEN_BYTE_ARRAY.
        let dictionary = dictionary && !(fixed && config.version == PageVersion::V1);
        let v2 = config.version == PageVersion::V2;
        BytesWriter {
            chunk: ChunkBuilder::new(config, column, pool),
            column: column.clone(),
            statistics,
            fixed,
            signed: column.order == Order::SignedBytes,
            dict: DictionaryState::new(dictionary),
            interner: super::hash::BytesInterner::new(!fixed),
            seen: Vec::new(),
            epoch: 1,
            fallback: BytesFallback {
                fixed,
                delta: v2.then(DeltaByteArrayEncoder::new),
                delta_size: 0,
            },
            unencoded: 0,
            page_bounds: ByteBounds::default(),
            chunk_bounds: ByteBounds::default(),
            file_bounds: ByteBounds::default(),
            totals: FileTotals::default(),
        }
    }

    fn page_estimate(&self) -> usize {
        match self.dict.mode {
            Mode::Dictionary => self.dict.indices.len() * 4,
            Mode::Fallback => self.chunk.values_len() + self.fallback.delta_size,
        }
    }

    pub(super) fn buffered_size(&mut self) -> Result<usize> {
        let dictionary = match self.dict.mode {
            Mode::Dictionary => self.interner.page_body(self.interner.len()).len(),
            Mode::Fallback => self.interner.page_body(self.dict.used).len(),
        };
        Ok(self.chunk.pages_size()?
            + dictionary
            + self.page_estimate()
            + self.chunk.page_values / 8)
    }

    pub(super) fn append(
        &mut self,
        values: ByteValues<'_>,
        rows: usize,
        validity: Option<Validity<'_>>,
    ) -> Result<()> {
        let config = self.chunk.config;
        let mut done = 0;
        while done < rows {
            let row_room = self.chunk.room(rows - done);
            let byte_room = config.page_threshold.saturating_sub(self.page_estimate());
            let validity_here = validity.map(|v| v.skip(done));
            // What each value adds to the page estimate.
            let n = match (self.dict.mode, self.fixed && self.fallback.delta.is_none()) {
                (Mode::Dictionary, _) => {
                    constant_rows_to_fill(byte_room, row_room, validity_here, 4)
                }
                (Mode::Fallback, true) => {
                    let width = values.get(done).len();
                    constant_rows_to_fill(byte_room, row_room, validity_here, width)
                }
                (Mode::Fallback, false) => match validity_here {
                    None => bisected_rows_to_fill(byte_room, row_room, |k| {
                        values.span(done, done + k) + 4 * k
                    }),
                    Some(validity) => rows_to_fill(byte_room, row_room, validity, |i| {
                        values.span(done + i, done + i + 1) + 4
                    }),
                },
            };
            let nulls = validity_here.map_or(0, |v| n - v.count_valid(n));
            // Leaving the dictionary ends the mini-batch (the page's size counts
            // differently from there on): `rows` is how far it got.
            let mut rows = n;
            match (values, nulls, self.dict.mode) {
                (
                    ByteValues::Offsets {
                        offsets,
                        wide: false,
                        data,
                    },
                    0,
                    Mode::Fallback,
                ) if self.fallback.delta.is_none() => {
                    // The common case: PLAIN without nulls. Offsets come only with strings and
                    // binaries, which order unsigned (signed order is for fixed-width decimals).
                    debug_assert!(!self.signed);
                    self.unencoded += encode_plain_run(
                        offsets,
                        data,
                        done,
                        done + n,
                        self.chunk.values(),
                        self.statistics.then_some(&mut self.page_bounds),
                    ) as i64;
                }
                _ => {
                    let mode = self.dict.mode;
                    for i in done..done + n {
                        if nulls == 0 || validity_here.is_some_and(|v| v.get(i - done)) {
                            let (data, start, end) = values.locate(i);
                            self.encode(data, start, end);
                            if self.dict.mode != mode {
                                rows = i - done + 1;
                                break;
                            }
                        }
                    }
                }
            }
            self.chunk.add_levels(validity_here, rows);
            done += rows;
            if self
                .chunk
                .page_full(self.page_estimate() >= config.page_threshold)
            {
                self.flush_page()?;
            }
        }
        Ok(())
    }

    /// Encodes `data[start..end]`; the dictionary reads its neighbours too
    /// (`BytesInterner::intern_at`).
    #[inline(always)]
    fn encode(&mut self, data: &[u8], start: usize, end: usize) {
        let value = &data[start..end];
        if !self.fixed {
            self.unencoded += value.len() as i64;
        }
        if self.dict.mode == Mode::Fallback {
            if self.statistics {
                self.page_bounds.update(value, self.signed);
            }
            self.fallback.push(value, self.chunk.values());
            return;
        }
        self.dict.raw_size += value.len() + 4;
        let (index, new) = self.interner.intern_at(data, start, end);
        self.dict.indices.push(index);
        if new {
            self.seen.push(0);
        }
        let index = index as usize;
        if self.seen[index] != self.epoch {
            self.seen[index] = self.epoch;
            self.page_bounds.update(value, self.signed);
        }
        if new
            && self.interner.page_body(self.interner.len()).len()
                > self.chunk.config.dictionary_size
        {
            self.fall_back();
        }
    }

    /// Leaves the dictionary for the rest of the chunk: the current page's
    /// values are re-encoded with the fallback encoding.
    fn fall_back(&mut self) {
        self.dict.mode = Mode::Fallback;
        for &index in &self.dict.indices {
            self.fallback
                .push(self.interner.value(index as usize), self.chunk.values());
        }
        self.dict.indices.clear();
    }

    fn flush_page(&mut self) -> Result<()> {
        if self.chunk.page_is_empty() {
            return Ok(());
        }
        let mut encoding = Encoding::Plain;
        if self.dict.mode == Mode::Dictionary {
            encode_dictionary_indices(
                &self.dict.indices,
                self.interner.len(),
                self.chunk.values(),
            )?;
            let dictionary_bytes = self.interner.page_body(self.interner.len()).len();
            if self.dict.first_page
                && self.chunk.values_len() + dictionary_bytes >= self.dict.raw_size
            {
                self.chunk.clear_values();
                self.fall_back();
            } else {
                encoding = dictionary_encoding(self.chunk.config.version);
                self.dict.used = self.interner.len();
            }
        }
        if self.dict.mode == Mode::Fallback {
            encoding = self.fallback.finish(self.chunk.values());
        }
        self.dict.indices.clear();
        self.dict.raw_size = 0;
        self.dict.first_page = false;
        self.epoch = self.epoch.wrapping_add(1).max(1);
        let bounds = self.page_bounds.take();
        let unencoded = std::mem::take(&mut self.unencoded);
        self.chunk.write_data_page(
            encoding,
            bounds
                .some
                .then_some((bounds.min.as_slice(), bounds.max.as_slice())),
            false,
            unencoded,
        )?;
        self.chunk_bounds.merge(&bounds, self.signed);
        Ok(())
    }

    pub(super) fn finish_chunk(&mut self) -> Result<(ChunkOutput, Statistics)> {
        self.flush_page()?;
        if self.dict.used > 0 {
            let body = self.interner.page_body(self.dict.used);
            self.chunk.write_dictionary_page(body, self.dict.used)?;
        }
        let output = self.chunk.finish(self.statistics)?;
        let nulls = output.pages.iter().map(|p| p.nulls as u64).sum::<u64>();
        let statistics = footer_statistics(
            &self.column,
            nulls,
            self.chunk_bounds.pair(),
            self.statistics,
        );
        self.file_bounds.merge(&self.chunk_bounds, self.signed);
        self.totals.add(nulls, &output);
        Ok((output, statistics))
    }

    pub(super) fn chunk(&mut self) -> &mut ChunkBuilder {
        &mut self.chunk
    }

    pub(super) fn reset_chunk(&mut self) {
        self.chunk.reset();
        self.dict.reset();
        self.interner.clear();
        self.seen.clear();
        self.epoch = 1;
        self.chunk_bounds = ByteBounds::default();
    }

    pub(super) fn metrics(&self) -> ColumnMetrics {
        let bounds = self.file_bounds.pair().filter(|_| self.statistics);
        ColumnMetrics {
            value_count: self.totals.values,
            null_count: self.totals.nulls,
            nan_count: None,
            min: bounds.as_ref().map(|(min, _)| min.clone()),
            max: bounds.map(|(_, max)| max),
            compressed_size: self.totals.compressed,
        }
    }
}

/// PLAIN-encodes values `from..to` of 32-bit Arrow `offsets` into `data`, none null, onto
/// `page` (each a 4-byte length and its bytes) and widens `bounds`, when given, with them by
/// unsigned comparison; returns the values' bytes.
///
/// The run's bounds are slices of `data`, merged into `bounds` once at the end: a value inside
/// them costs a comparison with each, a new minimum only the first (the minimum is never above
/// the maximum), and no value is copied into the bounds until then.
fn encode_plain_run(
    offsets: &[u8],
    data: &[u8],
    from: usize,
    to: usize,
    page: &mut Vec<u8>,
    bounds: Option<&mut ByteBounds>,
) -> usize {
    let first = read_u32(offsets, from) as usize;
    let span = read_u32(offsets, to) as usize - first;
    page.reserve(span + 4 * (to - from));
    let track = bounds.is_some();
    let mut run: Option<(&[u8], &[u8])> = None;
    let mut start = first;
    for i in from + 1..=to {
        let end = read_u32(offsets, i) as usize;
        let value = &data[start..end];
        page.extend_from_slice(&(value.len() as u32).to_le_bytes());
        page.extend_from_slice(value);
        start = end;
        if track {
            run = Some(match run {
                None => (value, value),
                Some((min, max)) if compare_unsigned_bytes(value, min).is_lt() => (value, max),
                Some((min, max)) if compare_unsigned_bytes(value, max).is_gt() => (min, value),
                Some(same) => same,
            });
        }
    }
    if let (Some(bounds), Some((min, max))) = (bounds, run) {
        bounds.update(min, false);
        bounds.update(max, false);
    }
    span
}

#[inline(always)]
fn read_u32(offsets: &[u8], i: usize) -> u32 {
    let bytes: [u8; 4] = offsets[i * 4..i * 4 + 4].try_into().unwrap_or_default();
    u32::from_le_bytes(bytes)
}

/// BOOLEAN columns: PLAIN (v1) or RLE (v2), never a dictionary.
pub(crate) struct BoolWriter {
    chunk: ChunkBuilder,
    column: LeafColumn,
    statistics: bool,
    page: Vec<bool>,
    page_bounds: Option<(bool, bool)>,
    chunk_bounds: Option<(bool, bool)>,
    file_bounds: Option<(bool, bool)>,
    totals: FileTotals,
}

fn merge_bools(into: &mut Option<(bool, bool)>, other: Option<(bool, bool)>) {
    if let Some((min, max)) = other {
        *into = Some(match *into {
            Some((a, b)) => (a && min, b || max),
            None => (min, max),
        });
    }
}

impl BoolWriter {
    pub(super) fn new(
        config: PageConfig,
        column: &LeafColumn,
        pool: Option<Arc<Pool>>,
        statistics: bool,
    ) -> Self {
        BoolWriter {
            chunk: ChunkBuilder::new(config, column, pool),
            column: column.clone(),
            statistics,
            page: Vec::new(),
            page_bounds: None,
            chunk_bounds: None,
            file_bounds: None,
            totals: FileTotals::default(),
        }
    }

    pub(super) fn buffered_size(&mut self) -> Result<usize> {
        Ok(self.chunk.pages_size()? + self.page.len() / 8 + self.chunk.page_values / 8)
    }

    /// Appends rows whose values are bits `offset..offset + rows` of `bits`.
    pub(super) fn append(
        &mut self,
        bits: Validity<'_>,
        rows: usize,
        validity: Option<Validity<'_>>,
    ) -> Result<()> {
        let config = self.chunk.config;
        let mut done = 0;
        while done < rows {
            let row_room = self.chunk.room(rows - done);
            // One bit per value: the page is full at `page_threshold * 8` values.
            let room = (config.page_threshold * 8).saturating_sub(self.page.len());
            let validity_here = validity.map(|v| v.skip(done));
            let n = constant_rows_to_fill(room, row_room, validity_here, 1);
            let nulls = self.chunk.add_levels(validity_here, n);
            let start = self.page.len();
            for i in done..done + n {
                if nulls > 0 && !validity_here.is_some_and(|v| v.get(i - done)) {
                    continue;
                }
                self.page.push(bits.get(i));
            }
            let added = &self.page[start..];
            if !added.is_empty() {
                let all = added.iter().all(|&b| b);
                let any = added.iter().any(|&b| b);
                merge_bools(&mut self.page_bounds, Some((all, any)));
            }
            done += n;
            if self
                .chunk
                .page_full(self.page.len() >= config.page_threshold * 8)
            {
                self.flush_page()?;
            }
        }
        Ok(())
    }

    fn flush_page(&mut self) -> Result<()> {
        if self.chunk.page_is_empty() {
            return Ok(());
        }
        let version = self.chunk.config.version;
        let values = self.chunk.values();
        let encoding = match version {
            PageVersion::V1 => {
                let mut encoder = PlainBooleanEncoder::new();
                encoder.put(&self.page, values);
                encoder.finish(values);
                Encoding::Plain
            }
            PageVersion::V2 => {
                encode_rle_booleans(&self.page, values)?;
                Encoding::Rle
            }
        };
        self.page.clear();
        let bounds = self.page_bounds.take();
        let bytes = bounds.map(|(min, max)| ([u8::from(min)], [u8::from(max)]));
        self.chunk.write_data_page(
            encoding,
            bytes.as_ref().map(|(a, b)| (&a[..], &b[..])),
            false,
            0,
        )?;
        merge_bools(&mut self.chunk_bounds, bounds);
        Ok(())
    }

    pub(super) fn finish_chunk(&mut self) -> Result<(ChunkOutput, Statistics)> {
        self.flush_page()?;
        let output = self.chunk.finish(self.statistics)?;
        let nulls = output.pages.iter().map(|p| p.nulls as u64).sum::<u64>();
        let bounds = self
            .chunk_bounds
            .map(|(min, max)| (vec![u8::from(min)], vec![u8::from(max)]));
        let statistics = footer_statistics(&self.column, nulls, bounds, self.statistics);
        merge_bools(&mut self.file_bounds, self.chunk_bounds);
        self.totals.add(nulls, &output);
        Ok((output, statistics))
    }

    pub(super) fn chunk(&mut self) -> &mut ChunkBuilder {
        &mut self.chunk
    }

    pub(super) fn reset_chunk(&mut self) {
        self.chunk.reset();
        self.chunk_bounds = None;
    }

    pub(super) fn metrics(&self) -> ColumnMetrics {
        let bounds = self.file_bounds.filter(|_| self.statistics);
        ColumnMetrics {
            value_count: self.totals.values,
            null_count: self.totals.nulls,
            nan_count: None,
            min: bounds.map(|(min, _)| vec![u8::from(min)]),
            max: bounds.map(|(_, max)| vec![u8::from(max)]),
            compressed_size: self.totals.compressed,
        }
    }
}

/// DELTA_BINARY_PACKED for the integer types (floats never use it).
pub(crate) trait DeltaEncode: Sized {
    fn encode_delta(values: &[Self], out: &mut Vec<u8>);
}

impl<T: Numeric> DeltaEncode for T {
    fn encode_delta(values: &[Self], out: &mut Vec<u8>) {
        match T::WIDTH {
            4 => {
                let mut encoder = DeltaBinaryPackedEncoder::<i32>::new();
                let ints: Vec<i32> = values.iter().map(|v| v.to_bits() as u32 as i32).collect();
                encoder.put(&ints);
                encoder.finish(out);
            }
            _ => {
                let mut encoder = DeltaBinaryPackedEncoder::<i64>::new();
                let ints: Vec<i64> = values.iter().map(|v| v.to_bits() as i64).collect();
                encoder.put(&ints);
                encoder.finish(out);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constant_costs_fill_like_counted_ones() {
        let mut bits = vec![0xffu8; 40];
        bits[3] = 0b1010_0110;
        bits[10..14].fill(0);
        bits[20] = 0b0111_1111;
        for offset in [0, 5, 64] {
            let validity = Validity {
                bits: &bits,
                offset,
            };
            for max_rows in [0, 1, 30, 200, 250] {
                for room in [1, 3, 4, 40, 500, 2000] {
                    for cost in [1, 4, 8] {
                        let counted = rows_to_fill(room, max_rows, validity, |_| cost);
                        assert_eq!(
                            constant_rows_to_fill(room, max_rows, Some(validity), cost),
                            counted,
                            "offset {offset}, {max_rows} rows, room {room}, cost {cost}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn bisected_costs_fill_like_counted_ones() {
        let mut rng = crate::test_support::rng::Rng::new(7);
        let lengths: Vec<usize> = (0..300).map(|_| rng.below(3) * rng.below(40)).collect();
        let cost_of_first = |k: usize| lengths[..k].iter().sum::<usize>() + 4 * k;
        let bits = [0xffu8; 300 / 8 + 1];
        let all_valid = Validity {
            bits: &bits,
            offset: 0,
        };
        for max_rows in [0, 1, 2, 37, 300] {
            // Rooms a page reaches exactly at some row, one byte short of it and one past it.
            let exact = [1, 2, 5, 36, 299].map(cost_of_first);
            let rooms = exact.iter().flat_map(|&c| [c - 1, c, c + 1]);
            for room in rooms.chain([0, 1, 100_000]) {
                let counted = rows_to_fill(room, max_rows, all_valid, |i| lengths[i] + 4);
                assert_eq!(
                    bisected_rows_to_fill(room, max_rows, cost_of_first),
                    counted,
                    "{max_rows} rows, room {room}"
                );
            }
        }
    }

    fn offsets_of(values: &[&[u8]]) -> (Vec<u8>, Vec<u8>) {
        let mut offsets = 0u32.to_le_bytes().to_vec();
        let mut data = Vec::new();
        for value in values {
            data.extend_from_slice(value);
            offsets.extend_from_slice(&(data.len() as u32).to_le_bytes());
        }
        (offsets, data)
    }

    #[test]
    fn a_plain_run_writes_lengths_and_bytes_and_widens_the_bounds() {
        let values: [&[u8]; 6] = [b"mango", b"", b"apple", b"kiwi", b"zz", b"apples"];
        let (offsets, data) = offsets_of(&values);
        let mut page = b"head".to_vec();
        let mut bounds = ByteBounds::default();
        let bytes = encode_plain_run(&offsets, &data, 1, 5, &mut page, Some(&mut bounds));
        assert_eq!(bytes, 11);
        assert_eq!(
            page,
            b"head\0\0\0\0\x05\0\0\0apple\x04\0\0\0kiwi\x02\0\0\0zz"
        );
        assert_eq!(bounds.pair(), Some((Vec::new(), b"zz".to_vec())));
        // A second run merges into the bounds so far.
        encode_plain_run(&offsets, &data, 0, 1, &mut page, Some(&mut bounds));
        assert_eq!(bounds.pair(), Some((Vec::new(), b"zz".to_vec())));
        let mut fresh = ByteBounds::default();
        encode_plain_run(&offsets, &data, 2, 6, &mut page, Some(&mut fresh));
        assert_eq!(fresh.pair(), Some((b"apple".to_vec(), b"zz".to_vec())));
        // Bounds widened on both sides by a second run.
        let mut widened = ByteBounds::default();
        encode_plain_run(&offsets, &data, 0, 1, &mut page, Some(&mut widened));
        encode_plain_run(&offsets, &data, 2, 5, &mut page, Some(&mut widened));
        assert_eq!(widened.pair(), Some((b"apple".to_vec(), b"zz".to_vec())));
        // A minimum after the run's first value.
        let mut first_not_least = ByteBounds::default();
        encode_plain_run(&offsets, &data, 0, 3, &mut page, Some(&mut first_not_least));
        assert_eq!(
            first_not_least.pair(),
            Some((Vec::new(), b"mango".to_vec()))
        );
        let mut empty = ByteBounds::default();
        let before = page.len();
        assert_eq!(
            encode_plain_run(&offsets, &data, 3, 3, &mut page, Some(&mut empty)),
            0
        );
        assert_eq!((page.len(), empty.pair()), (before, None));
    }
}
