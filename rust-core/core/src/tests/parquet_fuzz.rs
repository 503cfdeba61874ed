//! Deterministic mutation fuzzing of whole files through the scan API.
//!
//! Seeds are valid files of every encoding: the Iceberg fixtures of
//! `tests/data/iceberg` and files of the test writer (every value encoding,
//! page v1 and v2, several codecs, nulls, nesting, dictionary fallback).
//! Each case damages one seed (bit flips, byte runs, truncation, tampered
//! page header fields, tampered footer fields and length, Thrift list sizes)
//! and decodes it completely. The decoder must never panic and must fail only
//! with CORRUPT_DATA or UNSUPPORTED; every batch it does produce must be valid
//! Arrow, checked value by value.
//!
//! `ISTHMUS_FUZZ_CASES` sets the number of cases (20,000 by default).

use std::collections::HashSet;

use crate::arrow::ArrayView;
use crate::compression::Codec;
use crate::error::{Error, Status};
use crate::parquet::format::{
    FileMetaData, PageHeader, PhysicalType, Repetition, SchemaElement, ThriftStruct,
};
use crate::parquet::read::scan::ScanOptions;
use crate::test_support::parquet::scan::{self, Mode};
use crate::test_support::parquet::writer::{
    write_file, Column, Options, ValueEncoding as E, Values,
};
use crate::test_support::parquet::Rng;

/// A seed file and where its page headers and footer are.
struct Seed {
    name: String,
    bytes: Vec<u8>,
    /// (offset, length) of every page header.
    headers: Vec<(usize, usize)>,
    footer: (usize, usize),
}

impl Seed {
    fn new(name: String, bytes: Vec<u8>) -> Seed {
        let n = bytes.len();
        let footer_len = u32::from_le_bytes(bytes[n - 8..n - 4].try_into().unwrap()) as usize;
        let footer = (n - 8 - footer_len, footer_len);
        let (metadata, _) = FileMetaData::decode(&bytes[footer.0..footer.0 + footer.1]).unwrap();
        let mut headers = Vec::new();
        for row_group in &metadata.row_groups {
            for chunk in &row_group.columns {
                let meta = chunk.meta_data.as_ref().unwrap();
                let start = match meta.dictionary_page_offset {
                    Some(d) if d > 0 && d < meta.data_page_offset => d,
                    _ => meta.data_page_offset,
                } as usize;
                let end = start + meta.total_compressed_size as usize;
                let mut pos = start;
                while pos < end {
                    let (header, len) = PageHeader::decode(&bytes[pos..end]).unwrap();
                    headers.push((pos, len));
                    pos += len + header.compressed_page_size as usize;
                }
            }
        }
        Seed {
            name,
            bytes,
            headers,
            footer,
        }
    }
}

