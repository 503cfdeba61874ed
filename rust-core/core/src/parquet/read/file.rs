//! An opened Parquet file: its footer decoded and checked once, the metadata
//! a planner prunes with, and the Arrow shape of its schema. Immutable after
//! opening, so any number of threads and scans can share it.

use std::path::Path;
use std::sync::Arc;

use super::arrow::{leaf_type, top_level_nodes, with_field_id, ArrowNode};
use super::column::read_dictionary_page;
use super::io::{ByteRange, ChunkBytes, ChunkSource, LocalFile, MAGIC, TAIL_LEN};
use super::location::Location;
use super::page::{PageOptions, PageReader};
use crate::arrow::{ArrayData, DataType, Field};
use crate::error::{Error, Result};
use crate::parquet::format::Encoding;
use crate::parquet::format::{
    ColumnChunk, ColumnMetaData, ColumnOrder, FileMetaData, PageType, Statistics, ThriftStruct,
};
use crate::parquet::schema::{ColumnDescriptor, SchemaDescriptor};

/// One row group, as checked at open.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RowGroupInfo {
    pub num_rows: u64,
    /// The index of the row group's first row in the file.
    pub first_row: u64,
    /// From the first byte of its first column chunk to the last of its last.
    pub byte_range: ByteRange,
    pub compressed_size: u64,
    /// The row group's total_byte_size: its uncompressed data.
    pub uncompressed_size: u64,
    /// One per leaf column, in schema order.
    pub chunks: Vec<ChunkInfo>,
}

/// Where a column chunk is and what its metadata promises.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChunkInfo {
    /// Its bytes: from the dictionary page (or first data page) on.
    pub range: ByteRange,
    pub(crate) num_values: u64,
    /// Whether every data page is dictionary-encoded, per the chunk's
    /// encoding_stats; None when it has none.
    pub all_dictionary: Option<bool>,
}

#[derive(Debug)]
pub struct ParquetFile {
    location: Location,
    size: u64,
    source: ChunkSource,
    metadata: FileMetaData,
    schema: SchemaDescriptor,
    nodes: Vec<Result<ArrowNode>>,
    row_groups: Vec<RowGroupInfo>,
}

impl ParquetFile {
    /// Opens a local file: reads and checks its footer.
    pub fn open_path(path: &Path) -> Result<ParquetFile> {
        let name: Arc<str> = path.display().to_string().into();
        let location = Location::file(name);
        let open = || -> Result<_> {
            let file = LocalFile::open(path)?;
            let footer = file.read_footer()?;
            Ok((file, footer))
        };
        let (file, footer) = open().map_err(|e| location.wrap(e))?;
        let size = file.size();
        Self::from_footer(&footer, size, location, ChunkSource::Local(Arc::new(file)))
    }

    /// Opens a file from its footer bytes (the `footer_length` bytes before
    /// its last 8), fetched by the caller, who will also supply the column
    /// chunks. `name` names the file in errors.
    pub fn open_footer(footer: &[u8], file_size: u64, name: &str) -> Result<ParquetFile> {
        let location = Location::file(name.into());
        let room = file_size.saturating_sub(TAIL_LEN + MAGIC.len() as u64);
        if footer.len() as u64 > room {
            return Err(location.wrap(Error::invalid_argument(format!(
                "a footer of {} bytes does not fit a file of {file_size} bytes",
                footer.len()
            ))));
        }
        Self::from_footer(footer, file_size, location, ChunkSource::Caller)
    }

    fn from_footer(
        footer: &[u8],
        size: u64,
        location: Location,
        source: ChunkSource,
    ) -> Result<ParquetFile> {
        let (metadata, _) =
            FileMetaData::decode(footer).map_err(|e| location.wrap(e.context("footer")))?;
        let schema = SchemaDescriptor::new(&metadata.schema)
            .map_err(|e| location.wrap(e.context("footer schema")))?;
        // Column chunks lie between the leading magic and the footer.
        let data_end = size - TAIL_LEN - footer.len() as u64;
        let row_groups = check_row_groups(&metadata, &schema, data_end, &location)?;
        let nodes = top_level_nodes(&schema);
        Ok(ParquetFile {
            location,
            size,
            source,
            metadata,
            schema,
            nodes,
            row_groups,
        })
    }

    /// Names the file in errors.
    pub fn location(&self) -> &Location {
        &self.location
    }

    pub fn size(&self) -> u64 {
        self.size
    }

    pub(crate) fn source(&self) -> &ChunkSource {
        &self.source
    }

    pub(crate) fn metadata(&self) -> &FileMetaData {
        &self.metadata
    }

    pub(crate) fn schema(&self) -> &SchemaDescriptor {
        &self.schema
    }

