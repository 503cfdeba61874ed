//! Column readers: one leaf column of one row group, its levels and values
//! decoded a batch of rows at a time.
//!
//! A [`ColumnReader`] walks its chunk's pages with a [`PageReader`], keeps the
//! dictionary (decoded once into the column's Arrow representation), and for
//! each batch appends to a [`LeafBatch`]: the definition and repetition levels
//! of the rows asked for and their non-null values, converted and packed
//! densely in the buffers that become the Arrow array. Pages switch encodings
//! freely, so the dictionary-to-PLAIN fallback of writers whose dictionary
//! grew too large needs nothing special.
//!
//! A batch of `n` rows is exactly `n` level entries for a column without
//! repetition. With repetition, a row is an entry with repetition level 0 and
//! the entries after it up to the next such entry; rows may span pages (v1),
//! so levels are staged a block at a time to find where the `n`-th row ends.

mod batch;
mod conversion;
mod dictionary;
mod loaded_page;
pub(crate) mod plain_bytes;
mod values;

pub(crate) use batch::LeafBatch;
pub(crate) use conversion::{Conversion, Output};
pub(crate) use dictionary::Dictionary;

use std::sync::Arc;

use self::loaded_page::{LoadedPage, PageDecoders};
use self::values::{needs_exact_count, ValueDecoder};
use super::io::ChunkBytes;
use super::location::Location;
use super::page::{PageKind, PageOptions, PageReader, RawPage};
use crate::arrow::pool::Scratch;
use crate::arrow::{ArrayData, BufferPool, DataType, MutableBuffer};
use crate::compression::Codec;
use crate::error::{Error, Result};
use crate::parquet::encodings::levels::LevelDecoder;
use crate::parquet::format::Encoding;

/// Level entries staged per step for columns with repetition.
const STAGE: usize = 1024;
/// Rows decoded per step when skipping rows that have to be decoded.
const SKIP_STEP: usize = 4096;

/// What a reader needs to know about its column.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct LeafSpec {
    pub conversion: Conversion,
    /// FIXED_LEN_BYTE_ARRAY width (0 for other types).
    pub type_length: usize,
    pub max_def: i16,
    pub max_rep: i16,
    /// Keep dictionary indices (as i32) instead of values; every data page
    /// must then be dictionary-encoded.
    pub keep_indices: bool,
    /// A top-level field of its own: no struct or list above reads its levels,
    /// so a batch without nulls needs none (see [`LeafBatch::def`]).
    pub top_level: bool,
}

/// Level entries decoded from the current page but not yet handed out.
#[derive(Debug, Default)]
struct Staged {
    def: Vec<i16>,
    rep: Vec<i16>,
    pos: usize,
}

pub(crate) struct ColumnReader {
    pages: PageReader,
    chunk: ChunkBytes,
    spec: LeafSpec,
    dictionary: Option<Dictionary>,
    page: Option<LoadedPage>,
    /// The decompression buffer while no page holds it.
    spare: Vec<u8>,
    /// Where the decompression and read buffers come from and go back to.
    pool: Arc<BufferPool>,
    staged: Staged,
    /// Rows handed out (or skipped), for error messages.
    rows_read: usize,
    /// Decode-and-discard target for [`ColumnReader::skip`].
    scratch: Option<LeafBatch>,
}

impl Drop for ColumnReader {
    /// Gives the decompression and read buffers back for the next chunk's reader.
    fn drop(&mut self) {
        if let Some(page) = self.page.take() {
            self.pool.give_scratch(Scratch::Page, page.into_buffer());
        }
        self.pool
            .give_scratch(Scratch::Page, std::mem::take(&mut self.spare));
        let (kind, buffer) = self.chunk.take_buffer();
        self.pool.give_scratch(kind, buffer);
    }
}

