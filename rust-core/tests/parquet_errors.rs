//! Damaged files fail with CORRUPT_DATA (or UNSUPPORTED) and a message that
//! says where: the file, and for page-level damage the row group, the column
//! path and the page ordinal (counted from 0, the dictionary page included).

mod parquet_support;

use isthmus::compression::Codec;
use isthmus::error::{Error, Status};
use isthmus::parquet::format::{
    Encoding, LogicalType, PageHeader, PhysicalType, Repetition, SchemaElement,
};
use parquet_support::scan::{self, project, Mode};
use parquet_support::writer::{write_file, Column, Options, ValueEncoding, Values, Written};

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
    let mut scan = isthmus::parquet::scan::Scan::open(file, options).unwrap();
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
    assert_eq!(again.status(), Status::InvalidArgument);
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
        .codec = isthmus::parquet::format::CompressionCodec::Lzo;
    let mut footer = Vec::new();
    isthmus::parquet::format::ThriftStruct::encode(&metadata, &mut footer).unwrap();
    bytes.truncate(n - 8 - footer_len);
    bytes.extend_from_slice(&footer);
    bytes.extend_from_slice(&(footer.len() as u32).to_le_bytes());
    bytes.extend_from_slice(b"PAR1");
    let file = scan::open(&bytes, "bids.parquet", Mode::Ranges).unwrap();
    let err = isthmus::parquet::scan::Scan::open(file.clone(), project(&[1, 2]))
        .err()
        .unwrap();
    assert_eq!(err.status(), Status::Unsupported);
    assert_eq!(
        err.message(),
        "bids.parquet: row group 0, column 'url': compression codec LZO is not supported"
    );
    // Without that column, the file reads.
    assert!(isthmus::parquet::scan::Scan::open(file, project(&[1])).is_ok());
}
