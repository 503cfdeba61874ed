//! The encoder against files Iceberg's Java writer (Iceberg 1.11, parquet-java
//! 1.17) wrote for the same rows (`tests/data/parquet-java`, made by
//! `tests/data/ParquetJavaReference.java`): same values, same schema elements,
//! same statistics, encodings, dictionary decisions, page boundaries and page
//! index, and the same Iceberg metrics.

use std::collections::BTreeMap;
use std::path::PathBuf;

use crate::arrow::field::encode_metadata;
use crate::parquet::format::PageEncodingStats;
use crate::parquet::write::WriteResult;
use crate::test_support::write::reader::{read_file, ParquetFile};
use crate::test_support::write::reference::{self, read_metrics};
use crate::test_support::write::{batch, options, write_file, Column};

fn reference_dir() -> PathBuf {
    crate::test_support::data_dir().join("parquet-java")
}

struct Case {
    name: &'static str,
    columns: Vec<Column>,
    options: Vec<(&'static str, &'static str)>,
}

fn cases() -> Vec<Case> {
    // Parquet.write without a table defaults to gzip, which the references use.
    let gzip = ("write.parquet.compression-codec", "gzip");
    let small = [
        ("write.parquet.dict-size-bytes", "2000"),
        ("write.parquet.page-row-limit", "300"),
        ("write.parquet.compression-codec", "uncompressed"),
    ];
    vec![
        Case {
            name: "all-v1",
            columns: reference::all_types(200),
            options: vec![gzip],
        },
        Case {
            name: "all-v2",
            columns: reference::all_types(200),
            options: vec![gzip, ("write.parquet.page-version", "v2")],
        },
        Case {
            name: "all-nodict",
            columns: reference::all_types(200),
            options: vec![gzip, ("parquet.enable.dictionary", "false")],
        },
        Case {
            name: "all-snappy",
            columns: reference::all_types(200),
            options: vec![("write.parquet.compression-codec", "snappy")],
        },
        Case {
            name: "fallback-v1",
            columns: reference::fallback(3000),
            options: small.to_vec(),
        },
        Case {
            name: "fallback-v2",
            columns: reference::fallback(3000),
            options: [&small[..], &[("write.parquet.page-version", "v2")]].concat(),
        },
        Case {
            name: "long-strings",
            columns: reference::long_strings(10),
            options: vec![gzip],
        },
    ]
}

/// Writes `case` with the footer metadata of `java` and returns both files parsed.
fn write_case(case: &Case, java: &ParquetFile) -> (ParquetFile, WriteResult) {
    let (mut schema, data) = batch(&case.columns);
    let kv = java.metadata.key_value_metadata.clone().unwrap_or_default();
    let pairs: Vec<(&str, &[u8])> = kv
        .iter()
        .map(|kv| {
            (
                kv.key.as_str(),
                kv.value.as_deref().unwrap_or("").as_bytes(),
            )
        })
        .collect();
    schema = schema.with_metadata(encode_metadata(&pairs).unwrap());
    let (bytes, result) = write_file(&schema, &[data], options(&case.options));
    (read_file(&bytes), result)
}

fn java_file(name: &str) -> ParquetFile {
    let bytes = std::fs::read(reference_dir().join(format!("{name}.parquet"))).unwrap();
    read_file(&bytes)
}

fn sorted_stats(stats: &[PageEncodingStats]) -> Vec<String> {
    let mut out: Vec<String> = stats.iter().map(|s| format!("{s:?}")).collect();
    out.sort();
    out
}

