//! Nested columns (structs, lists, maps, nested in each other) through the
//! encoder and back through the library's decoder: random schemas with
//! fixed seeds, nulls at every level, empty lists and maps, both page
//! versions, tiny pages and row groups, sliced input; and the Parquet schema
//! and levels Iceberg's writer produces for them.

use crate::arrow::field::encode_metadata;
use crate::arrow::{ArrayData, ArrayView, Buffer, DataType, Field};
use crate::parquet::format::{ConvertedType, LogicalType, Repetition};
use crate::parquet::write::FileWriter;
use crate::test_support::parquet::scan::{rows, Mode};
use crate::test_support::parquet::{render, scan};
use crate::test_support::write::{buffer, options, slices, write_file, Rng};

#[derive(Debug, Clone)]
enum Ty {
    Bool,
    Int,
    Long,
    Double,
    Str,
    Decimal,
    Struct(Vec<(bool, Ty)>),
    List(bool, Box<Ty>),
    Map(Box<Ty>, bool, Box<Ty>),
}

#[derive(Debug, Clone)]
enum V {
    Null,
    Bool(bool),
    Int(i32),
    Long(i64),
    Double(f64),
    Str(String),
    Decimal(i128),
    Struct(Vec<V>),
    List(Vec<V>),
    Map(Vec<(V, V)>),
}

fn random_type(r: &mut Rng, depth: u32) -> Ty {
    let primitive = |r: &mut Rng| match r.below(6) {
        0 => Ty::Bool,
        1 => Ty::Int,
        2 => Ty::Long,
        3 => Ty::Double,
        4 => Ty::Decimal,
        _ => Ty::Str,
    };
    if depth == 0 || r.chance(35) {
        return primitive(r);
    }
    match r.below(3) {
        0 => Ty::Struct(
            (0..1 + r.below(3))
                .map(|_| (r.chance(60), random_type(r, depth - 1)))
                .collect(),
        ),
        1 => Ty::List(r.chance(60), Box::new(random_type(r, depth - 1))),
        _ => {
            let key = if r.chance(50) { Ty::Str } else { Ty::Int };
            Ty::Map(
                Box::new(key),
                r.chance(60),
                Box::new(random_type(r, depth - 1)),
            )
        }
    }
}

fn random_value(r: &mut Rng, ty: &Ty, nullable: bool) -> V {
    if nullable && r.chance(15) {
        return V::Null;
    }
    let len = |r: &mut Rng| if r.chance(20) { 0 } else { r.below(4) as usize };
    match ty {
        Ty::Bool => V::Bool(r.chance(50)),
        Ty::Int => V::Int(r.below(20) as i32 - 5),
        Ty::Long => V::Long(r.next_u64() as i64 >> r.below(63)),
        Ty::Double => V::Double([0.5, -0.0, f64::NAN, 1e300, 3.25][r.below(5) as usize]),
        Ty::Str => V::Str(
            ["", "a", "ß", "longer text"][r.below(4) as usize].repeat(1 + r.below(3) as usize),
        ),
        Ty::Decimal => V::Decimal(r.below(2_000_000) as i128 - 1_000_000),
        Ty::Struct(fields) => {
            V::Struct(fields.iter().map(|(n, t)| random_value(r, t, *n)).collect())
        }
        Ty::List(n, t) => V::List((0..len(r)).map(|_| random_value(r, t, *n)).collect()),
        Ty::Map(k, n, t) => V::Map(
            (0..len(r))
                .map(|_| (random_value(r, k, false), random_value(r, t, *n)))
                .collect(),
        ),
    }
}

/// What a non-null slot under a null parent holds.
fn filler(ty: &Ty) -> V {
    match ty {
        Ty::Bool => V::Bool(false),
        Ty::Int => V::Int(0),
        Ty::Long => V::Long(0),
        Ty::Double => V::Double(0.0),
        Ty::Str => V::Str(String::new()),
        Ty::Decimal => V::Decimal(0),
        Ty::Struct(fields) => V::Struct(fields.iter().map(|(_, t)| filler(t)).collect()),
        Ty::List(..) => V::List(Vec::new()),
        Ty::Map(..) => V::Map(Vec::new()),
    }
}

