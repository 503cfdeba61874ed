//! The file writer: batches in, row groups out, footer and page index at the
//! end.

use std::ops::Range;
use std::path::Path;
use std::sync::Arc;

use super::column::{BoolWriter, ByteValues, BytesWriter, ColumnMetrics, NumericWriter};
use super::compress::Pool;
use super::levels::{leaf_array, LeafLevels};
use super::options::WriterOptions;
use super::output::Output;
use super::page::{ChunkOutput, PageConfig, Validity};
use super::schema::{LeafColumn, Source, WriteSchema};
use crate::arrow::buffer::{cast_slice, NativeType};
use crate::arrow::{ArrayView, Field};
use crate::error::{Error, Result, Status};
use crate::parquet::encodings::FixedWidth;
use crate::parquet::format::{
    ColumnChunk, ColumnIndex, ColumnMetaData, ColumnOrder, CompressionCodec, FileMetaData,
    OffsetIndex, RowGroup, Statistics, ThriftStruct,
};

/// `created_by`: the library and its version, and a build id when the build
/// sets `ISTHMUS_BUILD_ID` (else the build profile).
pub(crate) fn created_by() -> String {
    let build = option_env!("ISTHMUS_BUILD_ID").unwrap_or(if cfg!(debug_assertions) {
        "debug"
    } else {
        "release"
    });
    format!(
        "isthmus version {} (build {build})",
        env!("CARGO_PKG_VERSION")
    )
}

const MAGIC: &[u8; 4] = b"PAR1";

enum ColumnWriter {
    Bool(Box<BoolWriter>),
    Int32(Box<NumericWriter<i32>>),
    Int64(Box<NumericWriter<i64>>),
    Float(Box<NumericWriter<f32>>),
    Double(Box<NumericWriter<f64>>),
    Bytes(Box<BytesWriter>),
}

macro_rules! each {
    ($writer:expr, $w:ident => $body:expr) => {
        match $writer {
            ColumnWriter::Bool($w) => $body,
            ColumnWriter::Int32($w) => $body,
            ColumnWriter::Int64($w) => $body,
            ColumnWriter::Float($w) => $body,
            ColumnWriter::Double($w) => $body,
            ColumnWriter::Bytes($w) => $body,
        }
    };
}

impl ColumnWriter {
    fn new(
        config: PageConfig,
        column: &LeafColumn,
        options: &WriterOptions,
        pool: Option<Arc<Pool>>,
    ) -> ColumnWriter {
        let dictionary = options.dictionary_for(&column.name);
        let statistics = options.statistics_for(&column.name);
        match column.source {
            Source::Boolean => {
                ColumnWriter::Bool(Box::new(BoolWriter::new(config, column, pool, statistics)))
            }
            Source::Int32 | Source::DecimalInt32 { .. } => ColumnWriter::Int32(Box::new(
                NumericWriter::new(config, column, pool, dictionary, statistics),
            )),
            Source::Int64 | Source::DecimalInt64 { .. } => ColumnWriter::Int64(Box::new(
                NumericWriter::new(config, column, pool, dictionary, statistics),
            )),
            Source::Float32 => ColumnWriter::Float(Box::new(NumericWriter::new(
                config, column, pool, dictionary, statistics,
            ))),
            Source::Float64 => ColumnWriter::Double(Box::new(NumericWriter::new(
                config, column, pool, dictionary, statistics,
            ))),
            Source::Bytes { .. } | Source::Fixed { .. } | Source::DecimalFixed { .. } => {
                ColumnWriter::Bytes(Box::new(BytesWriter::new(
                    config, column, pool, dictionary, statistics,
                )))
            }
        }
    }

    fn buffered_size(&mut self) -> Result<usize> {
        each!(self, w => w.buffered_size())
    }

    fn finish_chunk(&mut self) -> Result<(ChunkOutput, Statistics)> {
        each!(self, w => w.finish_chunk())
    }

    fn chunk(&mut self) -> &mut super::page::ChunkBuilder {
        each!(self, w => w.chunk())
    }

    fn reset_chunk(&mut self) {
        each!(self, w => w.reset_chunk())
    }

    fn metrics(&self) -> ColumnMetrics {
        each!(self, w => w.metrics())
    }
}

/// Values of each fixed-width type.
#[derive(Default)]
struct Lanes {
    i32s: Vec<i32>,
    i64s: Vec<i64>,
    f32s: Vec<f32>,
    f64s: Vec<f64>,
}