fn writer_seeds() -> Vec<Seed> {
    use PhysicalType as P;
    let rows = 150;
    let mut rng = Rng::new(99);
    let valid: Vec<bool> = (0..rows)
        .map(|i| i % 11 != 4 && rng.below(6) != 0)
        .collect();
    let count = valid.iter().filter(|&&v| v).count();
    let ints: Vec<i32> = (0..count).map(|_| rng.below(40) as i32 - 20).collect();
    let longs: Vec<i64> = (0..count)
        .map(|_| rng.next_u64() as i64 >> rng.below(60))
        .collect();
    let doubles: Vec<f64> = (0..count).map(|i| i as f64 * 0.25).collect();
    let words: Vec<Vec<u8>> = (0..count)
        .map(|_| format!("w{}", rng.below(25)).into_bytes())
        .collect();
    let fixed: Vec<Vec<u8>> = (0..count).map(|i| vec![i as u8, 1, 2]).collect();
    let bools: Vec<bool> = (0..count).map(|i| i % 3 == 0).collect();
    let mut id = 0;
    let mut columns = Vec::new();
    let mut schema = vec![SchemaElement {
        name: "t".into(),
        num_children: Some(0),
        ..SchemaElement::default()
    }];
    let mut add = |physical: P,
                   values: Values,
                   encoding: E,
                   schema: &mut Vec<SchemaElement>,
                   columns: &mut Vec<Column>| {
        id += 1;
        let mut element = SchemaElement {
            physical_type: Some(physical),
            repetition: Some(Repetition::Optional),
            name: format!("c{id}"),
            field_id: Some(id),
            ..SchemaElement::default()
        };
        if physical == P::FixedLenByteArray {
            element.type_length = Some(3);
        }
        schema.push(element);
        let mut column = Column::flat(1, values, &valid).encoded(encoding);
        if encoding == E::Dictionary && id % 2 == 0 {
            column.dictionary_pages = Some(1);
        }
        columns.push(column);
    };
    for encoding in [
        E::Plain,
        E::Dictionary,
        E::DeltaBinaryPacked,
        E::ByteStreamSplit,
    ] {
        add(
            P::Int32,
            Values::I32(ints.clone()),
            encoding,
            &mut schema,
            &mut columns,
        );
        add(
            P::Int64,
            Values::I64(longs.clone()),
            encoding,
            &mut schema,
            &mut columns,
        );
    }
    for encoding in [E::Plain, E::Dictionary, E::ByteStreamSplit] {
        add(
            P::Double,
            Values::F64(doubles.clone()),
            encoding,
            &mut schema,
            &mut columns,
        );
    }
    for encoding in [
        E::Plain,
        E::Dictionary,
        E::DeltaLengthByteArray,
        E::DeltaByteArray,
    ] {
        add(
            P::ByteArray,
            Values::Bytes(words.clone()),
            encoding,
            &mut schema,
            &mut columns,
        );
    }
    for encoding in [
        E::Plain,
        E::Dictionary,
        E::DeltaByteArray,
        E::ByteStreamSplit,
    ] {
        add(
            P::FixedLenByteArray,
            Values::Fixed(3, fixed.clone()),
            encoding,
            &mut schema,
            &mut columns,
        );
    }
    for encoding in [E::Plain, E::Rle] {
        add(
            P::Boolean,
            Values::Bool(bools.clone()),
            encoding,
            &mut schema,
            &mut columns,
        );
    }
    schema[0].num_children = Some(columns.len() as i32);
    // A nested column: an optional list of optional ints.
    schema[0].num_children = Some(columns.len() as i32 + 1);
    schema.push(SchemaElement {
        repetition: Some(Repetition::Optional),
        name: "xs".into(),
        num_children: Some(1),
        field_id: Some(100),
        logical_type: Some(crate::parquet::format::LogicalType::List),
        ..SchemaElement::default()
    });
    schema.push(SchemaElement {
        repetition: Some(Repetition::Repeated),
        name: "list".into(),
        num_children: Some(1),
        ..SchemaElement::default()
    });
    schema.push(SchemaElement {
        physical_type: Some(P::Int32),
        repetition: Some(Repetition::Optional),
        name: "element".into(),
        field_id: Some(101),
        ..SchemaElement::default()
    });
    let (mut def, mut rep, mut items) = (Vec::new(), Vec::new(), Vec::new());
    for r in 0..rows {
        match r % 4 {
            0 => {
                def.push(0);
                rep.push(0);
            }
            1 => {
                def.push(1);
                rep.push(0);
            }
            _ => {
                for i in 0..(r % 5 + 1) {
                    rep.push(if i == 0 { 0 } else { 1 });
                    if i % 3 == 2 {
                        def.push(2);
                    } else {
                        def.push(3);
                        items.push(i);
                    }
                }
            }
        }
    }
    columns.push(Column {
        max_def: 3,
        max_rep: 1,
        def,
        rep,
        values: Values::I32(items),
        encoding: E::Dictionary,
        dictionary_pages: None,
    });
    let mut seeds = Vec::new();
    for (page_version, codec) in [
        (1, Codec::Uncompressed),
        (2, Codec::Snappy),
        (1, Codec::Zstd),
        (2, Codec::Lz4Raw),
        (1, Codec::Gzip),
    ] {
        let options = Options {
            page_version,
            codec,
            entries_per_page: 60,
            rows_per_row_group: 100,
            ..Options::default()
        };
        let bytes = write_file(&schema, &columns, &options).bytes;
        seeds.push(Seed::new(format!("writer-v{page_version}-{codec}"), bytes));
    }
    seeds
}

