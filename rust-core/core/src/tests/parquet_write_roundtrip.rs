//! Round trips through the encoder and an independent test-only reader: every
//! Iceberg type with nulls, extremes and empty values, every codec, both page
//! versions, dictionaries on, off and overflowing, tiny pages and row groups,
//! sliced input. Values are compared slot by slot and by canonical checksum.

use crate::arrow::{ArrayView, DataType, Field, TimeUnit};
use crate::parquet::format::{Encoding, PageType};
use crate::parquet::write::FileWriter;
use crate::test_support::write::reader::read_file;
use crate::test_support::write::*;

/// A value from a small pool most of the time (so dictionaries pay off), else
/// a fresh one.
fn pick<T: Copy>(rng: &mut Rng, pool: &[T], fresh: impl FnOnce(&mut Rng) -> T) -> T {
    if rng.chance(70) {
        pool[rng.below(pool.len() as u64) as usize]
    } else {
        fresh(rng)
    }
}

fn maybe<T>(rng: &mut Rng, nulls: u64, value: impl FnOnce(&mut Rng) -> T) -> Option<T> {
    if rng.chance(nulls) {
        None
    } else {
        Some(value(rng))
    }
}

/// Every Iceberg type (and the Arrow variants that map to them), random with
/// `nulls` percent nulls in the optional columns.
fn every_type(rows: usize, seed: u64, nulls: u64) -> Vec<Column> {
    let mut rng = Rng(seed);
    let r = &mut rng;
    let n = |r: &mut Rng| if r.chance(50) { nulls } else { 0 };
    let mut columns = Vec::new();
    let mut id = 0;
    let mut next = || {
        id += 1;
        id
    };
    let p = n(r);
    columns.push(booleans(
        "bool",
        next(),
        true,
        &(0..rows)
            .map(|_| maybe(r, p, |r| r.chance(30)))
            .collect::<Vec<_>>(),
    ));
    columns.push(booleans(
        "bool_req",
        next(),
        false,
        &(0..rows).map(|_| Some(r.chance(50))).collect::<Vec<_>>(),
    ));
    let ints = [0, 1, -1, i32::MIN, i32::MAX, 42];
    let p = n(r);
    columns.push(primitive(
        "int",
        next(),
        DataType::Int32,
        true,
        &(0..rows)
            .map(|_| maybe(r, p, |r| pick(r, &ints, |r| r.next_u64() as i32)))
            .collect::<Vec<_>>(),
    ));
    columns.push(primitive(
        "int_req",
        next(),
        DataType::Int32,
        false,
        &(0..rows)
            .map(|_| Some(r.next_u64() as i32 >> (r.below(31))))
            .collect::<Vec<_>>(),
    ));
    let longs = [0, i64::MIN, i64::MAX, -7, 1 << 40];
    let p = n(r);
    columns.push(primitive(
        "long",
        next(),
        DataType::Int64,
        true,
        &(0..rows)
            .map(|_| maybe(r, p, |r| pick(r, &longs, |r| r.next_u64() as i64)))
            .collect::<Vec<_>>(),
    ));
    let floats = [
        0.0f32,
        -0.0,
        f32::NAN,
        f32::INFINITY,
        f32::NEG_INFINITY,
        1.5,
        f32::MIN_POSITIVE,
    ];
    let p = n(r);
    columns.push(primitive(
        "float",
        next(),
        DataType::Float32,
        true,
        &(0..rows)
            .map(|_| {
                maybe(r, p, |r| {
                    pick(r, &floats, |r| f32::from_bits(r.next_u64() as u32))
                })
            })
            .collect::<Vec<_>>(),
    ));
    let doubles = [0.0f64, -0.0, f64::NAN, f64::MAX, -f64::MAX, 2.5];
    let p = n(r);
    columns.push(primitive(
        "double",
        next(),
        DataType::Float64,
        true,
        &(0..rows)
            .map(|_| {
                maybe(r, p, |r| {
                    pick(r, &doubles, |r| (r.next_u64() as i64) as f64 / 3.0)
                })
            })
            .collect::<Vec<_>>(),
    ));
    for (precision, scale) in [(1u8, 0i8), (9, 2), (10, 3), (18, 18), (19, 0), (38, 10)] {
        let limit = 10i128.pow(u32::from(precision)) - 1;
        let pool = [0, limit, -limit, 1, -1];
        let p = n(r);
        columns.push(primitive(
            &format!("dec{precision}_{scale}"),
            next(),
            DataType::Decimal128 { precision, scale },
            true,
            &(0..rows)
                .map(|_| {
                    maybe(r, p, |r| {
                        pick(r, &pool, |r| {
                            ((r.next_u64() as i128) << 64 | r.next_u64() as i128) % (limit + 1)
                        })
                    })
                })
                .collect::<Vec<_>>(),
        ));
    }
    let p = n(r);
    columns.push(primitive(
        "date",
        next(),
        DataType::Date32,
        true,
        &(0..rows)
            .map(|_| {
                maybe(r, p, |r| {
                    pick(r, &[0, -719_162, 2_932_896], |r| {
                        r.next_u64() as i32 % 1_000_000
                    })
                })
            })
            .collect::<Vec<_>>(),
    ));
    let p = n(r);
    columns.push(primitive(
        "time",
        next(),
        DataType::Time(TimeUnit::Microsecond),
        true,
        &(0..rows)
            .map(|_| {
                maybe(r, p, |r| {
                    pick(r, &[0, 86_399_999_999], |r| r.below(86_400_000_000) as i64)
                })
            })
            .collect::<Vec<_>>(),
    ));
    for (name, unit, zone) in [
        ("ts", TimeUnit::Microsecond, None),
        ("tstz", TimeUnit::Microsecond, Some("UTC")),
        ("tstz_paris", TimeUnit::Microsecond, Some("Europe/Paris")),
        ("tsns", TimeUnit::Nanosecond, None),
        ("tstzns", TimeUnit::Nanosecond, Some("+00:00")),
    ] {
        let p = n(r);
        columns.push(primitive(
            name,
            next(),
            DataType::Timestamp {
                unit,
                timezone: zone.map(str::to_owned),
            },
            true,
            &(0..rows)
                .map(|_| {
                    maybe(r, p, |r| {
                        pick(r, &[0, i64::MIN, i64::MAX], |r| r.next_u64() as i64)
                    })
                })
                .collect::<Vec<_>>(),
        ));
    }
    let words: Vec<String> = ["", "a", "été", "\u{1F600}", "zz", "\u{10FFFF}", "x"]
        .iter()
        .map(|s| s.to_string())
        .chain(std::iter::once("long ".repeat(30)))
        .collect();
    for (name, data_type) in [
        ("string", DataType::Utf8),
        ("large_string", DataType::LargeUtf8),
    ] {
        let p = n(r);
        let values: Vec<Option<Vec<u8>>> = (0..rows)
            .map(|_| {
                maybe(r, p, |r| {
                    if r.chance(70) {
                        words[r.below(words.len() as u64) as usize]
                            .clone()
                            .into_bytes()
                    } else {
                        format!("v{}-{}", r.below(1000), "é".repeat(r.below(5) as usize))
                            .into_bytes()
                    }
                })
            })
            .collect();
        columns.push(bytes(name, next(), data_type, true, &values));
    }
    for (name, data_type) in [
        ("binary", DataType::Binary),
        ("large_binary", DataType::LargeBinary),
    ] {
        let p = n(r);
        let values: Vec<Option<Vec<u8>>> = (0..rows)
            .map(|_| {
                maybe(r, p, |r| {
                    (0..r.below(12))
                        .map(|_| [0u8, 0x7f, 0x80, 0xff][r.below(4) as usize] ^ r.below(3) as u8)
                        .collect()
                })
            })
            .collect();
        columns.push(bytes(name, next(), data_type, true, &values));
    }
    let p = n(r);
    let uuids: Vec<Option<Vec<u8>>> = (0..rows)
        .map(|_| maybe(r, p, |r| (0..16).map(|_| r.next_u64() as u8).collect()))
        .collect();
    let uuid_id = next();
    let mut uuid = fixed("uuid", uuid_id, 16, true, &uuids);
    uuid.field = uuid_field("uuid", uuid_id, true);
    columns.push(uuid);
    let p = n(r);
    columns.push(fixed(
        "fixed3",
        next(),
        3,
        true,
        &(0..rows)
            .map(|_| {
                maybe(r, p, |r| {
                    pick(r, &[[0u8, 0, 0], [255, 255, 255], [1, 2, 3]], |r| {
                        [r.next_u64() as u8, 9, 0x80]
                    })
                    .to_vec()
                })
            })
            .collect::<Vec<_>>(),
    ));
    columns.push(strings("all_null", next(), true, &vec![None; rows]));
    columns.push(strings(
        "required_string",
        next(),
        false,
        &(0..rows)
            .map(|i| Some(format!("row {}", i % 13)))
            .collect::<Vec<_>>(),
    ));
    columns
}