/// Scratch space for values that need converting or aligning.
#[derive(Default)]
struct Scratch {
    /// Arrow values copied into alignment.
    aligned: Lanes,
    /// Values converted or gathered for a writer.
    values: Lanes,
    bytes: Vec<u8>,
    /// A nested leaf's levels, and its values laid out one per level slot.
    levels: LeafLevels,
    offsets: Vec<u8>,
    present: Vec<u8>,
}

/// `bytes` as values of `T`, in place when aligned, else copied to `scratch`.
fn typed<'a, T: NativeType + FixedWidth>(bytes: &'a [u8], scratch: &'a mut Vec<T>) -> &'a [T] {
    if let Some(values) = cast_slice::<T>(bytes) {
        return values;
    }
    scratch.clear();
    scratch.resize(bytes.len() / T::WIDTH, T::default());
    T::decode_le(bytes, scratch);
    scratch
}

/// One column's metrics in the finished file.
#[derive(Debug, Clone, PartialEq)]
pub struct ColumnResult {
    pub(crate) name: String,
    pub field_id: i32,
    pub metrics: ColumnMetrics,
}

/// What a finished file holds, for Iceberg's `Metrics` and `DataFile`.
#[derive(Debug, Clone, PartialEq)]
pub struct WriteResult {
    pub record_count: u64,
    pub file_size: u64,
    /// Start offsets of the row groups.
    pub split_offsets: Vec<i64>,
    pub columns: Vec<ColumnResult>,
    pub(crate) metadata: FileMetaData,
}

enum State {
    Open,
    Failed(Error),
    Closed,
    Aborted,
}

/// A Parquet file being written.
pub struct FileWriter {
    schema: WriteSchema,
    options: WriterOptions,
    columns: Vec<ColumnWriter>,
    output: Output,
    position: u64,
    row_groups: Vec<RowGroup>,
    page_indexes: Vec<Vec<(Option<ColumnIndex>, OffsetIndex)>>,
    group_rows: u64,
    next_check: u64,
    total_rows: u64,
    state: State,
    scratch: Scratch,
}

impl FileWriter {
    /// A writer of a local file at `path`, which appears only once the file is
    /// complete.
    pub fn open_path(path: &Path, schema: &Field, options: WriterOptions) -> Result<FileWriter> {
        let schema = WriteSchema::new(schema)?;
        let output = Output::path(path, options.overwrite)?;
        FileWriter::new(schema, options, output)
    }

    /// A writer whose bytes the caller takes with [`FileWriter::take_output`].
    pub fn open_buffered(schema: &Field, options: WriterOptions) -> Result<FileWriter> {
        FileWriter::new(WriteSchema::new(schema)?, options, Output::buffered())
    }

    fn new(schema: WriteSchema, options: WriterOptions, output: Output) -> Result<FileWriter> {
        options.check()?;
        let config = PageConfig {
            codec: options.codec,
            level: options.level,
            version: options.page_version,
            page_threshold: (options.page_size - options.page_size / 10).max(1),
            page_row_limit: options.page_row_limit,
            dictionary_size: options.dictionary_size,
        };
        let pool = match options.compression_threads {
            0 => None,
            _ if options.codec == crate::compression::Codec::Uncompressed => None,
            threads => Some(Arc::new(Pool::new(threads)?)),
        };
        let columns = schema
            .columns
            .iter()
            .map(|c| ColumnWriter::new(config, c, &options, pool.clone()))
            .collect();
        let mut writer = FileWriter {
            next_check: options.row_group_check_min,
            schema,
            options,
            columns,
            output,
            position: 0,
            row_groups: Vec::new(),
            page_indexes: Vec::new(),
            group_rows: 0,
            total_rows: 0,
            state: State::Open,
            scratch: Scratch::default(),
        };
        let started = writer.emit(&mut MAGIC.to_vec());
        if let Err(e) = started {
            writer.output.discard();
            return Err(e);
        }
        Ok(writer)
    }

    /// The Arrow schema batches must match.
    pub fn arrow_schema(&self) -> &Field {
        &self.schema.arrow
    }

    /// The leaf columns and how each is assembled from the batch.
    #[cfg(test)]
    pub(crate) fn schema(&self) -> &WriteSchema {
        &self.schema
    }

    fn emit(&mut self, bytes: &mut Vec<u8>) -> Result<()> {
        let len = bytes.len() as u64;
        self.output.emit(bytes)?;
        self.position += len;
        Ok(())
    }

    /// Ok while the writer takes rows; else why not (closed, aborted, or the
    /// error that failed it).
    pub fn check_open(&self) -> Result<()> {
        match &self.state {
            State::Open => Ok(()),
            State::Failed(e) => Err(Error::new(
                e.status(),
                format!("the writer failed earlier: {}", e.message()),
            )),
            State::Closed => Err(Error::invalid_argument("the writer is closed")),
            State::Aborted => Err(Error::invalid_argument("the writer was aborted")),
        }
    }

