//! Helpers of the encoder's tests: Arrow batches of Iceberg
//! columns, the rows of the parquet-java reference files, a test-only Parquet
//! reader, and C structs whose releases are counted.

pub mod reader;
pub mod reference;

use std::ffi::c_void;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use crate::arrow::bitmap::BitmapBuilder;
use crate::arrow::buffer::NativeType;
use crate::arrow::c_data::{ArrowArray, ArrowSchema};
use crate::arrow::export::{export_array, export_schema};
use crate::arrow::field::encode_metadata;
use crate::arrow::{ArrayData, ArrayView, Buffer, DataType, Field};
use crate::parquet::write::{FileWriter, WriteResult, WriterOptions};

pub use super::arrow::buffer;
use super::arrow::{struct_of, validity};

/// One column: its field (with a field id) and its values.
#[derive(Debug, Clone)]
pub struct Column {
    pub field: Field,
    pub data: ArrayData,
}

fn data(
    data_type: DataType,
    len: usize,
    valid: impl Iterator<Item = bool>,
    buffers: Vec<Buffer>,
) -> ArrayData {
    let (validity, null_count) = validity(valid);
    ArrayData {
        data_type,
        len,
        offset: 0,
        null_count,
        validity,
        buffers,
        children: vec![],
        dictionary: None,
    }
}

pub fn field(name: &str, id: i32, data_type: DataType, nullable: bool) -> Field {
    Field::new(name, data_type, nullable)
        .with_metadata(encode_metadata(&[("PARQUET:field_id", id.to_string().as_bytes())]).unwrap())
}

pub fn uuid_field(name: &str, id: i32, nullable: bool) -> Field {
    Field::new(name, DataType::FixedSizeBinary(16), nullable).with_metadata(
        encode_metadata(&[
            ("PARQUET:field_id", id.to_string().as_bytes()),
            ("ARROW:extension:name", b"arrow.uuid"),
        ])
        .unwrap(),
    )
}

/// Fixed-width values (also decimal128 as i128, dates, times, timestamps).
pub fn primitive<T: NativeType + Default>(
    name: &str,
    id: i32,
    data_type: DataType,
    nullable: bool,
    values: &[Option<T>],
) -> Column {
    let raw: Vec<T> = values.iter().map(|v| v.unwrap_or_default()).collect();
    Column {
        field: field(name, id, data_type.clone(), nullable),
        data: data(
            data_type,
            values.len(),
            values.iter().map(Option::is_some),
            vec![buffer(&raw)],
        ),
    }
}

pub fn booleans(name: &str, id: i32, nullable: bool, values: &[Option<bool>]) -> Column {
    let mut bits = BitmapBuilder::default();
    for value in values {
        bits.append(value.unwrap_or(false)).unwrap();
    }
    Column {
        field: field(name, id, DataType::Boolean, nullable),
        data: data(
            DataType::Boolean,
            values.len(),
            values.iter().map(Option::is_some),
            vec![bits.finish()],
        ),
    }
}

/// Utf8, LargeUtf8, Binary or LargeBinary.
pub fn bytes(
    name: &str,
    id: i32,
    data_type: DataType,
    nullable: bool,
    values: &[Option<Vec<u8>>],
) -> Column {
    let large = matches!(data_type, DataType::LargeUtf8 | DataType::LargeBinary);
    let mut all = Vec::new();
    let mut ends = vec![0usize];
    for value in values {
        all.extend_from_slice(value.as_deref().unwrap_or_default());
        ends.push(all.len());
    }
    let offsets = if large {
        buffer(&ends.iter().map(|&e| e as i64).collect::<Vec<_>>())
    } else {
        buffer(&ends.iter().map(|&e| e as i32).collect::<Vec<_>>())
    };
    Column {
        field: field(name, id, data_type.clone(), nullable),
        data: data(
            data_type,
            values.len(),
            values.iter().map(Option::is_some),
            vec![offsets, buffer(&all)],
        ),
    }
}

pub fn strings(name: &str, id: i32, nullable: bool, values: &[Option<String>]) -> Column {
    let bytes_values: Vec<Option<Vec<u8>>> = values
        .iter()
        .map(|v| v.as_ref().map(|s| s.as_bytes().to_vec()))
        .collect();
    bytes(name, id, DataType::Utf8, nullable, &bytes_values)
}

