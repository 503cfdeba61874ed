//! A small, slow, independent Parquet reader for the encoder's tests: it walks a
//! file with the format layer only (footer, page headers, codecs, the value and
//! level decoders) and returns every page header and every value, so tests can
//! compare what the encoder wrote with what it was given.
//!
//! Flat schemas only (every leaf a child of the root), which is what the encoder
//! writes today.

use crate::compression::Codec;
use crate::parquet::crc::crc32_of;
use crate::parquet::encodings::delta::{
    DeltaBinaryPackedDecoder, DeltaByteArrayDecoder, DeltaLengthByteArrayDecoder,
};
use crate::parquet::encodings::levels::LevelDecoder;
use crate::parquet::encodings::plain::{PlainBooleanDecoder, PlainDecoder};
use crate::parquet::encodings::rle::RleDecoder;
use crate::parquet::encodings::ByteArraySink;
use crate::parquet::format::{
    ColumnChunk, ColumnIndex, Encoding, FileMetaData, OffsetIndex, PageHeader, PageType,
    PhysicalType, ThriftStruct,
};
use crate::parquet::read::column::plain_bytes::PlainByteArrays;
use crate::parquet::schema::{ColumnDescriptor, SchemaDescriptor};

/// One decoded value in its physical type.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Bool(bool),
    I32(i32),
    I64(i64),
    F32(f32),
    F64(f64),
    Bytes(Vec<u8>),
}

impl Value {
    /// Equality that treats NaN as equal to NaN with the same bits.
    pub fn same(&self, other: &Value) -> bool {
        match (self, other) {
            (Value::F32(a), Value::F32(b)) => a.to_bits() == b.to_bits(),
            (Value::F64(a), Value::F64(b)) => a.to_bits() == b.to_bits(),
            _ => self == other,
        }
    }

    /// The PLAIN encoding without a length prefix, as statistics store values.
    pub fn stat_bytes(&self) -> Vec<u8> {
        match self {
            Value::Bool(b) => vec![u8::from(*b)],
            Value::I32(v) => v.to_le_bytes().to_vec(),
            Value::I64(v) => v.to_le_bytes().to_vec(),
            Value::F32(v) => v.to_le_bytes().to_vec(),
            Value::F64(v) => v.to_le_bytes().to_vec(),
            Value::Bytes(v) => v.clone(),
        }
    }
}

/// A page as found in the file.
#[derive(Debug, Clone)]
pub struct PageInfo {
    /// File offset of the page header.
    pub offset: u64,
    pub header_len: usize,
    pub header: PageHeader,
    /// The value encoding (data pages) or the dictionary's encoding.
    pub encoding: Encoding,
    /// Rows in the page (data pages).
    pub rows: usize,
    pub nulls: usize,
}

#[derive(Debug, Clone)]
pub struct Chunk {
    pub pages: Vec<PageInfo>,
    pub values: Vec<Option<Value>>,
    pub dictionary_len: Option<usize>,
}

pub struct ParquetFile {
    pub bytes: Vec<u8>,
    pub metadata: FileMetaData,
    pub schema: SchemaDescriptor,
    /// `row_groups[rg][column]`.
    pub row_groups: Vec<Vec<Chunk>>,
}

impl ParquetFile {
    pub fn column(&self, index: usize) -> &ColumnDescriptor {
        &self.schema.columns()[index]
    }

    /// Every value of a column across row groups.
    pub fn values(&self, column: usize) -> Vec<Option<Value>> {
        self.row_groups
            .iter()
            .flat_map(|rg| rg[column].values.iter().cloned())
            .collect()
    }

    pub fn chunk_meta(&self, rg: usize, column: usize) -> &ColumnChunk {
        &self.metadata.row_groups[rg].columns[column]
    }

    pub fn column_index(&self, rg: usize, column: usize) -> Option<ColumnIndex> {
        let chunk = self.chunk_meta(rg, column);
        let (offset, len) = (chunk.column_index_offset?, chunk.column_index_length?);
        let bytes = &self.bytes[offset as usize..offset as usize + len as usize];
        let (index, used) = ColumnIndex::decode(bytes).expect("column index");
        assert_eq!(used, bytes.len(), "column index length");
        Some(index)
    }

