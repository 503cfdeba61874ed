//! A scan: the projected columns of a selection of row groups, decoded into
//! Arrow struct arrays a batch at a time.
//!
//! The scan starts each row group when it gets to it, with one
//! [`ColumnReader`] per projected leaf. From a local file, each reader reads its
//! chunk a window at a time; otherwise the scan asks the caller
//! ([`Step::NeedRanges`]) to fill buffers with the byte ranges of the projected
//! column chunks (adjacent chunks merged into one range). Batches never span
//! row groups, so memory stays bounded by one row group's projected column
//! chunks (and their pages' decompression buffers) plus one batch.
//!
//! The output schema is fixed at open: fields by Iceberg field id, renamed and
//! typed as the caller's expected schema says (ids the file lacks become
//! all-null columns of the expected type; an int column expected as a long, a
//! float as a double or a decimal with a larger precision are widened), and
//! string columns kept dictionary-encoded when asked and every selected chunk
//! is dictionary-encoded throughout (`scan/projection.rs` decides all this).

use std::sync::Arc;

mod projection;

use self::projection::{project, OutputColumn, Projection};
use super::arrow::assemble::{assemble, Leaves};
use super::arrow::nulls::null_array;
use super::column::{ColumnReader, LeafBatch, LeafSpec, Output};
use super::file::ParquetFile;
use super::io::{coalesce, range_buffers, ByteRange, ChunkBytes, ChunkSource};
use super::page::{PageOptions, DEFAULT_MAX_PAGE_SIZE};
use crate::arrow::pool::{BufferPool, Scratch};
use crate::arrow::{ArrayData, DataType, Field};
use crate::error::{Error, Result, Status};

/// Rows per batch when the caller does not say.
pub const DEFAULT_BATCH_SIZE: usize = 8192;

#[derive(Debug, Clone, Default)]
pub struct ScanOptions {
    /// Top-level Iceberg field ids, in output order.
    pub field_ids: Vec<i32>,
    /// A struct of the projected fields (one child per id): their names, and
    /// the types of ids the file lacks.
    pub expected: Option<Field>,
    /// Row groups to read, in this order; None for all.
    pub row_groups: Option<Vec<usize>>,
    /// Rows of the selection to skip first (to resume a scan).
    pub first_row: u64,
    /// Rows per batch at most; 0 for [`DEFAULT_BATCH_SIZE`].
    pub batch_size: usize,
    /// Output dictionary-encoded strings as Arrow dictionaries where possible.
    pub keep_dictionaries: bool,
    /// Check page checksums where pages have them.
    pub verify_crc: bool,
    /// The largest uncompressed page to decompress, in bytes; 0 for
    /// [`DEFAULT_MAX_PAGE_SIZE`].
    pub max_page_size: usize,
    /// For files without field ids: per field id, the names a table's name
    /// mapping gives it (none when the mapping does not cover it).
    pub mapped_names: Option<Vec<Vec<String>>>,
    /// The pool to take memory from and give it back to, shared with other
    /// scans (those of a run of small files); None for one of the scan's own.
    pub pool: Option<Arc<BufferPool>>,
}

/// What [`Scan::next_step`] produced.
#[derive(Debug)]
pub enum Step {
    /// A struct array of the projected columns, at least one row.
    Batch(ArrayData),
    /// The caller must fill [`Scan::ranges`] before calling next again.
    NeedRanges,
    End,
}

/// A range of the file to fetch, and the buffer to fetch it into.
#[derive(Debug)]
pub struct PendingRange {
    pub range: ByteRange,
    /// `range.len` bytes owned by the scan, valid until the next call of
    /// [`Scan::next_step`] (or the scan's end).
    pub buffer: *mut u8,
}

/// The ranges the caller fills, and which holds each projected chunk.
struct Plan {
    ranges: Vec<ByteRange>,
    /// Per projected leaf: the range's index and the chunk's offset in it
    /// (None for an empty chunk).
    chunks: Vec<Option<(usize, usize)>>,
}

enum State {
    /// Between row groups.
    Idle,
    AwaitingRanges {
        row_group: usize,
        plan: Plan,
        buffers: Vec<Vec<u8>>,
    },
    Reading {
        row_group: usize,
        readers: Vec<ColumnReader>,
        rows_left: u64,
    },
    Done,
}

