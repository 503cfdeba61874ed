//! A minimal Parquet writer for tests, built on the format layer's encoders:
//! v1 and v2 data pages, every value encoding, every codec, dictionaries with
//! fallback to PLAIN, checksums, nulls and nesting (from levels the test
//! supplies). It writes what it is told, so tests can also write what no real
//! writer would.

use std::collections::HashMap;

use crate::compression::Codec;
use crate::parquet::crc::crc32_of;
use crate::parquet::encodings::delta::{
    DeltaBinaryPackedEncoder, DeltaByteArrayEncoder, DeltaLengthByteArrayEncoder,
};
use crate::parquet::encodings::plain::PlainBooleanEncoder;
use crate::parquet::encodings::rle::{encode_dictionary_indices, encode_rle_booleans};
use crate::parquet::format::{
    ColumnChunk, ColumnMetaData, CompressionCodec, DataPageHeader, DataPageHeaderV2,
    DictionaryPageHeader, Encoding, FileMetaData, PageEncodingStats, PageType, PhysicalType,
    RowGroup, Statistics, ThriftStruct,
};
use crate::test_support::encodings::{
    encode_byte_stream_split, encode_byte_stream_split_values, encode_levels_v1, encode_levels_v2,
    encode_plain, encode_plain_byte_array, encode_plain_fixed_len,
};

/// The schema elements a test writes and the page headers it may edit: the
/// footer's and the pages' structures of parquet.thrift, which the library
/// does not otherwise expose.
pub use crate::parquet::format::{PageHeader, SchemaElement};

/// A leaf's non-null values, in order.
#[derive(Debug, Clone, PartialEq)]
pub enum Values {
    Bool(Vec<bool>),
    I32(Vec<i32>),
    I64(Vec<i64>),
    I96(Vec<[u8; 12]>),
    F32(Vec<f32>),
    F64(Vec<f64>),
    Bytes(Vec<Vec<u8>>),
    Fixed(usize, Vec<Vec<u8>>),
}

