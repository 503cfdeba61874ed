//! End-to-end decoding of files written by the test writer
//! (`test_support::parquet::writer`): every physical type in every encoding it
//! allows, page v1 and v2, every codec, dictionaries with fallback, nulls,
//! several row groups, batch sizes, resuming, projection and schema
//! evolution, nesting. Every value is compared, through the canonical text of
//! `test_support::parquet::render`, and batches are checked with the Arrow
//! checksum.

use std::sync::Arc;

use crate::arrow::checksum::checksum_data;
use crate::arrow::pool::Scratch;
use crate::arrow::{ArrayView, BufferPool, DataType, Field};
use crate::compression::Codec;
use crate::error::Status;
use crate::parquet::format::{
    ConvertedType, LogicalType, PhysicalType, Repetition, SchemaElement, TimeUnit,
};
use crate::parquet::read::scan::ScanOptions;
use crate::test_support::parquet::render::hex;
use crate::test_support::parquet::scan::{self, project, Mode};
use crate::test_support::parquet::writer::{
    write_file, Column, Options, ValueEncoding as E, Values,
};
use crate::test_support::parquet::Rng;

fn root(children: usize) -> SchemaElement {
    SchemaElement {
        name: "table".into(),
        num_children: Some(children as i32),
        ..SchemaElement::default()
    }
}

fn leaf(name: &str, physical: PhysicalType, repetition: Repetition, id: i32) -> SchemaElement {
    SchemaElement {
        physical_type: Some(physical),
        repetition: Some(repetition),
        name: name.into(),
        field_id: Some(id),
        ..SchemaElement::default()
    }
}

fn group(name: &str, repetition: Repetition, children: i32, id: Option<i32>) -> SchemaElement {
    SchemaElement {
        repetition: Some(repetition),
        name: name.into(),
        num_children: Some(children),
        field_id: id,
        ..SchemaElement::default()
    }
}

fn logical(mut element: SchemaElement, logical: LogicalType) -> SchemaElement {
    element.logical_type = Some(logical);
    element
}

/// A flat optional test column: its schema element, its column, and the
/// expected text of each row.
struct Case {
    element: SchemaElement,
    column: Column,
    expected: Vec<String>,
}

const ROWS: usize = 2500;

/// Which rows are null: a few patterns, so runs and isolated nulls both occur.
fn validity(rng: &mut Rng, rows: usize) -> Vec<bool> {
    (0..rows)
        .map(|i| match i % 400 {
            0..=99 => true,
            100..=129 => false,
            _ => rng.below(4) != 0,
        })
        .collect()
}

/// A case from per-row optional values: `render` gives each value's text.
fn case<T: Clone>(
    element: SchemaElement,
    values: &[Option<T>],
    pack: impl Fn(Vec<T>) -> Values,
    render: impl Fn(&T) -> String,
    encoding: E,
) -> Case {
    let valid: Vec<bool> = values.iter().map(Option::is_some).collect();
    let dense: Vec<T> = values.iter().flatten().cloned().collect();
    let expected = values
        .iter()
        .map(|v| v.as_ref().map_or("null".to_owned(), &render))
        .collect();
    Case {
        element,
        column: Column::flat(1, pack(dense), &valid).encoded(encoding),
        expected,
    }
}

fn optional_values<T>(rng: &mut Rng, mut make: impl FnMut(&mut Rng, usize) -> T) -> Vec<Option<T>> {
    let valid = validity(rng, ROWS);
    (0..ROWS)
        .map(|i| {
            let value = make(rng, i);
            valid[i].then_some(value)
        })
        .collect()
}

fn int32s(rng: &mut Rng, i: usize) -> i32 {
    match i % 97 {
        0 => i32::MIN,
        1 => i32::MAX,
        2 => 0,
        3 => -1,
        _ if i.is_multiple_of(3) => (rng.below(50) as i32) - 25,
        _ => rng.next_u64() as i32,
    }
}

fn int64s(rng: &mut Rng, i: usize) -> i64 {
    match i % 89 {
        0 => i64::MIN,
        1 => i64::MAX,
        2 => 0,
        _ if i.is_multiple_of(3) => (rng.below(1000) as i64) - 500,
        _ => rng.next_u64() as i64,
    }
}

fn text(rng: &mut Rng, i: usize) -> Vec<u8> {
    const WORDS: [&str; 9] = [
        "",
        "a",
        "héllo",
        "日本語テキスト",
        "😀",
        "Google",
        "Facebook",
        "https://www.nexmark.com/facebook/item.htm?query=1&channel_id=1048575",
        "a value that is quite a bit longer than thirty-two bytes, to take the long copy path",
    ];
    let mut value = WORDS[rng.below(WORDS.len())].as_bytes().to_vec();
    if i.is_multiple_of(5) {
        value.extend_from_slice(i.to_string().as_bytes());
    }
    value
}