#[test]
fn files_match_parquet_java() {
    for case in cases() {
        let java = java_file(case.name);
        let (ours, _) = write_case(&case, &java);
        let name = case.name;
        assert_eq!(
            ours.metadata.schema, java.metadata.schema,
            "{name}: schema elements"
        );
        assert_eq!(ours.metadata.version, java.metadata.version, "{name}");
        assert_eq!(ours.metadata.num_rows, java.metadata.num_rows, "{name}");
        assert_eq!(
            ours.metadata.column_orders, java.metadata.column_orders,
            "{name}"
        );
        assert_eq!(
            ours.metadata.key_value_metadata, java.metadata.key_value_metadata,
            "{name}"
        );
        assert!(ours
            .metadata
            .created_by
            .as_deref()
            .unwrap()
            .starts_with("isthmus version 0.1.0 (build "));
        assert_eq!(
            ours.row_groups.len(),
            java.row_groups.len(),
            "{name}: row groups"
        );
        for rg in 0..java.row_groups.len() {
            let (o_rg, j_rg) = (&ours.metadata.row_groups[rg], &java.metadata.row_groups[rg]);
            assert_eq!(o_rg.num_rows, j_rg.num_rows);
            assert_eq!(o_rg.ordinal, j_rg.ordinal);
            assert_eq!(o_rg.file_offset, Some(4));
            for c in 0..java.schema.columns().len() {
                let column = &java.column(c).path[0];
                let at = format!("{name}: row group {rg}, column {column}");
                let (o, j) = (ours.chunk_meta(rg, c), java.chunk_meta(rg, c));
                let (om, jm) = (o.meta_data.as_ref().unwrap(), j.meta_data.as_ref().unwrap());
                assert_eq!(om.physical_type, jm.physical_type, "{at}");
                assert_eq!(om.codec, jm.codec, "{at}");
                assert_eq!(om.num_values, jm.num_values, "{at}");
                assert_eq!(om.statistics, jm.statistics, "{at}: statistics");
                let mut encodings = (om.encodings.clone(), jm.encodings.clone());
                encodings.0.sort_by_key(|e| e.to_thrift());
                encodings.1.sort_by_key(|e| e.to_thrift());
                assert_eq!(encodings.0, encodings.1, "{at}: encodings");
                assert_eq!(
                    sorted_stats(om.encoding_stats.as_deref().unwrap()),
                    sorted_stats(jm.encoding_stats.as_deref().unwrap()),
                    "{at}: encoding stats"
                );
                assert_eq!(
                    om.dictionary_page_offset.is_some(),
                    jm.dictionary_page_offset.is_some(),
                    "{at}: dictionary page"
                );
                let (oc, jc) = (&ours.row_groups[rg][c], &java.row_groups[rg][c]);
                assert_eq!(
                    oc.dictionary_len, jc.dictionary_len,
                    "{at}: dictionary entries"
                );
                let pages = |chunk: &crate::test_support::write::reader::Chunk| {
                    chunk
                        .pages
                        .iter()
                        .map(|p| (p.header.page_type, p.encoding, p.rows, p.nulls))
                        .collect::<Vec<_>>()
                };
                assert_eq!(pages(oc), pages(jc), "{at}: pages");
                for (op, jp) in oc.pages.iter().zip(&jc.pages) {
                    let (oh, jh) = (&op.header, &jp.header);
                    assert_eq!(
                        oh.uncompressed_page_size, jh.uncompressed_page_size,
                        "{at}: page size"
                    );
                    assert_eq!(oh.dictionary_page_header, jh.dictionary_page_header, "{at}");
                    match (&oh.data_page_header, &jh.data_page_header) {
                        (Some(o), Some(j)) => assert_eq!(o, j, "{at}: data page header"),
                        (None, None) => {}
                        _ => panic!("{at}: page kinds differ"),
                    }
                    match (&oh.data_page_header_v2, &jh.data_page_header_v2) {
                        (Some(o), Some(j)) => assert_eq!(o, j, "{at}: data page v2 header"),
                        (None, None) => {}
                        _ => panic!("{at}: page kinds differ"),
                    }
                    assert!(oh.crc.is_some());
                }
                assert_eq!(
                    ours.column_index(rg, c),
                    java.column_index(rg, c),
                    "{at}: column index"
                );
                let (oi, ji) = (
                    ours.offset_index(rg, c).unwrap(),
                    java.offset_index(rg, c).unwrap(),
                );
                assert_eq!(
                    oi.unencoded_byte_array_data_bytes, ji.unencoded_byte_array_data_bytes,
                    "{at}: unencoded bytes"
                );
                let rows = |i: &crate::parquet::format::OffsetIndex| {
                    i.page_locations
                        .iter()
                        .map(|l| l.first_row_index)
                        .collect::<Vec<_>>()
                };
                assert_eq!(rows(&oi), rows(&ji), "{at}: offset index rows");
                for (location, page) in oi.page_locations.iter().zip(oc.pages.iter().filter(|p| {
                    p.header.page_type != crate::parquet::format::PageType::DictionaryPage
                })) {
                    assert_eq!(location.offset as u64, page.offset, "{at}");
                    assert_eq!(
                        location.compressed_page_size as usize,
                        page.header_len + page.header.compressed_page_size as usize,
                        "{at}"
                    );
                }
                let values = (ours.values(c), java.values(c));
                assert_eq!(values.0.len(), values.1.len());
                for (row, (o, j)) in values.0.iter().zip(&values.1).enumerate() {
                    let same = match (o, j) {
                        (Some(o), Some(j)) => o.same(j),
                        (None, None) => true,
                        _ => false,
                    };
                    assert!(same, "{at}: row {row}: ours {o:?}, parquet-java {j:?}");
                }
            }
        }
    }
}