pub struct Scan {
    file: Arc<ParquetFile>,
    output: Field,
    columns: Vec<OutputColumn>,
    /// The projected leaf columns, in output order, and how to read each.
    leaves: Vec<usize>,
    specs: Vec<LeafSpec>,
    batches: Vec<LeafBatch>,
    /// Where the batches' value buffers come from and go back to.
    pool: Arc<BufferPool>,
    row_groups: Vec<usize>,
    next_row_group: usize,
    skip: u64,
    batch_size: usize,
    pages: PageOptions,
    state: State,
    /// The error that stopped the scan; it cannot go on after one.
    failed: Option<Error>,
}

// SAFETY: the raw pointers in PendingRange point into buffers the scan owns;
// nothing else is thread-bound, and a scan is used by one thread at a time.
unsafe impl Send for Scan {}

impl Scan {
    pub fn open(file: Arc<ParquetFile>, options: ScanOptions) -> Result<Scan> {
        let location = file.location().clone();
        let invalid = |what: String| location.wrap(Error::invalid_argument(what));
        let expected = match &options.expected {
            Some(expected) => {
                if expected.data_type != DataType::Struct
                    || expected.children.len() != options.field_ids.len()
                {
                    return Err(invalid(format!(
                        "the expected schema must be a struct of the {} projected fields, not '{}' \
                         with {} children",
                        options.field_ids.len(),
                        expected.data_type,
                        expected.children.len()
                    )));
                }
                Some(&expected.children)
            }
            None => None,
        };
        let row_groups = match options.row_groups {
            Some(selected) => {
                let count = file.row_groups().len();
                if let Some(bad) = selected.iter().find(|&&rg| rg >= count) {
                    return Err(invalid(format!(
                        "row group {bad} does not exist (the file has {count})"
                    )));
                }
                selected
            }
            None => (0..file.row_groups().len()).collect(),
        };
        if let Some(names) = &options.mapped_names {
            if names.len() != options.field_ids.len() {
                return Err(invalid(format!(
                    "the name mapping has {} entries for {} projected fields",
                    names.len(),
                    options.field_ids.len()
                )));
            }
        }
        let Projection {
            columns,
            leaves,
            specs,
            fields,
        } = project(
            &file,
            &options.field_ids,
            expected,
            options.mapped_names.as_deref(),
            &row_groups,
            options.keep_dictionaries,
        )?;
        let name = file
            .metadata()
            .schema
            .first()
            .map_or("", |r| r.name.as_str())
            .to_owned();
        let output = Field::new(name, DataType::Struct, false).with_children(fields);
        output.check().map_err(|e| location.wrap(e))?;
        Ok(Scan {
            batches: leaves.iter().map(|_| LeafBatch::default()).collect(),
            pool: options.pool.unwrap_or_default(),
            file,
            output,
            columns,
            leaves,
            specs,
            row_groups,
            next_row_group: 0,
            skip: options.first_row,
            batch_size: if options.batch_size == 0 {
                DEFAULT_BATCH_SIZE
            } else {
                options.batch_size
            },
            pages: PageOptions {
                verify_crc: options.verify_crc,
                max_page_size: if options.max_page_size == 0 {
                    DEFAULT_MAX_PAGE_SIZE
                } else {
                    options.max_page_size
                },
            },
            state: State::Idle,
            failed: None,
        })
    }

    /// The schema of every batch: a struct of the projected fields.
    pub fn schema(&self) -> &Field {
        &self.output
    }

    /// The pool the batches' value buffers come from and go back to; holding
    /// it keeps their memory mapped after the batches are released.
    pub fn pool(&self) -> &Arc<BufferPool> {
        &self.pool
    }

    /// The next batch, a request for byte ranges, or the end. After an error
    /// (other than a misuse) the scan only repeats that it failed, with the
    /// error's status, so that a damaged file is reported as one on every call.
    pub fn next_step(&mut self) -> Result<Step> {
        if let Some(failed) = &self.failed {
            return Err(Error::new(
                failed.status(),
                format!("the scan failed earlier: {}", failed.message()),
            ));
        }
        let result = self.advance();
        if let Err(e) = &result {
            if e.status() != Status::InvalidArgument {
                self.failed = Some(e.clone());
                self.state = State::Done;
            }
        }
        result
    }

