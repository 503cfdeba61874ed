//! Damaged files fail with CORRUPT_DATA (or UNSUPPORTED) and a message that
//! says where: the file, and for page-level damage the row group, the column
//! path and the page ordinal (counted from 0, the dictionary page included).

use crate::arrow::{DataType, Field, TimeUnit};
use crate::compression::Codec;
use crate::error::{Error, Status};
use crate::parquet::format::{
    Encoding, KeyValue, LogicalType, PageHeader, PhysicalType, Repetition, SchemaElement,
    ThriftStruct,
};
use crate::parquet::read::scan::ScanOptions;
use crate::test_support::parquet::scan::{self, project, Mode};
use crate::test_support::parquet::thrift_tree;
use crate::test_support::parquet::writer::{
    write_file, Column, Options, ValueEncoding, Values, Written,
};

fn schema() -> Vec<SchemaElement> {
    vec![
        SchemaElement {
            name: "table".into(),
            num_children: Some(2),
            ..SchemaElement::default()
        },
        SchemaElement {
            physical_type: Some(PhysicalType::Int64),
            repetition: Some(Repetition::Optional),
            name: "id".into(),
            field_id: Some(1),
            ..SchemaElement::default()
        },
        SchemaElement {
            physical_type: Some(PhysicalType::ByteArray),
            repetition: Some(Repetition::Optional),
            name: "url".into(),
            field_id: Some(2),
            logical_type: Some(LogicalType::String),
            ..SchemaElement::default()
        },
    ]
}

const ROWS: usize = 2000;

fn file(options: Options) -> Written {
    let valid: Vec<bool> = (0..ROWS).map(|i| i % 10 != 3).collect();
    let count = valid.iter().filter(|&&v| v).count();
    let ids = Column::flat(1, Values::I64((0..count as i64).collect()), &valid);
    let urls = Column::flat(
        1,
        Values::Bytes(
            (0..count)
                .map(|i| format!("u{}", i % 100).into_bytes())
                .collect(),
        ),
        &valid,
    )
    .encoded(ValueEncoding::Dictionary);
    write_file(
        &schema(),
        &[ids, urls],
        &Options {
            entries_per_page: 700,
            ..options
        },
    )
}

/// Decodes both columns of `bytes` completely, as `bids.parquet`.
fn decode(bytes: &[u8]) -> Result<usize, Error> {
    let file = scan::open(bytes, "bids.parquet", Mode::Ranges)?;
    let (_, batches) = scan::batches(&file, bytes, project(&[1, 2]))?;
    Ok(batches.iter().map(|b| b.len).sum())
}

fn decode_local(bytes: &[u8]) -> Result<usize, Error> {
    let file = scan::open(bytes, "bids.parquet", Mode::Local)?;
    let (_, batches) = scan::batches(&file, bytes, project(&[1, 2]))?;
    Ok(batches.iter().map(|b| b.len).sum())
}

fn corrupt(result: Result<usize, Error>) -> String {
    let err = result.expect_err("damaged input must fail");
    assert_eq!(err.status(), Status::CorruptData, "{err}");
    err.message().to_owned()
}

#[test]
fn intact_files_decode() {
    let written = file(Options::default());
    assert_eq!(decode(&written.bytes).unwrap(), ROWS);
    assert_eq!(decode_local(&written.bytes).unwrap(), ROWS);
}

#[test]
fn wrong_magic() {
    let mut bytes = file(Options::default()).bytes;
    let n = bytes.len();
    bytes[n - 1] = b'2';
    assert_eq!(
        corrupt(decode(&bytes)),
        "not a Parquet file: it ends with [50, 41, 52, 32] instead of PAR1"
    );
    let message = corrupt(decode_local(&bytes));
    assert!(
        message.starts_with("/") && message.contains("-bids.parquet: "),
        "{message}"
    );
    assert!(
        message.ends_with(": not a Parquet file: it ends with [50, 41, 52, 32] instead of PAR1")
    );
    let mut bytes = file(Options::default()).bytes;
    bytes[0] = b'Q';
    let message = corrupt(decode_local(&bytes));
    assert!(
        message.ends_with(": not a Parquet file: it starts with [51, 41, 52, 31] instead of PAR1"),
        "{message}"
    );
}