    /// Runs `body`; an error leaves the writer failed, with its partial output
    /// discarded (a path writer's temporary file deleted).
    fn guarded<T>(&mut self, body: impl FnOnce(&mut Self) -> Result<T>) -> Result<T> {
        self.check_open()?;
        body(self).inspect_err(|e| {
            self.state = State::Failed(e.clone());
            self.output.discard();
        })
    }

    /// Appends the rows of `batch`, a struct array validated against
    /// [`FileWriter::arrow_schema`].
    pub fn write(&mut self, batch: &ArrayView<'_>) -> Result<()> {
        self.guarded(|w| w.write_rows(batch))
    }

    fn write_rows(&mut self, batch: &ArrayView<'_>) -> Result<()> {
        let rows = batch.len();
        if batch.null_count() > 0 {
            return Err(Error::invalid_argument(format!(
                "the batch's top-level struct has {} null rows; rows cannot be null",
                batch.null_count()
            )));
        }
        if rows == 0 {
            return Ok(());
        }
        let children = batch.children();
        if children.len() != self.schema.arrow.children.len() {
            return Err(Error::internal(
                "the batch does not have the schema's columns",
            ));
        }
        let base = batch.offset();
        for column in self.schema.columns.iter().filter(|c| !c.is_nested()) {
            let child = &children[column.top];
            if !column.nullable && child.null_count() > 0 {
                if let Some(validity) = child.validity_bitmap() {
                    let bits = Validity {
                        bits: validity,
                        offset: child.offset() + base,
                    };
                    if let Some(row) = bits.first_null(rows) {
                        return Err(Error::invalid_argument(format!(
                            "column '{}' (field id {}) is required, but row {row} of the batch is null",
                            column.name, column.field_id
                        )));
                    }
                }
            }
        }
        let mut done = 0;
        while done < rows {
            let room = self.next_check.saturating_sub(self.group_rows).max(1) as usize;
            let n = (rows - done).min(room);
            for index in 0..self.columns.len() {
                let top = self.schema.columns[index].top;
                if self.schema.columns[index].is_nested() {
                    self.write_nested(index, &children[top], base, done, n)?;
                } else {
                    self.write_column(index, &children[top], base, done, n)?;
                }
            }
            done += n;
            self.group_rows += n as u64;
            self.total_rows += n as u64;
            if self.group_rows >= self.next_check {
                self.check_row_group_size()?;
            }
        }
        Ok(())
    }

    /// Iceberg's ParquetWriter.checkSize: flush when the buffered size comes
    /// within two average rows of the target, else estimate when to look again.
    fn check_row_group_size(&mut self) -> Result<()> {
        let buffered = self.buffered_size()?;
        for column in &mut self.columns {
            column.chunk().mark();
        }
        let target = self.options.row_group_size as f64;
        let average = buffered as f64 / self.group_rows as f64;
        if buffered as f64 > target - 2.0 * average {
            self.flush_row_group()
        } else {
            let remaining = ((target - buffered as f64) / average.max(f64::MIN_POSITIVE)) as u64;
            self.next_check = self.group_rows + self.check_interval(remaining / 2);
            Ok(())
        }
    }

    fn buffered_size(&mut self) -> Result<usize> {
        let mut total = 0;
        for column in &mut self.columns {
            total += column.buffered_size()?;
        }
        Ok(total)
    }

    fn check_interval(&self, wanted: u64) -> u64 {
        wanted.clamp(
            self.options.row_group_check_min,
            self.options.row_group_check_max,
        )
    }