fn round_trip(
    columns: &[Column],
    batch_rows: usize,
    pairs: &[(&str, &str)],
    what: &str,
) -> crate::test_support::write::reader::ParquetFile {
    let (schema, data) = batch(columns);
    let batches = slices(&data, batch_rows);
    let (bytes, result) = write_file(&schema, &batches, options(pairs));
    let file = read_file(&bytes);
    assert_same_rows(&schema, &batches, &file, what);
    assert_checksums(columns, &file, what);
    assert_eq!(result.record_count as usize, data.len, "{what}");
    assert_eq!(result.file_size as usize, bytes.len(), "{what}");
    file
}

#[test]
fn every_codec_round_trips() {
    let columns = every_type(700, 1, 20);
    for codec in [
        "uncompressed",
        "snappy",
        "gzip",
        "lz4",
        "lz4_raw",
        "zstd",
        "brotli",
    ] {
        for version in ["v1", "v2"] {
            let what = format!("{codec} {version}");
            let file = round_trip(
                &columns,
                300,
                &[
                    ("write.parquet.compression-codec", codec),
                    ("write.parquet.page-version", version),
                ],
                &what,
            );
            let codec_id = file.metadata.row_groups[0].columns[0]
                .meta_data
                .as_ref()
                .unwrap()
                .codec;
            assert_eq!(
                format!("{codec_id:?}").to_lowercase().replace('_', ""),
                match codec {
                    "lz4" => "lz4".to_owned(),
                    "lz4_raw" => "lz4raw".to_owned(),
                    other => other.to_owned(),
                }
            );
        }
    }
}