/// Every flat case: each physical type in each encoding it allows, and the
/// logical types that change how values are read.
fn flat_cases() -> Vec<Case> {
    use PhysicalType as P;
    let mut rng = Rng::new(7);
    let mut cases = Vec::new();
    let mut id = 0;
    let mut next = |name: &str, physical: P| {
        id += 1;
        leaf(&format!("{name}_{id}"), physical, Repetition::Optional, id)
    };
    let bools = optional_values(&mut rng, |r, _| r.below(3) == 0);
    for encoding in [E::Plain, E::Rle] {
        cases.push(case(
            next("bool", P::Boolean),
            &bools,
            Values::Bool,
            |v| v.to_string(),
            encoding,
        ));
    }
    let ints = optional_values(&mut rng, int32s);
    for encoding in [
        E::Plain,
        E::Dictionary,
        E::DeltaBinaryPacked,
        E::ByteStreamSplit,
    ] {
        cases.push(case(
            next("i32", P::Int32),
            &ints,
            Values::I32,
            |v| v.to_string(),
            encoding,
        ));
    }
    let longs = optional_values(&mut rng, int64s);
    for encoding in [
        E::Plain,
        E::Dictionary,
        E::DeltaBinaryPacked,
        E::ByteStreamSplit,
    ] {
        cases.push(case(
            next("i64", P::Int64),
            &longs,
            Values::I64,
            |v| v.to_string(),
            encoding,
        ));
    }
    let floats = optional_values(&mut rng, |r, i| match i % 50 {
        0 => f32::NAN,
        1 => -0.0,
        2 => f32::INFINITY,
        3 => f32::MIN_POSITIVE,
        _ => f32::from_bits(r.next_u64() as u32 & 0x7f7f_ffff) - 1.0e20,
    });
    for encoding in [E::Plain, E::Dictionary, E::ByteStreamSplit] {
        cases.push(case(
            next("f32", P::Float),
            &floats,
            Values::F32,
            |v| format!("{:08x}", v.to_bits()),
            encoding,
        ));
    }
    let doubles = optional_values(&mut rng, |r, i| match i % 50 {
        0 => f64::NAN,
        1 => -0.0,
        2 => f64::NEG_INFINITY,
        _ => f64::from_bits(r.next_u64() & 0x7fef_ffff_ffff_ffff),
    });
    for encoding in [E::Plain, E::Dictionary, E::ByteStreamSplit] {
        cases.push(case(
            next("f64", P::Double),
            &doubles,
            Values::F64,
            |v| format!("{:016x}", v.to_bits()),
            encoding,
        ));
    }
    let int96 = optional_values(&mut rng, |r, _| {
        let mut v = [0u8; 12];
        v[..8].copy_from_slice(&(r.below(86_400_000_000_000) as i64).to_le_bytes());
        v[8..].copy_from_slice(&(2_440_588 + r.below(40_000) as i32 - 20_000).to_le_bytes());
        v
    });
    for encoding in [E::Plain, E::Dictionary] {
        let nanos = |v: &[u8; 12]| {
            let n = i64::from_le_bytes(v[..8].try_into().unwrap());
            let day = i64::from(i32::from_le_bytes(v[8..].try_into().unwrap()));
            ((day - 2_440_588) * 86_400_000_000_000 + n).to_string()
        };
        cases.push(case(
            next("i96", P::Int96),
            &int96,
            Values::I96,
            nanos,
            encoding,
        ));
    }
    let strings = optional_values(&mut rng, text);
    for encoding in [
        E::Plain,
        E::Dictionary,
        E::DeltaLengthByteArray,
        E::DeltaByteArray,
    ] {
        let element = logical(next("str", P::ByteArray), LogicalType::String);
        cases.push(case(element, &strings, Values::Bytes, |v| hex(v), encoding));
    }
    let binaries = optional_values(&mut rng, |r, i| {
        (0..i % 40).map(|_| r.byte()).collect::<Vec<u8>>()
    });
    for encoding in [E::Plain, E::Dictionary, E::DeltaByteArray] {
        cases.push(case(
            next("bin", P::ByteArray),
            &binaries,
            Values::Bytes,
            |v| hex(v),
            encoding,
        ));
    }
    let fixed = optional_values(&mut rng, |r, i| {
        let mut v: Vec<u8> = (0..5).map(|_| r.byte()).collect();
        v[0] = (i % 7) as u8;
        v
    });
    for encoding in [
        E::Plain,
        E::Dictionary,
        E::DeltaByteArray,
        E::ByteStreamSplit,
    ] {
        let mut element = next("fixed", P::FixedLenByteArray);
        element.type_length = Some(5);
        cases.push(case(
            element,
            &fixed,
            |v| Values::Fixed(5, v),
            |v| hex(v),
            encoding,
        ));
    }
    // Logical types.
    let small = optional_values(&mut rng, |r, _| r.next_u64() as i32);
    for (bit_width, is_signed, render) in [
        (
            8,
            true,
            (|v: &i32| (*v as i8).to_string()) as fn(&i32) -> String,
        ),
        (16, true, |v: &i32| (*v as i16).to_string()),
        (8, false, |v: &i32| (*v as u8).to_string()),
        (16, false, |v: &i32| (*v as u16).to_string()),
        (32, false, |v: &i32| (*v as u32).to_string()),
    ] {
        let element = logical(
            next("int", P::Int32),
            LogicalType::Integer {
                bit_width,
                is_signed,
            },
        );
        cases.push(case(element, &small, Values::I32, render, E::Plain));
    }
    let unsigned = logical(
        next("u64", P::Int64),
        LogicalType::Integer {
            bit_width: 64,
            is_signed: false,
        },
    );
    cases.push(case(
        unsigned,
        &longs,
        Values::I64,
        |v| (*v as u64).to_string(),
        E::Dictionary,
    ));
    let millis = logical(
        next("time_ms", P::Int32),
        LogicalType::Time {
            is_adjusted_to_utc: false,
            unit: TimeUnit::Millis,
        },
    );
    let times = optional_values(&mut rng, |r, _| r.below(86_400_000) as i32);
    cases.push(case(
        millis,
        &times,
        Values::I32,
        |v| (i64::from(*v) * 1000).to_string(),
        E::Plain,
    ));
    let mut legacy = next("date", P::Int32);
    legacy.converted_type = Some(ConvertedType::Date);
    cases.push(case(
        legacy,
        &ints,
        Values::I32,
        |v| v.to_string(),
        E::DeltaBinaryPacked,
    ));
    let dec9 = logical(
        next("dec9", P::Int32),
        LogicalType::Decimal {
            scale: 2,
            precision: 9,
        },
    );
    cases.push(case(
        dec9,
        &ints,
        Values::I32,
        |v| v.to_string(),
        E::Dictionary,
    ));
    let dec18 = logical(
        next("dec18", P::Int64),
        LogicalType::Decimal {
            scale: 3,
            precision: 18,
        },
    );
    cases.push(case(
        dec18,
        &longs,
        Values::I64,
        |v| v.to_string(),
        E::Plain,
    ));
    let wide = optional_values(&mut rng, |r, i| {
        let v = (i128::from(r.next_u64() as i64) << 40) ^ i128::from(r.next_u64() >> 20);
        if i % 31 == 0 {
            -v
        } else {
            v
        }
    });
    for encoding in [E::Plain, E::Dictionary] {
        let mut element = logical(
            next("dec38", P::FixedLenByteArray),
            LogicalType::Decimal {
                scale: 5,
                precision: 38,
            },
        );
        element.type_length = Some(16);
        cases.push(case(
            element,
            &wide,
            |v| Values::Fixed(16, v.iter().map(|x| x.to_be_bytes().to_vec()).collect()),
            |v| v.to_string(),
            encoding,
        ));
        let element = logical(
            next("decba", P::ByteArray),
            LogicalType::Decimal {
                scale: 0,
                precision: 38,
            },
        );
        // Minimal big-endian bytes, as Java's BigInteger.toByteArray writes them.
        let minimal = |v: &i128| {
            let bytes = v.to_be_bytes();
            let mut start = 0;
            while start < 15
                && ((bytes[start] == 0 && bytes[start + 1] < 0x80)
                    || (bytes[start] == 0xff && bytes[start + 1] >= 0x80))
            {
                start += 1;
            }
            bytes[start..].to_vec()
        };
        cases.push(case(
            element,
            &wide,
            |v| Values::Bytes(v.iter().map(minimal).collect()),
            |v| v.to_string(),
            encoding,
        ));
    }
    let uuid = optional_values(&mut rng, |r, _| {
        (0..16).map(|_| r.byte()).collect::<Vec<u8>>()
    });
    let mut element = logical(next("uuid", P::FixedLenByteArray), LogicalType::Uuid);
    element.type_length = Some(16);
    cases.push(case(
        element,
        &uuid,
        |v| Values::Fixed(16, v),
        |v| hex(v),
        E::Plain,
    ));
    for (unit, utc) in [
        (TimeUnit::Millis, true),
        (TimeUnit::Micros, false),
        (TimeUnit::Nanos, true),
    ] {
        let element = logical(
            next("ts", P::Int64),
            LogicalType::Timestamp {
                is_adjusted_to_utc: utc,
                unit,
            },
        );
        cases.push(case(
            element,
            &longs,
            Values::I64,
            |v| v.to_string(),
            E::DeltaBinaryPacked,
        ));
    }
    cases
}