fn with_id(field: Field, id: &mut i32) -> Field {
    *id += 1;
    field
        .with_metadata(encode_metadata(&[("PARQUET:field_id", id.to_string().as_bytes())]).unwrap())
}

/// The Arrow field of `ty`, ids given in Iceberg's order (a field, then what it holds).
fn arrow_field(name: &str, ty: &Ty, nullable: bool, id: &mut i32) -> Field {
    let data_type = match ty {
        Ty::Bool => DataType::Boolean,
        Ty::Int => DataType::Int32,
        Ty::Long => DataType::Int64,
        Ty::Double => DataType::Float64,
        Ty::Str => DataType::Utf8,
        Ty::Decimal => DataType::Decimal128 {
            precision: 12,
            scale: 2,
        },
        Ty::Struct(_) => DataType::Struct,
        Ty::List(..) => DataType::List,
        Ty::Map(..) => DataType::Map { keys_sorted: false },
    };
    let field = with_id(Field::new(name, data_type, nullable), id);
    match ty {
        Ty::Struct(fields) => field.with_children(
            fields
                .iter()
                .enumerate()
                .map(|(k, (n, t))| arrow_field(&format!("f{k}"), t, *n, id))
                .collect(),
        ),
        Ty::List(n, t) => field.with_children(vec![arrow_field("element", t, *n, id)]),
        Ty::Map(k, n, t) => {
            let key = arrow_field("key", k, false, id);
            let value = arrow_field("value", t, *n, id);
            field.with_children(vec![
                Field::new("entries", DataType::Struct, false).with_children(vec![key, value])
            ])
        }
        _ => field,
    }
}

fn validity(values: &[V]) -> (Option<Buffer>, usize) {
    let nulls = values.iter().filter(|v| matches!(v, V::Null)).count();
    if nulls == 0 {
        return (None, 0);
    }
    let mut bytes = vec![0u8; values.len().div_ceil(8)];
    for (i, v) in values.iter().enumerate() {
        if !matches!(v, V::Null) {
            bytes[i / 8] |= 1 << (i % 8);
        }
    }
    (Some(buffer(&bytes)), nulls)
}

fn offsets<'v>(values: &'v [V], items: impl Fn(&'v V) -> usize) -> Buffer {
    let mut out = vec![0i32];
    for v in values {
        out.push(out.last().unwrap() + items(v) as i32);
    }
    buffer(&out)
}