pub fn fixed(
    name: &str,
    id: i32,
    width: usize,
    nullable: bool,
    values: &[Option<Vec<u8>>],
) -> Column {
    let zeros = vec![0u8; width];
    let raw: Vec<u8> = values
        .iter()
        .flat_map(|v| v.as_deref().unwrap_or(&zeros).iter().copied())
        .collect();
    let data_type = DataType::FixedSizeBinary(width as u32);
    Column {
        field: field(name, id, data_type.clone(), nullable),
        data: data(
            data_type,
            values.len(),
            values.iter().map(Option::is_some),
            vec![buffer(&raw)],
        ),
    }
}

/// A struct column of `children`, null where `present` says not.
pub fn structure(
    name: &str,
    id: i32,
    nullable: bool,
    present: &[bool],
    children: Vec<Column>,
) -> Column {
    // The encoder accepts longer children (a struct may be a window of them): keep benches exact.
    assert!(children.iter().all(|c| c.data.len == present.len()));
    let (fields, arrays): (Vec<Field>, Vec<ArrayData>) =
        children.into_iter().map(|c| (c.field, c.data)).unzip();
    Column {
        field: field(name, id, DataType::Struct, nullable).with_children(fields),
        data: struct_of(arrays, present),
    }
}

/// A batch of columns as a struct array and its schema.
pub fn batch(columns: &[Column]) -> (Field, ArrayData) {
    let field = Field::new("", DataType::Struct, false)
        .with_children(columns.iter().map(|c| c.field.clone()).collect());
    let len = columns.first().map_or(0, |c| c.data.len);
    let data = ArrayData {
        data_type: DataType::Struct,
        len,
        offset: 0,
        null_count: 0,
        validity: None,
        buffers: vec![],
        children: columns.iter().map(|c| c.data.clone()).collect(),
        dictionary: None,
    };
    (field, data)
}

/// Options from pairs, panicking on bad ones.
pub fn options(pairs: &[(&str, &str)]) -> WriterOptions {
    WriterOptions::from_pairs(pairs.iter().copied()).unwrap()
}

/// Writes `batches` (all with `schema`) through a buffered writer and returns
/// the file's bytes and the result.
pub fn write_file(
    schema: &Field,
    batches: &[ArrayData],
    options: WriterOptions,
) -> (Vec<u8>, WriteResult) {
    let mut file = Vec::new();
    let result = write_into(schema, batches, options, &mut file);
    (file, result)
}

/// As [`write_file`], into `file` (cleared first), so that a bench can reuse
/// its memory.
pub fn write_into(
    schema: &Field,
    batches: &[ArrayData],
    options: WriterOptions,
    file: &mut Vec<u8>,
) -> WriteResult {
    file.clear();
    let mut writer = FileWriter::open_buffered(schema, options).unwrap();
    for batch in batches {
        let view = ArrayView::from_data(batch, schema).unwrap();
        writer.write(&view).unwrap();
        drain(&mut writer, file);
    }
    let result = writer.close().unwrap();
    drain(&mut writer, file);
    assert_eq!(result.file_size, file.len() as u64);
    result
}

pub fn drain(writer: &mut FileWriter, file: &mut Vec<u8>) {
    loop {
        let bytes = writer.take_output().unwrap();
        if bytes.is_empty() {
            break;
        }
        file.extend_from_slice(bytes);
    }
}

/// Splits `data` (a struct batch) into slices of at most `rows` rows.
pub fn slices(data: &ArrayData, rows: usize) -> Vec<ArrayData> {
    (0..data.len)
        .step_by(rows.max(1))
        .map(|start| {
            let len = rows.min(data.len - start);
            // A struct's slice reaches its children through the offset.
            data.slice(start, len).unwrap()
        })
        .collect()
}

// ------------------------------------------------------------------ C structs

/// Exports a schema for the C API (the caller releases it).
pub fn c_schema(field: &Field) -> ArrowSchema {
    export_schema(field).unwrap()
}

struct Counted {
    inner: ArrowArray,
    releases: Arc<AtomicUsize>,
}

