//! The rows of the parquet-java reference files, computed exactly as
//! `tests/data/ParquetJavaReference.java` computes them.

use crate::arrow::{DataType, TimeUnit};

use super::{booleans, bytes, fixed, primitive, strings, uuid_field, Column};

fn is_null(i: i64, column: i64) -> bool {
    (i + column) % 7 == 3
}

fn opt<T>(null: bool, value: impl FnOnce() -> T) -> Option<T> {
    (!null).then(value)
}

pub fn float_value(i: i64) -> f32 {
    match i {
        2 => -0.0,
        4 => 0.0,
        _ if i % 11 == 5 => f32::NAN,
        6 => f32::NEG_INFINITY,
        _ => (i - 100) as f32 * 0.5,
    }
}

pub fn double_value(i: i64) -> f64 {
    match i {
        2 => -0.0,
        4 => 0.0,
        _ if i % 13 == 5 => f64::NAN,
        7 => f64::MAX,
        _ => (i - 100) as f64 * 1.25e300 / 100.0,
    }
}

pub fn string_value(i: i64) -> String {
    if i % 13 == 0 {
        String::new()
    } else if i % 17 == 1 {
        format!("\u{e9}t\u{e9} {i}")
    } else if i % 19 == 2 {
        format!("\u{1F600}{i}")
    } else {
        format!("s{}", i * 31 % 97)
    }
}

fn uuid(i: i64) -> Vec<u8> {
    let msb = i.wrapping_mul(0x9E37_79B9_7F4A_7C15u64 as i64);
    let lsb = !i;
    let mut out = msb.to_be_bytes().to_vec();
    out.extend_from_slice(&lsb.to_be_bytes());
    out
}

/// The 23 columns of `all-*.parquet` for `rows` rows.
pub fn all_types(rows: i64) -> Vec<Column> {
    let range = 0..rows;
    let dec = |precision, scale| DataType::Decimal128 { precision, scale };
    let micros = |i: i64| i * 3_600_000_123 - 1_000_000_000_000;
    let nanos = |i: i64| i * 3_600_000_123_457 - 1_000_000_000_000_000;
    let ts = |unit, zone: Option<&str>| DataType::Timestamp {
        unit,
        timezone: zone.map(str::to_owned),
    };
    vec![
        booleans(
            "b",
            1,
            false,
            &range.clone().map(|i| Some(i % 3 == 0)).collect::<Vec<_>>(),
        ),
        booleans(
            "ob",
            2,
            true,
            &range
                .clone()
                .map(|i| opt(is_null(i, 2), || i % 2 == 0))
                .collect::<Vec<_>>(),
        ),
        primitive(
            "i",
            3,
            DataType::Int32,
            false,
            &range
                .clone()
                .map(|i| {
                    Some(match i {
                        0 => i32::MIN,
                        1 => i32::MAX,
                        _ => (i as i32 * 7919) % 1000 - 500,
                    })
                })
                .collect::<Vec<_>>(),
        ),
        primitive(
            "l",
            4,
            DataType::Int64,
            true,
            &range
                .clone()
                .map(|i| {
                    opt(is_null(i, 4), || match i {
                        0 => i64::MIN,
                        1 => i64::MAX,
                        _ => i * 1_000_000_007 - 50_000_000_000,
                    })
                })
                .collect::<Vec<_>>(),
        ),
        primitive(
            "f",
            5,
            DataType::Float32,
            true,
            &range
                .clone()
                .map(|i| opt(is_null(i, 5), || float_value(i)))
                .collect::<Vec<_>>(),
        ),
        primitive(
            "d",
            6,
            DataType::Float64,
            true,
            &range
                .clone()
                .map(|i| opt(is_null(i, 6), || double_value(i)))
                .collect::<Vec<_>>(),
        ),
        primitive(
            "dec9",
            7,
            dec(9, 2),
            true,
            &range
                .clone()
                .map(|i| {
                    opt(is_null(i, 7), || {
                        ((i * 1_234_567) % 999_999_999 - 499_999_999) as i128
                    })
                })
                .collect::<Vec<_>>(),
        ),
        primitive(
            "dec18",
            8,
            dec(18, 4),
            true,
            &range
                .clone()
                .map(|i| {
                    opt(is_null(i, 8), || {
                        (i * 98_765_432_109 - 9_000_000_000_000) as i128
                    })
                })
                .collect::<Vec<_>>(),
        ),
        primitive(
            "dec38",
            9,
            dec(38, 10),
            true,
            &range
                .clone()
                .map(|i| {
                    opt(is_null(i, 9), || {
                        (i as i128 - 100) * 10i128.pow(30) + i as i128
                    })
                })
                .collect::<Vec<_>>(),
        ),
        primitive(
            "date",
            10,
            DataType::Date32,
            true,
            &range
                .clone()
                .map(|i| opt(is_null(i, 10), || (i * 37 - 3000) as i32))
                .collect::<Vec<_>>(),
        ),
        primitive(
            "time",
            11,
            DataType::Time(TimeUnit::Microsecond),
            true,
            &range
                .clone()
                .map(|i| opt(is_null(i, 11), || (i * 123_456_789) % 86_400_000_000))
                .collect::<Vec<_>>(),
        ),
        primitive(
            "ts",
            12,
            ts(TimeUnit::Microsecond, None),
            true,
            &range
                .clone()
                .map(|i| opt(is_null(i, 12), || micros(i)))
                .collect::<Vec<_>>(),
        ),
        primitive(
            "tstz",
            13,
            ts(TimeUnit::Microsecond, Some("UTC")),
            true,
            &range
                .clone()
                .map(|i| opt(is_null(i, 13), || micros(i)))
                .collect::<Vec<_>>(),
        ),
        primitive(
            "tsns",
            14,
            ts(TimeUnit::Nanosecond, None),
            true,
            &range
                .clone()
                .map(|i| opt(is_null(i, 14), || nanos(i)))
                .collect::<Vec<_>>(),
        ),
        primitive(
            "tstzns",
            15,
            ts(TimeUnit::Nanosecond, Some("UTC")),
            true,
            &range
                .clone()
                .map(|i| opt(is_null(i, 15), || nanos(i)))
                .collect::<Vec<_>>(),
        ),
        strings(
            "s",
            16,
            true,
            &range
                .clone()
                .map(|i| opt(is_null(i, 16), || string_value(i)))
                .collect::<Vec<_>>(),
        ),
        {
            let values: Vec<Option<Vec<u8>>> = range
                .clone()
                .map(|i| opt(is_null(i, 17), || uuid(i)))
                .collect();
            let mut column = fixed("u", 17, 16, true, &values);
            column.field = uuid_field("u", 17, true);
            column
        },
        fixed(
            "fx",
            18,
            5,
            true,
            &range
                .clone()
                .map(|i| {
                    opt(is_null(i, 18), || {
                        vec![i as u8, (i * 3) as u8, (255 - i) as u8, 0, (i % 2) as u8]
                    })
                })
                .collect::<Vec<_>>(),
        ),
        bytes(
            "bin",
            19,
            DataType::Binary,
            true,
            &range
                .clone()
                .map(|i| {
                    opt(is_null(i, 19), || {
                        (0..i % 10).map(|k| (i * 41 + k * 7) as u8).collect()
                    })
                })
                .collect::<Vec<_>>(),
        ),
        strings(
            "nul",
            20,
            true,
            &range.clone().map(|_| None).collect::<Vec<_>>(),
        ),
        strings(
            "cs",
            21,
            false,
            &range
                .clone()
                .map(|_| Some("constant".to_owned()))
                .collect::<Vec<_>>(),
        ),
        primitive(
            "dec4",
            22,
            dec(4, 0),
            true,
            &range
                .clone()
                .map(|i| opt(is_null(i, 22), || (i * 97 % 19999 - 9999) as i128))
                .collect::<Vec<_>>(),
        ),
        primitive(
            "dec30",
            23,
            dec(30, 0),
            true,
            &range
                .map(|i| opt(is_null(i, 23), || (i as i128 - 100) * 10i128.pow(27)))
                .collect::<Vec<_>>(),
        ),
    ]
}