    /// Rows `[start, start + rows)` of the struct's child (logical indices).
    fn write_column(
        &mut self,
        index: usize,
        child: &ArrayView<'_>,
        base: usize,
        first_row: usize,
        rows: usize,
    ) -> Result<()> {
        let start = base + first_row;
        let column = &self.schema.columns[index];
        let decimal = |precision| DecimalSlice {
            column,
            child,
            start,
            first_row,
            rows,
            precision,
        };
        let validity = child.validity_bitmap().map(|bits| Validity {
            bits,
            offset: child.offset() + start,
        });
        let scratch = &mut self.scratch;
        let writer = &mut self.columns[index];
        let slice = InPlace {
            array: child,
            start,
            rows,
            validity,
        };
        if let Some(written) = slice.append(writer, column.source, &mut scratch.aligned) {
            return written;
        }
        match (writer, column.source) {
            (ColumnWriter::Int32(w), Source::DecimalInt32 { precision }) => {
                let values = &mut scratch.values.i32s;
                values.clear();
                decimal(precision).for_each(validity, |v| values.push(v as i32))?;
                w.append(values, validity)
            }
            (ColumnWriter::Int64(w), Source::DecimalInt64 { precision }) => {
                let values = &mut scratch.values.i64s;
                values.clear();
                decimal(precision).for_each(validity, |v| values.push(v as i64))?;
                w.append(values, validity)
            }
            (ColumnWriter::Bytes(w), Source::DecimalFixed { precision, width }) => {
                scratch.bytes.clear();
                decimal(precision).for_each(validity, |v| {
                    scratch
                        .bytes
                        .extend_from_slice(&v.to_be_bytes()[16 - width..])
                })?;
                w.append(
                    ByteValues::Fixed {
                        data: &scratch.bytes,
                        width,
                    },
                    rows,
                    validity,
                )
            }
            (ColumnWriter::Bytes(w), Source::Bytes { large: true }) => {
                let first = child.offset() + start;
                let offsets = &child.raw_buffer(0)[first * 8..(first + rows + 1) * 8];
                check_value_lengths(column, offsets, first_row)?;
                w.append(
                    ByteValues::Offsets {
                        offsets,
                        wide: true,
                        data: child.raw_buffer(1),
                    },
                    rows,
                    validity,
                )
            }
            _ => Err(Error::internal(format!(
                "column '{}': writer and source disagree",
                column.name
            ))),
        }
    }

    /// Rows `[start, start + rows)` of the top-level column holding the
    /// nested leaf `index`: its levels are queued in the leaf's chunk, and its
    /// values handed to the leaf's writer one per level slot, as a top-level
    /// column's are one per row.
    fn write_nested(
        &mut self,
        index: usize,
        top: &ArrayView<'_>,
        base: usize,
        first_row: usize,
        rows: usize,
    ) -> Result<()> {
        let column = &self.schema.columns[index];
        let scratch = &mut self.scratch;
        let levels = &mut scratch.levels;
        levels.compute(column, top, base + first_row, rows, first_row)?;
        let leaf = leaf_array(column, top);
        let slots = levels.def.len();
        let present = present_bits(&levels.def, column.max_def, &mut scratch.present);
        let validity = (present < slots).then_some(Validity {
            bits: &scratch.present,
            offset: 0,
        });
        let writer = &mut self.columns[index];
        writer
            .chunk()
            .queue_levels(&mut levels.def, &mut levels.rep);
        let levels = &scratch.levels;
        if let Some(start) = levels.first_slot {
            let slice = InPlace {
                array: leaf,
                start,
                rows: slots,
                validity,
            };
            if let Some(written) = slice.append(writer, column.source, &mut scratch.aligned) {
                return written.and_then(|()| check_drained(writer, column));
            }
        }
        let values_of = || value_slots(&scratch.present, slots, levels);
        let written = match (&mut *writer, column.source) {
            (ColumnWriter::Bool(w), Source::Boolean) => {
                scratch.bytes.clear();
                scratch.bytes.resize(slots.div_ceil(8), 0);
                for (s, slot) in values_of().enumerate() {
                    if slot.is_some_and(|j| leaf.bool_value(j)) {
                        scratch.bytes[s / 8] |= 1 << (s % 8);
                    }
                }
                let bits = Validity {
                    bits: &scratch.bytes,
                    offset: 0,
                };
                w.append(bits, slots, validity)
            }
            (ColumnWriter::Int32(w), Source::Int32) => w.append(
                gather(
                    leaf,
                    values_of(),
                    &mut scratch.aligned.i32s,
                    &mut scratch.values.i32s,
                ),
                validity,
            ),
            (ColumnWriter::Int64(w), Source::Int64) => w.append(
                gather(
                    leaf,
                    values_of(),
                    &mut scratch.aligned.i64s,
                    &mut scratch.values.i64s,
                ),
                validity,
            ),
            (ColumnWriter::Float(w), Source::Float32) => w.append(
                gather(
                    leaf,
                    values_of(),
                    &mut scratch.aligned.f32s,
                    &mut scratch.values.f32s,
                ),
                validity,
            ),
            (ColumnWriter::Double(w), Source::Float64) => w.append(
                gather(
                    leaf,
                    values_of(),
                    &mut scratch.aligned.f64s,
                    &mut scratch.values.f64s,
                ),
                validity,
            ),
            (ColumnWriter::Int32(w), Source::DecimalInt32 { precision }) => {
                let values = nested_decimals(column, leaf, values_of(), precision)?;
                let values: Vec<i32> = values.into_iter().map(|v| v as i32).collect();
                w.append(&values, validity)
            }
            (ColumnWriter::Int64(w), Source::DecimalInt64 { precision }) => {
                let values = nested_decimals(column, leaf, values_of(), precision)?;
                let values: Vec<i64> = values.into_iter().map(|v| v as i64).collect();
                w.append(&values, validity)
            }
            (ColumnWriter::Bytes(w), Source::DecimalFixed { precision, width }) => {
                let values = nested_decimals(column, leaf, values_of(), precision)?;
                scratch.bytes.clear();
                for v in values {
                    scratch
                        .bytes
                        .extend_from_slice(&v.to_be_bytes()[16 - width..]);
                }
                let values = ByteValues::Fixed {
                    data: &scratch.bytes,
                    width,
                };
                w.append(values, slots, validity)
            }
            (ColumnWriter::Bytes(w), Source::Fixed { width }) => {
                scratch.bytes.clear();
                for slot in values_of() {
                    match slot {
                        Some(j) => scratch.bytes.extend_from_slice(leaf.fixed_value(j)),
                        None => scratch.bytes.resize(scratch.bytes.len() + width, 0),
                    }
                }
                let values = ByteValues::Fixed {
                    data: &scratch.bytes,
                    width,
                };
                w.append(values, slots, validity)
            }
            (ColumnWriter::Bytes(w), Source::Bytes { .. }) => {
                scratch.bytes.clear();
                scratch.offsets.clear();
                scratch.offsets.extend_from_slice(&0i64.to_le_bytes());
                // Values whose bytes lie back to back in the leaf's data (a list's elements,
                // but where a null holds bytes) are copied a run at a time.
                let data = leaf.binary_values();
                let mut run: Option<Range<usize>> = None;
                let mut end = 0usize;
                for slot in values_of() {
                    if let Some(j) = slot {
                        let value = leaf.value_range(j);
                        if value.len() > i32::MAX as usize {
                            return Err(Error::invalid_argument(format!(
                                "column '{}' (field id {}): a value of {} bytes; \
                                 Parquet byte arrays hold at most {} bytes",
                                column.name,
                                column.field_id,
                                value.len(),
                                i32::MAX
                            )));
                        }
                        end += value.len();
                        run = match run {
                            Some(bytes) if bytes.end == value.start => Some(bytes.start..value.end),
                            other => {
                                if let Some(bytes) = other {
                                    scratch.bytes.extend_from_slice(&data[bytes]);
                                }
                                Some(value)
                            }
                        };
                    }
                    scratch
                        .offsets
                        .extend_from_slice(&(end as i64).to_le_bytes());
                }
                if let Some(bytes) = run {
                    scratch.bytes.extend_from_slice(&data[bytes]);
                }
                let values = ByteValues::Offsets {
                    offsets: &scratch.offsets,
                    wide: true,
                    data: &scratch.bytes,
                };
                w.append(values, slots, validity)
            }
            _ => Err(Error::internal(format!(
                "column '{}': writer and source disagree",
                column.name
            ))),
        };
        written.and_then(|()| check_drained(writer, column))
    }