    pub fn columns(&self) -> &[ColumnDescriptor] {
        self.schema.columns()
    }

    pub fn row_groups(&self) -> &[RowGroupInfo] {
        &self.row_groups
    }

    /// The Arrow node of each top-level field (or why it has none).
    pub(crate) fn nodes(&self) -> &[Result<ArrowNode>] {
        &self.nodes
    }

    /// How many top-level fields the schema has, whether or not a scan can
    /// decode each.
    pub fn num_fields(&self) -> usize {
        self.nodes.len()
    }

    /// The total rows of all row groups.
    pub fn num_rows(&self) -> u64 {
        self.row_groups
            .last()
            .map_or(0, |rg| rg.first_row + rg.num_rows)
    }

    /// The metadata of column `column` in row group `row_group`, checked at
    /// open to exist.
    pub fn chunk_metadata(&self, row_group: usize, column: usize) -> Option<&ColumnMetaData> {
        self.metadata
            .row_groups
            .get(row_group)?
            .columns
            .get(column)?
            .meta_data
            .as_ref()
    }

    /// A column chunk's statistics if min/max may be trusted: absent when the
    /// column's sort order is one this build does not know, as the format asks.
    /// Only the current min_value/max_value fields are reported; the
    /// deprecated min/max (signed order, wrong for strings) are ignored.
    pub fn chunk_statistics(&self, row_group: usize, column: usize) -> Option<&Statistics> {
        let order = self
            .metadata
            .column_orders
            .as_ref()
            .and_then(|orders| orders.get(column));
        if let Some(ColumnOrder::Unrecognized { .. }) = order {
            return None;
        }
        self.chunk_metadata(row_group, column)?.statistics.as_ref()
    }

    /// Decodes the dictionary page of leaf `column` in row group `row_group`
    /// from `bytes`, the chunk's first bytes as the caller read them (at least
    /// the whole dictionary page, at most the chunk), into the Arrow type a
    /// scan without an expected schema gives the column. The field is named
    /// after the leaf and carries its field id. The caller does the I/O, so
    /// pruning can read one page of a chunk it may never scan.
    pub fn dictionary(
        &self,
        row_group: usize,
        column: usize,
        bytes: &[u8],
        verify_crc: bool,
    ) -> Result<(Field, ArrayData)> {
        let descriptor = self
            .columns()
            .get(column)
            .ok_or_else(|| Error::internal("a column index out of range"))?;
        let location = self
            .location
            .row_group(row_group)
            .column(descriptor.path.join(".").into());
        let chunk = self
            .row_groups
            .get(row_group)
            .and_then(|rg| rg.chunks.get(column))
            .ok_or_else(|| Error::internal("a column chunk index out of range"))?;
        let meta = self
            .chunk_metadata(row_group, column)
            .ok_or_else(|| Error::internal("a chunk without metadata"))?;
        // The chunk starts at its dictionary page only when the metadata says
        // so; otherwise the bytes hold no dictionary to read.
        if meta.dictionary_page_offset != Some(chunk.range.offset as i64) {
            return Err(location.wrap(Error::invalid_argument(
                "the column chunk has no dictionary page",
            )));
        }
        if bytes.len() as u64 > chunk.range.len {
            return Err(location.wrap(Error::invalid_argument(format!(
                "{} bytes given for a column chunk of {} bytes",
                bytes.len(),
                chunk.range.len
            ))));
        }
        let (data_type, conversion) = leaf_type(descriptor).map_err(|e| self.location.wrap(e))?;
        let codec = meta.codec.codec().map_err(|e| location.wrap(e))?;
        let mut copy = Vec::new();
        copy.try_reserve_exact(bytes.len()).map_err(|_| {
            Error::out_of_memory(format!(
                "cannot allocate {} bytes for a dictionary page",
                bytes.len()
            ))
        })?;
        copy.extend_from_slice(bytes);
        let len = copy.len();
        let pages = PageReader::new(
            location.clone(),
            codec,
            chunk.num_values,
            PageOptions::new(verify_crc),
        );
        let width = descriptor.type_length.unwrap_or(0).max(0) as usize;
        let chunk = ChunkBytes::memory(Arc::new(copy), 0..len).map_err(|e| location.wrap(e))?;
        let dictionary = read_dictionary_page(pages, chunk, conversion, width)?;
        let array = dictionary
            .to_array(data_type.clone())
            .map_err(|e| location.wrap(e))?;
        let name = descriptor.path.last().map_or("", String::as_str);
        let field = with_field_id(Field::new(name, data_type, false), descriptor.field_id);
        Ok((field, array))
    }

