//! Statistics against a brute-force computation over the values read back:
//! chunk statistics in parquet-java's shape (signed integers, unsigned bytes,
//! signed decimal bytes, Java's float order with NaN), the column index per
//! page, and the result's Iceberg metrics (NaN left out and counted).

use std::cmp::Ordering;

use crate::arrow::DataType;
use crate::parquet::format::{BoundaryOrder, ConvertedType, PhysicalType, Statistics};
use crate::test_support::write::reader::{read_file, ParquetFile, Value};
use crate::test_support::write::*;

#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Signed,
    Float,
    Unsigned,
    SignedBytes,
}

fn kind(file: &ParquetFile, column: usize) -> Kind {
    let c = file.column(column);
    match c.physical_type {
        PhysicalType::Float | PhysicalType::Double => Kind::Float,
        PhysicalType::ByteArray => Kind::Unsigned,
        PhysicalType::FixedLenByteArray if c.converted_type == Some(ConvertedType::Decimal) => {
            Kind::SignedBytes
        }
        PhysicalType::FixedLenByteArray => Kind::Unsigned,
        _ => Kind::Signed,
    }
}

/// Java's Float.compare / Double.compare: NaN (any) above +infinity.
fn java_compare(a: &Value, b: &Value) -> Ordering {
    let canonical = |v: &Value| match v {
        Value::F32(x) if x.is_nan() => f64::NAN,
        Value::F32(x) => f64::from(*x),
        Value::F64(x) if x.is_nan() => f64::NAN,
        Value::F64(x) => *x,
        other => panic!("{other:?}"),
    };
    canonical(a).total_cmp(&canonical(b))
}

fn compare(kind: Kind, a: &Value, b: &Value) -> Ordering {
    match (kind, a, b) {
        (Kind::Float, ..) => java_compare(a, b),
        (_, Value::Bool(x), Value::Bool(y)) => x.cmp(y),
        (_, Value::I32(x), Value::I32(y)) => x.cmp(y),
        (_, Value::I64(x), Value::I64(y)) => x.cmp(y),
        (Kind::Unsigned, Value::Bytes(x), Value::Bytes(y)) => x.cmp(y),
        (Kind::SignedBytes, Value::Bytes(x), Value::Bytes(y)) => {
            let wide = |b: &[u8]| {
                let mut w = [if b[0] & 0x80 != 0 { 0xff } else { 0 }; 16];
                w[16 - b.len()..].copy_from_slice(b);
                i128::from_be_bytes(w)
            };
            wide(x).cmp(&wide(y))
        }
        _ => panic!("{a:?} {b:?}"),
    }
}

/// The PLAIN bytes of a value, NaN canonical (as Java's floatToIntBits).
fn stat_bytes(v: &Value) -> Vec<u8> {
    match v {
        Value::F32(x) if x.is_nan() => 0x7fc0_0000u32.to_le_bytes().to_vec(),
        Value::F64(x) if x.is_nan() => 0x7ff8_0000_0000_0000u64.to_le_bytes().to_vec(),
        other => other.stat_bytes(),
    }
}

fn min_max<'a>(kind: Kind, values: impl Iterator<Item = &'a Value>) -> Option<(Value, Value)> {
    let mut result: Option<(Value, Value)> = None;
    for v in values {
        result = Some(match result {
            None => (v.clone(), v.clone()),
            Some((min, max)) => (
                if compare(kind, v, &min) == Ordering::Less {
                    v.clone()
                } else {
                    min
                },
                if compare(kind, v, &max) == Ordering::Greater {
                    v.clone()
                } else {
                    max
                },
            ),
        });
    }
    result
}

fn is_nan(v: &Value) -> bool {
    matches!(v, Value::F32(x) if x.is_nan()) || matches!(v, Value::F64(x) if x.is_nan())
}

/// parquet-java's footer statistics for one chunk's values.
fn expected_statistics(file: &ParquetFile, column: usize, values: &[Option<Value>]) -> Statistics {
    let kind = kind(file, column);
    let present: Vec<&Value> = values.iter().flatten().collect();
    let nulls = (values.len() - present.len()) as i64;
    let mut stats = Statistics {
        null_count: Some(nulls),
        ..Statistics::default()
    };
    let Some((min, max)) = min_max(kind, present.into_iter()) else {
        return stats;
    };
    let (min, max) = (stat_bytes(&min), stat_bytes(&max));
    if min.len() + max.len() >= 4096 {
        return Statistics::default();
    }
    let c = file.column(column);
    let signed_legacy = kind != Kind::Unsigned
        && kind != Kind::SignedBytes
        && c.converted_type != Some(ConvertedType::Decimal);
    if signed_legacy || min == max {
        stats.min = Some(min.clone());
        stats.max = Some(max.clone());
    }
    stats.min_value = Some(min);
    stats.max_value = Some(max);
    stats
}

