//! Files from writers other than parquet-java. The DuckDB 1.5.6 files are
//! `nested-*.parquet` of `ci/fixtures/other-writers/duckdb.mjs` (the Java test
//! `OtherWritersDecodeTest` compares every fixture with Iceberg's reader); here
//! they pin what DuckDB does that parquet-java does not: the last bit-packed
//! run of levels is padded to DuckDB's vector size (2048 values), declaring
//! more values than the page holds.

use std::path::PathBuf;

use crate::test_support::parquet::render::hex;
use crate::test_support::parquet::scan::{self, Mode};

fn data_dir() -> PathBuf {
    crate::test_support::data_dir().join("other-writers")
}

fn top_level_ids(bytes: &[u8]) -> Vec<i32> {
    let file = scan::open(bytes, "fixture", Mode::Ranges).unwrap();
    let schema = file.schema();
    schema.nodes()[0]
        .children
        .iter()
        .map(|&i| schema.element(i).unwrap().field_id.unwrap())
        .collect()
}

/// The generator's `ints`, `m` and `lists` columns of row `i`, rendered.
fn expected(i: i64) -> [String; 4] {
    let list = |items: Vec<String>| format!("[{}]", items.join(","));
    let ints = match i % 8 {
        0 => "null".to_owned(),
        1 => "[]".to_owned(),
        _ => list(
            (0..i % 6)
                .map(|x| {
                    if (x + i) % 5 == 0 {
                        "null".into()
                    } else {
                        (x * i).to_string()
                    }
                })
                .collect(),
        ),
    };
    let map = match i % 7 {
        0 => "null".to_owned(),
        _ if i % 7 == 1 => "[]".to_owned(),
        _ => list(
            (0..i % 4)
                .map(|x| {
                    let value = if x == 2 {
                        "null".into()
                    } else {
                        (x * i).to_string()
                    };
                    format!("{{{},{value}}}", hex(format!("key{x}").as_bytes()))
                })
                .collect(),
        ),
    };
    let lists = match i % 13 {
        0 => "null".to_owned(),
        _ => list(
            (0..i % 3)
                .map(|x| list((0..x).map(|y| (y * 10 + x).to_string()).collect()))
                .collect(),
        ),
    };
    [i.to_string(), ints, map, lists]
}

#[test]
fn duckdb_nested_files_with_padded_level_runs() {
    for name in ["nested-zstd-v1", "nested-snappy-v2"] {
        let path = data_dir().join(format!("duckdb/{name}.parquet"));
        let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let ids = top_level_ids(&bytes);
        assert_eq!(ids.len(), 7, "{name}: id, s, ints, strs, m, structs, lists");
        for (mode, batch_size) in [(Mode::Local, 0), (Mode::Ranges, 333)] {
            let mut options = scan::project(&ids);
            options.batch_size = batch_size;
            let rows = scan::rows(&bytes, options, mode)
                .unwrap_or_else(|e| panic!("{name} {mode:?}: {e}"));
            assert_eq!(rows.len(), 2000, "{name} {mode:?}");
            for (i, row) in rows.iter().enumerate() {
                let picked = [&row[0], &row[2], &row[4], &row[6]];
                let wanted = expected(i as i64);
                for (got, want) in picked.iter().zip(&wanted) {
                    assert_eq!(*got, want, "{name} {mode:?}: row {i}");
                }
            }
        }
    }
}