fn write_cases(cases: &[Case], options: &Options) -> Vec<u8> {
    let mut schema = vec![root(cases.len())];
    schema.extend(cases.iter().map(|c| c.element.clone()));
    let columns: Vec<Column> = cases.iter().map(|c| c.column.clone()).collect();
    write_file(&schema, &columns, options).bytes
}

fn expected_rows(cases: &[Case]) -> Vec<Vec<String>> {
    (0..ROWS)
        .map(|r| cases.iter().map(|c| c.expected[r].clone()).collect())
        .collect()
}

fn ids(cases: &[Case]) -> Vec<i32> {
    cases.iter().map(|c| c.element.field_id.unwrap()).collect()
}

fn assert_rows(actual: &[Vec<String>], expected: &[Vec<String>], what: &str) {
    assert_eq!(actual.len(), expected.len(), "{what}: row count");
    for (r, (a, e)) in actual.iter().zip(expected).enumerate() {
        assert_eq!(a, e, "{what}: row {r}");
    }
}

#[test]
fn every_type_encoding_page_version_and_codec_round_trips() {
    let cases = flat_cases();
    let expected = expected_rows(&cases);
    for page_version in [1, 2] {
        for codec in Codec::ALL {
            let options = Options {
                codec,
                page_version,
                entries_per_page: 700,
                rows_per_row_group: 1100,
                ..Options::default()
            };
            let bytes = write_cases(&cases, &options);
            for (mode, batch_size) in [(Mode::Local, 0), (Mode::Ranges, 333)] {
                let what = format!("v{page_version} {codec} {mode:?} batch {batch_size}");
                let mut options = project(&ids(&cases));
                options.batch_size = batch_size;
                let rows =
                    scan::rows(&bytes, options, mode).unwrap_or_else(|e| panic!("{what}: {e}"));
                assert_rows(&rows, &expected, &what);
            }
        }
    }
}

/// Scans given one pool, as the files of a split are, reuse the scratch
/// buffers the readers of earlier row groups and files gave back (pages are
/// decompressed, local files read and the caller's ranges filled through
/// them) and decode as alone.
#[test]
fn scans_sharing_a_pool_reuse_its_scratch_buffers() {
    let cases = flat_cases();
    let expected = expected_rows(&cases);
    let options = Options {
        codec: Codec::Zstd,
        entries_per_page: 700,
        rows_per_row_group: 1100,
        ..Options::default()
    };
    let bytes = write_cases(&cases, &options);
    let row_groups = scan::open(&bytes, "test.parquet", Mode::Ranges)
        .unwrap()
        .row_groups()
        .len();
    assert!(row_groups > 1, "{row_groups} row groups");
    let pool = Arc::<BufferPool>::default();
    let shared = ScanOptions {
        pool: Some(Arc::clone(&pool)),
        ..project(&ids(&cases))
    };
    let mut range_buffer = None;
    for (scan, mode) in [Mode::Local, Mode::Local, Mode::Ranges, Mode::Ranges]
        .into_iter()
        .enumerate()
    {
        let rows = scan::rows(&bytes, shared.clone(), mode).unwrap();
        assert_rows(&rows, &expected, &format!("scan {scan}, {mode:?}"));
        // Each leaf's reader gave back its decompression buffer and its
        // local file's read window; the next readers took them again.
        assert_eq!(
            pool.scratch_buffers(Scratch::Page),
            cases.len(),
            "scan {scan}"
        );
        assert_eq!(
            pool.scratch_buffers(Scratch::Window),
            cases.len(),
            "scan {scan}"
        );
        // The projected chunks are adjacent, so each row group is read as one
        // range: one buffer, given back once the row group's readers are done
        // and filled again by the next row groups and scans, not one per row
        // group.
        let ranges = usize::from(mode == Mode::Ranges);
        assert_eq!(pool.scratch_buffers(Scratch::Range), ranges, "scan {scan}");
        if mode == Mode::Ranges {
            // The same buffer, not a fresh one for each scan.
            let kept = pool.scratch_addresses(Scratch::Range);
            assert_eq!(
                *range_buffer.get_or_insert(kept.clone()),
                kept,
                "scan {scan}"
            );
        }
    }
}

#[test]
fn dictionaries_fall_back_to_plain_and_can_be_kept() {
    let mut rng = Rng::new(11);
    let words = optional_values(&mut rng, |r, _| format!("w{}", r.below(30)).into_bytes());
    let string = |id| {
        logical(
            leaf(
                &format!("s{id}"),
                PhysicalType::ByteArray,
                Repetition::Optional,
                id,
            ),
            LogicalType::String,
        )
    };
    let mut fallback = case(string(1), &words, Values::Bytes, |v| hex(v), E::Dictionary);
    fallback.column.dictionary_pages = Some(2);
    let all = case(string(2), &words, Values::Bytes, |v| hex(v), E::Dictionary);
    let numbers = optional_values(&mut rng, |r, _| r.below(7) as i64);
    let mut ints = case(
        leaf("n", PhysicalType::Int64, Repetition::Optional, 3),
        &numbers,
        Values::I64,
        |v| v.to_string(),
        E::Dictionary,
    );
    ints.column.dictionary_pages = Some(1);
    let cases = [fallback, all, ints];
    let expected = expected_rows(&cases);
    for page_version in [1, 2] {
        let options = Options {
            page_version,
            entries_per_page: 300,
            rows_per_row_group: 1000,
            codec: Codec::Snappy,
            ..Options::default()
        };
        let bytes = write_cases(&cases, &options);
        let mut keep = project(&[1, 2, 3]);
        keep.keep_dictionaries = true;
        let file = scan::open(&bytes, "dict.parquet", Mode::Ranges).unwrap();
        let (schema, batches) = scan::batches(&file, &bytes, keep.clone()).unwrap();
        assert!(
            schema.children[0].dictionary.is_none(),
            "falls back, so not kept"
        );
        let kept = &schema.children[1];
        assert_eq!(kept.data_type, DataType::Int32);
        assert_eq!(
            kept.dictionary.as_ref().unwrap().values.data_type,
            DataType::Utf8
        );
        assert!(
            schema.children[2].dictionary.is_none(),
            "only strings are kept"
        );
        for batch in &batches {
            assert!(batch.children[1].dictionary.is_some());
            checksum_data(batch, &schema).unwrap();
        }
        let rows = scan::rows(&bytes, keep, Mode::Local).unwrap();
        assert_rows(&rows, &expected, &format!("v{page_version} kept"));
        let rows = scan::rows(&bytes, project(&[1, 2, 3]), Mode::Local).unwrap();
        assert_rows(&rows, &expected, &format!("v{page_version} gathered"));
        // The checksum of a dictionary array is the checksum of its values.
        let plain = scan::batches(&file, &bytes, project(&[2])).unwrap();
        let mut kept_only = project(&[2]);
        kept_only.keep_dictionaries = true;
        let dictionary = scan::batches(&file, &bytes, kept_only).unwrap();
        for (a, b) in plain.1.iter().zip(&dictionary.1) {
            assert_eq!(
                checksum_data(a, &plain.0).unwrap(),
                checksum_data(b, &dictionary.0).unwrap()
            );
        }
    }
}