#[test]
fn dictionaries_on_off_and_overflowing() {
    let columns = every_type(1500, 2, 30);
    let cases: &[&[(&str, &str)]] = &[
        &[("parquet.enable.dictionary", "false")],
        &[("parquet.enable.dictionary", "true")],
        &[("write.parquet.dict-size-bytes", "64")],
        &[
            ("write.parquet.dict-size-bytes", "300"),
            ("write.parquet.page-row-limit", "50"),
        ],
        &[
            ("parquet.enable.dictionary", "false"),
            ("parquet.enable.dictionary#string", "true"),
        ],
    ];
    for version in ["v1", "v2"] {
        for case in cases {
            let mut pairs = case.to_vec();
            pairs.push(("write.parquet.page-version", version));
            round_trip(&columns, 512, &pairs, &format!("{version} {case:?}"));
        }
    }
}

#[test]
fn tiny_pages_and_row_groups() {
    let columns = every_type(3000, 3, 10);
    for version in ["v1", "v2"] {
        let file = round_trip(
            &columns,
            1000,
            &[
                ("write.parquet.page-version", version),
                ("write.parquet.page-size-bytes", "700"),
                ("write.parquet.page-row-limit", "37"),
                ("write.parquet.dict-size-bytes", "500"),
                ("write.parquet.row-group-size-bytes", "20000"),
                ("write.parquet.row-group-check-min-record-count", "10"),
                ("write.parquet.row-group-check-max-record-count", "50"),
                ("write.parquet.compression-codec", "snappy"),
            ],
            version,
        );
        assert!(
            file.metadata.row_groups.len() > 3,
            "{} row groups",
            file.metadata.row_groups.len()
        );
        for (rg, group) in file.row_groups.iter().enumerate() {
            for (c, chunk) in group.iter().enumerate() {
                let data_pages: Vec<_> = chunk
                    .pages
                    .iter()
                    .filter(|p| p.header.page_type != PageType::DictionaryPage)
                    .collect();
                assert!(
                    data_pages.iter().all(|p| p.rows <= 37),
                    "row group {rg} column {c}"
                );
                // The offset index lists exactly the data pages, with their rows.
                let index = file.offset_index(rg, c).unwrap();
                assert_eq!(index.page_locations.len(), data_pages.len());
                let mut first = 0;
                for (location, page) in index.page_locations.iter().zip(&data_pages) {
                    assert_eq!(location.first_row_index, first);
                    assert_eq!(location.offset as u64, page.offset);
                    first += page.rows as i64;
                }
            }
        }
    }
}