    fn flush_row_group(&mut self) -> Result<()> {
        if self.group_rows == 0 {
            return Ok(());
        }
        let file_offset = self.position;
        let mut chunks = Vec::with_capacity(self.columns.len());
        let mut indexes = Vec::with_capacity(self.columns.len());
        let (mut total_uncompressed, mut total_compressed) = (0i64, 0i64);
        for index in 0..self.columns.len() {
            let (output, statistics) = self.columns[index].finish_chunk()?;
            let start = self.position;
            let data_start = start + output.dictionary_len as u64;
            let page_index = self.columns[index].chunk().page_index(&output, data_start);
            let mut dictionary = std::mem::take(self.columns[index].chunk().bytes().0);
            self.emit(&mut dictionary)?;
            // Path mode hands the dictionary's buffer back for reuse (buffered
            // mode moved it out).
            *self.columns[index].chunk().bytes().0 = dictionary;
            let data = self.columns[index].chunk().bytes().1;
            let data_len = data.len() as u64;
            self.output.emit_chunk(data)?;
            self.position += data_len;
            let column = &self.schema.columns[index];
            chunks.push(ColumnChunk {
                file_path: None,
                file_offset: 0,
                meta_data: Some(ColumnMetaData {
                    physical_type: column.physical,
                    encodings: output.encodings,
                    path_in_schema: column.path.clone(),
                    codec: CompressionCodec::from_thrift(self.options.codec.id()),
                    num_values: output.num_values,
                    total_uncompressed_size: output.uncompressed_size,
                    total_compressed_size: output.compressed_size,
                    key_value_metadata: None,
                    data_page_offset: data_start as i64,
                    index_page_offset: None,
                    dictionary_page_offset: output.has_dictionary.then_some(start as i64),
                    statistics: Some(statistics),
                    encoding_stats: Some(output.encoding_stats),
                    bloom_filter_offset: None,
                    bloom_filter_length: None,
                }),
                offset_index_offset: None,
                offset_index_length: None,
                column_index_offset: None,
                column_index_length: None,
            });
            indexes.push(page_index);
            total_uncompressed += output.uncompressed_size;
            total_compressed += output.compressed_size;
            self.columns[index].reset_chunk();
        }
        let ordinal = i16::try_from(self.row_groups.len()).ok();
        self.row_groups.push(RowGroup {
            columns: chunks,
            total_byte_size: total_uncompressed,
            num_rows: self.group_rows as i64,
            sorting_columns: None,
            file_offset: Some(file_offset as i64),
            total_compressed_size: Some(total_compressed),
            ordinal,
        });
        self.page_indexes.push(indexes);
        self.next_check = self.check_interval(self.group_rows / 2);
        self.group_rows = 0;
        Ok(())
    }