unsafe extern "C" fn release_counted(array: *mut ArrowArray) {
    unsafe {
        let counted = Box::from_raw((*array).private_data.cast::<Counted>());
        let mut counted = *counted;
        if let Some(release) = counted.inner.release {
            release(&mut counted.inner);
        }
        counted.releases.fetch_add(1, Ordering::SeqCst);
        (*array).release = None;
    }
}

/// Exports `data` as a C array whose (top-level) release adds one to `releases`.
pub fn counted_array(data: ArrayData, field: &Field, releases: &Arc<AtomicUsize>) -> ArrowArray {
    let inner = export_array(data, field).unwrap();
    let outer = ArrowArray {
        length: inner.length,
        null_count: inner.null_count,
        offset: inner.offset,
        n_buffers: inner.n_buffers,
        n_children: inner.n_children,
        buffers: inner.buffers,
        children: inner.children,
        dictionary: inner.dictionary,
        release: Some(release_counted),
        private_data: std::ptr::null_mut(),
    };
    let private = Box::into_raw(Box::new(Counted {
        inner,
        releases: releases.clone(),
    }));
    ArrowArray {
        private_data: private.cast::<c_void>(),
        ..outer
    }
}

// ------------------------------------------------------------------ checking

/// SplitMix64, for seeded test data.
pub struct Rng(pub u64);

impl Rng {
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n
    }

    pub fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
}

/// The Arrow array of `field`'s type holding `values` as read back from a file.
pub fn rebuild(field: &Field, values: &[Option<reader::Value>]) -> ArrayData {
    use reader::Value as V;
    let name = &field.name;
    let column = match &field.data_type {
        DataType::Boolean => booleans(
            name,
            0,
            true,
            &values
                .iter()
                .map(|v| v.as_ref().map(|v| matches!(v, V::Bool(true))))
                .collect::<Vec<_>>(),
        ),
        DataType::Decimal128 { .. } => {
            let decoded: Vec<Option<i128>> = values
                .iter()
                .map(|v| {
                    v.as_ref().map(|v| match v {
                        V::I32(x) => i128::from(*x),
                        V::I64(x) => i128::from(*x),
                        V::Bytes(b) => {
                            let fill = if b[0] & 0x80 != 0 { 0xff } else { 0 };
                            let mut wide = [fill; 16];
                            wide[16 - b.len()..].copy_from_slice(b);
                            i128::from_be_bytes(wide)
                        }
                        other => panic!("{other:?} for a decimal"),
                    })
                })
                .collect();
            primitive(name, 0, field.data_type.clone(), true, &decoded)
        }
        DataType::Int32 | DataType::Date32 => primitive(
            name,
            0,
            field.data_type.clone(),
            true,
            &values
                .iter()
                .map(|v| {
                    v.as_ref().map(|v| match v {
                        V::I32(x) => *x,
                        o => panic!("{o:?}"),
                    })
                })
                .collect::<Vec<_>>(),
        ),
        DataType::Int64 | DataType::Time(_) | DataType::Timestamp { .. } => primitive(
            name,
            0,
            field.data_type.clone(),
            true,
            &values
                .iter()
                .map(|v| {
                    v.as_ref().map(|v| match v {
                        V::I64(x) => *x,
                        o => panic!("{o:?}"),
                    })
                })
                .collect::<Vec<_>>(),
        ),
        DataType::Float32 => primitive(
            name,
            0,
            DataType::Float32,
            true,
            &values
                .iter()
                .map(|v| {
                    v.as_ref().map(|v| match v {
                        V::F32(x) => *x,
                        o => panic!("{o:?}"),
                    })
                })
                .collect::<Vec<_>>(),
        ),
        DataType::Float64 => primitive(
            name,
            0,
            DataType::Float64,
            true,
            &values
                .iter()
                .map(|v| {
                    v.as_ref().map(|v| match v {
                        V::F64(x) => *x,
                        o => panic!("{o:?}"),
                    })
                })
                .collect::<Vec<_>>(),
        ),
        DataType::FixedSizeBinary(width) => fixed(
            name,
            0,
            *width as usize,
            true,
            &values
                .iter()
                .map(|v| {
                    v.as_ref().map(|v| match v {
                        V::Bytes(b) => b.clone(),
                        o => panic!("{o:?}"),
                    })
                })
                .collect::<Vec<_>>(),
        ),
        other => bytes(
            name,
            0,
            other.clone(),
            true,
            &values
                .iter()
                .map(|v| {
                    v.as_ref().map(|v| match v {
                        V::Bytes(b) => b.clone(),
                        o => panic!("{o:?}"),
                    })
                })
                .collect::<Vec<_>>(),
        ),
    };
    column.data
}