fn fixture_seeds() -> Vec<Seed> {
    let dir = crate::test_support::data_dir().join("iceberg");
    let mut seeds: Vec<Seed> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "parquet"))
        .map(|p| {
            Seed::new(
                p.file_name().unwrap().to_string_lossy().into_owned(),
                std::fs::read(&p).unwrap(),
            )
        })
        .collect();
    seeds.sort_by(|a, b| a.name.cmp(&b.name));
    seeds
}

/// A value a tampered size or count field gets.
fn interesting(rng: &mut Rng, original: i64) -> i64 {
    match rng.below(8) {
        0 => 0,
        1 => original + 1,
        2 => original - 1,
        3 => original * 2,
        4 => i64::from(i32::MAX),
        5 => -1,
        6 => original / 2,
        _ => (rng.next_u64() >> rng.below(64)) as i64,
    }
}

fn tamper_header(rng: &mut Rng, header: &mut PageHeader) {
    let clamp = |v: i64| v.clamp(i64::from(i32::MIN), i64::from(i32::MAX)) as i32;
    match rng.below(6) {
        0 => {
            header.compressed_page_size =
                clamp(interesting(rng, header.compressed_page_size.into()))
        }
        1 => {
            header.uncompressed_page_size =
                clamp(interesting(rng, header.uncompressed_page_size.into()))
        }
        2 => {
            if let Some(d) = &mut header.data_page_header {
                d.num_values = clamp(interesting(rng, d.num_values.into()));
            }
            if let Some(d) = &mut header.data_page_header_v2 {
                d.num_values = clamp(interesting(rng, d.num_values.into()));
            }
            if let Some(d) = &mut header.dictionary_page_header {
                d.num_values = clamp(interesting(rng, d.num_values.into()));
            }
        }
        3 => {
            if let Some(d) = &mut header.data_page_header_v2 {
                d.definition_levels_byte_length =
                    clamp(interesting(rng, d.definition_levels_byte_length.into()));
                d.num_nulls = clamp(interesting(rng, d.num_nulls.into()));
            }
        }
        4 => {
            if let Some(d) = &mut header.data_page_header_v2 {
                d.repetition_levels_byte_length =
                    clamp(interesting(rng, d.repetition_levels_byte_length.into()));
                d.num_rows = clamp(interesting(rng, d.num_rows.into()));
            }
        }
        _ => header.crc = None,
    }
}

fn tamper_footer(rng: &mut Rng, metadata: &mut FileMetaData) {
    let pick = |rng: &mut Rng, n: usize| if n == 0 { None } else { Some(rng.below(n)) };
    match rng.below(7) {
        0 => metadata.num_rows = interesting(rng, metadata.num_rows),
        1 => {
            if let Some(i) = pick(rng, metadata.schema.len()) {
                let e = &mut metadata.schema[i];
                match e.num_children {
                    Some(n) => e.num_children = Some(interesting(rng, n.into()) as i32),
                    None => {
                        e.type_length =
                            Some(interesting(rng, e.type_length.unwrap_or(0).into()) as i32)
                    }
                }
            }
        }
        2 => {
            if let Some(i) = pick(rng, metadata.row_groups.len()) {
                let rg = &mut metadata.row_groups[i];
                rg.num_rows = interesting(rng, rg.num_rows);
            }
        }
        _ => {
            if let Some(i) = pick(rng, metadata.row_groups.len()) {
                let columns = &mut metadata.row_groups[i].columns;
                if let Some(c) = pick(rng, columns.len()) {
                    let meta = columns[c].meta_data.as_mut().unwrap();
                    match rng.below(5) {
                        0 => meta.num_values = interesting(rng, meta.num_values),
                        1 => {
                            meta.total_compressed_size =
                                interesting(rng, meta.total_compressed_size)
                        }
                        2 => meta.data_page_offset = interesting(rng, meta.data_page_offset),
                        3 => {
                            meta.dictionary_page_offset =
                                Some(interesting(rng, meta.dictionary_page_offset.unwrap_or(0)))
                        }
                        _ => meta.encoding_stats = None,
                    }
                }
            }
        }
    }
}