fn mixed_columns(rows: usize, seed: u64) -> Vec<Column> {
    let mut rng = Rng(seed);
    let r = &mut rng;
    let specials32 = [
        0.0f32,
        -0.0,
        f32::NAN,
        -f32::NAN,
        f32::INFINITY,
        f32::NEG_INFINITY,
        1.0,
        -1.0,
    ];
    let specials64 = [
        0.0f64,
        -0.0,
        f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
        -2.0,
        3.0,
    ];
    let floats = |r: &mut Rng, nan: u64| -> Vec<Option<f32>> {
        (0..rows)
            .map(|_| match r.below(100) {
                0..=9 => None,
                x if x < 10 + nan => Some(f32::NAN),
                x if x < 40 => Some(specials32[r.below(specials32.len() as u64) as usize]),
                _ => Some((r.next_u64() as i32) as f32 / 1000.0),
            })
            .collect()
    };
    let doubles: Vec<Option<f64>> = (0..rows)
        .map(|_| match r.below(10) {
            0 => None,
            1..=4 => Some(specials64[r.below(specials64.len() as u64) as usize]),
            _ => Some((r.next_u64() as i64) as f64),
        })
        .collect();
    let binary: Vec<Option<Vec<u8>>> = (0..rows)
        .map(|_| {
            (!r.chance(5)).then(|| {
                (0..r.below(6))
                    .map(|_| [0u8, 1, 0x7f, 0x80, 0xfe, 0xff][r.below(6) as usize])
                    .collect()
            })
        })
        .collect();
    let text: Vec<Option<String>> = (0..rows)
        .map(|_| {
            (!r.chance(5)).then(|| match r.below(4) {
                0 => "é".repeat(30 + r.below(10) as usize) + "z",
                1 => format!(
                    "{}\u{10FFFF}\u{10FFFF}",
                    "a".repeat(62 + r.below(3) as usize)
                ),
                2 => "\u{FFFF}".repeat(r.below(30) as usize),
                _ => format!("{}", r.below(100)),
            })
        })
        .collect();
    let ff: Vec<Option<Vec<u8>>> = (0..rows)
        .map(|_| {
            Some(if r.chance(50) {
                vec![0xff; 70]
            } else {
                (0..70).map(|_| r.next_u64() as u8).collect()
            })
        })
        .collect();
    let decimal: Vec<Option<i128>> = (0..rows)
        .map(|_| {
            (!r.chance(10))
                .then(|| (r.next_u64() as i64 as i128) * 1_000_000_000_000 + r.below(1000) as i128)
        })
        .collect();
    let small_decimal: Vec<Option<i128>> = (0..rows)
        .map(|_| Some(r.below(20_000) as i128 - 10_000))
        .collect();
    let ints: Vec<Option<i32>> = (0..rows)
        .map(|_| (!r.chance(3)).then(|| r.next_u64() as i32))
        .collect();
    let bools: Vec<Option<bool>> = (0..rows)
        .map(|_| (!r.chance(20)).then(|| r.chance(90)))
        .collect();
    vec![
        primitive("f", 1, DataType::Float32, true, &floats(r, 5)),
        primitive("f_nan_free", 2, DataType::Float32, true, &floats(r, 0)),
        primitive("d", 3, DataType::Float64, true, &doubles),
        bytes("bin", 4, DataType::Binary, true, &binary),
        strings("s", 5, true, &text),
        fixed("ff", 6, 70, true, &ff),
        primitive(
            "dec",
            7,
            DataType::Decimal128 {
                precision: 38,
                scale: 4,
            },
            true,
            &decimal,
        ),
        primitive(
            "dec_int",
            8,
            DataType::Decimal128 {
                precision: 5,
                scale: 1,
            },
            false,
            &small_decimal,
        ),
        primitive("i", 9, DataType::Int32, true, &ints),
        booleans("b", 10, true, &bools),
    ]
}