/// The Arrow data of `values`, all of type `ty`.
fn arrow_data(ty: &Ty, values: &[V]) -> ArrayData {
    let (validity, null_count) = validity(values);
    let mut data = ArrayData {
        data_type: DataType::Null,
        len: values.len(),
        offset: 0,
        null_count,
        validity,
        buffers: vec![],
        children: vec![],
        dictionary: None,
    };
    let fixed = |f: &dyn Fn(&V) -> Vec<u8>| {
        let bytes: Vec<u8> = values.iter().flat_map(f).collect();
        buffer(&bytes)
    };
    match ty {
        Ty::Bool => {
            data.data_type = DataType::Boolean;
            let mut bits = vec![0u8; values.len().div_ceil(8)];
            for (i, v) in values.iter().enumerate() {
                if matches!(v, V::Bool(true)) {
                    bits[i / 8] |= 1 << (i % 8);
                }
            }
            data.buffers = vec![buffer(&bits)];
        }
        Ty::Int => {
            data.data_type = DataType::Int32;
            data.buffers = vec![fixed(&|v| match v {
                V::Int(x) => x.to_le_bytes().to_vec(),
                _ => vec![0; 4],
            })];
        }
        Ty::Long => {
            data.data_type = DataType::Int64;
            data.buffers = vec![fixed(&|v| match v {
                V::Long(x) => x.to_le_bytes().to_vec(),
                _ => vec![0; 8],
            })];
        }
        Ty::Double => {
            data.data_type = DataType::Float64;
            data.buffers = vec![fixed(&|v| match v {
                V::Double(x) => x.to_le_bytes().to_vec(),
                _ => vec![0; 8],
            })];
        }
        Ty::Decimal => {
            data.data_type = DataType::Decimal128 {
                precision: 12,
                scale: 2,
            };
            data.buffers = vec![fixed(&|v| match v {
                V::Decimal(x) => x.to_le_bytes().to_vec(),
                _ => vec![0; 16],
            })];
        }
        Ty::Str => {
            data.data_type = DataType::Utf8;
            // Arrow leaves a null slot's bytes unspecified: give them some, which no reader
            // may see.
            let text = |v: &V| match v {
                V::Str(s) => s.clone(),
                V::Null => "not a value".to_owned(),
                _ => String::new(),
            };
            data.buffers = vec![
                offsets(values, |v| text(v).len()),
                buffer(values.iter().map(text).collect::<String>().as_bytes()),
            ];
        }
        Ty::Struct(fields) => {
            data.data_type = DataType::Struct;
            data.children = fields
                .iter()
                .enumerate()
                .map(|(k, (nullable, t))| {
                    let column: Vec<V> = values
                        .iter()
                        .map(|v| match v {
                            V::Struct(items) => items[k].clone(),
                            _ if *nullable => V::Null,
                            _ => filler(t),
                        })
                        .collect();
                    arrow_data(t, &column)
                })
                .collect();
        }
        Ty::List(_, t) => {
            data.data_type = DataType::List;
            let items = |v: &V| match v {
                V::List(items) => items.clone(),
                _ => Vec::new(),
            };
            data.buffers = vec![offsets(values, |v| items(v).len())];
            let all: Vec<V> = values.iter().flat_map(items).collect();
            data.children = vec![arrow_data(t, &all)];
        }
        Ty::Map(k, _, t) => {
            data.data_type = DataType::Map { keys_sorted: false };
            let entries = |v: &V| match v {
                V::Map(entries) => entries.clone(),
                _ => Vec::new(),
            };
            data.buffers = vec![offsets(values, |v| entries(v).len())];
            let all: Vec<(V, V)> = values.iter().flat_map(entries).collect();
            let keys: Vec<V> = all.iter().map(|(k, _)| k.clone()).collect();
            let items: Vec<V> = all.iter().map(|(_, v)| v.clone()).collect();
            data.children = vec![ArrayData {
                data_type: DataType::Struct,
                len: all.len(),
                offset: 0,
                null_count: 0,
                validity: None,
                buffers: vec![],
                children: vec![arrow_data(k, &keys), arrow_data(t, &items)],
                dictionary: None,
            }];
        }
    }
    data
}

/// A batch of `rows` random rows over `columns` random column types.
fn random_batch(seed: u64, columns: usize, rows: usize) -> (Field, ArrayData, Vec<i32>) {
    let mut r = Rng(seed);
    let mut id = 0;
    let mut fields = Vec::new();
    let mut children = Vec::new();
    let mut top_ids = Vec::new();
    for c in 0..columns {
        let ty = random_type(&mut r, 3);
        let nullable = r.chance(70);
        let values: Vec<V> = (0..rows)
            .map(|_| random_value(&mut r, &ty, nullable))
            .collect();
        top_ids.push(id + 1);
        let field = arrow_field(&format!("c{c}"), &ty, nullable, &mut id);
        fields.push(field);
        children.push(arrow_data(&ty, &values));
    }
    let schema = Field::new("", DataType::Struct, false).with_children(fields);
    let batch = ArrayData {
        data_type: DataType::Struct,
        len: rows,
        offset: 0,
        null_count: 0,
        validity: None,
        buffers: vec![],
        children,
        dictionary: None,
    };
    (schema, batch, top_ids)
}