#[test]
fn row_groups_batches_and_resuming_agree_with_one_pass() {
    let cases: Vec<Case> = flat_cases().into_iter().step_by(5).collect();
    let expected = expected_rows(&cases);
    let options = Options {
        page_version: 1,
        entries_per_page: 97,
        rows_per_row_group: 400,
        codec: Codec::Zstd,
        ..Options::default()
    };
    let bytes = write_cases(&cases, &options);
    let file = scan::open(&bytes, "groups.parquet", Mode::Local).unwrap();
    assert_eq!(file.row_groups().len(), ROWS.div_ceil(400));
    assert_eq!(file.row_groups()[2].first_row, 800);
    for first_row in [
        0,
        1,
        96,
        97,
        399,
        400,
        401,
        1234,
        ROWS as u64 - 1,
        ROWS as u64,
        ROWS as u64 + 5,
    ] {
        for batch_size in [1, 7, 1000] {
            if batch_size == 1 && first_row < 2000 {
                continue;
            }
            let mut options = project(&ids(&cases));
            options.first_row = first_row;
            options.batch_size = batch_size;
            let rows = scan::rows(&bytes, options, Mode::Local).unwrap();
            let skip = (first_row as usize).min(ROWS);
            assert_rows(
                &rows,
                &expected[skip..],
                &format!("first row {first_row}, batch {batch_size}"),
            );
        }
    }
    // A subset of row groups, in the order given; first_row counts within it.
    let mut options = project(&ids(&cases));
    options.row_groups = Some(vec![3, 1]);
    options.first_row = 10;
    let rows = scan::rows(&bytes, options, Mode::Ranges).unwrap();
    let wanted: Vec<Vec<String>> = expected[1210..1600]
        .iter()
        .chain(&expected[400..800])
        .cloned()
        .collect();
    assert_rows(&rows, &wanted, "row groups 3 and 1");
}

#[test]
fn projection_reorders_renames_widens_and_fills_missing_fields() {
    let mut rng = Rng::new(3);
    let ints = optional_values(&mut rng, int32s);
    let floats = optional_values(&mut rng, |r, _| r.below(1000) as f32 / 8.0);
    let a = case(
        leaf("a", PhysicalType::Int32, Repetition::Optional, 1),
        &ints,
        Values::I32,
        |v| v.to_string(),
        E::Plain,
    );
    let b = case(
        leaf("b", PhysicalType::Float, Repetition::Optional, 2),
        &floats,
        Values::F32,
        |v| format!("{:016x}", f64::from(*v).to_bits()),
        E::Plain,
    );
    let bytes = write_cases(&[a, b], &Options::default());
    let expected_schema = Field::new("table", DataType::Struct, false).with_children(vec![
        Field::new("renamed_b", DataType::Float64, true),
        Field::new("added", DataType::Utf8, true),
        Field::new("a_long", DataType::Int64, true),
        Field::new("added_list", DataType::List, true).with_children(vec![Field::new(
            "element",
            DataType::Int32,
            true,
        )]),
    ]);
    let options = ScanOptions {
        expected: Some(expected_schema),
        ..project(&[2, 10, 1, 11])
    };
    let file = scan::open(&bytes, "evolve.parquet", Mode::Local).unwrap();
    let (schema, batches) = scan::batches(&file, &bytes, options.clone()).unwrap();
    let names: Vec<&str> = schema.children.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names, ["renamed_b", "added", "a_long", "added_list"]);
    assert_eq!(schema.children[0].data_type, DataType::Float64);
    assert_eq!(schema.children[2].data_type, DataType::Int64);
    let rows = scan::rows(&bytes, options, Mode::Ranges).unwrap();
    for (r, row) in rows.iter().enumerate() {
        let b = floats[r].map_or("null".into(), |v| {
            format!("{:016x}", f64::from(v).to_bits())
        });
        let a = ints[r].map_or("null".into(), |v| v.to_string());
        assert_eq!(row, &[b, "null".into(), a, "null".into()], "row {r}");
    }
    let total: usize = batches.iter().map(|b| b.len).sum();
    assert_eq!(total, ROWS);

    // What cannot be done is refused at open.
    let refuse = |options: ScanOptions| scan::batches(&file, &bytes, options).unwrap_err();
    let err = refuse(project(&[1, 99]));
    assert_eq!(err.status(), Status::InvalidArgument);
    assert!(
        err.message()
            .ends_with("field id 99 is not in the file, and no expected schema gives its type"),
        "{err}"
    );
    let err = refuse(project(&[1, 1]));
    assert!(
        err.message().ends_with("field id 1 is projected twice"),
        "{err}"
    );
    let narrowing = ScanOptions {
        expected: Some(
            Field::new("t", DataType::Struct, false).with_children(vec![Field::new(
                "a",
                DataType::Int16,
                true,
            )]),
        ),
        ..project(&[1])
    };
    let err = refuse(narrowing);
    assert_eq!(err.status(), Status::Unsupported);
    assert!(
        err.message()
            .ends_with("field id 1: the file's type 'i' cannot be read as 's'"),
        "{err}"
    );
    let required = ScanOptions {
        expected: Some(
            Field::new("t", DataType::Struct, false).with_children(vec![Field::new(
                "r",
                DataType::Int16,
                false,
            )]),
        ),
        ..project(&[5])
    };
    let err = refuse(required);
    assert_eq!(err.status(), Status::CorruptData, "the file's fault: {err}");
    assert!(
        err.message()
            .ends_with("field id 5 ('r') is required, but the file does not have it"),
        "{err}"
    );
    let mut bad_group = project(&[1]);
    bad_group.row_groups = Some(vec![1]);
    assert!(refuse(bad_group)
        .message()
        .ends_with("row group 1 does not exist (the file has 1)"));
}