/// One damaged copy of `seed`.
fn mutate(rng: &mut Rng, seed: &Seed) -> Vec<u8> {
    let mut bytes = seed.bytes.clone();
    let n = bytes.len();
    let (footer_start, footer_len) = seed.footer;
    match rng.below(10) {
        // Bit flips anywhere, then in the footer, then in page headers.
        0 | 1 => {
            for _ in 0..1 + rng.below(3) {
                let at = rng.below(n);
                bytes[at] ^= 1 << rng.below(8);
            }
        }
        2 => {
            let at = footer_start + rng.below(footer_len);
            bytes[at] ^= 1 << rng.below(8);
        }
        3 => {
            let (at, len) = seed.headers[rng.below(seed.headers.len())];
            bytes[at + rng.below(len)] ^= 1 << rng.below(8);
        }
        4 => bytes.truncate(rng.below(n)),
        5 => {
            let length = interesting(rng, footer_len as i64) as u32;
            bytes[n - 8..n - 4].copy_from_slice(&length.to_le_bytes());
        }
        6 => {
            // A page header re-encoded with a damaged field (its length may change).
            let (at, len) = seed.headers[rng.below(seed.headers.len())];
            let (mut header, _) = PageHeader::decode(&bytes[at..at + len]).unwrap();
            tamper_header(rng, &mut header);
            let mut encoded = Vec::new();
            header.encode(&mut encoded).unwrap();
            bytes.splice(at..at + len, encoded);
        }
        7 => {
            // A footer re-encoded with a damaged size, count or offset.
            let (mut metadata, _) =
                FileMetaData::decode(&bytes[footer_start..footer_start + footer_len]).unwrap();
            tamper_footer(rng, &mut metadata);
            let mut footer = Vec::new();
            metadata.encode(&mut footer).unwrap();
            bytes.truncate(footer_start);
            bytes.extend_from_slice(&footer);
            bytes.extend_from_slice(&(footer.len() as u32).to_le_bytes());
            bytes.extend_from_slice(b"PAR1");
        }
        8 => {
            // A Thrift list header in the footer claiming another size: short
            // form (size in the high nibble) or long form (0xF_ then a varint).
            let candidates: Vec<usize> = (footer_start..footer_start + footer_len)
                .filter(|&i| {
                    matches!(bytes[i] & 0x0f, 5 | 6 | 8 | 12) && (1..15).contains(&(bytes[i] >> 4))
                })
                .collect();
            if let Some(&at) = candidates.get(rng.below(candidates.len().max(1))) {
                if rng.below(2) == 0 {
                    bytes[at] = (bytes[at] & 0x0f) | ((1 + rng.below(14) as u8) << 4);
                } else {
                    bytes[at] |= 0xf0;
                    let size = interesting(rng, 1000) as u32;
                    let mut varint = Vec::new();
                    let mut v = size;
                    while v >= 0x80 {
                        varint.push(v as u8 | 0x80);
                        v >>= 7;
                    }
                    varint.push(v as u8);
                    bytes.splice(at + 1..at + 1, varint);
                    let new_len = (footer_len + bytes.len() - n) as u32;
                    let m = bytes.len();
                    bytes[m - 8..m - 4].copy_from_slice(&new_len.to_le_bytes());
                }
            }
        }
        _ => {
            // A run of 0x00 or 0xFF over page bytes.
            let at = rng.below(footer_start.max(1));
            let end = (at + 1 + rng.below(16)).min(n);
            bytes[at..end].fill(if rng.below(2) == 0 { 0 } else { 0xff });
        }
    }
    bytes
}