#[test]
fn page_size_limits_pages() {
    let rows = 20_000;
    let text: Vec<Option<String>> = (0..rows)
        .map(|i| Some(format!("{i:08}-{}", "x".repeat(i % 50))))
        .collect();
    let longs: Vec<Option<i64>> = (0..rows as i64).map(|i| Some(i * 7_777_777)).collect();
    let columns = vec![
        strings("text", 1, true, &text),
        primitive("long", 2, DataType::Int64, false, &longs),
    ];
    let file = round_trip(
        &columns,
        4096,
        &[("write.parquet.page-size-bytes", "16384")],
        "page size",
    );
    for (c, limit) in [(0, 16384 + 16384 / 10), (1, 16384)] {
        let pages = &file.row_groups[0][c].pages;
        assert!(pages.len() >= 8, "column {c}: {} pages", pages.len());
        // The first page is cut at 4 bytes per dictionary index and re-encoded
        // PLAIN when the dictionary does not pay off, as parquet-java does: it
        // may be far larger. The others stay within the limit.
        for page in pages.iter().skip(1) {
            let size = page.header.uncompressed_page_size as usize;
            assert!(size <= limit, "column {c}: a page of {size} bytes");
        }
    }
}

#[test]
fn dictionary_overflow_keeps_the_written_pages() {
    // 100 distinct longs per 300-row page: the 2000-byte dictionary overflows
    // in the third page; the first two keep it, the rest are PLAIN.
    let columns = reference_columns();
    let file = round_trip(
        &columns,
        1000,
        &[
            ("write.parquet.dict-size-bytes", "2000"),
            ("write.parquet.page-row-limit", "300"),
        ],
        "overflow",
    );
    let chunk = &file.row_groups[0][0];
    let encodings: Vec<Encoding> = chunk.pages.iter().map(|p| p.encoding).collect();
    assert_eq!(encodings[0], Encoding::PlainDictionary);
    assert_eq!(&encodings[1..3], &[Encoding::PlainDictionary; 2]);
    assert!(
        encodings[3..].iter().all(|&e| e == Encoding::Plain),
        "{encodings:?}"
    );
    assert_eq!(chunk.dictionary_len, Some(200));
}

fn reference_columns() -> Vec<Column> {
    crate::test_support::write::reference::fallback(3000)
}

#[test]
fn sliced_batches_with_unaligned_offsets() {
    let columns = every_type(1000, 4, 40);
    let (schema, data) = batch(&columns);
    // Children sliced themselves (offsets 3, 13, ...) under a struct at offset 0,
    // and structs at an offset over whole children.
    let mut batches = Vec::new();
    let mut start = 0;
    for len in [3usize, 10, 1, 0, 200, 333, 453] {
        let mut b = data.clone();
        b.len = len;
        b.children = data
            .children
            .iter()
            .map(|c| c.slice(start, len).unwrap())
            .collect();
        batches.push(b);
        start += len;
    }
    let (bytes, _) = write_file(
        &schema,
        &batches,
        options(&[("write.parquet.page-row-limit", "64")]),
    );
    let file = read_file(&bytes);
    assert_same_rows(&schema, &batches, &file, "sliced children");
    assert_checksums(&columns, &file, "sliced children");

    let struct_slices = slices(&data, 77);
    let (bytes, _) = write_file(&schema, &struct_slices, options(&[]));
    assert_checksums(&columns, &read_file(&bytes), "sliced structs");
}

#[test]
fn values_larger_than_a_page() {
    let big: Vec<Option<String>> = (0..12)
        .map(|i| Some(format!("{}{i}", "é".repeat(1000 + 20_000 * (i % 3)))))
        .collect();
    let columns = vec![strings("big", 1, true, &big)];
    for version in ["v1", "v2"] {
        let file = round_trip(
            &columns,
            5,
            &[
                ("write.parquet.page-size-bytes", "1000"),
                ("write.parquet.page-version", version),
            ],
            version,
        );
        // Min plus max beyond 4 KiB: parquet-java writes no chunk statistics.
        let stats = file
            .chunk_meta(0, 0)
            .meta_data
            .as_ref()
            .unwrap()
            .statistics
            .clone()
            .unwrap();
        assert_eq!(stats, Default::default());
        // The column index truncates to 64 bytes on a character boundary.
        let index = file.column_index(0, 0).unwrap();
        assert!(index
            .min_values
            .iter()
            .chain(&index.max_values)
            .all(|v| v.len() <= 64));
        assert!(index
            .max_values
            .iter()
            .all(|v| std::str::from_utf8(v).is_ok()));
    }
}