impl ColumnReader {
    /// `location` names the column chunk; `num_values` is its metadata's; its
    /// scratch buffers come from `pool`.
    pub(crate) fn new(
        location: Location,
        chunk: ChunkBytes,
        pool: &Arc<BufferPool>,
        codec: Codec,
        num_values: u64,
        spec: LeafSpec,
        options: PageOptions,
    ) -> ColumnReader {
        ColumnReader {
            pages: PageReader::new(location, codec, num_values, options),
            chunk,
            spec,
            dictionary: None,
            page: None,
            spare: pool.take_scratch(Scratch::Page),
            pool: Arc::clone(pool),
            staged: Staged::default(),
            rows_read: 0,
            scratch: None,
        }
    }

    /// Appends the levels and values of the next `rows` rows to `out`.
    pub(crate) fn read(&mut self, rows: usize, out: &mut LeafBatch) -> Result<()> {
        if self.spec.max_rep == 0 {
            self.read_flat(rows, out)
        } else {
            self.read_repeated(rows, out)
        }?;
        self.rows_read += rows;
        if self.spec.keep_indices {
            let data_type = match self.spec.conversion {
                Conversion::Utf8 => DataType::Utf8,
                _ => DataType::Binary,
            };
            let dictionary = match &self.dictionary {
                Some(dictionary) => dictionary.to_array(data_type),
                // A chunk of nulls only: no index points anywhere.
                None => empty_dictionary(data_type),
            };
            out.dictionary = Some(dictionary.map_err(|e| self.pages.location().wrap(e))?);
        }
        Ok(())
    }

    /// Moves past `rows` rows. Whole pages of a column without repetition are
    /// skipped undecoded (their dictionary page is still read); the rest is
    /// decoded and dropped.
    pub(crate) fn skip(&mut self, rows: usize) -> Result<()> {
        let mut left = rows;
        let mut scratch = self.scratch.take().unwrap_or_default();
        while left > 0 {
            let page_loaded = self.page.as_ref().is_some_and(|p| p.entries_left > 0);
            if !page_loaded && self.spec.max_rep == 0 {
                let Some(raw) = self.next_raw()? else {
                    return Err(self.ended_early());
                };
                // Without repetition, entries are rows.
                if raw.num_values() <= left {
                    left -= raw.num_values();
                    self.rows_read += raw.num_values();
                    continue;
                }
                self.load_data_page(raw)?;
            }
            let step = left.min(SKIP_STEP);
            scratch.clear();
            self.read(step, &mut scratch)?;
            left -= step;
        }
        scratch.clear();
        self.scratch = Some(scratch);
        Ok(())
    }

    fn ended_early(&self) -> Error {
        self.pages.location().wrap(Error::corrupt_data(format!(
            "the column chunk's pages end after {} of the row group's rows",
            self.rows_read
        )))
    }

    /// Releases the current page and returns the next data page's header,
    /// loading a dictionary page on the way; None at the end of the chunk.
    fn next_raw(&mut self) -> Result<Option<RawPage>> {
        if let Some(page) = self.page.take() {
            self.spare = page.into_buffer();
        }
        loop {
            let Some(raw) = self.pages.next_page(&mut self.chunk)? else {
                return Ok(None);
            };
            match raw.kind {
                PageKind::Dictionary { .. } => {
                    self.dictionary = Some(decode_dictionary_page(
                        &self.pages,
                        &mut self.chunk,
                        &mut self.spare,
                        &raw,
                        self.spec.conversion,
                        self.spec.type_length,
                    )?);
                }
                _ if raw.num_values() == 0 => {}
                _ => return Ok(Some(raw)),
            }
        }
    }

    fn load_data_page(&mut self, raw: RawPage) -> Result<()> {
        let mut buffer = std::mem::take(&mut self.spare);
        let len = self.pages.decompress(&raw, &mut self.chunk, &mut buffer)?;
        let spec = self.spec;
        let page = LoadedPage::new(buffer, len, raw.ordinal, raw.num_values(), |data| {
            page_decoders(&raw.kind, data, &spec)
        })
        .map_err(|e| self.pages.page_location(raw.ordinal).wrap(e))?;
        self.page = Some(page);
        Ok(())
    }