    pub fn offset_index(&self, rg: usize, column: usize) -> Option<OffsetIndex> {
        let chunk = self.chunk_meta(rg, column);
        let (offset, len) = (chunk.offset_index_offset?, chunk.offset_index_length?);
        let bytes = &self.bytes[offset as usize..offset as usize + len as usize];
        let (index, used) = OffsetIndex::decode(bytes).expect("offset index");
        assert_eq!(used, bytes.len(), "offset index length");
        Some(index)
    }
}

/// Parses and decodes a whole file, checking the framing, every CRC and the
/// counts that the footer and the page headers state.
pub fn read_file(bytes: &[u8]) -> ParquetFile {
    assert!(
        bytes.len() >= 12,
        "{} bytes are no Parquet file",
        bytes.len()
    );
    assert_eq!(&bytes[..4], b"PAR1", "leading magic");
    assert_eq!(&bytes[bytes.len() - 4..], b"PAR1", "trailing magic");
    let footer_len =
        u32::from_le_bytes(bytes[bytes.len() - 8..bytes.len() - 4].try_into().unwrap()) as usize;
    let footer_start = bytes.len() - 8 - footer_len;
    let (metadata, used) =
        FileMetaData::decode(&bytes[footer_start..bytes.len() - 8]).expect("footer");
    assert_eq!(used, footer_len, "footer length");
    let schema = SchemaDescriptor::new(&metadata.schema).expect("schema");
    let mut row_groups = Vec::new();
    let mut total_rows = 0;
    for rg in &metadata.row_groups {
        assert_eq!(rg.columns.len(), schema.columns().len());
        let mut chunks = Vec::new();
        for (chunk, column) in rg.columns.iter().zip(schema.columns()) {
            let chunk = read_chunk(bytes, chunk, column);
            assert_eq!(
                chunk.values.len() as i64,
                rg.num_rows,
                "rows of {:?}",
                column.path
            );
            chunks.push(chunk);
        }
        total_rows += rg.num_rows;
        row_groups.push(chunks);
    }
    assert_eq!(total_rows, metadata.num_rows);
    ParquetFile {
        bytes: bytes.to_vec(),
        metadata,
        schema,
        row_groups,
    }
}

struct Sink<'a>(&'a mut Vec<Value>);

impl ByteArraySink for Sink<'_> {
    fn push(&mut self, value: &[u8]) -> crate::error::Result<()> {
        self.0.push(Value::Bytes(value.to_vec()));
        Ok(())
    }
}