    /// The file's schema as an Arrow struct of its top-level fields; fails
    /// with the first field this build cannot represent.
    pub fn arrow_schema(&self) -> Result<Field> {
        let mut fields = Vec::with_capacity(self.nodes.len());
        for node in &self.nodes {
            let node = node.as_ref().map_err(|e| self.location.wrap(e.clone()))?;
            fields.push(node.field.clone());
        }
        let name = self.metadata.schema.first().map_or("", |root| &root.name);
        Ok(Field::new(name, DataType::Struct, false).with_children(fields))
    }
}

fn check_row_groups(
    metadata: &FileMetaData,
    schema: &SchemaDescriptor,
    data_end: u64,
    location: &Location,
) -> Result<Vec<RowGroupInfo>> {
    let columns = schema.columns();
    let mut first_row = 0u64;
    let mut row_groups = Vec::with_capacity(metadata.row_groups.len());
    for (index, row_group) in metadata.row_groups.iter().enumerate() {
        let location = location.row_group(index);
        let corrupt = |what: String| location.wrap(Error::corrupt_data(what));
        let num_rows = u64::try_from(row_group.num_rows)
            .map_err(|_| corrupt(format!("num_rows is negative ({})", row_group.num_rows)))?;
        if row_group.columns.len() != columns.len() {
            return Err(corrupt(format!(
                "{} column chunks for the schema's {} columns",
                row_group.columns.len(),
                columns.len()
            )));
        }
        let mut chunks = Vec::with_capacity(columns.len());
        for (chunk, column) in row_group.columns.iter().zip(columns) {
            let location = location.column(column.path.join(".").into());
            chunks.push(check_chunk(chunk, column, data_end).map_err(|e| location.wrap(e))?);
        }
        let start = chunks.iter().map(|c| c.range.offset).min().unwrap_or(0);
        let end = chunks.iter().map(|c| c.range.end()).max().unwrap_or(0);
        let compressed_size = chunks.iter().map(|c| c.range.len).sum();
        row_groups.push(RowGroupInfo {
            num_rows,
            first_row,
            byte_range: ByteRange {
                offset: start,
                len: end - start,
            },
            compressed_size,
            uncompressed_size: u64::try_from(row_group.total_byte_size).unwrap_or(0),
            chunks,
        });
        first_row = first_row
            .checked_add(num_rows)
            .ok_or_else(|| corrupt("the file's row count overflows".into()))?;
    }
    Ok(row_groups)
}

fn check_chunk(chunk: &ColumnChunk, column: &ColumnDescriptor, data_end: u64) -> Result<ChunkInfo> {
    if let Some(path) = &chunk.file_path {
        return Err(Error::unsupported(format!(
            "the column chunk is in another file ('{path}'), which is not supported"
        )));
    }
    let Some(meta) = &chunk.meta_data else {
        return Err(Error::unsupported(
            "the column chunk has no metadata (an encrypted column?), which is not supported",
        ));
    };
    if meta.physical_type != column.physical_type {
        return Err(Error::corrupt_data(format!(
            "the column chunk's type {:?} differs from the schema's {:?}",
            meta.physical_type, column.physical_type
        )));
    }
    // Some writers store 0 (or garbage) for an absent dictionary page; a real
    // one always comes before the data pages. Arrow C++ stores data_page_offset
    // 0 for a chunk without data pages, which then starts at its dictionary.
    let start = match meta.dictionary_page_offset {
        Some(offset)
            if offset > 0 && (offset < meta.data_page_offset || meta.data_page_offset == 0) =>
        {
            offset
        }
        _ => meta.data_page_offset,
    };
    let (Ok(start), Ok(len), Ok(num_values)) = (
        u64::try_from(start),
        u64::try_from(meta.total_compressed_size),
        u64::try_from(meta.num_values),
    ) else {
        return Err(Error::corrupt_data(format!(
            "negative offset, size or value count (offset {start}, {} bytes, {} values)",
            meta.total_compressed_size, meta.num_values
        )));
    };
    let first = MAGIC.len() as u64;
    if start < first || start.checked_add(len).is_none_or(|end| end > data_end) {
        return Err(Error::corrupt_data(format!(
            "the column chunk's bytes [{start}, {start}+{len}) lie outside the file's data \
             [{first}, {data_end})"
        )));
    }
    let all_dictionary = meta.encoding_stats.as_ref().map(|stats| {
        stats
            .iter()
            .filter(|s| matches!(s.page_type, PageType::DataPage | PageType::DataPageV2))
            .all(|s| {
                matches!(
                    s.encoding,
                    Encoding::PlainDictionary | Encoding::RleDictionary
                )
            })
    });
    Ok(ChunkInfo {
        range: ByteRange { offset: start, len },
        num_values,
        all_dictionary,
    })
}