#[test]
fn bad_thrift_in_the_footer() {
    let written = file(Options::default());
    let mut bytes = written.bytes;
    let n = bytes.len();
    let footer_len = u32::from_le_bytes(bytes[n - 8..n - 4].try_into().unwrap()) as usize;
    let footer_start = n - 8 - footer_len;
    // A field header whose type nibble is 15, which the compact protocol lacks.
    bytes[footer_start] = 0x1f;
    let message = corrupt(decode(&bytes));
    assert!(message.starts_with("bids.parquet: footer: "), "{message}");
    // A footer length pointing before the file's start.
    let mut bytes = file(Options::default()).bytes;
    bytes[n - 8..n - 4].copy_from_slice(&(n as u32).to_le_bytes());
    assert_eq!(
        corrupt(decode(&bytes)),
        format!("footer length {n} does not fit a file of {n} bytes")
    );
}

#[test]
fn impossible_page_sizes() {
    fn huge(column: usize, ordinal: usize, header: &mut PageHeader) {
        if (column, ordinal) == (0, 1) {
            header.uncompressed_page_size = i32::MAX;
        }
    }
    let bytes = file(Options {
        codec: Codec::Zstd,
        edit_header: Some(huge),
        ..Options::default()
    })
    .bytes;
    let message = corrupt(decode(&bytes));
    assert!(
        message.starts_with("bids.parquet: row group 0, column 'id', page 1: uncompressed_page_size 2147483647 is impossible for "),
        "{message}"
    );
    assert!(
        message.contains(" stored bytes with codec zstd: they hold at most "),
        "{message}"
    );

    fn beyond(column: usize, ordinal: usize, header: &mut PageHeader) {
        if (column, ordinal) == (0, 2) {
            header.compressed_page_size += 1_000_000;
        }
    }
    let bytes = file(Options {
        edit_header: Some(beyond),
        ..Options::default()
    })
    .bytes;
    let message = corrupt(decode(&bytes));
    assert!(
        message
            .starts_with("bids.parquet: row group 0, column 'id', page 2: compressed_page_size "),
        "{message}"
    );
    assert!(
        message.contains(" exceeds the ") && message.ends_with(" bytes left in the column chunk"),
        "{message}"
    );

    fn too_many(column: usize, ordinal: usize, header: &mut PageHeader) {
        if let (1, 1, Some(data)) = (column, ordinal, header.data_page_header.as_mut()) {
            data.num_values += 5000;
        }
    }
    let bytes = file(Options {
        edit_header: Some(too_many),
        ..Options::default()
    })
    .bytes;
    assert_eq!(
        corrupt(decode(&bytes)),
        "bids.parquet: row group 0, column 'url', page 1: the page holds 5700 values but only \
         2000 of the column chunk's 2000 remain"
    );
}

#[test]
fn invalid_rle_runs() {
    // No nulls: each page's definition levels are one RLE run of 700 ones, a
    // 4-byte length, then the run header 1400 (700 << 1) as the varint f8 0a.
    let ids = Column::flat(1, Values::I64((0..ROWS as i64).collect()), &[true; ROWS]);
    let schema = &schema()[..2];
    let mut schema = schema.to_vec();
    schema[0].num_children = Some(1);
    let options = Options {
        crc: false,
        entries_per_page: 700,
        ..Options::default()
    };
    let written = write_file(&schema, &[ids], &options);
    let page = written.pages.iter().find(|p| p.ordinal == 1).unwrap();
    let mut bytes = written.bytes.clone();
    let runs = page.body + 4;
    assert_eq!(&bytes[runs..runs + 3], &[0xf8, 0x0a, 0x01]);
    // A run of 5000 (10000 is the varint 90 4e), more than the page holds.
    bytes[runs..runs + 2].copy_from_slice(&[0x90, 0x4e]);
    let file = scan::open(&bytes, "bids.parquet", Mode::Ranges).unwrap();
    let err = scan::batches(&file, &bytes, project(&[1])).unwrap_err();
    assert_eq!(err.status(), Status::CorruptData);
    assert_eq!(
        err.message(),
        "bids.parquet: row group 0, column 'id', page 1: RLE data (3 bytes, 700 values of 1 bits): \
         RLE run of 5000 values at byte 0 exceeds the 700 values left"
    );
}