fn check_file(columns: &[Column], pairs: &[(&str, &str)]) {
    let (schema, data) = batch(columns);
    let (bytes, result) = write_file(&schema, &slices(&data, 333), options(pairs));
    let file = read_file(&bytes);
    let what = format!("{pairs:?}");
    for (c, column) in columns.iter().enumerate() {
        let kind = kind(&file, c);
        let name = &column.field.name;
        for rg in 0..file.row_groups.len() {
            let chunk = &file.row_groups[rg][c];
            let stats = file
                .chunk_meta(rg, c)
                .meta_data
                .as_ref()
                .unwrap()
                .statistics
                .clone()
                .unwrap();
            assert_eq!(
                stats,
                expected_statistics(&file, c, &chunk.values),
                "{what}: {name} row group {rg}"
            );
            check_column_index(&file, rg, c, kind, &what);
        }
        // The result: Iceberg's metrics over the whole file.
        let all = file.values(c);
        let metrics = &result.columns[c].metrics;
        let present: Vec<&Value> = all.iter().flatten().collect();
        assert_eq!(metrics.value_count as usize, all.len(), "{what}: {name}");
        assert_eq!(
            metrics.null_count as usize,
            all.len() - present.len(),
            "{what}: {name}"
        );
        let nans = present.iter().filter(|v| is_nan(v)).count();
        let float = kind == Kind::Float;
        assert_eq!(
            metrics.nan_count,
            float.then_some(nans as u64),
            "{what}: {name}"
        );
        let bounds = min_max(kind, present.into_iter().filter(|v| !is_nan(v)));
        assert_eq!(
            (metrics.min.clone(), metrics.max.clone()),
            (
                bounds.as_ref().map(|b| b.0.stat_bytes()),
                bounds.as_ref().map(|b| b.1.stat_bytes())
            ),
            "{what}: {name} bounds"
        );
    }
}

fn check_column_index(file: &ParquetFile, rg: usize, c: usize, kind: Kind, what: &str) {
    let chunk = &file.row_groups[rg][c];
    let pages: Vec<_> = chunk
        .pages
        .iter()
        .filter(|p| p.header.page_type != crate::parquet::format::PageType::DictionaryPage)
        .collect();
    let mut start = 0;
    let mut page_values = Vec::new();
    for page in &pages {
        page_values.push(&chunk.values[start..start + page.rows]);
        start += page.rows;
    }
    let has_nan = page_values
        .iter()
        .any(|values| values.iter().flatten().any(is_nan));
    let Some(index) = file.column_index(rg, c) else {
        assert!(
            has_nan,
            "{what}: column {c} row group {rg} has no column index"
        );
        return;
    };
    assert!(!has_nan, "{what}: a column index despite NaN");
    let utf8 = file.column(c).converted_type == Some(ConvertedType::Utf8);
    let mut bounded = Vec::new();
    for (i, values) in page_values.iter().enumerate() {
        let nulls = values.iter().filter(|v| v.is_none()).count();
        assert_eq!(index.null_counts.as_ref().unwrap()[i], nulls as i64);
        assert_eq!(index.null_pages[i], nulls == values.len());
        let Some((min, max)) = min_max(kind, values.iter().flatten()) else {
            assert!(index.min_values[i].is_empty() && index.max_values[i].is_empty());
            continue;
        };
        let (mut min, mut max) = (stat_bytes(&min), stat_bytes(&max));
        if kind == Kind::Float {
            // Zeros widen: a -0.0 max becomes +0.0, a +0.0 min -0.0.
            let zero = |b: &[u8]| {
                b.iter().all(|&x| x == 0)
                    || (b.iter().rev().skip(1).all(|&x| x == 0) && b[b.len() - 1] == 0x80)
            };
            if zero(&min) {
                *min.last_mut().unwrap() = 0x80;
            }
            if zero(&max) {
                *max.last_mut().unwrap() = 0;
            }
            assert_eq!(
                (&index.min_values[i], &index.max_values[i]),
                (&min, &max),
                "{what}: page {i}"
            );
        } else if min.len() <= 64 && max.len() <= 64 {
            assert_eq!(
                (&index.min_values[i], &index.max_values[i]),
                (&min, &max),
                "{what}: page {i}"
            );
        } else {
            let (tmin, tmax) = (&index.min_values[i], &index.max_values[i]);
            let cmp = |a: &[u8], b: &[u8]| match kind {
                Kind::SignedBytes => {
                    compare(kind, &Value::Bytes(a.to_vec()), &Value::Bytes(b.to_vec()))
                }
                _ => a.cmp(b),
            };
            assert!(
                tmin.len() <= 64 && cmp(tmin, &min) != Ordering::Greater,
                "{what}: page {i} truncated min"
            );
            assert!(
                cmp(tmax, &max) != Ordering::Less,
                "{what}: page {i} truncated max"
            );
            assert!(
                tmax.len() <= 64 || tmax == &max,
                "{what}: page {i} max of {} bytes",
                tmax.len()
            );
            if utf8 {
                assert!(std::str::from_utf8(tmin).is_ok() && std::str::from_utf8(tmax).is_ok());
            }
        }
        bounded.push((index.min_values[i].clone(), index.max_values[i].clone()));
    }
    let order = |a: &[u8], b: &[u8]| match (kind, file.column(c).physical_type) {
        (Kind::Float, PhysicalType::Float) => java_compare(
            &Value::F32(f32::from_le_bytes(a.try_into().unwrap())),
            &Value::F32(f32::from_le_bytes(b.try_into().unwrap())),
        ),
        (Kind::Float, _) => java_compare(
            &Value::F64(f64::from_le_bytes(a.try_into().unwrap())),
            &Value::F64(f64::from_le_bytes(b.try_into().unwrap())),
        ),
        (Kind::Signed, PhysicalType::Int32) => i32::from_le_bytes(a.try_into().unwrap())
            .cmp(&i32::from_le_bytes(b.try_into().unwrap())),
        (Kind::Signed, PhysicalType::Int64) => i64::from_le_bytes(a.try_into().unwrap())
            .cmp(&i64::from_le_bytes(b.try_into().unwrap())),
        (Kind::SignedBytes, _) => {
            compare(kind, &Value::Bytes(a.to_vec()), &Value::Bytes(b.to_vec()))
        }
        _ => a.cmp(b),
    };
    let ascending = bounded
        .windows(2)
        .all(|w| order(&w[0].0, &w[1].0).is_le() && order(&w[0].1, &w[1].1).is_le());
    let descending = bounded
        .windows(2)
        .all(|w| order(&w[0].0, &w[1].0).is_ge() && order(&w[0].1, &w[1].1).is_ge());
    let expected = if ascending {
        BoundaryOrder::Ascending
    } else if descending {
        BoundaryOrder::Descending
    } else {
        BoundaryOrder::Unordered
    };
    assert_eq!(index.boundary_order, expected, "{what}: column {c}");
}