/// `x int` (required) and `y string` (optional), with no field ids.
fn file_without_ids() -> Vec<u8> {
    let mut x = leaf("x", PhysicalType::Int32, Repetition::Required, 1);
    x.field_id = None;
    let mut y = logical(
        leaf("y", PhysicalType::ByteArray, Repetition::Optional, 2),
        LogicalType::String,
    );
    y.field_id = None;
    let columns = [
        Column::flat(0, Values::I32(vec![1, 2, 3]), &[true; 3]),
        Column::flat(
            1,
            Values::Bytes(vec![b"a".to_vec(), b"c".to_vec()]),
            &[true, false, true],
        ),
    ];
    write_file(&[root(2), x, y], &columns, &Options::default()).bytes
}

fn names(lists: &[&[&str]]) -> Option<Vec<Vec<String>>> {
    Some(
        lists
            .iter()
            .map(|l| l.iter().map(|n| n.to_string()).collect())
            .collect(),
    )
}

#[test]
fn files_without_field_ids_need_a_name_mapping() {
    let bytes = file_without_ids();
    let file = scan::open(&bytes, "noids.parquet", Mode::Local).unwrap();
    let err = scan::batches(&file, &bytes, project(&[1])).unwrap_err();
    assert_eq!(err.status(), Status::Unsupported);
    assert!(
        err.message().contains("have no field ids") && err.message().contains("name mapping"),
        "{err}"
    );
    // An empty projection still counts rows.
    let (_, batches) = scan::batches(&file, &bytes, project(&[])).unwrap();
    assert_eq!(batches.iter().map(|b| b.len).sum::<usize>(), 3);
}

#[test]
fn files_without_field_ids_read_by_their_mapped_names() {
    let bytes = file_without_ids();
    let expected = Field::new("t", DataType::Struct, false).with_children(vec![
        Field::new("label", DataType::Utf8, true),
        Field::new("gone", DataType::Int64, true),
        Field::new("n", DataType::Int64, false),
    ]);
    // Ids 7 (renamed from y: the mapping keeps both names), 8 (not in the
    // mapping) and 9 (x, widened to long), in an order of their own.
    let options = ScanOptions {
        expected: Some(expected.clone()),
        mapped_names: names(&[&["label", "y"], &[], &["x"]]),
        ..project(&[7, 8, 9])
    };
    let rows = scan::rows(&bytes, options, Mode::Local).unwrap();
    assert_eq!(
        rows,
        vec![
            // Strings render as their bytes in hex: "a", "c".
            vec!["61".to_string(), "null".into(), "1".into()],
            vec!["null".into(), "null".into(), "2".into()],
            vec!["63".into(), "null".into(), "3".into()],
        ]
    );

    // A required field the mapping does not find is the file's fault.
    let required = ScanOptions {
        expected: Some(expected.clone()),
        mapped_names: names(&[&["label"], &[], &["z"]]),
        ..project(&[7, 8, 9])
    };
    let file = scan::open(&bytes, "noids.parquet", Mode::Local).unwrap();
    let err = scan::batches(&file, &bytes, required).unwrap_err();
    assert_eq!(err.status(), Status::CorruptData, "{err}");
    assert!(
        err.message()
            .ends_with("field id 9 ('n') is required, but the file does not have it"),
        "{err}"
    );

    let short = ScanOptions {
        expected: Some(expected),
        mapped_names: names(&[&["label"]]),
        ..project(&[7, 8, 9])
    };
    let err = scan::batches(&file, &bytes, short).unwrap_err();
    assert_eq!(err.status(), Status::InvalidArgument, "{err}");
    assert!(
        err.message()
            .ends_with("the name mapping has 1 entries for 3 projected fields"),
        "{err}"
    );
}

#[test]
fn a_name_mapping_is_ignored_for_files_with_field_ids() {
    let x = leaf("x", PhysicalType::Int32, Repetition::Required, 4);
    let column = Column::flat(0, Values::I32(vec![5, 6]), &[true; 2]);
    let bytes = write_file(&[root(1), x], &[column], &Options::default()).bytes;
    let options = ScanOptions {
        mapped_names: names(&[&["x"]]),
        ..project(&[1])
    };
    let expected = Field::new("t", DataType::Struct, false).with_children(vec![Field::new(
        "x",
        DataType::Int32,
        true,
    )]);
    let rows = scan::rows(
        &bytes,
        ScanOptions {
            expected: Some(expected),
            ..options
        },
        Mode::Local,
    )
    .unwrap();
    assert_eq!(rows, vec![vec!["null".to_string()], vec!["null".into()]]);
}

/// Nested rows written with explicit levels, and their expected text.
struct Nested {
    schema: Vec<SchemaElement>,
    columns: Vec<Column>,
    expected: Vec<Vec<String>>,
}