    /// Makes sure a data page with entries left is loaded; false at the end
    /// of the chunk.
    fn ensure_page(&mut self) -> Result<bool> {
        loop {
            if self.page.as_ref().is_some_and(|p| p.entries_left > 0) {
                return Ok(true);
            }
            let Some(raw) = self.next_raw()? else {
                return Ok(false);
            };
            self.load_data_page(raw)?;
        }
    }

    fn read_flat(&mut self, rows: usize, out: &mut LeafBatch) -> Result<()> {
        let mut left = rows;
        while left > 0 {
            if !self.ensure_page()? {
                return Err(self.ended_early());
            }
            let Some(page) = self.page.as_mut() else {
                return Err(Error::internal("no page after ensure_page"));
            };
            let take = left.min(page.entries_left);
            let ordinal = page.ordinal;
            let decoders = page.decoders();
            let spec = &self.spec;
            let result = match decoders.def.as_mut() {
                // A run of present values (the common case of an optional
                // column without nulls) is not written out, as long as no
                // level of the batch had to be.
                Some(def) => match spec.top_level && out.def.is_empty() {
                    true => def.skip_run_of(spec.max_def, take),
                    false => Ok(false),
                }
                .and_then(|skipped| {
                    if skipped {
                        return Ok(take);
                    }
                    // The levels of runs skipped earlier in the batch.
                    out.def.resize(out.entries, spec.max_def);
                    read_levels(def, take, &mut out.def)
                        .map(|levels| levels.iter().filter(|&&d| d == spec.max_def).count())
                }),
                None => Ok(take),
            }
            .and_then(|defined| {
                decoders.values.decode(
                    defined,
                    spec.conversion,
                    self.dictionary.as_ref(),
                    spec.keep_indices,
                    out,
                )
            });
            result.map_err(|e| self.pages.page_location(ordinal).wrap(e))?;
            page.entries_left -= take;
            out.entries += take;
            left -= take;
        }
        Ok(())
    }

    fn read_repeated(&mut self, rows: usize, out: &mut LeafBatch) -> Result<()> {
        let mut started = 0;
        loop {
            if self.staged.pos == self.staged.rep.len() {
                if !self.ensure_page()? {
                    break;
                }
                self.stage()?;
            }
            let Some(page) = self.page.as_mut() else {
                return Err(Error::internal("staged levels without a page"));
            };
            let staged = &mut self.staged;
            let (start, len) = (staged.pos, staged.rep.len());
            if started == 0 && staged.rep.get(start).is_some_and(|&r| r != 0) {
                return Err(self
                    .pages
                    .page_location(page.ordinal)
                    .wrap(Error::corrupt_data(format!(
                        "a row starts with repetition level {} instead of 0",
                        staged.rep[start]
                    ))));
            }
            let (taken, rows_taken) = take_rows(&staged.rep[start..len], rows - started);
            let end = start + taken;
            started += rows_taken;
            out.rep.extend_from_slice(&staged.rep[start..end]);
            out.def.extend_from_slice(&staged.def[start..end]);
            staged.pos = end;
            out.entries += end - start;
            let max_def = self.spec.max_def;
            let defined = staged.def[start..end]
                .iter()
                .filter(|&&d| d == max_def)
                .count();
            let ordinal = page.ordinal;
            page.decoders()
                .values
                .decode(
                    defined,
                    self.spec.conversion,
                    self.dictionary.as_ref(),
                    self.spec.keep_indices,
                    out,
                )
                .map_err(|e| self.pages.page_location(ordinal).wrap(e))?;
            if end < len {
                break;
            }
        }
        if started < rows {
            self.rows_read += started;
            return Err(self.ended_early());
        }
        Ok(())
    }