/// Iceberg's bound bytes for a column from ours (Parquet PLAIN bytes): decimals
/// become minimal big-endian two's complement, everything else is the same.
fn iceberg_bound(
    physical: crate::parquet::format::PhysicalType,
    decimal: bool,
    bytes: &[u8],
) -> Vec<u8> {
    use crate::parquet::format::PhysicalType;
    if !decimal {
        return bytes.to_vec();
    }
    let value: i128 = match physical {
        PhysicalType::Int32 => i32::from_le_bytes(bytes.try_into().unwrap()).into(),
        PhysicalType::Int64 => i64::from_le_bytes(bytes.try_into().unwrap()).into(),
        _ => {
            let fill = if bytes[0] & 0x80 != 0 { 0xff } else { 0 };
            let mut wide = [fill; 16];
            wide[16 - bytes.len()..].copy_from_slice(bytes);
            i128::from_be_bytes(wide)
        }
    };
    let full = value.to_be_bytes();
    // BigInteger.toByteArray: drop leading bytes that only repeat the sign.
    let mut start = 0;
    while start < 15 {
        let (b, next) = (full[start], full[start + 1]);
        if (b == 0 && next & 0x80 == 0) || (b == 0xff && next & 0x80 != 0) {
            start += 1;
        } else {
            break;
        }
    }
    full[start..].to_vec()
}

#[test]
fn results_match_icebergs_metrics() {
    for case in cases() {
        let java = java_file(case.name);
        let (ours, result) = write_case(&case, &java);
        let text = std::fs::read_to_string(reference_dir().join(format!("{}.metrics", case.name)))
            .unwrap();
        let (metrics, splits) = read_metrics(&text);
        assert_eq!(result.split_offsets, splits, "{}", case.name);
        assert_eq!(result.record_count as i64, java.metadata.num_rows);
        let by_id: BTreeMap<i32, _> = metrics.iter().map(|m| (m.field_id, m)).collect();
        for (index, column) in result.columns.iter().enumerate() {
            let at = format!("{}: column {}", case.name, column.name);
            let expected = by_id[&column.field_id];
            let m = &column.metrics;
            assert_eq!(Some(m.value_count as i64), expected.values, "{at}: values");
            assert_eq!(Some(m.null_count as i64), expected.nulls, "{at}: nulls");
            assert_eq!(m.nan_count.map(|n| n as i64), expected.nans, "{at}: NaNs");
            let descriptor = ours.column(index);
            let decimal =
                descriptor.converted_type == Some(crate::parquet::format::ConvertedType::Decimal);
            let truncated = |b: &Option<Vec<u8>>| b.as_ref().is_some_and(|b| b.len() > 16);
            if descriptor.physical_type == crate::parquet::format::PhysicalType::ByteArray
                && (truncated(&m.min) || truncated(&m.max))
            {
                // Iceberg truncates long strings itself; check the prefix.
                let lower = expected.lower.as_ref().unwrap();
                assert!(m.min.as_ref().unwrap().starts_with(lower), "{at}");
                continue;
            }
            let convert = |b: &Option<Vec<u8>>| {
                b.as_ref()
                    .map(|b| iceberg_bound(descriptor.physical_type, decimal, b))
            };
            assert_eq!(convert(&m.min), expected.lower, "{at}: lower bound");
            assert_eq!(convert(&m.max), expected.upper, "{at}: upper bound");
            let compressed: i64 = ours
                .metadata
                .row_groups
                .iter()
                .map(|rg| {
                    rg.columns[index]
                        .meta_data
                        .as_ref()
                        .unwrap()
                        .total_compressed_size
                })
                .sum();
            assert_eq!(m.compressed_size as i64, compressed, "{at}");
        }
    }
}