#[test]
fn chunks_of_many_blocks_read_back_the_same_from_both_outputs() {
    // Incompressible strings stored uncompressed: each row group's chunk spans
    // the growing first blocks and several full ones, pages straddling them.
    let mut rng = Rng(11);
    let text: Vec<Option<String>> = (0..6_000)
        .map(|i| {
            let len = 200 + rng.below(900) as usize;
            Some(
                (0..len)
                    .map(|_| char::from(b'!' + rng.below(90) as u8))
                    .collect::<String>()
                    + &i.to_string(),
            )
        })
        .collect();
    let longs: Vec<Option<i64>> = (0..6_000).map(|i| Some(i * 1_000_003)).collect();
    let columns = vec![
        strings("text", 1, true, &text),
        primitive("n", 2, DataType::Int64, false, &longs),
    ];
    let pairs = [
        ("write.parquet.compression-codec", "uncompressed"),
        ("parquet.enable.dictionary", "false"),
        ("write.parquet.row-group-size-bytes", "2500000"),
    ];
    let file = round_trip(&columns, 1_000, &pairs, "many blocks");
    assert!(file.metadata.row_groups.len() >= 2);
    let chunk = file.chunk_meta(0, 0).meta_data.as_ref().unwrap();
    assert!(chunk.total_compressed_size > 2 << 20);

    let (schema, data) = batch(&columns);
    let batches = slices(&data, 1_000);
    let (buffered, _) = write_file(&schema, &batches, options(&pairs));
    // Pages compressed on helper threads are stored through another path.
    let mut threaded = pairs.to_vec();
    threaded[0] = ("write.parquet.compression-codec", "zstd");
    let (zstd, _) = write_file(&schema, &batches, options(&threaded));
    threaded.push(("isthmus.compression-threads", "2"));
    let (pooled, _) = write_file(&schema, &batches, options(&threaded));
    assert!(pooled == zstd, "helper threads changed the file");
    assert_same_rows(
        &schema,
        &batches,
        &read_file(&pooled),
        "many blocks, helper threads",
    );
    let path = crate::test_support::parquet::scan::temp_path("many-blocks.parquet");
    let mut writer = FileWriter::open_path(&path, &schema, options(&pairs)).unwrap();
    for batch in &batches {
        writer
            .write(&ArrayView::from_data(batch, &schema).unwrap())
            .unwrap();
    }
    writer.close().unwrap();
    let written = std::fs::read(&path).unwrap();
    std::fs::remove_file(&path).unwrap();
    assert!(
        written == buffered,
        "the path writer's file differs from the buffered one"
    );
}

#[test]
fn empty_and_null_only_files() {
    let columns = every_type(0, 5, 0);
    let (schema, data) = batch(&columns);
    let (bytes, result) = write_file(&schema, &[data], options(&[]));
    let file = read_file(&bytes);
    assert_eq!(file.metadata.num_rows, 0);
    assert!(file.metadata.row_groups.is_empty());
    assert!(result.split_offsets.is_empty());
    assert_eq!(result.columns.len(), columns.len());
    assert!(result
        .columns
        .iter()
        .all(|c| c.metrics.min.is_none() && c.metrics.value_count == 0));

    let nulls = vec![
        strings("s", 1, true, &vec![None; 50]),
        primitive::<f64>("d", 2, DataType::Float64, true, &vec![None; 50]),
    ];
    let file = round_trip(&nulls, 50, &[], "nulls");
    let stats = file
        .chunk_meta(0, 1)
        .meta_data
        .as_ref()
        .unwrap()
        .statistics
        .clone()
        .unwrap();
    assert_eq!(stats.null_count, Some(50));
    assert_eq!((stats.min_value, stats.max_value), (None, None));
}