/// `s struct<a: int, b: string>`, `xs list<int>` (3-level), `m map<string,
/// long>`, `ls list<struct<x: int, y: list<int>>>`, a legacy 2-level list, and a
/// flat column alongside.
fn nested_file() -> Nested {
    use PhysicalType as P;
    use Repetition::*;
    let schema = vec![
        root(6),
        group("s", Optional, 2, Some(1)),
        leaf("a", P::Int32, Required, 2),
        logical(leaf("b", P::ByteArray, Optional, 3), LogicalType::String),
        logical(group("xs", Optional, 1, Some(4)), LogicalType::List),
        group("list", Repeated, 1, None),
        leaf("element", P::Int32, Optional, 5),
        logical(group("m", Optional, 1, Some(6)), LogicalType::Map),
        group("key_value", Repeated, 2, None),
        logical(leaf("key", P::ByteArray, Required, 7), LogicalType::String),
        leaf("value", P::Int64, Optional, 8),
        logical(group("ls", Required, 1, Some(9)), LogicalType::List),
        group("list", Repeated, 1, None),
        group("element", Optional, 2, Some(10)),
        leaf("x", P::Int32, Optional, 11),
        logical(group("y", Optional, 1, Some(12)), LogicalType::List),
        group("list", Repeated, 1, None),
        leaf("element", P::Int32, Required, 13),
        logical(group("legacy", Optional, 1, Some(14)), LogicalType::List),
        leaf("item", P::Int32, Repeated, 15),
        leaf("flat", P::Int64, Optional, 16),
    ];
    let mut rng = Rng::new(5);
    let rows = 1200;
    // Levels per leaf, built row by row.
    let mut a = Column {
        max_def: 1,
        max_rep: 0,
        def: vec![],
        rep: vec![],
        values: Values::I32(vec![]),
        encoding: E::Plain,
        dictionary_pages: None,
    };
    let mut b = Column {
        max_def: 2,
        values: Values::Bytes(vec![]),
        ..a.clone()
    };
    let mut el = Column {
        max_def: 3,
        max_rep: 1,
        ..a.clone()
    };
    let mut key = Column {
        max_def: 2,
        max_rep: 1,
        values: Values::Bytes(vec![]),
        ..a.clone()
    };
    let mut val = Column {
        max_def: 3,
        max_rep: 1,
        values: Values::I64(vec![]),
        ..a.clone()
    };
    let mut x = Column {
        max_def: 3,
        max_rep: 1,
        ..a.clone()
    };
    let mut y = Column {
        max_def: 4,
        max_rep: 2,
        ..a.clone()
    };
    let mut legacy = Column {
        max_def: 2,
        max_rep: 1,
        ..a.clone()
    };
    let mut flat = Column {
        max_def: 1,
        values: Values::I64(vec![]),
        ..a.clone()
    };
    let push_i32 = |c: &mut Column, v: i32| {
        if let Values::I32(vs) = &mut c.values {
            vs.push(v)
        }
    };
    let push_i64 = |c: &mut Column, v: i64| {
        if let Values::I64(vs) = &mut c.values {
            vs.push(v)
        }
    };
    let mut expected = Vec::new();
    for r in 0..rows {
        let mut row = Vec::new();
        // s
        match rng.below(5) {
            0 => {
                a.def.push(0);
                b.def.push(0);
                row.push("null".to_owned());
            }
            k => {
                a.def.push(1);
                let av = r as i32 * 3 - 7;
                push_i32(&mut a, av);
                if k == 1 {
                    b.def.push(1);
                    row.push(format!("{{{av},null}}"));
                } else {
                    b.def.push(2);
                    let word = format!("w{}", rng.below(100));
                    if let Values::Bytes(vs) = &mut b.values {
                        vs.push(word.clone().into_bytes())
                    }
                    row.push(format!("{{{av},{}}}", hex(word.as_bytes())));
                }
            }
        }
        // xs: null, empty, or items some null
        match rng.below(6) {
            0 => {
                el.def.push(0);
                el.rep.push(0);
                row.push("null".into());
            }
            1 => {
                el.def.push(1);
                el.rep.push(0);
                row.push("[]".into());
            }
            _ => {
                let n = 1 + rng.below(if r % 50 == 0 { 3000 } else { 6 });
                let mut items = Vec::new();
                for i in 0..n {
                    el.rep.push(if i == 0 { 0 } else { 1 });
                    if rng.below(5) == 0 {
                        el.def.push(2);
                        items.push("null".to_owned());
                    } else {
                        el.def.push(3);
                        let v = rng.next_u64() as i32;
                        push_i32(&mut el, v);
                        items.push(v.to_string());
                    }
                }
                row.push(format!("[{}]", items.join(",")));
            }
        }
        // m
        match rng.below(4) {
            0 => {
                key.def.push(0);
                key.rep.push(0);
                val.def.push(0);
                val.rep.push(0);
                row.push("null".into());
            }
            1 => {
                key.def.push(1);
                key.rep.push(0);
                val.def.push(1);
                val.rep.push(0);
                row.push("[]".into());
            }
            _ => {
                let n = 1 + rng.below(4);
                let mut entries = Vec::new();
                for i in 0..n {
                    let rep = if i == 0 { 0 } else { 1 };
                    let k = format!("k{i}");
                    key.def.push(2);
                    key.rep.push(rep);
                    if let Values::Bytes(vs) = &mut key.values {
                        vs.push(k.clone().into_bytes())
                    }
                    val.rep.push(rep);
                    if rng.below(3) == 0 {
                        val.def.push(2);
                        entries.push(format!("{{{},null}}", hex(k.as_bytes())));
                    } else {
                        val.def.push(3);
                        let v = rng.next_u64() as i64;
                        push_i64(&mut val, v);
                        entries.push(format!("{{{},{v}}}", hex(k.as_bytes())));
                    }
                }
                row.push(format!("[{}]", entries.join(",")));
            }
        }
        // ls: required list of optional struct<x: optional int, y: optional list<required int>>
        let n = rng.below(4);
        if n == 0 {
            x.def.push(0);
            x.rep.push(0);
            y.def.push(0);
            y.rep.push(0);
            row.push("[]".into());
        } else {
            let mut items = Vec::new();
            for i in 0..n {
                let rep = if i == 0 { 0 } else { 1 };
                match rng.below(4) {
                    0 => {
                        x.def.push(1);
                        x.rep.push(rep);
                        y.def.push(1);
                        y.rep.push(rep);
                        items.push("null".into());
                    }
                    _ => {
                        let xs = if rng.below(3) == 0 {
                            x.def.push(2);
                            "null".to_owned()
                        } else {
                            x.def.push(3);
                            let v = i as i32 + r as i32;
                            push_i32(&mut x, v);
                            v.to_string()
                        };
                        x.rep.push(rep);
                        let ys = match rng.below(3) {
                            0 => {
                                y.def.push(2);
                                y.rep.push(rep);
                                "null".to_owned()
                            }
                            1 => {
                                y.def.push(3);
                                y.rep.push(rep);
                                "[]".to_owned()
                            }
                            _ => {
                                let m = 1 + rng.below(3);
                                let mut vs = Vec::new();
                                for j in 0..m {
                                    y.def.push(4);
                                    y.rep.push(if j == 0 { rep } else { 2 });
                                    let v = (r * 10 + j) as i32;
                                    push_i32(&mut y, v);
                                    vs.push(v.to_string());
                                }
                                format!("[{}]", vs.join(","))
                            }
                        };
                        items.push(format!("{{{xs},{ys}}}"));
                    }
                }
            }
            row.push(format!("[{}]", items.join(",")));
        }
        // legacy: optional group (LIST) { repeated int32 item }
        match rng.below(3) {
            0 => {
                legacy.def.push(0);
                legacy.rep.push(0);
                row.push("null".into());
            }
            1 => {
                legacy.def.push(1);
                legacy.rep.push(0);
                row.push("[]".into());
            }
            _ => {
                let n = 1 + rng.below(3);
                let mut vs = Vec::new();
                for i in 0..n {
                    legacy.def.push(2);
                    legacy.rep.push(if i == 0 { 0 } else { 1 });
                    push_i32(&mut legacy, i as i32 - r as i32);
                    vs.push((i as i32 - r as i32).to_string());
                }
                row.push(format!("[{}]", vs.join(",")));
            }
        }
        // flat
        if r % 7 == 0 {
            flat.def.push(0);
            row.push("null".into());
        } else {
            flat.def.push(1);
            push_i64(&mut flat, r as i64 * 1_000_003);
            row.push((r as i64 * 1_000_003).to_string());
        }
        expected.push(row);
    }
    b.encoding = E::Dictionary;
    key.encoding = E::DeltaByteArray;
    el.encoding = E::Dictionary;
    el.dictionary_pages = Some(1);
    val.encoding = E::DeltaBinaryPacked;
    Nested {
        schema,
        columns: vec![a, b, el, key, val, x, y, legacy, flat],
        expected,
    }
}