    /// The next finished bytes of a buffered writer (empty when none are
    /// waiting), valid until the next call.
    pub fn take_output(&mut self) -> Result<&[u8]> {
        match &self.state {
            State::Open | State::Closed => self.output.take(),
            _ => self.check_open().map(|()| &[][..]),
        }
    }

    /// Bytes of the file so far (written, or waiting to be taken).
    pub fn bytes_written(&self) -> u64 {
        self.position
    }

    /// `bytes_written` plus what the current row group holds, as Iceberg's
    /// `ParquetWriter.length()` estimates a file for rolling.
    pub fn estimated_length(&mut self) -> Result<u64> {
        if !self.is_open() || self.group_rows == 0 {
            return Ok(self.position);
        }
        // Sizing may wait for pages on helper threads; a failure there fails
        // the writer like any other.
        let buffered = self.guarded(|w| w.buffered_size())?;
        Ok(self.position + buffered as u64)
    }

    /// Writes the last row group, the page index and the footer, and (path
    /// mode) moves the file into place.
    pub fn close(&mut self) -> Result<WriteResult> {
        self.guarded(|w| w.finish())
    }

    fn finish(&mut self) -> Result<WriteResult> {
        self.flush_row_group()?;
        let mut buffer = Vec::new();
        let page_indexes = std::mem::take(&mut self.page_indexes);
        for (rg, indexes) in page_indexes.iter().enumerate() {
            for (column, (column_index, _)) in indexes.iter().enumerate() {
                if let Some(column_index) = column_index {
                    column_index.encode(&mut buffer)?;
                    let chunk = &mut self.row_groups[rg].columns[column];
                    chunk.column_index_offset = Some(self.position as i64);
                    chunk.column_index_length = Some(index_len(buffer.len())?);
                    self.emit(&mut buffer)?;
                }
            }
        }
        for (rg, indexes) in page_indexes.iter().enumerate() {
            for (column, (_, offset_index)) in indexes.iter().enumerate() {
                offset_index.encode(&mut buffer)?;
                let chunk = &mut self.row_groups[rg].columns[column];
                chunk.offset_index_offset = Some(self.position as i64);
                chunk.offset_index_length = Some(index_len(buffer.len())?);
                self.emit(&mut buffer)?;
            }
        }
        let metadata = FileMetaData {
            version: 1,
            schema: self.schema.elements.clone(),
            num_rows: self.total_rows as i64,
            row_groups: std::mem::take(&mut self.row_groups),
            key_value_metadata: (!self.schema.key_value_metadata.is_empty())
                .then(|| self.schema.key_value_metadata.clone()),
            created_by: Some(created_by()),
            column_orders: Some(vec![ColumnOrder::TypeDefinedOrder; self.columns.len()]),
        };
        metadata.encode(&mut buffer)?;
        let footer_len = u32::try_from(buffer.len())
            .map_err(|_| Error::invalid_argument("the footer exceeds 4 GiB"))?;
        buffer.extend_from_slice(&footer_len.to_le_bytes());
        buffer.extend_from_slice(MAGIC);
        self.emit(&mut buffer)?;
        self.output.commit()?;
        self.state = State::Closed;
        for column in &mut self.columns {
            column.chunk().release_pool();
        }
        let split_offsets = metadata
            .row_groups
            .iter()
            .filter_map(|rg| rg.file_offset)
            .collect();
        Ok(WriteResult {
            record_count: self.total_rows,
            file_size: self.position,
            split_offsets,
            columns: self
                .schema
                .columns
                .iter()
                .zip(&self.columns)
                .map(|(column, writer)| ColumnResult {
                    name: column.name.clone(),
                    field_id: column.field_id,
                    metrics: writer.metrics(),
                })
                .collect(),
            metadata,
        })
    }