    /// Decodes the next block of the current page's levels into `staged`.
    fn stage(&mut self) -> Result<()> {
        let Some(page) = self.page.as_mut() else {
            return Err(Error::internal("staging without a page"));
        };
        let take = page.entries_left.min(STAGE);
        let ordinal = page.ordinal;
        let staged = &mut self.staged;
        staged.rep.clear();
        staged.def.clear();
        staged.pos = 0;
        let decoders = page.decoders();
        let result = match (decoders.rep.as_mut(), decoders.def.as_mut()) {
            (Some(rep), Some(def)) => read_levels(rep, take, &mut staged.rep)
                .and_then(|_| read_levels(def, take, &mut staged.def).map(|_| ())),
            _ => Err(Error::internal("a repeated column without levels")),
        };
        result.map_err(|e| self.pages.page_location(ordinal).wrap(e))?;
        page.entries_left -= take;
        Ok(())
    }
}

/// The length of the longest prefix of `rep` holding at most `rows` row
/// starts (entries of repetition level 0), and how many it holds. A block of
/// levels is usually taken whole, which counting decides without the branch
/// per entry that finding the cut takes.
fn take_rows(rep: &[i16], rows: usize) -> (usize, usize) {
    let starts = rep.iter().filter(|&&r| r == 0).count();
    if starts <= rows {
        return (rep.len(), starts);
    }
    let cut = rep.iter().enumerate().filter(|(_, &r)| r == 0).nth(rows);
    (cut.map_or(rep.len(), |(i, _)| i), rows)
}

/// Decompresses and decodes dictionary page `raw`, naming the page in errors.
fn decode_dictionary_page(
    pages: &PageReader,
    chunk: &mut ChunkBytes,
    buffer: &mut Vec<u8>,
    raw: &RawPage,
    conversion: Conversion,
    type_length: usize,
) -> Result<Dictionary> {
    let PageKind::Dictionary {
        num_values,
        encoding,
    } = raw.kind
    else {
        return Err(Error::internal("a data page decoded as a dictionary"));
    };
    let len = pages.decompress(raw, chunk, buffer)?;
    values::decode_dictionary(
        &buffer[..len],
        num_values,
        encoding,
        conversion,
        type_length,
    )
    .map_err(|e| pages.page_location(raw.ordinal).wrap(e))
}

/// Decodes the dictionary page at the start of `chunk` alone, for pruning:
/// the caller has read only that page's bytes, so no data page is touched.
/// `pages` is a fresh reader of the chunk.
pub(crate) fn read_dictionary_page(
    mut pages: PageReader,
    mut chunk: ChunkBytes,
    conversion: Conversion,
    type_length: usize,
) -> Result<Dictionary> {
    let raw = pages.next_page(&mut chunk)?;
    match raw {
        Some(
            raw @ RawPage {
                kind: PageKind::Dictionary { .. },
                ..
            },
        ) => decode_dictionary_page(
            &pages,
            &mut chunk,
            &mut Vec::new(),
            &raw,
            conversion,
            type_length,
        ),
        Some(raw) => Err(pages.page_location(raw.ordinal).wrap(Error::corrupt_data(
            "the column chunk's first page is a data page, not the dictionary page its metadata \
             promises",
        ))),
        None => Err(pages.location().wrap(Error::corrupt_data(
            "the column chunk has no values, so no dictionary page is read",
        ))),
    }
}

fn empty_dictionary(data_type: DataType) -> Result<ArrayData> {
    let mut offsets = MutableBuffer::new();
    offsets.push(0i32)?;
    Ok(ArrayData {
        data_type,
        len: 0,
        offset: 0,
        null_count: 0,
        validity: None,
        buffers: vec![offsets.freeze(), MutableBuffer::new().freeze()],
        children: vec![],
        dictionary: None,
    })
}

/// Appends `n` levels from `decoder` to `levels` and returns them.
fn read_levels<'v>(
    decoder: &mut LevelDecoder<'_>,
    n: usize,
    levels: &'v mut Vec<i16>,
) -> Result<&'v [i16]> {
    let start = levels.len();
    levels.resize(start + n, 0);
    let read = decoder.read(&mut levels[start..])?;
    if read != n {
        return Err(Error::corrupt_data(format!(
            "the page's levels end after {read} of its entries"
        )));
    }
    Ok(&levels[start..])
}