fn input_rows(schema: &Field, batch: &ArrayData) -> Vec<Vec<String>> {
    render::rows(&ArrayView::from_data(batch, schema).unwrap())
}

#[test]
fn random_nested_schemas_round_trip() {
    for seed in 0..40u64 {
        let (schema, batch, ids) = random_batch(seed, 4, 300);
        let expected = input_rows(&schema, &batch);
        for (version, page, group) in [("v1", "4096", "134217728"), ("v2", "256", "2000")] {
            let settings = options(&[
                ("write.parquet.page-version", version),
                ("write.parquet.page-size-bytes", page),
                ("write.parquet.row-group-size-bytes", group),
                ("write.parquet.page-row-limit", "50"),
            ]);
            let (file, result) = write_file(&schema, &slices(&batch, 77), settings);
            assert_eq!(result.record_count, 300);
            let got = rows(&file, scan::project(&ids), Mode::Ranges)
                .unwrap_or_else(|e| panic!("seed {seed}, v{version}: {e}"));
            assert_eq!(got, expected, "seed {seed}, page version {version}");
        }
    }
}

/// `id: list<struct<a: int, b: optional map<string, optional int>>>` and
/// its expected Parquet schema, as Iceberg's TypeToMessageType writes it.
#[test]
fn schema_is_icebergs() {
    let mut id = 0;
    let ty = Ty::List(
        false,
        Box::new(Ty::Struct(vec![
            (false, Ty::Int),
            (true, Ty::Map(Box::new(Ty::Str), true, Box::new(Ty::Int))),
        ])),
    );
    let field = arrow_field("l", &ty, true, &mut id);
    let schema = Field::new("", DataType::Struct, false).with_children(vec![field]);
    let writer = FileWriter::open_buffered(&schema, options(&[])).unwrap();
    let elements: Vec<_> = writer
        .schema()
        .elements
        .iter()
        .map(|e| {
            (
                e.name.as_str(),
                e.repetition,
                e.num_children,
                e.field_id,
                e.converted_type,
                e.logical_type.clone(),
            )
        })
        .collect();
    use Repetition::*;
    assert_eq!(
        elements,
        [
            ("table", None, Some(1), None, None, None),
            (
                "l",
                Some(Optional),
                Some(1),
                Some(1),
                Some(ConvertedType::List),
                Some(LogicalType::List)
            ),
            ("list", Some(Repeated), Some(1), None, None, None),
            ("element", Some(Required), Some(2), Some(2), None, None),
            ("f0", Some(Required), None, Some(3), None, None),
            (
                "f1",
                Some(Optional),
                Some(1),
                Some(4),
                Some(ConvertedType::Map),
                Some(LogicalType::Map)
            ),
            ("key_value", Some(Repeated), Some(2), None, None, None),
            (
                "key",
                Some(Required),
                None,
                Some(5),
                Some(ConvertedType::Utf8),
                Some(LogicalType::String)
            ),
            ("value", Some(Optional), None, Some(6), None, None),
        ]
    );
    let leaves: Vec<_> = writer
        .schema()
        .columns
        .iter()
        .map(|c| (c.name.as_str(), c.max_def, c.max_rep))
        .collect();
    assert_eq!(
        leaves,
        [
            ("l.list.element.f0", 2, 1),
            ("l.list.element.f1.key_value.key", 4, 2),
            ("l.list.element.f1.key_value.value", 5, 2),
        ]
    );
}