fn read_chunk(bytes: &[u8], chunk: &ColumnChunk, column: &ColumnDescriptor) -> Chunk {
    let meta = chunk.meta_data.as_ref().expect("column metadata");
    assert_eq!(meta.physical_type, column.physical_type);
    assert_eq!(meta.path_in_schema, column.path);
    assert_eq!(column.max_rep_level, 0, "flat schemas only");
    let codec = meta.codec.codec().expect("codec");
    let start = meta.dictionary_page_offset.unwrap_or(meta.data_page_offset) as usize;
    if let Some(dictionary) = meta.dictionary_page_offset {
        assert!(dictionary < meta.data_page_offset);
    }
    let end = start + meta.total_compressed_size as usize;
    let mut pos = start;
    let mut pages = Vec::new();
    let mut values = Vec::new();
    let mut dictionary: Option<Vec<Value>> = None;
    let mut uncompressed_total = 0;
    while pos < end {
        let (header, header_len) = PageHeader::decode(&bytes[pos..end]).expect("page header");
        let body_start = pos + header_len;
        let body = &bytes[body_start..body_start + header.compressed_page_size as usize];
        if let Some(crc) = header.crc {
            assert_eq!(crc32_of(body), crc as u32, "page CRC at {pos}");
        }
        uncompressed_total += header_len + header.uncompressed_page_size as usize;
        let mut info = PageInfo {
            offset: pos as u64,
            header_len,
            header: header.clone(),
            encoding: Encoding::Plain,
            rows: 0,
            nulls: 0,
        };
        match header.page_type {
            PageType::DictionaryPage => {
                assert!(dictionary.is_none(), "second dictionary page");
                assert!(pages.is_empty(), "the dictionary page comes first");
                assert_eq!(pos as i64, meta.dictionary_page_offset.expect("offset"));
                let dict = header.dictionary_page_header.as_ref().unwrap();
                info.encoding = dict.encoding;
                let data = decompress(codec, body, header.uncompressed_page_size as usize);
                let n = dict.num_values as usize;
                let mut out = Vec::new();
                decode_values(Encoding::Plain, column, &data, n, None, &mut out);
                assert_eq!(out.len(), n);
                dictionary = Some(out);
            }
            PageType::DataPage => {
                if pages
                    .iter()
                    .all(|p: &PageInfo| p.header.page_type == PageType::DictionaryPage)
                {
                    assert_eq!(pos as i64, meta.data_page_offset, "first data page offset");
                }
                let h = header.data_page_header.as_ref().unwrap();
                info.encoding = h.encoding;
                let data = decompress(codec, body, header.uncompressed_page_size as usize);
                let n = h.num_values as usize;
                let (mut levels, used) =
                    LevelDecoder::v1(h.definition_level_encoding, column.max_def_level, n, &data)
                        .expect("definition levels");
                let mut defs = vec![0i16; n];
                assert_eq!(levels.read(&mut defs).unwrap(), n);
                let present = defs.iter().filter(|&&d| d == column.max_def_level).count();
                let mut out = Vec::new();
                decode_values(
                    h.encoding,
                    column,
                    &data[used..],
                    present,
                    dictionary.as_deref(),
                    &mut out,
                );
                info.rows = n;
                info.nulls = n - present;
                spread(&defs, column.max_def_level, out, &mut values);
            }
            PageType::DataPageV2 => {
                let h = header.data_page_header_v2.as_ref().unwrap();
                info.encoding = h.encoding;
                let n = h.num_values as usize;
                assert_eq!(h.num_rows, h.num_values, "flat columns: one value per row");
                let rep_len = h.repetition_levels_byte_length as usize;
                let def_len = h.definition_levels_byte_length as usize;
                assert_eq!(rep_len, 0);
                let levels = &body[..def_len];
                let mut decoder =
                    LevelDecoder::v2(column.max_def_level, n, levels).expect("v2 levels");
                let mut defs = vec![0i16; n];
                assert_eq!(decoder.read(&mut defs).unwrap(), n);
                let present = defs.iter().filter(|&&d| d == column.max_def_level).count();
                assert_eq!(h.num_nulls as usize, n - present, "num_nulls");
                let values_uncompressed =
                    header.uncompressed_page_size as usize - def_len - rep_len;
                let data = if h.is_compressed {
                    decompress(codec, &body[def_len..], values_uncompressed)
                } else {
                    body[def_len..].to_vec()
                };
                let mut out = Vec::new();
                decode_values(
                    h.encoding,
                    column,
                    &data,
                    present,
                    dictionary.as_deref(),
                    &mut out,
                );
                info.rows = n;
                info.nulls = n - present;
                spread(&defs, column.max_def_level, out, &mut values);
            }
            other => panic!("unexpected page type {other:?}"),
        }
        pages.push(info);
        pos = body_start + header.compressed_page_size as usize;
    }
    assert_eq!(pos, end, "pages end where the chunk does");
    assert_eq!(
        meta.total_uncompressed_size as usize, uncompressed_total,
        "total_uncompressed_size"
    );
    assert_eq!(meta.num_values as usize, values.len(), "num_values");
    Chunk {
        pages,
        values,
        dictionary_len: dictionary.map(|d| d.len()),
    }
}

fn spread(defs: &[i16], max: i16, present: Vec<Value>, out: &mut Vec<Option<Value>>) {
    let mut present = present.into_iter();
    for &d in defs {
        out.push(if d == max {
            Some(present.next().expect("enough values"))
        } else {
            None
        });
    }
    assert!(present.next().is_none(), "more values than levels allow");
}

fn decompress(codec: Codec, body: &[u8], size: usize) -> Vec<u8> {
    let mut out = vec![0u8; size];
    let n = codec.decompress(body, &mut out).expect("decompress");
    assert_eq!(n, size, "decompressed size");
    out
}