    /// The ranges the caller must fill after [`Step::NeedRanges`]: each buffer
    /// completely, with the file's bytes of its range.
    pub fn ranges(&mut self) -> Result<Vec<PendingRange>> {
        let State::AwaitingRanges { plan, buffers, .. } = &mut self.state else {
            return Err(self.file.location().wrap(Error::invalid_argument(
                "the scan is not waiting for byte ranges (next did not return NEED_RANGES)",
            )));
        };
        Ok(plan
            .ranges
            .iter()
            .zip(buffers.iter_mut())
            .map(|(&range, buffer)| PendingRange {
                range,
                buffer: buffer.as_mut_ptr(),
            })
            .collect())
    }

    fn advance(&mut self) -> Result<Step> {
        loop {
            match &mut self.state {
                State::Reading { rows_left, .. } if *rows_left > 0 => {
                    return self.read_batch().map(Step::Batch)
                }
                State::Done => return Ok(Step::End),
                State::AwaitingRanges { .. } => {
                    let State::AwaitingRanges {
                        row_group,
                        plan,
                        buffers,
                    } = std::mem::replace(&mut self.state, State::Idle)
                    else {
                        return Err(Error::internal("scan state changed"));
                    };
                    let chunks = self
                        .memory_chunks(row_group, &plan, buffers)
                        .map_err(|e| self.file.location().row_group(row_group).wrap(e))?;
                    self.start_row_group(row_group, chunks)?;
                }
                State::Reading { .. } | State::Idle => {
                    self.state = State::Idle;
                    let Some(&row_group) = self.row_groups.get(self.next_row_group) else {
                        self.state = State::Done;
                        return Ok(Step::End);
                    };
                    self.next_row_group += 1;
                    let num_rows = self.file.row_groups()[row_group].num_rows;
                    if self.skip >= num_rows {
                        self.skip -= num_rows;
                        continue;
                    }
                    let chunks = match self.file.source() {
                        ChunkSource::Local(local) => {
                            let info = &self.file.row_groups()[row_group];
                            self.leaves
                                .iter()
                                .map(|&c| {
                                    let window = self.pool.take_scratch(Scratch::Window);
                                    ChunkBytes::file(local.clone(), info.chunks[c].range, window)
                                })
                                .collect::<Result<Vec<_>>>()
                                .map_err(|e| self.file.location().row_group(row_group).wrap(e))?
                        }
                        ChunkSource::Caller => {
                            let plan = self.plan(row_group);
                            let buffers = range_buffers(&plan.ranges, &self.pool)
                                .map_err(|e| self.file.location().row_group(row_group).wrap(e))?;
                            if !plan.ranges.is_empty() {
                                self.state = State::AwaitingRanges {
                                    row_group,
                                    plan,
                                    buffers,
                                };
                                return Ok(Step::NeedRanges);
                            }
                            self.memory_chunks(row_group, &plan, buffers)
                                .map_err(|e| self.file.location().row_group(row_group).wrap(e))?
                        }
                    };
                    self.start_row_group(row_group, chunks)?;
                }
            }
        }
    }

    fn plan(&self, row_group: usize) -> Plan {
        let chunks = &self.file.row_groups()[row_group].chunks;
        let wanted: Vec<ByteRange> = self.leaves.iter().map(|&c| chunks[c].range).collect();
        let ranges = coalesce(wanted.clone());
        // Empty chunks (damaged metadata) are in no range.
        let chunks = wanted
            .iter()
            .map(|chunk| {
                let index = ranges
                    .iter()
                    .position(|r| r.offset <= chunk.offset && chunk.end() <= r.end())?;
                Some((index, (chunk.offset - ranges[index].offset) as usize))
            })
            .collect();
        Plan { ranges, chunks }
    }