#[test]
fn a_null_in_a_required_element_names_the_column() {
    let mut id = 0;
    let ty = Ty::List(false, Box::new(Ty::Int));
    let field = arrow_field("ints", &ty, true, &mut id);
    let schema = Field::new("", DataType::Struct, false).with_children(vec![field]);
    let values = [V::List(vec![V::Int(1)]), V::List(vec![V::Int(2), V::Null])];
    let batch = ArrayData {
        data_type: DataType::Struct,
        len: 2,
        offset: 0,
        null_count: 0,
        validity: None,
        buffers: vec![],
        children: vec![arrow_data(&ty, &values)],
        dictionary: None,
    };
    let mut writer = FileWriter::open_buffered(&schema, options(&[])).unwrap();
    let error = writer
        .write(&ArrayView::from_data(&batch, &schema).unwrap())
        .unwrap_err();
    assert_eq!(
        error.message(),
        "column 'ints.list.element' (field id 2): row 1 holds a null in the value, which is required"
    );
    assert!(writer.close().is_err(), "the writer stays failed");
}

#[test]
fn a_nullable_map_key_is_refused() {
    let key = Field::new("key", DataType::Utf8, true)
        .with_metadata(encode_metadata(&[("PARQUET:field_id", b"2")]).unwrap());
    let value = Field::new("value", DataType::Int32, true)
        .with_metadata(encode_metadata(&[("PARQUET:field_id", b"3")]).unwrap());
    let map = Field::new("m", DataType::Map { keys_sorted: false }, true)
        .with_metadata(encode_metadata(&[("PARQUET:field_id", b"1")]).unwrap())
        .with_children(vec![
            Field::new("entries", DataType::Struct, false).with_children(vec![key, value])
        ]);
    let schema = Field::new("", DataType::Struct, false).with_children(vec![map]);
    let error = FileWriter::open_buffered(&schema, options(&[]))
        .err()
        .unwrap();
    assert!(
        error
            .message()
            .contains("the map's key field 'key' is nullable"),
        "{}",
        error.message()
    );
}

/// A file of `s: struct<a: int, b: string, c: long>` and `l: list<struct<x: int, y: int>>`.
fn struct_file() -> Vec<u8> {
    let ty_s = Ty::Struct(vec![(true, Ty::Int), (true, Ty::Str), (true, Ty::Long)]);
    let ty_l = Ty::List(
        true,
        Box::new(Ty::Struct(vec![(true, Ty::Int), (true, Ty::Int)])),
    );
    let mut id = 0;
    let s = arrow_field("s", &ty_s, true, &mut id);
    let l = arrow_field("l", &ty_l, true, &mut id);
    let schema = Field::new("", DataType::Struct, false).with_children(vec![s, l]);
    let structs = [
        V::Struct(vec![V::Int(1), V::Str("one".into()), V::Long(10)]),
        V::Null,
        V::Struct(vec![V::Null, V::Str("three".into()), V::Long(30)]),
    ];
    let lists = [
        V::List(vec![V::Struct(vec![V::Int(1), V::Int(2)])]),
        V::List(vec![]),
        V::List(vec![V::Struct(vec![V::Int(5), V::Null]), V::Null]),
    ];
    let batch = ArrayData {
        data_type: DataType::Struct,
        len: 3,
        offset: 0,
        null_count: 0,
        validity: None,
        buffers: vec![],
        children: vec![arrow_data(&ty_s, &structs), arrow_data(&ty_l, &lists)],
        dictionary: None,
    };
    write_file(&schema, &[batch], options(&[])).0
}

fn labelled(name: &str, id: i32, data_type: DataType) -> Field {
    Field::new(name, data_type, true)
        .with_metadata(encode_metadata(&[("PARQUET:field_id", id.to_string().as_bytes())]).unwrap())
}