/// Decodes every field of `bytes` (as the caller's ranges), validating every
/// batch; returns the rows decoded.
fn decode(bytes: &[u8], mode: Mode, batch_size: usize, keep: bool) -> Result<usize, Error> {
    let file = scan::open(bytes, "fuzz.parquet", mode)?;
    let schema = file.schema();
    let mut seen = HashSet::new();
    let ids: Vec<i32> = schema.nodes()[0]
        .children
        .iter()
        .filter_map(|&i| schema.element(i).and_then(|e| e.field_id))
        .filter(|id| seen.insert(*id))
        .collect();
    let options = ScanOptions {
        field_ids: ids,
        batch_size,
        keep_dictionaries: keep,
        verify_crc: true,
        ..ScanOptions::default()
    };
    let (schema, batches) = scan::batches(&file, bytes, options)?;
    let mut rows = 0;
    for batch in &batches {
        let view = ArrayView::from_data(batch, &schema)
            .unwrap_or_else(|e| panic!("the decoder produced an invalid batch: {e}"));
        rows += view.len();
    }
    Ok(rows)
}

fn cases() -> usize {
    std::env::var("ISTHMUS_FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(20_000)
}

#[test]
fn damaged_files_fail_cleanly() {
    let mut seeds = writer_seeds();
    let fixtures = fixture_seeds();
    assert!(fixtures.len() >= 8, "the Iceberg fixtures are seeds too");
    for seed in seeds.iter().chain(&fixtures) {
        assert!(
            decode(&seed.bytes, Mode::Local, 0, false).unwrap() > 0,
            "{} decodes intact",
            seed.name
        );
    }
    // The fixtures are large for a debug build: one case in ten uses one.
    let writer_count = seeds.len();
    seeds.extend(fixtures);
    let total = cases();
    let mut rng = Rng::new(0x1574_4050);
    let (mut ok, mut failed) = (0usize, 0usize);
    let mut statuses = std::collections::BTreeMap::new();
    for case in 0..total {
        let seed = if rng.below(10) == 0 {
            &seeds[writer_count + rng.below(seeds.len() - writer_count)]
        } else {
            &seeds[rng.below(writer_count)]
        };
        let damaged = mutate(&mut rng, seed);
        let batch_size = [0, 7, 37][rng.below(3)];
        let keep = rng.below(2) == 0;
        // Mostly the caller's ranges; now and then a local file, read in windows.
        let mode = if rng.below(16) == 0 {
            Mode::Local
        } else {
            Mode::Ranges
        };
        match decode(&damaged, mode, batch_size, keep) {
            Ok(_) => ok += 1,
            Err(e) => {
                assert!(
                    matches!(e.status(), Status::CorruptData | Status::Unsupported),
                    "case {case} ({}): unexpected {e}",
                    seed.name
                );
                // isthmus_footer_length works on 8 bytes and a size, before
                // any file is opened, so it cannot name one.
                let tail_error = e.message().starts_with("footer length ")
                    || e.message().starts_with("not a Parquet file");
                // A local file is named by its (temporary) path.
                let named = e.message().starts_with("fuzz.parquet")
                    || e.message().contains("-fuzz.parquet: ");
                assert!(tail_error || named, "case {case}: unnamed file: {e}");
                *statuses.entry(format!("{:?}", e.status())).or_insert(0) += 1;
                failed += 1;
            }
        }
    }
    eprintln!("{total} cases: {ok} decoded, {failed} failed cleanly {statuses:?}");
    assert!(
        ok > total / 20 && failed > total / 5,
        "both outcomes occur: {ok} / {failed}"
    );
}