#[test]
fn nested_structs_lists_and_maps_assemble_from_levels() {
    let nested = nested_file();
    for page_version in [1, 2] {
        for entries_per_page in [7, 250] {
            let options = Options {
                page_version,
                entries_per_page,
                rows_per_row_group: 500,
                codec: Codec::Gzip,
                ..Options::default()
            };
            let bytes = write_file(&nested.schema, &nested.columns, &options).bytes;
            let what = format!("v{page_version}, {entries_per_page} entries per page");
            for batch_size in [0, 13] {
                let mut options = project(&[1, 4, 6, 9, 14, 16]);
                options.batch_size = batch_size;
                let rows = scan::rows(&bytes, options, Mode::Ranges)
                    .unwrap_or_else(|e| panic!("{what}: {e}"));
                assert_rows(&rows, &nested.expected, &what);
            }
            // Resuming inside a row group of nested columns.
            let mut options = project(&[9, 4]);
            options.first_row = 777;
            options.batch_size = 100;
            let rows = scan::rows(&bytes, options, Mode::Local).unwrap();
            let wanted: Vec<Vec<String>> = nested.expected[777..]
                .iter()
                .map(|r| vec![r[3].clone(), r[1].clone()])
                .collect();
            assert_rows(&rows, &wanted, &format!("{what}, resumed"));
            // Flat columns of a file with nested ones, alone.
            let rows = scan::rows(&bytes, project(&[16]), Mode::Local).unwrap();
            assert_eq!(rows.len(), nested.expected.len());
        }
    }
}

#[test]
fn nested_batches_validate_and_export() {
    let nested = nested_file();
    let bytes = write_file(&nested.schema, &nested.columns, &Options::default()).bytes;
    let file = scan::open(&bytes, "nested.parquet", Mode::Local).unwrap();
    let schema = file.arrow_schema().unwrap();
    let formats: Vec<String> = schema
        .children
        .iter()
        .map(|f| f.data_type.format())
        .collect();
    assert_eq!(formats, ["+s", "+l", "+m", "+l", "+l", "l"]);
    let (schema, batches) = scan::batches(&file, &bytes, project(&[1, 4, 6, 9, 14, 16])).unwrap();
    for batch in &batches {
        ArrayView::from_data(batch, &schema).unwrap();
        let (array, exported_schema) =
            crate::arrow::export::export(batch.clone(), &schema).unwrap();
        let mut array = array;
        let mut exported_schema = exported_schema;
        unsafe {
            (array.release.unwrap())(&mut array);
            (exported_schema.release.unwrap())(&mut exported_schema);
        }
    }
}

#[test]
fn unsupported_nested_fields_are_refused_up_front() {
    use PhysicalType as P;
    use Repetition::*;
    let schema = vec![
        root(2),
        logical(group("m", Optional, 1, Some(1)), LogicalType::Map),
        group("key_value", Repeated, 2, None),
        leaf("key", P::Int32, Optional, 2),
        leaf("value", P::Int32, Optional, 3),
        leaf("ok", P::Int32, Optional, 4),
    ];
    let columns = vec![
        Column {
            max_def: 3,
            max_rep: 1,
            def: vec![0],
            rep: vec![0],
            values: Values::I32(vec![]),
            encoding: E::Plain,
            dictionary_pages: None,
        },
        Column {
            max_def: 3,
            max_rep: 1,
            def: vec![0],
            rep: vec![0],
            values: Values::I32(vec![]),
            encoding: E::Plain,
            dictionary_pages: None,
        },
        Column::flat(1, Values::I32(vec![5]), &[true]),
    ];
    let bytes = write_file(&schema, &columns, &Options::default()).bytes;
    let file = scan::open(&bytes, "maps.parquet", Mode::Local).unwrap();
    let err = scan::batches(&file, &bytes, project(&[1, 4])).unwrap_err();
    assert_eq!(err.status(), Status::Unsupported);
    assert_eq!(
        err.message(),
        "test.parquet: field id 1: field 'm': a MAP with optional keys is not supported"
            .replace("test.parquet", &file.location().to_string())
    );
    let err = file.arrow_schema().unwrap_err();
    assert_eq!(err.status(), Status::Unsupported);
    let rows = scan::rows(&bytes, project(&[4]), Mode::Local).unwrap();
    assert_eq!(rows, [["5"]]);
}

/// INTEGER(8) and INTEGER(16) columns (DuckDB's TINYINT and SMALLINT, arrow-rs's
/// Int8 and Int16) are Iceberg ints: read as int32 or int64 when the expected
/// schema asks, as Iceberg's reader does.
#[test]
fn narrow_signed_integers_widen_to_int_and_long() {
    let mut rng = Rng::new(8);
    let bytes8 = optional_values(&mut rng, |r, i| match i % 50 {
        0 => i8::MIN as i32,
        1 => i8::MAX as i32,
        _ => r.below(256) as i32 - 128,
    });
    let shorts = optional_values(&mut rng, |r, i| match i % 50 {
        0 => i16::MIN as i32,
        1 => i16::MAX as i32,
        _ => r.below(65536) as i32 - 32768,
    });
    let narrow = |name: &str, id: i32, converted: ConvertedType| SchemaElement {
        converted_type: Some(converted),
        ..leaf(name, PhysicalType::Int32, Repetition::Optional, id)
    };
    let cases = [
        case(
            narrow("b", 1, ConvertedType::Int8),
            &bytes8,
            Values::I32,
            |v| v.to_string(),
            E::Plain,
        ),
        case(
            narrow("s", 2, ConvertedType::Int16),
            &shorts,
            Values::I32,
            |v| v.to_string(),
            E::Plain,
        ),
    ];
    let bytes = write_cases(&cases, &Options::default());
    for (wanted, name) in [(DataType::Int32, "int"), (DataType::Int64, "long")] {
        let expected_schema = Field::new("t", DataType::Struct, false).with_children(vec![
            Field::new("b", wanted.clone(), true),
            Field::new("s", wanted.clone(), true),
        ]);
        let options = ScanOptions {
            expected: Some(expected_schema),
            ..project(&[1, 2])
        };
        let file = scan::open(&bytes, "narrow.parquet", Mode::Local).unwrap();
        let (schema, _) = scan::batches(&file, &bytes, options.clone()).unwrap();
        assert_eq!(schema.children[0].data_type, wanted, "{name}");
        assert_eq!(schema.children[1].data_type, wanted, "{name}");
        let rows = scan::rows(&bytes, options, Mode::Local).unwrap();
        let expected: Vec<Vec<String>> = (0..ROWS)
            .map(|r| vec![cases[0].expected[r].clone(), cases[1].expected[r].clone()])
            .collect();
        assert_rows(&rows, &expected, name);
    }
}