#[test]
fn struct_fields_are_matched_by_id_and_only_the_projected_ones_read() {
    let file = struct_file();
    // s (id 1) is a: 2, b: 3, c: 4; l (id 5) has element 6 of x: 7, y: 8.
    let s = labelled("renamed", 1, DataType::Struct).with_children(vec![
        labelled("c", 4, DataType::Int64),
        labelled("a", 2, DataType::Int32),
    ]);
    let l = labelled("l", 5, DataType::List).with_children(vec![labelled(
        "element",
        6,
        DataType::Struct,
    )
    .with_children(vec![labelled("y", 8, DataType::Int32)])]);
    let options = crate::parquet::read::scan::ScanOptions {
        expected: Some(Field::new("", DataType::Struct, false).with_children(vec![s, l])),
        ..scan::project(&[1, 5])
    };
    let got = rows(&file, options, Mode::Ranges).unwrap();
    assert_eq!(
        got,
        [
            ["{10,1}", "[{2}]"],
            ["null", "[]"],
            ["{30,null}", "[{null},null]"]
        ]
    );
}

#[test]
fn a_struct_field_the_file_lacks_reads_as_nulls() {
    let file = struct_file();
    let scan = |fields: Vec<Field>| {
        let s = labelled("s", 1, DataType::Struct).with_children(fields);
        let options = crate::parquet::read::scan::ScanOptions {
            expected: Some(Field::new("", DataType::Struct, false).with_children(vec![s])),
            ..scan::project(&[1])
        };
        rows(&file, options, Mode::Local)
    };
    let added = labelled("added", 99, DataType::List).with_children(vec![labelled(
        "element",
        100,
        DataType::Int32,
    )]);
    let got = scan(vec![added.clone(), labelled("a", 2, DataType::Int32)]).unwrap();
    assert_eq!(got, [["{null,1}"], ["null"], ["{null,null}"]]);

    let error = scan(vec![added.clone()]).unwrap_err();
    assert_eq!(error.status(), crate::error::Status::Unsupported);
    assert!(
        error
            .message()
            .contains("the file holds none of the projected fields of 's'"),
        "{}",
        error.message()
    );
    let required = Field::new("added", DataType::Int32, false)
        .with_metadata(encode_metadata(&[("PARQUET:field_id", b"99")]).unwrap());
    let error = scan(vec![labelled("a", 2, DataType::Int32), required]).unwrap_err();
    assert_eq!(error.status(), crate::error::Status::CorruptData);
    assert!(
        error
            .message()
            .contains("field id 99 ('added') of 's' is required"),
        "{}",
        error.message()
    );
}

/// Every data page of a repeated leaf starts a row, its v2 `num_rows` counts the rows starting
/// in it, and the offset index's `first_row_index` adds them up, in every row group.
#[test]
fn pages_of_repeated_leaves_hold_whole_rows() {
    use crate::parquet::encodings::rle::RleDecoder;
    use crate::parquet::format::{OffsetIndex, PageHeader, PageType, ThriftStruct};
    let mut checked = 0;
    for seed in 100..110u64 {
        let (schema, batch, _) = random_batch(seed, 3, 400);
        let settings = options(&[
            ("write.parquet.page-version", "v2"),
            ("write.parquet.page-size-bytes", "128"),
            ("write.parquet.row-group-size-bytes", "3000"),
            ("write.parquet.page-row-limit", "30"),
            ("write.parquet.compression-codec", "uncompressed"),
        ]);
        let (file, result) = write_file(&schema, &slices(&batch, 61), settings);
        let writer = FileWriter::open_buffered(&schema, options(&[])).unwrap();
        let leaves = &writer.schema().columns;
        for group in &result.metadata.row_groups {
            for (chunk, leaf) in group.columns.iter().zip(leaves) {
                if leaf.max_rep == 0 {
                    continue;
                }
                let meta = chunk.meta_data.as_ref().unwrap();
                let start = chunk.offset_index_offset.unwrap() as usize;
                let end = start + chunk.offset_index_length.unwrap() as usize;
                let (index, _) = OffsetIndex::decode(&file[start..end]).unwrap();
                let width = (16 - (leaf.max_rep as u16).leading_zeros()) as u8;
                let mut rows = 0i64;
                for location in &index.page_locations {
                    let at = location.offset as usize;
                    let (header, header_len) = PageHeader::decode(&file[at..]).unwrap();
                    assert_eq!(header.page_type, PageType::DataPageV2);
                    let v2 = header.data_page_header_v2.unwrap();
                    let levels =
                        &file[at + header_len..][..v2.repetition_levels_byte_length as usize];
                    let mut rep = vec![0u32; v2.num_values as usize];
                    RleDecoder::new(levels, width, rep.len())
                        .unwrap()
                        .read(&mut rep)
                        .unwrap();
                    assert_eq!(rep[0], 0, "{}: a page starts a row", leaf.name);
                    let starts = rep.iter().filter(|&&r| r == 0).count() as i64;
                    assert_eq!(i64::from(v2.num_rows), starts, "{}: num_rows", leaf.name);
                    assert_eq!(
                        location.first_row_index, rows,
                        "{}: first_row_index",
                        leaf.name
                    );
                    rows += starts;
                    checked += 1;
                }
                assert_eq!(
                    rows, group.num_rows,
                    "{}: the pages hold the row group",
                    leaf.name
                );
                assert!(meta.num_values >= rows);
            }
        }
    }
    assert!(checked > 100, "only {checked} pages checked");
}