    /// The projected chunks of `row_group` in the caller-filled `buffers`.
    fn memory_chunks(
        &self,
        row_group: usize,
        plan: &Plan,
        buffers: Vec<Vec<u8>>,
    ) -> Result<Vec<ChunkBytes>> {
        let info = &self.file.row_groups()[row_group];
        let buffers: Vec<Arc<Vec<u8>>> = buffers.into_iter().map(Arc::new).collect();
        self.leaves
            .iter()
            .zip(&plan.chunks)
            .map(|(&column, place)| {
                let Some((range, offset)) = *place else {
                    return ChunkBytes::memory(Arc::default(), 0..0);
                };
                let buffer = buffers
                    .get(range)
                    .ok_or_else(|| Error::internal("a chunk without a range"))?;
                let len = info.chunks[column].range.len as usize;
                ChunkBytes::memory(buffer.clone(), offset..offset + len)
            })
            .collect()
    }

    fn start_row_group(&mut self, row_group: usize, chunks: Vec<ChunkBytes>) -> Result<()> {
        let file = &self.file;
        let info = &file.row_groups()[row_group];
        let mut readers = Vec::with_capacity(self.leaves.len());
        for ((k, &column), bytes) in self.leaves.iter().enumerate().zip(chunks) {
            let descriptor = &file.columns()[column];
            let location = file
                .location()
                .row_group(row_group)
                .column(descriptor.path.join(".").into());
            let chunk = &info.chunks[column];
            let codec = file
                .chunk_metadata(row_group, column)
                .ok_or_else(|| Error::internal("a chunk without metadata"))?
                .codec
                .codec()
                .map_err(|e| location.wrap(e))?;
            let rows = info.num_rows;
            let repeated = self.specs[k].max_rep > 0;
            if (!repeated && chunk.num_values != rows) || chunk.num_values < rows {
                return Err(location.wrap(Error::corrupt_data(format!(
                    "the column chunk holds {} values for the row group's {rows} rows",
                    chunk.num_values
                ))));
            }
            readers.push(ColumnReader::new(
                location,
                bytes,
                &self.pool,
                codec,
                chunk.num_values,
                self.specs[k],
                self.pages,
            ));
        }
        let skip = std::mem::take(&mut self.skip);
        if skip > 0 {
            for reader in &mut readers {
                reader.skip(skip as usize)?;
            }
        }
        self.state = State::Reading {
            row_group,
            readers,
            rows_left: info.num_rows - skip,
        };
        Ok(())
    }

    fn read_batch(&mut self) -> Result<ArrayData> {
        let State::Reading {
            row_group,
            readers,
            rows_left,
        } = &mut self.state
        else {
            return Err(Error::internal("reading outside a row group"));
        };
        let location = self.file.location().row_group(*row_group);
        let rows = (*rows_left).min(self.batch_size as u64) as usize;
        for ((reader, batch), spec) in readers.iter_mut().zip(&mut self.batches).zip(&self.specs) {
            // Fixed-width values of a flat column take exactly this much (for
            // the widths of numbers: a FIXED_LEN_BYTE_ARRAY width comes from the
            // file, so its values must be found in pages before memory is sized
            // for them); dictionary indices and booleans 4 and 1 bytes a row.
            // Byte arrays reserve per page as they decode.
            let expected = match spec.conversion.output() {
                _ if spec.max_rep > 0 => 0,
                _ if spec.keep_indices => rows * 4,
                Output::Fixed(width) if width <= 16 => rows * width,
                Output::Boolean => rows,
                Output::Fixed(_) | Output::Bytes => 0,
            };
            batch
                .prepare_in(&self.pool, expected)
                .map_err(|e| location.wrap(e))?;
            reader.read(rows, batch)?;
        }
        *rows_left -= rows as u64;
        let mut leaves = Leaves::new(&self.leaves, &mut self.batches);
        let mut children = Vec::with_capacity(self.columns.len());
        for column in &self.columns {
            let array = match column {
                OutputColumn::Present(node) => assemble(node, &mut leaves),
                OutputColumn::Missing(field) => null_array(field, rows),
            }
            .map_err(|e| location.wrap(e))?;
            if array.len != rows {
                return Err(location.wrap(Error::corrupt_data(format!(
                    "a field has {} rows where the batch has {rows}",
                    array.len
                ))));
            }
            children.push(array);
        }
        Ok(ArrayData {
            data_type: DataType::Struct,
            len: rows,
            offset: 0,
            null_count: 0,
            validity: None,
            buffers: vec![],
            children,
            dictionary: None,
        })
    }
}