    /// Gives up the file: a path writer's temporary file is deleted, pending
    /// bytes are dropped. Does nothing after `close` or a previous abort.
    pub fn abort(&mut self) {
        if matches!(self.state, State::Closed | State::Aborted) {
            return;
        }
        self.output.discard();
        self.state = State::Aborted;
        for column in &mut self.columns {
            column.chunk().release_pool();
        }
    }

    /// Marks an open writer failed because of `error` (a batch that did not
    /// validate, say), discarding its partial output as any failure does.
    pub fn poison(&mut self, error: &Error) {
        if matches!(self.state, State::Open) {
            self.state = State::Failed(error.clone());
            self.output.discard();
        }
    }

    /// Whether the writer can take more rows.
    pub(crate) fn is_open(&self) -> bool {
        matches!(self.state, State::Open)
    }
}

impl Drop for FileWriter {
    fn drop(&mut self) {
        self.abort();
    }
}

/// Values read where they are in an Arrow array: rows `[start, start +
/// rows)` of a top-level column, or the level slots of a leaf under structs
/// only (with `validity` then saying which slots hold a value).
struct InPlace<'a, 'v> {
    array: &'a ArrayView<'v>,
    start: usize,
    rows: usize,
    validity: Option<Validity<'a>>,
}

impl InPlace<'_, '_> {
    /// Hands the values to `writer` when `source` needs no conversion or
    /// check (else None, leaving them to the caller).
    fn append(
        &self,
        writer: &mut ColumnWriter,
        source: Source,
        aligned: &mut Lanes,
    ) -> Option<Result<()>> {
        let Self {
            array,
            start,
            rows,
            validity,
        } = *self;
        let written = match (writer, source) {
            (ColumnWriter::Bool(w), Source::Boolean) => {
                let bits = Validity {
                    bits: array.raw_buffer(0),
                    offset: array.offset() + start,
                };
                w.append(bits, rows, validity)
            }
            (ColumnWriter::Int32(w), Source::Int32) => w.append(
                typed(array.fixed_values(start, rows), &mut aligned.i32s),
                validity,
            ),
            (ColumnWriter::Int64(w), Source::Int64) => w.append(
                typed(array.fixed_values(start, rows), &mut aligned.i64s),
                validity,
            ),
            (ColumnWriter::Float(w), Source::Float32) => w.append(
                typed(array.fixed_values(start, rows), &mut aligned.f32s),
                validity,
            ),
            (ColumnWriter::Double(w), Source::Float64) => w.append(
                typed(array.fixed_values(start, rows), &mut aligned.f64s),
                validity,
            ),
            (ColumnWriter::Bytes(w), Source::Fixed { width }) => w.append(
                ByteValues::Fixed {
                    data: array.fixed_values(start, rows),
                    width,
                },
                rows,
                validity,
            ),
            // Large offsets need their lengths checked first.
            (ColumnWriter::Bytes(w), Source::Bytes { large: false }) => {
                let first = array.offset() + start;
                w.append(
                    ByteValues::Offsets {
                        offsets: &array.raw_buffer(0)[first * 4..(first + rows + 1) * 4],
                        wide: false,
                        data: array.raw_buffer(1),
                    },
                    rows,
                    validity,
                )
            }
            _ => return None,
        };
        Some(written)
    }
}

/// Parquet stores a byte array's length in 32 bits (and parquet-java reads it
/// as a signed int): large Arrow values beyond that cannot be written.
fn check_value_lengths(column: &LeafColumn, offsets: &[u8], first_row: usize) -> Result<()> {
    let offset = |i: usize| {
        let bytes: [u8; 8] = offsets[i * 8..i * 8 + 8].try_into().unwrap_or_default();
        i64::from_le_bytes(bytes)
    };
    let rows = offsets.len() / 8 - 1;
    if offset(rows) - offset(0) <= i64::from(i32::MAX) {
        return Ok(());
    }
    match (0..rows).find(|&i| offset(i + 1) - offset(i) > i64::from(i32::MAX)) {
        Some(i) => Err(Error::invalid_argument(format!(
            "column '{}' (field id {}): row {} holds a value of {} bytes; \
             Parquet byte arrays hold at most {} bytes",
            column.name,
            column.field_id,
            first_row + i,
            offset(i + 1) - offset(i),
            i32::MAX
        ))),
        None => Ok(()),
    }
}