/// The same rows with every top-level column an offset into longer arrays (so a struct's
/// children, a list's offsets and a map's entries are read from a slot past their start).
#[test]
fn nested_columns_with_offsets_round_trip() {
    for seed in 200..210u64 {
        let mut r = Rng(seed);
        let mut id = 0;
        let (rows, pad) = (150, 7);
        let mut fields = Vec::new();
        let mut children = Vec::new();
        let mut ids = Vec::new();
        let mut expected_children = Vec::new();
        for c in 0..3 {
            let ty = random_type(&mut r, 3);
            let values: Vec<V> = (0..pad + rows)
                .map(|_| random_value(&mut r, &ty, true))
                .collect();
            ids.push(id + 1);
            fields.push(arrow_field(&format!("c{c}"), &ty, true, &mut id));
            let mut data = arrow_data(&ty, &values);
            data.null_count = values[pad..]
                .iter()
                .filter(|v| matches!(v, V::Null))
                .count();
            data.offset = pad;
            data.len = rows;
            children.push(data);
            expected_children.push(arrow_data(&ty, &values[pad..]));
        }
        let schema = Field::new("", DataType::Struct, false).with_children(fields);
        let batch = |children: Vec<ArrayData>| ArrayData {
            data_type: DataType::Struct,
            len: rows,
            offset: 0,
            null_count: 0,
            validity: None,
            buffers: vec![],
            children,
            dictionary: None,
        };
        let expected = input_rows(&schema, &batch(expected_children));
        let (file, _) = write_file(&schema, &[batch(children)], options(&[]));
        let got = rows_of(&file, &ids);
        assert_eq!(got, expected, "seed {seed}");
    }
}

fn rows_of(file: &[u8], ids: &[i32]) -> Vec<Vec<String>> {
    rows(file, scan::project(ids), Mode::Local).unwrap()
}

/// Random nested columns read in batches of a few rows as well as of more than a page: batches
/// end inside pages and inside the blocks of levels a reader stages, and rows span pages.
#[test]
fn nested_columns_read_in_any_batch_size() {
    for seed in 300..306u64 {
        let (schema, batch, ids) = random_batch(seed, 3, 2500);
        let expected = input_rows(&schema, &batch);
        let settings = options(&[("write.parquet.page-row-limit", "700")]);
        let (file, _) = write_file(&schema, &slices(&batch, 500), settings);
        for batch_size in [1, 3, 250, 1100] {
            let options = crate::parquet::read::scan::ScanOptions {
                batch_size,
                ..scan::project(&ids)
            };
            let got = rows(&file, options, Mode::Ranges).unwrap();
            assert_eq!(got, expected, "seed {seed}, batches of {batch_size}");
        }
    }
}