#[test]
fn sizes_track_the_file() {
    let columns = every_type(4000, 6, 10);
    let (schema, data) = batch(&columns);
    let mut writer = FileWriter::open_buffered(
        &schema,
        options(&[("write.parquet.row-group-size-bytes", "30000")]),
    )
    .unwrap();
    assert_eq!(writer.bytes_written(), 4, "the magic");
    let mut file = Vec::new();
    let mut last_estimate = 0;
    for batch in slices(&data, 500) {
        writer
            .write(&ArrayView::from_data(&batch, &schema).unwrap())
            .unwrap();
        let estimate = writer.estimated_length().unwrap();
        assert!(estimate >= writer.bytes_written());
        assert!(
            estimate >= last_estimate,
            "{estimate} after {last_estimate}"
        );
        last_estimate = estimate;
        drain(&mut writer, &mut file);
        assert_eq!(writer.bytes_written(), file.len() as u64);
    }
    let result = writer.close().unwrap();
    drain(&mut writer, &mut file);
    assert_eq!(result.file_size, file.len() as u64);
    let parsed = read_file(&file);
    let starts: Vec<i64> = parsed
        .metadata
        .row_groups
        .iter()
        .map(|rg| {
            let first = rg.columns[0].meta_data.as_ref().unwrap();
            first
                .dictionary_page_offset
                .unwrap_or(first.data_page_offset)
        })
        .collect();
    assert_eq!(result.split_offsets, starts);
    assert!(starts.len() > 1);
    // Compressed row groups stay near the target.
    for rg in &parsed.metadata.row_groups {
        assert!(
            rg.total_compressed_size.unwrap() < 30_000 + 10_000,
            "{:?}",
            rg.total_compressed_size
        );
    }
    // Writing after close fails; taking output after close is allowed (empty).
    let err = writer
        .write(&ArrayView::from_data(&data, &schema).unwrap())
        .unwrap_err();
    assert_eq!(err.message(), "the writer is closed");
    assert!(writer.take_output().unwrap().is_empty());
}

#[test]
fn footer_metadata_and_created_by() {
    use crate::arrow::field::encode_metadata;
    let columns = vec![primitive("x", 7, DataType::Int32, true, &[Some(1), None])];
    let (schema, data) = batch(&columns);
    let schema: Field = schema.with_metadata(
        encode_metadata(&[("iceberg.schema", b"{\"type\":\"struct\"}"), ("other", b"")]).unwrap(),
    );
    let (bytes, _) = write_file(&schema, &[data], options(&[]));
    let file = read_file(&bytes);
    let kv = file.metadata.key_value_metadata.unwrap();
    assert_eq!(kv.len(), 2);
    assert_eq!(
        (kv[0].key.as_str(), kv[0].value.as_deref()),
        ("iceberg.schema", Some("{\"type\":\"struct\"}"))
    );
    assert_eq!(
        (kv[1].key.as_str(), kv[1].value.as_deref()),
        ("other", Some(""))
    );
    let created_by = file.metadata.created_by.unwrap();
    assert!(
        created_by.starts_with("isthmus version 0.1.0 (build "),
        "{created_by}"
    );
    assert_eq!(file.metadata.schema[0].name, "table");
    assert_eq!(file.metadata.schema[1].field_id, Some(7));
}

#[test]
fn compression_threads_do_not_change_the_file() {
    let columns = every_type(3000, 7, 15);
    let (schema, data) = batch(&columns);
    let batches = slices(&data, 250);
    for codec in ["zstd", "snappy", "gzip"] {
        for version in ["v1", "v2"] {
            let files: Vec<Vec<u8>> = ["0", "1", "3"]
                .iter()
                .map(|threads| {
                    let pairs = [
                        ("isthmus.compression-threads", *threads),
                        ("write.parquet.compression-codec", codec),
                        ("write.parquet.page-version", version),
                        ("write.parquet.page-row-limit", "97"),
                        ("write.parquet.row-group-size-bytes", "50000"),
                    ];
                    write_file(&schema, &batches, options(&pairs)).0
                })
                .collect();
            assert!(read_file(&files[0]).metadata.row_groups.len() > 1);
            assert!(
                files[1] == files[0] && files[2] == files[0],
                "{codec} {version}"
            );
        }
    }
}

#[test]
fn batch_boundaries_do_not_change_the_file() {
    // Pages end at the row where their estimate reaches the threshold, and
    // row groups at Iceberg's check points, however the rows arrive.
    for seed in [8, 9] {
        let columns = every_type(2000, seed, 25);
        let (schema, data) = batch(&columns);
        for version in ["v1", "v2"] {
            let pairs = [
                ("write.parquet.page-size-bytes", "1500"),
                ("write.parquet.row-group-size-bytes", "100000"),
                ("write.parquet.dict-size-bytes", "800"),
                ("write.parquet.page-version", version),
            ];
            let files: Vec<Vec<u8>> = [2000, 1, 7, 333]
                .iter()
                .map(|&rows| write_file(&schema, &slices(&data, rows), options(&pairs)).0)
                .collect();
            let parsed = read_file(&files[0]);
            assert!(parsed.metadata.row_groups.len() > 1);
            assert!(parsed.row_groups[0].iter().any(|c| c.pages.len() > 3));
            for (i, file) in files.iter().enumerate() {
                assert!(
                    file == &files[0],
                    "seed {seed} {version}: batching {i} changed the file"
                );
            }
        }
    }
}