#[test]
fn statistics_match_brute_force() {
    let columns = mixed_columns(2500, 11);
    let small = [
        ("write.parquet.page-row-limit", "61"),
        ("write.parquet.row-group-size-bytes", "40000"),
        ("write.parquet.row-group-check-min-record-count", "50"),
        ("write.parquet.row-group-check-max-record-count", "200"),
    ];
    for version in ["v1", "v2"] {
        for dictionary in ["true", "false"] {
            let mut pairs = small.to_vec();
            pairs.push(("write.parquet.page-version", version));
            pairs.push(("parquet.enable.dictionary", dictionary));
            check_file(&columns, &pairs);
        }
    }
    check_file(&columns, &[]);
}

#[test]
fn sorted_pages_get_a_boundary_order() {
    let rows = 1000i32;
    let up: Vec<Option<i64>> = (0..rows).map(|i| Some(i64::from(i) * 3 - 1500)).collect();
    let down: Vec<Option<String>> = (0..rows)
        .map(|i| Some(format!("{:05}", rows - i)))
        .collect();
    let mixed: Vec<Option<i32>> = (0..rows)
        .map(|i| Some(if (i / 100) % 2 == 0 { i } else { -i }))
        .collect();
    let columns = vec![
        primitive("up", 1, DataType::Int64, true, &up),
        strings("down", 2, true, &down),
        primitive("mixed", 3, DataType::Int32, true, &mixed),
    ];
    let (schema, data) = batch(&columns);
    let (bytes, _) = write_file(
        &schema,
        &[data],
        options(&[("write.parquet.page-row-limit", "100")]),
    );
    let file = read_file(&bytes);
    let orders: Vec<_> = (0..3)
        .map(|c| file.column_index(0, c).unwrap().boundary_order)
        .collect();
    assert_eq!(
        orders,
        [
            BoundaryOrder::Ascending,
            BoundaryOrder::Descending,
            BoundaryOrder::Unordered
        ]
    );
}

#[test]
fn statistics_can_be_disabled_per_column() {
    let values: Vec<Option<i64>> = (0..100).map(|i| (i % 10 != 0).then_some(i)).collect();
    let columns = vec![
        primitive("a", 1, DataType::Int64, true, &values),
        primitive("b", 2, DataType::Int64, true, &values),
    ];
    let (schema, data) = batch(&columns);
    let (bytes, result) = write_file(
        &schema,
        &[data],
        options(&[("write.parquet.stats-enabled.column.b", "false")]),
    );
    let file = read_file(&bytes);
    let stats = |c: usize| {
        file.chunk_meta(0, c)
            .meta_data
            .as_ref()
            .unwrap()
            .statistics
            .clone()
            .unwrap()
    };
    assert!(stats(0).min_value.is_some());
    assert_eq!(
        stats(1),
        Statistics {
            null_count: Some(10),
            ..Default::default()
        }
    );
    assert!(file.column_index(0, 0).is_some() && file.column_index(0, 1).is_none());
    assert!(result.columns[1].metrics.min.is_none());
    assert_eq!(result.columns[1].metrics.null_count, 10);
}