fn decode_values(
    encoding: Encoding,
    column: &ColumnDescriptor,
    data: &[u8],
    n: usize,
    dictionary: Option<&[Value]>,
    out: &mut Vec<Value>,
) {
    match encoding {
        Encoding::PlainDictionary | Encoding::RleDictionary => {
            let dictionary = dictionary.expect("a dictionary page");
            let mut decoder = RleDecoder::dictionary_indices(data, n).expect("indices");
            let mut indices = vec![0u32; n];
            assert_eq!(decoder.read(&mut indices).unwrap(), n);
            out.extend(indices.iter().map(|&i| dictionary[i as usize].clone()));
        }
        Encoding::Plain => match column.physical_type {
            PhysicalType::Boolean => {
                let mut decoder = PlainBooleanDecoder::new(data, n).unwrap();
                let mut bools = vec![false; n];
                decoder.read(&mut bools).unwrap();
                out.extend(bools.into_iter().map(Value::Bool));
            }
            PhysicalType::Int32 => {
                let mut v = vec![0i32; n];
                PlainDecoder::new(data, n).read(&mut v).unwrap();
                out.extend(v.into_iter().map(Value::I32));
            }
            PhysicalType::Int64 => {
                let mut v = vec![0i64; n];
                PlainDecoder::new(data, n).read(&mut v).unwrap();
                out.extend(v.into_iter().map(Value::I64));
            }
            PhysicalType::Float => {
                let mut v = vec![0f32; n];
                PlainDecoder::new(data, n).read(&mut v).unwrap();
                out.extend(v.into_iter().map(Value::F32));
            }
            PhysicalType::Double => {
                let mut v = vec![0f64; n];
                PlainDecoder::new(data, n).read(&mut v).unwrap();
                out.extend(v.into_iter().map(Value::F64));
            }
            PhysicalType::ByteArray => {
                let mut values = Vec::new();
                PlainByteArrays::new(data, n)
                    .read_into(n, &mut Sink(&mut values))
                    .unwrap();
                out.extend(values);
            }
            PhysicalType::FixedLenByteArray => {
                let width = column.type_length.unwrap() as usize;
                let mut raw = vec![0u8; n * width];
                PlainDecoder::new(data, n)
                    .read_fixed_len(width, &mut raw)
                    .unwrap();
                out.extend(raw.chunks(width).map(|c| Value::Bytes(c.to_vec())));
            }
            PhysicalType::Int96 => panic!("INT96"),
        },
        Encoding::Rle => {
            assert_eq!(column.physical_type, PhysicalType::Boolean);
            let (mut decoder, _) = RleDecoder::booleans(data, n).unwrap();
            let mut bools = vec![false; n];
            assert_eq!(decoder.read(&mut bools).unwrap(), n);
            out.extend(bools.into_iter().map(Value::Bool));
        }
        Encoding::DeltaBinaryPacked => match column.physical_type {
            PhysicalType::Int32 => {
                let mut v = vec![0i32; n];
                DeltaBinaryPackedDecoder::<i32>::new(data, n)
                    .unwrap()
                    .read(&mut v)
                    .unwrap();
                out.extend(v.into_iter().map(Value::I32));
            }
            PhysicalType::Int64 => {
                let mut v = vec![0i64; n];
                DeltaBinaryPackedDecoder::<i64>::new(data, n)
                    .unwrap()
                    .read(&mut v)
                    .unwrap();
                out.extend(v.into_iter().map(Value::I64));
            }
            other => panic!("DELTA_BINARY_PACKED for {other:?}"),
        },
        Encoding::DeltaByteArray => {
            let mut values = Vec::new();
            let mut decoder = DeltaByteArrayDecoder::new(data, n).unwrap();
            assert_eq!(decoder.read(n, &mut Sink(&mut values)).unwrap(), n);
            out.extend(values);
        }
        Encoding::DeltaLengthByteArray => {
            let mut values = Vec::new();
            let mut decoder = DeltaLengthByteArrayDecoder::new(data, n).unwrap();
            assert_eq!(decoder.read(n, &mut Sink(&mut values)).unwrap(), n);
            out.extend(values);
        }
        other => panic!("value encoding {other:?}"),
    }
}