/// TIMESTAMP(MILLIS) columns (arrow-rs's and DuckDB's millisecond timestamps,
/// old Hive/Spark files) are Iceberg timestamps in microseconds: read as such
/// when the expected schema asks, as Iceberg's reader does (millis * 1000).
#[test]
fn millisecond_timestamps_read_as_microseconds() {
    let mut rng = Rng::new(9);
    let millis = optional_values(&mut rng, |r, i| match i % 50 {
        0 => -62_135_596_800_000i64,
        1 => 253_402_300_799_999,
        _ => r.below(4_000_000_000_000) as i64 - 2_000_000_000_000,
    });
    let timestamp = |name: &str, id: i32, adjusted: bool| SchemaElement {
        logical_type: Some(LogicalType::Timestamp {
            is_adjusted_to_utc: adjusted,
            unit: TimeUnit::Millis,
        }),
        ..leaf(name, PhysicalType::Int64, Repetition::Optional, id)
    };
    let micros = |v: &i64| (v * 1000).to_string();
    let cases = [
        case(
            timestamp("tz", 1, true),
            &millis,
            Values::I64,
            micros,
            E::Plain,
        ),
        case(
            timestamp("local", 2, false),
            &millis,
            Values::I64,
            micros,
            E::Plain,
        ),
    ];
    let bytes = write_cases(&cases, &Options::default());
    let ts = |zone: Option<&str>| DataType::Timestamp {
        unit: crate::arrow::TimeUnit::Microsecond,
        timezone: zone.map(str::to_owned),
    };
    let expected_schema = Field::new("t", DataType::Struct, false).with_children(vec![
        Field::new("tz", ts(Some("UTC")), true),
        Field::new("local", ts(None), true),
    ]);
    let options = ScanOptions {
        expected: Some(expected_schema),
        ..project(&[1, 2])
    };
    let rows = scan::rows(&bytes, options, Mode::Local).unwrap();
    let expected: Vec<Vec<String>> = (0..ROWS)
        .map(|r| vec![cases[0].expected[r].clone(), cases[1].expected[r].clone()])
        .collect();
    assert_rows(&rows, &expected, "millis as micros");
    // A zone mismatch is still refused.
    let wrong_zone = ScanOptions {
        expected: Some(
            Field::new("t", DataType::Struct, false).with_children(vec![Field::new(
                "tz",
                ts(None),
                true,
            )]),
        ),
        ..project(&[1])
    };
    let file = scan::open(&bytes, "millis.parquet", Mode::Local).unwrap();
    let err = scan::batches(&file, &bytes, wrong_zone).unwrap_err();
    assert_eq!(err.status(), Status::Unsupported, "{err}");
}

/// INT96 timestamps (Spark's default) are Iceberg timestamptz values: read as
/// microseconds when the expected schema asks, as Iceberg computes them
/// (`ParquetUtil.extractTimestampInt96`: days in micros plus nanos of the day
/// truncated to micros).
#[test]
fn int96_timestamps_read_as_microseconds() {
    let mut rng = Rng::new(10);
    // (Julian day, nanoseconds of the day)
    let instants = optional_values(&mut rng, |r, i| match i % 50 {
        0 => (2_440_588i32, 0i64),
        1 => (2_440_587, 86_399_999_999_999),
        2 => (1_721_426, 999), // 0001-01-01, sub-microsecond part dropped
        _ => (
            2_400_000 + r.below(100_000) as i32,
            r.below(86_400_000_000_000) as i64,
        ),
    });
    let encoded: Vec<Option<[u8; 12]>> = instants
        .iter()
        .map(|v| {
            v.map(|(day, nanos)| {
                let mut b = [0u8; 12];
                b[..8].copy_from_slice(&nanos.to_le_bytes());
                b[8..].copy_from_slice(&day.to_le_bytes());
                b
            })
        })
        .collect();
    let micros = |b: &[u8; 12]| {
        let nanos = i64::from_le_bytes(b[..8].try_into().unwrap());
        let day = i64::from(i32::from_le_bytes(b[8..].try_into().unwrap()));
        ((day - 2_440_588) * 86_400_000_000 + nanos / 1000).to_string()
    };
    let cases = [case(
        leaf("ts", PhysicalType::Int96, Repetition::Optional, 1),
        &encoded,
        Values::I96,
        micros,
        E::Plain,
    )];
    let bytes = write_cases(&cases, &Options::default());
    let ts = |unit| DataType::Timestamp {
        unit,
        timezone: Some("UTC".to_owned()),
    };
    let expected_schema = Field::new("t", DataType::Struct, false).with_children(vec![Field::new(
        "ts",
        ts(crate::arrow::TimeUnit::Microsecond),
        true,
    )]);
    let options = ScanOptions {
        expected: Some(expected_schema),
        ..project(&[1])
    };
    let file = scan::open(&bytes, "int96.parquet", Mode::Local).unwrap();
    let (schema, _) = scan::batches(&file, &bytes, options.clone()).unwrap();
    assert_eq!(
        schema.children[0].data_type,
        ts(crate::arrow::TimeUnit::Microsecond)
    );
    let rows = scan::rows(&bytes, options, Mode::Local).unwrap();
    let expected: Vec<Vec<String>> = cases[0].expected.iter().map(|v| vec![v.clone()]).collect();
    assert_rows(&rows, &expected, "INT96 as micros");
    // Without an expected schema INT96 stays nanoseconds, where year 1 is
    // out of range.
    let scan = crate::parquet::read::scan::Scan::open(file.clone(), project(&[1])).unwrap();
    assert_eq!(
        scan.schema().children[0].data_type,
        ts(crate::arrow::TimeUnit::Nanosecond)
    );
    let err = scan::batches(&file, &bytes, project(&[1])).unwrap_err();
    assert!(
        err.message().ends_with(
            "int96.parquet: row group 0, column 'ts', page 0: INT96 timestamp (Julian day \
             1721426, 999 ns of the day) is outside the range of 64-bit nanoseconds since 1970"
        ),
        "{err}"
    );
}