#[test]
fn dictionary_index_out_of_range() {
    fn shrink(column: usize, ordinal: usize, header: &mut PageHeader) {
        if let (1, 0, Some(dictionary)) = (column, ordinal, header.dictionary_page_header.as_mut())
        {
            assert_eq!(dictionary.num_values, 100);
            dictionary.num_values = 70;
        }
    }
    let bytes = file(Options {
        edit_header: Some(shrink),
        ..Options::default()
    })
    .bytes;
    let message = corrupt(decode(&bytes));
    assert!(
        message.starts_with("bids.parquet: row group 0, column 'url', page 1: dictionary index "),
        "{message}"
    );
    assert!(
        message.ends_with(" out of range (dictionary has 70 entries)"),
        "{message}"
    );
    let index: u32 = message
        .trim_start_matches("bids.parquet: row group 0, column 'url', page 1: dictionary index ")
        .split(' ')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert!((70..100).contains(&index), "{message}");
}

#[test]
fn crc_mismatch_and_skipping_the_check() {
    let written = file(Options::default());
    let page = written
        .pages
        .iter()
        .find(|p| p.column == 1 && p.ordinal == 2)
        .unwrap()
        .clone();
    let mut bytes = written.bytes;
    bytes[page.body + page.body_len / 2] ^= 0x40;
    let message = corrupt(decode(&bytes));
    assert!(
        message.starts_with(
            "bids.parquet: row group 0, column 'url', page 2: page checksum mismatch: header says 0x"
        ),
        "{message}"
    );
    assert!(
        message.contains(&format!(", the {} page bytes give 0x", page.body_len)),
        "{message}"
    );
    // Unchecked, the damaged index decodes to another dictionary entry or fails otherwise.
    let file = scan::open(&bytes, "bids.parquet", Mode::Local).unwrap();
    let mut options = project(&[1, 2]);
    options.verify_crc = false;
    match scan::batches(&file, &bytes, options) {
        Ok(_) => {}
        Err(e) => assert!(!e.message().contains("checksum"), "{e}"),
    }
}

#[test]
fn unsupported_encodings_name_their_page() {
    fn future(column: usize, ordinal: usize, header: &mut PageHeader) {
        if let (0, 1, Some(data)) = (column, ordinal, header.data_page_header.as_mut()) {
            data.encoding = Encoding::Unknown(42);
        }
    }
    let bytes = file(Options {
        edit_header: Some(future),
        ..Options::default()
    })
    .bytes;
    let err = decode(&bytes).unwrap_err();
    assert_eq!(err.status(), Status::Unsupported);
    assert_eq!(
        err.message(),
        "bids.parquet: row group 0, column 'id', page 1: encoding 42 is not supported"
    );
}

#[test]
fn errors_stop_the_scan() {
    fn huge(column: usize, ordinal: usize, header: &mut PageHeader) {
        if (column, ordinal) == (0, 2) {
            header.uncompressed_page_size = i32::MAX;
        }
    }
    let bytes = file(Options {
        edit_header: Some(huge),
        ..Options::default()
    })
    .bytes;
    let file = scan::open(&bytes, "bids.parquet", Mode::Local).unwrap();
    let mut options = project(&[1]);
    options.batch_size = 500;
    let mut scan = crate::parquet::read::scan::Scan::open(file, options).unwrap();
    let mut failure = None;
    for _ in 0..10 {
        if let Err(e) = scan.next_step() {
            failure = Some(e);
            break;
        }
    }
    let failure = failure.expect("the damaged page is reached");
    assert_eq!(failure.status(), Status::CorruptData);
    let again = scan.next_step().unwrap_err();
    assert_eq!(
        again.status(),
        Status::CorruptData,
        "a damaged file stays one"
    );
    assert_eq!(
        again.message(),
        format!("the scan failed earlier: {}", failure.message())
    );
}