impl Values {
    pub fn len(&self) -> usize {
        match self {
            Values::Bool(v) => v.len(),
            Values::I32(v) => v.len(),
            Values::I64(v) => v.len(),
            Values::I96(v) => v.len(),
            Values::F32(v) => v.len(),
            Values::F64(v) => v.len(),
            Values::Bytes(v) | Values::Fixed(_, v) => v.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn physical(&self) -> PhysicalType {
        match self {
            Values::Bool(_) => PhysicalType::Boolean,
            Values::I32(_) => PhysicalType::Int32,
            Values::I64(_) => PhysicalType::Int64,
            Values::I96(_) => PhysicalType::Int96,
            Values::F32(_) => PhysicalType::Float,
            Values::F64(_) => PhysicalType::Double,
            Values::Bytes(_) => PhysicalType::ByteArray,
            Values::Fixed(..) => PhysicalType::FixedLenByteArray,
        }
    }

    /// Values `range`, as a new `Values`.
    fn slice(&self, range: std::ops::Range<usize>) -> Values {
        match self {
            Values::Bool(v) => Values::Bool(v[range].to_vec()),
            Values::I32(v) => Values::I32(v[range].to_vec()),
            Values::I64(v) => Values::I64(v[range].to_vec()),
            Values::I96(v) => Values::I96(v[range].to_vec()),
            Values::F32(v) => Values::F32(v[range].to_vec()),
            Values::F64(v) => Values::F64(v[range].to_vec()),
            Values::Bytes(v) => Values::Bytes(v[range].to_vec()),
            Values::Fixed(w, v) => Values::Fixed(*w, v[range].to_vec()),
        }
    }

    /// The values at `indices`, in that order.
    fn pick(&self, indices: &[usize]) -> Values {
        fn pick<T: Clone>(v: &[T], indices: &[usize]) -> Vec<T> {
            indices.iter().map(|&i| v[i].clone()).collect()
        }
        match self {
            Values::Bool(v) => Values::Bool(pick(v, indices)),
            Values::I32(v) => Values::I32(pick(v, indices)),
            Values::I64(v) => Values::I64(pick(v, indices)),
            Values::I96(v) => Values::I96(pick(v, indices)),
            Values::F32(v) => Values::F32(pick(v, indices)),
            Values::F64(v) => Values::F64(pick(v, indices)),
            Values::Bytes(v) => Values::Bytes(pick(v, indices)),
            Values::Fixed(w, v) => Values::Fixed(*w, pick(v, indices)),
        }
    }

    /// Value `i`'s PLAIN bytes, for dictionary lookups.
    fn key(&self, i: usize) -> Vec<u8> {
        let mut out = Vec::new();
        self.slice(i..i + 1).plain(&mut out);
        out
    }

    fn plain(&self, out: &mut Vec<u8>) {
        match self {
            Values::Bool(v) => {
                let mut encoder = PlainBooleanEncoder::new();
                encoder.put(v, out);
                encoder.finish(out);
            }
            Values::I32(v) => encode_plain(v, out),
            Values::I64(v) => encode_plain(v, out),
            Values::I96(v) => encode_plain_fixed_len(v.as_flattened(), 12, out).unwrap(),
            Values::F32(v) => encode_plain(v, out),
            Values::F64(v) => encode_plain(v, out),
            Values::Bytes(v) => {
                for value in v {
                    encode_plain_byte_array(value, out).unwrap();
                }
            }
            Values::Fixed(w, v) => encode_plain_fixed_len(&v.concat(), *w, out).unwrap(),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ValueEncoding {
    Plain,
    /// Dictionary pages first, then PLAIN once `dictionary_pages` pages are written.
    Dictionary,
    /// RLE booleans.
    Rle,
    DeltaBinaryPacked,
    DeltaLengthByteArray,
    DeltaByteArray,
    ByteStreamSplit,
}

/// One leaf column: its levels and values, and how to write them.
#[derive(Debug, Clone)]
pub struct Column {
    pub max_def: i16,
    pub max_rep: i16,
    /// One per entry; empty when `max_def` is 0 (every entry is a value).
    pub def: Vec<i16>,
    /// One per entry; empty when `max_rep` is 0 (every entry is a row).
    pub rep: Vec<i16>,
    pub values: Values,
    pub encoding: ValueEncoding,
    /// With [`ValueEncoding::Dictionary`]: pages per chunk encoded with the
    /// dictionary before falling back to PLAIN (None: all of them).
    pub dictionary_pages: Option<usize>,
}

impl Column {
    /// A column without repetition: `None` entries are nulls.
    pub fn flat(max_def: i16, values: Values, valid: &[bool]) -> Column {
        let def = if max_def == 0 {
            vec![]
        } else {
            valid
                .iter()
                .map(|&v| if v { max_def } else { max_def - 1 })
                .collect()
        };
        Column {
            max_def,
            max_rep: 0,
            def,
            rep: vec![],
            values,
            encoding: ValueEncoding::Plain,
            dictionary_pages: None,
        }
    }

    pub fn encoded(mut self, encoding: ValueEncoding) -> Column {
        self.encoding = encoding;
        self
    }

    fn entries(&self) -> usize {
        if self.max_def > 0 {
            self.def.len()
        } else if self.max_rep > 0 {
            self.rep.len()
        } else {
            self.values.len()
        }
    }

    /// The entry index where each row starts.
    fn row_starts(&self) -> Vec<usize> {
        if self.max_rep == 0 {
            (0..self.entries()).collect()
        } else {
            (0..self.rep.len()).filter(|&i| self.rep[i] == 0).collect()
        }
    }

    fn is_value(&self, entry: usize) -> bool {
        self.max_def == 0 || self.def[entry] == self.max_def
    }
}

#[derive(Debug, Clone)]
pub struct Options {
    pub codec: Codec,
    pub page_version: u8,
    /// Level entries per data page at most; v1 pages may split a row, v2
    /// pages end at row boundaries.
    pub entries_per_page: usize,
    pub rows_per_row_group: usize,
    pub crc: bool,
    pub encoding_stats: bool,
    /// Write `null_count` (and PLAIN min/max of the first and last value) as
    /// chunk statistics.
    pub statistics: bool,
    /// Called with (column, page ordinal, header) before each page header is
    /// written, to write damaged or unusual headers.
    pub edit_header: Option<fn(usize, usize, &mut PageHeader)>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            codec: Codec::Uncompressed,
            page_version: 1,
            entries_per_page: 1000,
            rows_per_row_group: usize::MAX,
            crc: true,
            encoding_stats: true,
            statistics: true,
            edit_header: None,
        }
    }
}

/// Where the pages of a written column chunk are, for tests that damage them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PageSpan {
    pub row_group: usize,
    pub column: usize,
    pub ordinal: usize,
    /// The header's offset in the file, and the body's.
    pub header: usize,
    pub body: usize,
    pub body_len: usize,
}

pub struct Written {
    pub bytes: Vec<u8>,
    pub pages: Vec<PageSpan>,
    pub metadata: FileMetaData,
}

fn encode_values(values: &Values, encoding: ValueEncoding, out: &mut Vec<u8>) {
    match (encoding, values) {
        (ValueEncoding::Plain | ValueEncoding::Dictionary, _) => values.plain(out),
        (ValueEncoding::Rle, Values::Bool(v)) => encode_rle_booleans(v, out).unwrap(),
        (ValueEncoding::DeltaBinaryPacked, Values::I32(v)) => {
            let mut e = DeltaBinaryPackedEncoder::<i32>::new();
            e.put(v);
            e.finish(out);
        }
        (ValueEncoding::DeltaBinaryPacked, Values::I64(v)) => {
            let mut e = DeltaBinaryPackedEncoder::<i64>::new();
            e.put(v);
            e.finish(out);
        }
        (ValueEncoding::DeltaLengthByteArray, Values::Bytes(v)) => {
            let mut e = DeltaLengthByteArrayEncoder::default();
            for value in v {
                e.put(value).unwrap();
            }
            e.finish(out);
        }
        (ValueEncoding::DeltaByteArray, Values::Bytes(v) | Values::Fixed(_, v)) => {
            let mut e = DeltaByteArrayEncoder::new();
            for value in v {
                e.put(value).unwrap();
            }
            e.finish(out);
        }
        (ValueEncoding::ByteStreamSplit, Values::F32(v)) => encode_byte_stream_split_values(v, out),
        (ValueEncoding::ByteStreamSplit, Values::F64(v)) => encode_byte_stream_split_values(v, out),
        (ValueEncoding::ByteStreamSplit, Values::I32(v)) => encode_byte_stream_split_values(v, out),
        (ValueEncoding::ByteStreamSplit, Values::I64(v)) => encode_byte_stream_split_values(v, out),
        (ValueEncoding::ByteStreamSplit, Values::Fixed(w, v)) => {
            encode_byte_stream_split(&v.concat(), *w, out).unwrap()
        }
        (encoding, values) => panic!("{encoding:?} cannot encode {:?}", values.physical()),
    }
}

fn thrift_encoding(encoding: ValueEncoding) -> Encoding {
    match encoding {
        ValueEncoding::Plain => Encoding::Plain,
        ValueEncoding::Dictionary => Encoding::RleDictionary,
        ValueEncoding::Rle => Encoding::Rle,
        ValueEncoding::DeltaBinaryPacked => Encoding::DeltaBinaryPacked,
        ValueEncoding::DeltaLengthByteArray => Encoding::DeltaLengthByteArray,
        ValueEncoding::DeltaByteArray => Encoding::DeltaByteArray,
        ValueEncoding::ByteStreamSplit => Encoding::ByteStreamSplit,
    }
}

fn compress(codec: Codec, data: &[u8]) -> Vec<u8> {
    let mut out = vec![0; codec.max_compressed_len(data.len()).unwrap()];
    let n = codec.compress(0, data, &mut out).unwrap();
    out.truncate(n);
    out
}

fn header(page_type: PageType, uncompressed: usize, body: &[u8], crc: bool) -> PageHeader {
    PageHeader {
        page_type,
        uncompressed_page_size: uncompressed as i32,
        compressed_page_size: body.len() as i32,
        crc: crc.then(|| crc32_of(body) as i32),
        data_page_header: None,
        has_index_page_header: false,
        dictionary_page_header: None,
        data_page_header_v2: None,
    }
}

/// Writes a file of `schema` (a depth-first element list, root first) and one
/// [`Column`] per leaf, in schema order.
pub fn write_file(schema: &[SchemaElement], columns: &[Column], options: &Options) -> Written {
    let mut out = b"PAR1".to_vec();
    let mut pages = Vec::new();
    let row_starts: Vec<Vec<usize>> = columns.iter().map(Column::row_starts).collect();
    let rows = row_starts.first().map_or(0, Vec::len);
    for (c, starts) in row_starts.iter().enumerate() {
        assert_eq!(starts.len(), rows, "column {c} has a different row count");
    }
    let leaf_names: Vec<Vec<String>> = leaf_paths(schema);
    let mut row_groups = Vec::new();
    let mut first = 0;
    while first < rows || (rows == 0 && row_groups.is_empty()) {
        let last = first.saturating_add(options.rows_per_row_group).min(rows);
        let mut chunks = Vec::new();
        let mut total = 0;
        for (c, column) in columns.iter().enumerate() {
            let starts = &row_starts[c];
            let entry_start = starts.get(first).copied().unwrap_or(column.entries());
            let entry_end = starts.get(last).copied().unwrap_or(column.entries());
            let (chunk, chunk_pages, size) = write_chunk(
                &mut out,
                c,
                column,
                entry_start..entry_end,
                &leaf_names[c],
                options,
            );
            total += size;
            for (ordinal, (header, body, body_len)) in chunk_pages.into_iter().enumerate() {
                pages.push(PageSpan {
                    row_group: row_groups.len(),
                    column: c,
                    ordinal,
                    header,
                    body,
                    body_len,
                });
            }
            chunks.push(chunk);
        }
        row_groups.push(RowGroup {
            columns: chunks,
            total_byte_size: total as i64,
            num_rows: (last - first) as i64,
            sorting_columns: None,
            file_offset: None,
            total_compressed_size: None,
            ordinal: Some(row_groups.len() as i16),
        });
        first = last;
        if rows == 0 {
            break;
        }
    }
    let metadata = FileMetaData {
        version: 1,
        schema: schema.to_vec(),
        num_rows: rows as i64,
        row_groups,
        key_value_metadata: None,
        created_by: Some("isthmus test writer".into()),
        column_orders: None,
    };
    let mut footer = Vec::new();
    metadata.encode(&mut footer).unwrap();
    out.extend_from_slice(&footer);
    out.extend_from_slice(&(footer.len() as u32).to_le_bytes());
    out.extend_from_slice(b"PAR1");
    Written {
        bytes: out,
        pages,
        metadata,
    }
}

fn leaf_paths(schema: &[SchemaElement]) -> Vec<Vec<String>> {
    let mut paths = Vec::new();
    let mut stack: Vec<(String, i32)> = Vec::new();
    for (i, element) in schema.iter().enumerate() {
        if i > 0 {
            while let Some(top) = stack.last_mut() {
                if top.1 > 0 {
                    top.1 -= 1;
                    break;
                }
                stack.pop();
            }
        }
        match element.num_children {
            Some(n) if element.physical_type.is_none() => stack.push((element.name.clone(), n)),
            _ => {
                let mut path: Vec<String> = stack.iter().skip(1).map(|(n, _)| n.clone()).collect();
                path.push(element.name.clone());
                paths.push(path);
            }
        }
    }
    paths
}

/// Writes one column chunk of `entries`; returns its metadata, its pages
/// (header offset, body offset, body length) and its uncompressed size.
fn write_chunk(
    out: &mut Vec<u8>,
    index: usize,
    column: &Column,
    entries: std::ops::Range<usize>,
    path: &[String],
    options: &Options,
) -> (ColumnChunk, Vec<(usize, usize, usize)>, usize) {
    let value_index = |entry: usize| (0..entry).filter(|&e| column.is_value(e)).count();
    let values = column
        .values
        .slice(value_index(entries.start)..value_index(entries.end));
    let chunk_start = out.len();
    let mut spans = Vec::new();
    let mut uncompressed_total = 0;
    let mut stats = Vec::new();
    let mut encodings = vec![Encoding::Rle];
    // The dictionary: distinct values in first-seen order, and each value's index.
    let dictionary = (column.encoding == ValueEncoding::Dictionary).then(|| {
        let mut index: HashMap<Vec<u8>, u32> = HashMap::new();
        let mut order = Vec::new();
        let ids: Vec<u32> = (0..values.len())
            .map(|i| {
                let key = values.key(i);
                *index.entry(key).or_insert_with(|| {
                    order.push(i);
                    order.len() as u32 - 1
                })
            })
            .collect();
        (order, ids)
    });
    let mut dictionary_page_offset = None;
    if let Some((order, _)) = &dictionary {
        let mut plain = Vec::new();
        values.pick(order).plain(&mut plain);
        let body = compress(options.codec, &plain);
        let mut page = header(PageType::DictionaryPage, plain.len(), &body, options.crc);
        page.dictionary_page_header = Some(DictionaryPageHeader {
            num_values: order.len() as i32,
            encoding: if options.page_version == 1 {
                Encoding::PlainDictionary
            } else {
                Encoding::Plain
            },
            is_sorted: None,
        });
        dictionary_page_offset = Some(out.len() as i64);
        if let Some(edit) = options.edit_header {
            edit(index, spans.len(), &mut page);
        }
        let at = out.len();
        page.encode(out).unwrap();
        spans.push((at, out.len(), body.len()));
        out.extend_from_slice(&body);
        uncompressed_total += plain.len();
        stats.push((PageType::DictionaryPage, Encoding::PlainDictionary));
        encodings.push(Encoding::PlainDictionary);
    }
    let data_page_offset = out.len() as i64;
    // Page boundaries: every entries_per_page entries (v1), or the last row
    // start within that many (v2).
    let mut bounds = vec![entries.start];
    let mut at = entries.start;
    while at < entries.end {
        let mut end = (at + options.entries_per_page.max(1)).min(entries.end);
        if options.page_version == 2 && end < entries.end && column.max_rep > 0 {
            while end > at + 1 && column.rep[end] != 0 {
                end -= 1;
            }
            if column.rep[end] != 0 {
                end = (end..entries.end)
                    .find(|&e| column.rep[e] == 0)
                    .unwrap_or(entries.end);
            }
        }
        bounds.push(end);
        at = end;
    }
    let mut next_value = 0;
    for (p, window) in bounds.windows(2).enumerate() {
        let (start, end) = (window[0], window[1]);
        let count = (start..end).filter(|&e| column.is_value(e)).count();
        let page_values = values.slice(next_value..next_value + count);
        let use_dictionary = dictionary.is_some() && column.dictionary_pages.is_none_or(|n| p < n);
        let mut value_bytes = Vec::new();
        let encoding = if use_dictionary {
            let (order, ids) = dictionary.as_ref().unwrap();
            encode_dictionary_indices(
                &ids[next_value..next_value + count],
                order.len(),
                &mut value_bytes,
            )
            .unwrap();
            if options.page_version == 1 {
                Encoding::PlainDictionary
            } else {
                Encoding::RleDictionary
            }
        } else {
            let encoding = if column.encoding == ValueEncoding::Dictionary {
                ValueEncoding::Plain
            } else {
                column.encoding
            };
            encode_values(&page_values, encoding, &mut value_bytes);
            thrift_encoding(encoding)
        };
        next_value += count;
        let def = if column.max_def > 0 {
            &column.def[start..end]
        } else {
            &[][..]
        };
        let rep = if column.max_rep > 0 {
            &column.rep[start..end]
        } else {
            &[][..]
        };
        let num_rows = if column.max_rep > 0 {
            rep.iter().filter(|&&r| r == 0).count()
        } else {
            end - start
        };
        let (page, body, uncompressed) = if options.page_version == 1 {
            let mut plain = Vec::new();
            encode_levels_v1(rep, column.max_rep, &mut plain).unwrap();
            encode_levels_v1(def, column.max_def, &mut plain).unwrap();
            plain.extend_from_slice(&value_bytes);
            let body = compress(options.codec, &plain);
            let mut page = header(PageType::DataPage, plain.len(), &body, options.crc);
            page.data_page_header = Some(DataPageHeader {
                num_values: (end - start) as i32,
                encoding,
                definition_level_encoding: Encoding::Rle,
                repetition_level_encoding: Encoding::Rle,
                statistics: None,
            });
            (page, body, plain.len())
        } else {
            let mut body = Vec::new();
            let rep_len = encode_levels_v2(rep, column.max_rep, &mut body).unwrap();
            let def_len = encode_levels_v2(def, column.max_def, &mut body).unwrap();
            body.extend_from_slice(&compress(options.codec, &value_bytes));
            let uncompressed = rep_len + def_len + value_bytes.len();
            let mut page = header(PageType::DataPageV2, uncompressed, &body, options.crc);
            page.data_page_header_v2 = Some(DataPageHeaderV2 {
                num_values: (end - start) as i32,
                num_nulls: (end - start - count) as i32,
                num_rows: num_rows as i32,
                encoding,
                definition_levels_byte_length: def_len as i32,
                repetition_levels_byte_length: rep_len as i32,
                is_compressed: true,
                statistics: None,
            });
            (page, body, uncompressed)
        };
        let mut page = page;
        if let Some(edit) = options.edit_header {
            edit(index, spans.len(), &mut page);
        }
        let at = out.len();
        page.encode(out).unwrap();
        spans.push((at, out.len(), body.len()));
        out.extend_from_slice(&body);
        uncompressed_total += uncompressed;
        let page_type = if options.page_version == 1 {
            PageType::DataPage
        } else {
            PageType::DataPageV2
        };
        stats.push((page_type, encoding));
        if !encodings.contains(&encoding) {
            encodings.push(encoding);
        }
    }
    let nulls = (entries.clone())
        .filter(|&e| column.max_def > 0 && column.def[e] < column.max_def)
        .count();
    let mut encoding_stats: Vec<PageEncodingStats> = Vec::new();
    for (page_type, encoding) in stats {
        match encoding_stats
            .iter_mut()
            .find(|s| s.page_type == page_type && s.encoding == encoding)
        {
            Some(s) => s.count += 1,
            None => encoding_stats.push(PageEncodingStats {
                page_type,
                encoding,
                count: 1,
            }),
        }
    }
    let statistics = options.statistics.then(|| {
        let bound = |i: usize| {
            let key = values.key(i);
            // Byte arrays' statistics have no length prefix.
            match values {
                Values::Bytes(_) => key[4..].to_vec(),
                _ => key,
            }
        };
        Statistics {
            null_count: Some(nulls as i64),
            min_value: (!values.is_empty()).then(|| bound(0)),
            max_value: (!values.is_empty()).then(|| bound(values.len() - 1)),
            ..Statistics::default()
        }
    });
    let compressed = out.len() - chunk_start;
    let meta = ColumnMetaData {
        physical_type: column.values.physical(),
        encodings,
        path_in_schema: path.to_vec(),
        codec: CompressionCodec::from_thrift(options.codec.id()),
        num_values: (entries.end - entries.start) as i64,
        total_uncompressed_size: uncompressed_total as i64,
        total_compressed_size: compressed as i64,
        key_value_metadata: None,
        data_page_offset,
        index_page_offset: None,
        dictionary_page_offset,
        statistics,
        encoding_stats: options.encoding_stats.then_some(encoding_stats),
        bloom_filter_offset: None,
        bloom_filter_length: None,
    };
    (
        ColumnChunk {
            file_path: None,
            file_offset: 0,
            meta_data: Some(meta),
            offset_index_offset: None,
            offset_index_length: None,
            column_index_offset: None,
            column_index_length: None,
        },
        spans,
        uncompressed_total,
    )
}