/// The decoders of a data page whose decompressed bytes are `data`.
fn page_decoders<'a>(kind: &PageKind, data: &'a [u8], spec: &LeafSpec) -> Result<PageDecoders<'a>> {
    let physical = spec.conversion.physical();
    let (rep, def, values, encoding, count) = match *kind {
        PageKind::DataV1 {
            num_values,
            encoding,
            def_encoding,
            rep_encoding,
        } => {
            let mut pos = 0;
            let rep = if spec.max_rep > 0 {
                let (decoder, used) =
                    LevelDecoder::v1(rep_encoding, spec.max_rep, num_values, data)?;
                pos += used;
                Some(decoder)
            } else {
                None
            };
            let def_start = pos;
            let def = if spec.max_def > 0 {
                let (decoder, used) =
                    LevelDecoder::v1(def_encoding, spec.max_def, num_values, &data[pos..])?;
                pos += used;
                Some(decoder)
            } else {
                None
            };
            // Nulls have no value; most encodings only need the entry count as a
            // bound, the others the exact count, which only the levels tell.
            let count = if spec.max_def > 0 && needs_exact_count(encoding) {
                let (levels, _) =
                    LevelDecoder::v1(def_encoding, spec.max_def, num_values, &data[def_start..])?;
                count_defined(levels, num_values, spec.max_def)?
            } else {
                num_values
            };
            (rep, def, &data[pos..], encoding, count)
        }
        PageKind::DataV2 {
            num_values,
            num_nulls,
            encoding,
            rep_len,
            def_len,
            ..
        } => {
            // The page reader checked that the level sections fit.
            let (rep_bytes, rest) = data.split_at(rep_len.min(data.len()));
            let (def_bytes, values) = rest.split_at(def_len.min(rest.len()));
            let rep = (spec.max_rep > 0)
                .then(|| LevelDecoder::v2(spec.max_rep, num_values, rep_bytes))
                .transpose()?;
            let def = (spec.max_def > 0)
                .then(|| LevelDecoder::v2(spec.max_def, num_values, def_bytes))
                .transpose()?;
            (rep, def, values, encoding, num_values - num_nulls)
        }
        PageKind::Dictionary { .. } => return Err(Error::internal("a dictionary page as data")),
    };
    if spec.keep_indices
        && !matches!(
            encoding,
            Encoding::PlainDictionary | Encoding::RleDictionary
        )
    {
        return Err(Error::corrupt_data(format!(
            "the page is {encoding:?}-encoded, but the column chunk's encoding_stats say every \
             data page is dictionary-encoded"
        )));
    }
    let values = ValueDecoder::new(encoding, physical, spec.type_length, values, count)?;
    Ok(PageDecoders { rep, def, values })
}

/// How many of `entries` definition levels are `max_def`.
fn count_defined(mut levels: LevelDecoder<'_>, entries: usize, max_def: i16) -> Result<usize> {
    let mut block = [0i16; STAGE];
    let (mut left, mut count) = (entries, 0);
    while left > 0 {
        let k = left.min(STAGE);
        let read = levels.read(&mut block[..k])?;
        if read != k {
            return Err(Error::corrupt_data(format!(
                "the page's definition levels end after {} of its {entries} entries",
                entries - left + read
            )));
        }
        count += block[..k].iter().filter(|&&d| d == max_def).count();
        left -= k;
    }
    Ok(count)
}

#[cfg(test)]
mod tests {
    use super::take_rows;

    #[test]
    fn blocks_are_cut_before_the_row_that_does_not_fit() {
        let rep = [0, 1, 1, 0, 0, 1];
        assert_eq!(take_rows(&rep, 3), (6, 3), "the whole block");
        assert_eq!(take_rows(&rep, 9), (6, 3));
        assert_eq!(take_rows(&rep, 2), (4, 2));
        assert_eq!(take_rows(&rep, 0), (0, 0));
        // A block continuing the row before starts no row of its own.
        assert_eq!(take_rows(&[1, 1, 0, 1], 0), (2, 0));
        assert_eq!(take_rows(&[], 5), (0, 0));
    }
}