#[test]
fn unsupported_codecs_are_refused_when_the_scan_opens() {
    let written = file(Options::default());
    let mut bytes = written.bytes;
    // Rewrite the footer with LZO (3) as the codec of row group 0's 'url' chunk.
    let n = bytes.len();
    let footer_len = u32::from_le_bytes(bytes[n - 8..n - 4].try_into().unwrap()) as usize;
    let mut metadata = written.metadata.clone();
    metadata.row_groups[0].columns[1]
        .meta_data
        .as_mut()
        .unwrap()
        .codec = crate::parquet::format::CompressionCodec::Lzo;
    let mut footer = Vec::new();
    crate::parquet::format::ThriftStruct::encode(&metadata, &mut footer).unwrap();
    bytes.truncate(n - 8 - footer_len);
    bytes.extend_from_slice(&footer);
    bytes.extend_from_slice(&(footer.len() as u32).to_le_bytes());
    bytes.extend_from_slice(b"PAR1");
    let file = scan::open(&bytes, "bids.parquet", Mode::Ranges).unwrap();
    let err = crate::parquet::read::scan::Scan::open(file.clone(), project(&[1, 2]))
        .err()
        .unwrap();
    assert_eq!(err.status(), Status::Unsupported);
    assert_eq!(
        err.message(),
        "bids.parquet: row group 0, column 'url': compression codec LZO is not supported"
    );
    // Without that column, the file reads.
    assert!(crate::parquet::read::scan::Scan::open(file, project(&[1])).is_ok());
}

/// The fields parquet.thrift marks required, by struct (ColumnChunk's
/// deprecated file_offset aside: read as its default, 0, as other readers do).
fn required_fields(structure: &str) -> &'static [i16] {
    match structure {
        "FileMetaData" => &[1, 2, 3, 4],
        "SchemaElement" => &[4],
        "RowGroup" => &[1, 2, 3],
        "ColumnMetaData" => &[1, 2, 3, 4, 5, 6, 7, 9],
        "PageEncodingStats" => &[1, 2, 3],
        "KeyValue" => &[1],
        "DecimalType" => &[1, 2],
        "TimestampType" | "IntType" => &[1, 2],
        "PageHeader" => &[1, 2, 3],
        "DataPageHeader" => &[1, 2, 3, 4],
        "DictionaryPageHeader" => &[1, 2],
        "DataPageHeaderV2" => &[1, 2, 3, 4, 5, 6],
        _ => &[],
    }
}

/// The struct a field of `parent` holds, for the fields that hold one.
fn child_struct(parent: &str, id: i16) -> &'static str {
    match (parent, id) {
        ("FileMetaData", 2) => "SchemaElement",
        ("FileMetaData", 4) => "RowGroup",
        ("FileMetaData", 5) | ("ColumnMetaData", 8) => "KeyValue",
        ("SchemaElement", 10) => "LogicalType",
        ("LogicalType", 5) => "DecimalType",
        ("LogicalType", 8) => "TimestampType",
        ("LogicalType", 10) => "IntType",
        ("RowGroup", 1) => "ColumnChunk",
        ("ColumnChunk", 3) => "ColumnMetaData",
        ("ColumnMetaData", 13) => "PageEncodingStats",
        ("PageHeader", 5) => "DataPageHeader",
        ("PageHeader", 7) => "DictionaryPageHeader",
        ("PageHeader", 8) => "DataPageHeaderV2",
        _ => "",
    }
}

/// The struct holding the last field of `path` (from `top`), and whether
/// parquet.thrift requires that field.
fn is_required(top: &'static str, path: &thrift_tree::Path) -> (&'static str, bool) {
    let mut structure = top;
    for &(id, _) in &path[..path.len() - 1] {
        structure = child_struct(structure, id);
    }
    let id = path.last().unwrap().0;
    (structure, required_fields(structure).contains(&id))
}