fn index_len(len: usize) -> Result<i32> {
    i32::try_from(len).map_err(|_| Error::invalid_argument("a page index exceeds 2 GiB"))
}

/// Whether the writer took every level queued for it.
fn check_drained(writer: &mut ColumnWriter, column: &LeafColumn) -> Result<()> {
    if writer.chunk().queue_drained() {
        return Ok(());
    }
    Err(Error::internal(format!(
        "column '{}': the writer left levels unwritten",
        column.name
    )))
}

/// Sets bit `s` of `bits` where level slot `s` holds a value (`def ==
/// max_def`), a byte at a time, and returns how many do.
fn present_bits(def: &[i16], max_def: i16, bits: &mut Vec<u8>) -> usize {
    bits.clear();
    let (chunks, tail) = def.as_chunks::<8>();
    let byte = |levels: &[i16]| {
        levels
            .iter()
            .enumerate()
            .fold(0u8, |b, (i, &d)| b | (u8::from(d == max_def) << i))
    };
    bits.extend(chunks.iter().map(|c| byte(c)));
    if !tail.is_empty() {
        bits.push(byte(tail));
    }
    bits.iter().map(|b| b.count_ones() as usize).sum()
}

/// The leaf slot of each of the `count` level slots that holds a value
/// (bit `s` of `present`).
fn value_slots<'a>(
    present: &'a [u8],
    count: usize,
    levels: &'a LeafLevels,
) -> impl Iterator<Item = Option<usize>> + 'a {
    let mut next = levels.slots.iter();
    (0..count).map(move |s| {
        let here = present[s / 8] & (1 << (s % 8)) != 0;
        here.then(|| match levels.first_slot {
            Some(first) => first + s,
            None => *next.next().unwrap_or(&0),
        })
    })
}

/// The values of a fixed-width leaf, one per level slot (the default where
/// it holds none), gathered into `out`.
fn gather<'o, T: NativeType + FixedWidth>(
    leaf: &ArrayView<'_>,
    slots: impl Iterator<Item = Option<usize>>,
    aligned: &mut Vec<T>,
    out: &'o mut Vec<T>,
) -> &'o [T] {
    let all = typed(leaf.fixed_values(0, leaf.len()), aligned);
    out.clear();
    out.extend(slots.map(|j| j.map_or(T::default(), |j| all[j])));
    out
}

/// The unscaled values of a nested decimal leaf, one per level slot (0 where
/// it holds none), after checking that they fit the column's precision.
fn nested_decimals(
    column: &LeafColumn,
    leaf: &ArrayView<'_>,
    slots: impl Iterator<Item = Option<usize>>,
    precision: u8,
) -> Result<Vec<i128>> {
    let limit = 10i128.pow(u32::from(precision)) - 1;
    slots
        .map(|slot| {
            let Some(j) = slot else { return Ok(0) };
            let value = i128::from_le_bytes(leaf.fixed_value(j).try_into().unwrap_or([0; 16]));
            if (-limit..=limit).contains(&value) {
                Ok(value)
            } else {
                Err(Error::invalid_argument(format!(
                    "column '{}' (field id {}): the unscaled value {value} does not fit \
                     the column's precision {precision}",
                    column.name, column.field_id
                )))
            }
        })
        .collect()
}

/// Decimal rows of one column slice.
struct DecimalSlice<'a, 'v> {
    column: &'a LeafColumn,
    child: &'a ArrayView<'v>,
    /// Logical index of the first row in the child.
    start: usize,
    /// Its row number in the batch, for messages.
    first_row: usize,
    rows: usize,
    precision: u8,
}

impl DecimalSlice<'_, '_> {
    /// Calls `emit` with the unscaled value of every row (0 for nulls), after
    /// checking that valid values fit the column's precision.
    fn for_each(&self, validity: Option<Validity<'_>>, mut emit: impl FnMut(i128)) -> Result<()> {
        let bytes = self.child.fixed_values(self.start, self.rows);
        let limit = 10i128.pow(u32::from(self.precision)) - 1;
        for (i, chunk) in bytes.as_chunks::<16>().0.iter().enumerate() {
            let valid = validity.is_none_or(|v| v.get(i));
            let value = if valid {
                i128::from_le_bytes(*chunk)
            } else {
                0
            };
            if !(-limit..=limit).contains(&value) {
                return Err(Error::new(
                    Status::InvalidArgument,
                    format!(
                        "column '{}' (field id {}): row {} holds the unscaled value {value}, \
                         which does not fit the column's precision {}",
                        self.column.name,
                        self.column.field_id,
                        self.first_row + i,
                        self.precision,
                    ),
                ));
            }
            emit(value);
        }
        Ok(())
    }
}