pub fn nullable(field: &Field) -> Field {
    let mut field = field.clone();
    field.nullable = true;
    field.metadata = None;
    field
}

/// Slot `i` of an input column as the value the file should hold.
pub fn input_value(field: &Field, child: &ArrayView<'_>, i: usize) -> Option<reader::Value> {
    use reader::Value as V;
    if !child.is_valid(i) {
        return None;
    }
    let fixed = child.fixed_value_or_empty(i);
    Some(match &field.data_type {
        DataType::Boolean => V::Bool(child.bool_value(i)),
        DataType::Int32 | DataType::Date32 => V::I32(i32::from_le_bytes(fixed.try_into().unwrap())),
        DataType::Int64 | DataType::Time(_) | DataType::Timestamp { .. } => {
            V::I64(i64::from_le_bytes(fixed.try_into().unwrap()))
        }
        DataType::Float32 => V::F32(f32::from_le_bytes(fixed.try_into().unwrap())),
        DataType::Float64 => V::F64(f64::from_le_bytes(fixed.try_into().unwrap())),
        DataType::Decimal128 { precision, .. } => {
            let v = i128::from_le_bytes(fixed.try_into().unwrap());
            match precision {
                ..=9 => V::I32(v as i32),
                ..=18 => V::I64(v as i64),
                p => {
                    let width = crate::parquet::write::schema::decimal_bytes(*p);
                    V::Bytes(v.to_be_bytes()[16 - width..].to_vec())
                }
            }
        }
        DataType::FixedSizeBinary(_) => V::Bytes(fixed.to_vec()),
        _ => V::Bytes(child.binary_value(i).to_vec()),
    })
}

trait FixedOrEmpty<'a> {
    fn fixed_value_or_empty(&self, i: usize) -> &'a [u8];
}

impl<'a> FixedOrEmpty<'a> for ArrayView<'a> {
    fn fixed_value_or_empty(&self, i: usize) -> &'a [u8] {
        match self.data_type() {
            DataType::Boolean
            | DataType::Utf8
            | DataType::LargeUtf8
            | DataType::Binary
            | DataType::LargeBinary => &[],
            _ => self.fixed_value(i),
        }
    }
}

/// Every value of every column of `file` equals the input, slot by slot and
/// by canonical checksum.
pub fn assert_same_rows(
    schema: &Field,
    batches: &[ArrayData],
    file: &reader::ParquetFile,
    what: &str,
) {
    for (index, field) in schema.children.iter().enumerate() {
        let read = file.values(index);
        let mut expected = Vec::new();
        for batch in batches {
            let view = ArrayView::from_data(batch, schema).unwrap();
            let child = &view.children()[index];
            for row in 0..view.len() {
                expected.push(input_value(field, child, batch.offset + row));
            }
        }
        assert_eq!(read.len(), expected.len(), "{what}: rows of {}", field.name);
        for (row, (r, e)) in read.iter().zip(&expected).enumerate() {
            let same = match (r, e) {
                (Some(r), Some(e)) => r.same(e),
                (None, None) => true,
                _ => false,
            };
            assert!(
                same,
                "{what}: column {} row {row}: read {r:?}, wrote {e:?}",
                field.name
            );
        }
    }
}

/// The canonical checksum of each whole input column equals that of the
/// column read back from `file`.
pub fn assert_checksums(columns: &[Column], file: &reader::ParquetFile, what: &str) {
    use crate::arrow::checksum::checksum_data;
    for (index, column) in columns.iter().enumerate() {
        let written = checksum_data(&column.data, &column.field).unwrap();
        let read = rebuild(&column.field, &file.values(index));
        let read_back = checksum_data(&read, &nullable(&column.field)).unwrap();
        assert_eq!(
            read_back, written,
            "{what}: checksum of {}",
            column.field.name
        );
    }
}