/// Every field of the footer and of every page header removed in turn: a
/// required one is CORRUPT_DATA naming the struct and the field; without an
/// optional one the file reads or fails as a damaged file does (CORRUPT_DATA
/// or UNSUPPORTED), never as the caller's mistake.
#[test]
fn missing_required_fields_are_corrupt_data() {
    let schema = vec![
        SchemaElement {
            name: "table".into(),
            num_children: Some(4),
            ..SchemaElement::default()
        },
        SchemaElement {
            logical_type: Some(LogicalType::Timestamp {
                is_adjusted_to_utc: true,
                unit: crate::parquet::format::TimeUnit::Micros,
            }),
            ..schema()[1].clone()
        },
        schema()[2].clone(),
        SchemaElement {
            physical_type: Some(PhysicalType::Int32),
            repetition: Some(Repetition::Optional),
            name: "price".into(),
            field_id: Some(3),
            logical_type: Some(LogicalType::Decimal {
                scale: 2,
                precision: 9,
            }),
            ..SchemaElement::default()
        },
        SchemaElement {
            physical_type: Some(PhysicalType::Int32),
            repetition: Some(Repetition::Required),
            name: "small".into(),
            field_id: Some(4),
            logical_type: Some(LogicalType::Integer {
                bit_width: 16,
                is_signed: true,
            }),
            ..SchemaElement::default()
        },
    ];
    let rows: usize = 50;
    let valid: Vec<bool> = (0..rows).map(|i| i % 4 != 0).collect();
    let count = valid.iter().filter(|&&v| v).count();
    let columns = [
        Column::flat(1, Values::I64((0..count as i64).collect()), &valid),
        Column::flat(
            1,
            Values::Bytes((0..count).map(|i| vec![b'a' + (i % 3) as u8]).collect()),
            &valid,
        )
        .encoded(ValueEncoding::Dictionary),
        Column::flat(1, Values::I32((0..count as i32).collect()), &valid),
        Column::flat(0, Values::I32((0..rows as i32).collect()), &[]),
    ];
    let expected = Field::new("t", DataType::Struct, false).with_children(vec![
        Field::new(
            "ts",
            DataType::Timestamp {
                unit: TimeUnit::Microsecond,
                timezone: Some("UTC".into()),
            },
            true,
        ),
        Field::new("url", DataType::Utf8, true),
        Field::new(
            "price",
            DataType::Decimal128 {
                precision: 9,
                scale: 2,
            },
            true,
        ),
        Field::new("small", DataType::Int16, true),
    ]);
    let options = ScanOptions {
        expected: Some(expected),
        ..project(&[1, 2, 3, 4])
    };
    for page_version in [1, 2] {
        let mut written = write_file(
            &schema,
            &columns,
            &Options {
                page_version,
                entries_per_page: 20,
                ..Options::default()
            },
        );
        written.metadata.key_value_metadata = Some(vec![KeyValue {
            key: "iceberg.schema".into(),
            value: Some("{}".into()),
        }]);
        let n = written.bytes.len();
        let footer_len = u32::from_le_bytes(written.bytes[n - 8..n - 4].try_into().unwrap());
        let data = written.bytes[..n - 8 - footer_len as usize].to_vec();
        let mut footer = Vec::new();
        written.metadata.encode(&mut footer).unwrap();
        let tree = thrift_tree::read(&footer).unwrap();
        assert_eq!(thrift_tree::write(&tree), footer, "the tree round-trips");
        let mut required = 0;
        for path in thrift_tree::paths(&tree) {
            let footer = thrift_tree::write(&thrift_tree::without(&tree, &path));
            let mut bytes = data.clone();
            bytes.extend_from_slice(&footer);
            bytes.extend_from_slice(&(footer.len() as u32).to_le_bytes());
            bytes.extend_from_slice(b"PAR1");
            let result = scan::open(&bytes, "bids.parquet", Mode::Ranges)
                .and_then(|file| scan::batches(&file, &bytes, options.clone()).map(drop));
            let (structure, is_required) = is_required("FileMetaData", &path);
            let field = path.last().unwrap().0;
            match result {
                Err(e) if is_required => {
                    required += 1;
                    assert_eq!(e.status(), Status::CorruptData, "{path:?}: {e}");
                    assert!(
                        e.message().starts_with("bids.parquet: footer: ")
                            && e.message()
                                .contains(&format!("{structure} starting at byte "))
                            && e.message().ends_with(&format!("lacks required field {}", {
                                required_name(structure, field)
                            })),
                        "{path:?}: {e}"
                    );
                }
                Ok(()) if is_required => panic!("{path:?}: read without {structure} field {field}"),
                Err(e) => assert!(
                    matches!(e.status(), Status::CorruptData | Status::Unsupported),
                    "{path:?} ({structure} field {field}): {e}"
                ),
                Ok(()) => {}
            }
        }
        assert!(required > 40, "{required} required fields removed");

        for page in &written.pages {
            let header = &written.bytes[page.header..page.body];
            let tree = thrift_tree::read(header).unwrap();
            for path in thrift_tree::paths(&tree) {
                let bytes = thrift_tree::write(&thrift_tree::without(&tree, &path));
                let (structure, is_required) = is_required("PageHeader", &path);
                match PageHeader::decode(&bytes) {
                    Err(e) => {
                        assert_eq!(e.status(), Status::CorruptData, "{path:?}: {e}");
                        assert!(is_required, "{path:?}: {e}");
                        assert!(
                            e.message().ends_with(&format!(
                                "lacks required field {}",
                                required_name(structure, path.last().unwrap().0)
                            )),
                            "{path:?}: {e}"
                        );
                    }
                    Ok(_) => assert!(!is_required, "{path:?}: decoded without it"),
                }
            }
        }
    }
}