/// The 4 columns of `fallback-*.parquet`.
pub fn fallback(rows: i64) -> Vec<Column> {
    let range = 0..rows;
    vec![
        primitive(
            "l",
            1,
            DataType::Int64,
            true,
            &range
                .clone()
                .map(|i| opt(i % 10 == 9, || (i / 3) * 1_000_003))
                .collect::<Vec<_>>(),
        ),
        strings(
            "s",
            2,
            true,
            &range
                .clone()
                .map(|i| opt(i % 10 == 8, || format!("value-{}", i / 3)))
                .collect::<Vec<_>>(),
        ),
        primitive(
            "i",
            3,
            DataType::Int32,
            true,
            &range
                .clone()
                .map(|i| opt(i % 10 == 7, || (i / 3) as i32))
                .collect::<Vec<_>>(),
        ),
        primitive(
            "d",
            4,
            DataType::Float64,
            true,
            &range
                .map(|i| opt(i % 10 == 6, || (i / 3) as f64 / 4.0))
                .collect::<Vec<_>>(),
        ),
    ]
}

/// The 2 columns of `long-strings.parquet`.
pub fn long_strings(rows: i64) -> Vec<Column> {
    let range = 0..rows;
    vec![
        strings(
            "big",
            1,
            true,
            &range
                .clone()
                .map(|i| Some(format!("{}{i}", "x".repeat(2500))))
                .collect::<Vec<_>>(),
        ),
        strings(
            "small",
            2,
            true,
            &range
                .map(|i| Some(format!("{}{i}", "y".repeat(10))))
                .collect::<Vec<_>>(),
        ),
    ]
}

/// One line of a `.metrics` file.
#[derive(Debug, Clone, PartialEq)]
pub struct MetricsLine {
    pub field_id: i32,
    pub values: Option<i64>,
    pub nulls: Option<i64>,
    pub nans: Option<i64>,
    pub lower: Option<Vec<u8>>,
    pub upper: Option<Vec<u8>>,
}

/// Iceberg's Metrics of a reference file, and its split offsets.
pub fn read_metrics(text: &str) -> (Vec<MetricsLine>, Vec<i64>) {
    let number = |t: &str| (t != "null").then(|| t.parse::<i64>().unwrap());
    let hex = |t: &str| match t {
        "-" => None,
        "\"\"" => Some(Vec::new()),
        _ => Some(
            (0..t.len())
                .step_by(2)
                .map(|i| u8::from_str_radix(&t[i..i + 2], 16).unwrap())
                .collect(),
        ),
    };
    let mut lines = Vec::new();
    let mut splits = Vec::new();
    for line in text.lines() {
        let words: Vec<&str> = line.split(' ').collect();
        match words[0] {
            "column" => lines.push(MetricsLine {
                field_id: words[1].parse().unwrap(),
                values: number(words[3]),
                nulls: number(words[5]),
                nans: number(words[7]),
                lower: hex(words[9]),
                upper: hex(words[11]),
            }),
            "splits" => {
                splits = line["splits ".len()..]
                    .trim_matches(|c| c == '[' || c == ']')
                    .split(", ")
                    .filter(|s| !s.is_empty())
                    .map(|s| s.parse().unwrap())
                    .collect()
            }
            _ => {}
        }
    }
    (lines, splits)
}