/// The IDL's name of a required field, as the decoder names it.
fn required_name(structure: &str, id: i16) -> &'static str {
    match (structure, id) {
        ("FileMetaData", 1) => "version",
        ("FileMetaData", 2) => "schema",
        ("FileMetaData", 3) | ("RowGroup", 3) => "num_rows",
        ("FileMetaData", 4) => "row_groups",
        ("SchemaElement", 4) => "name",
        ("RowGroup", 1) => "columns",
        ("RowGroup", 2) => "total_byte_size",
        ("ColumnMetaData", 1) | ("PageHeader", 1) => "type",
        ("ColumnMetaData", 2) => "encodings",
        ("ColumnMetaData", 3) => "path_in_schema",
        ("ColumnMetaData", 4) => "codec",
        ("ColumnMetaData", 5) => "num_values",
        ("ColumnMetaData", 6) => "total_uncompressed_size",
        ("ColumnMetaData", 7) => "total_compressed_size",
        ("ColumnMetaData", 9) => "data_page_offset",
        ("PageEncodingStats", 1) => "page_type",
        ("PageEncodingStats", 2) => "encoding",
        ("PageEncodingStats", 3) => "count",
        ("KeyValue", 1) => "key",
        ("DecimalType", 1) => "scale",
        ("DecimalType", 2) => "precision",
        ("TimestampType", 1) => "isAdjustedToUTC",
        ("TimestampType", 2) => "unit",
        ("IntType", 1) => "bitWidth",
        ("IntType", 2) => "isSigned",
        ("PageHeader", 2) => "uncompressed_page_size",
        ("PageHeader", 3) => "compressed_page_size",
        ("DataPageHeader", 1) | ("DictionaryPageHeader", 1) | ("DataPageHeaderV2", 1) => {
            "num_values"
        }
        ("DataPageHeader", 2) | ("DictionaryPageHeader", 2) => "encoding",
        ("DataPageHeader", 3) => "definition_level_encoding",
        ("DataPageHeader", 4) => "repetition_level_encoding",
        ("DataPageHeaderV2", 2) => "num_nulls",
        ("DataPageHeaderV2", 3) => "num_rows",
        ("DataPageHeaderV2", 4) => "encoding",
        ("DataPageHeaderV2", 5) => "definition_levels_byte_length",
        ("DataPageHeaderV2", 6) => "repetition_levels_byte_length",
        _ => panic!("{structure} field {id} is not required"),
    }
}
