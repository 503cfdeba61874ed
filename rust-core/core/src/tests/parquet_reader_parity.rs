//! Files that parquet-java, DuckDB and Arrow C++ read, written here with the
//! test writer (and, where no writer of ours would write them so, with their
//! footers rewritten): each must decode to the values those readers give, or
//! fail with a clear error where they give none.

use crate::compression::Codec;
use crate::error::Status;
use crate::parquet::format::{
    CompressionCodec, ConvertedType, FileMetaData, LogicalType, PhysicalType, Repetition,
    SchemaElement, ThriftStruct,
};
use crate::parquet::read::scan::ScanOptions;
use crate::test_support::parquet::scan::{self, project, Mode};
use crate::test_support::parquet::writer::{
    write_file, Column, Options, ValueEncoding, Values, Written,
};

fn root(children: i32) -> SchemaElement {
    SchemaElement {
        name: "table".into(),
        num_children: Some(children),
        ..SchemaElement::default()
    }
}

fn optional(name: &str, physical: PhysicalType, id: i32) -> SchemaElement {
    SchemaElement {
        physical_type: Some(physical),
        repetition: Some(Repetition::Optional),
        name: name.into(),
        field_id: Some(id),
        ..SchemaElement::default()
    }
}

/// `written` with its footer replaced by `edit` of its metadata.
fn rewrite_footer(written: &Written, edit: impl FnOnce(&mut FileMetaData)) -> Vec<u8> {
    let bytes = &written.bytes;
    let n = bytes.len();
    let footer_len = u32::from_le_bytes(bytes[n - 8..n - 4].try_into().unwrap()) as usize;
    let mut out = bytes[..n - 8 - footer_len].to_vec();
    let mut metadata = written.metadata.clone();
    edit(&mut metadata);
    let mut footer = Vec::new();
    metadata.encode(&mut footer).unwrap();
    out.extend_from_slice(&footer);
    out.extend_from_slice(&(footer.len() as u32).to_le_bytes());
    out.extend_from_slice(b"PAR1");
    out
}

fn rows_both_modes(bytes: &[u8], options: &ScanOptions) -> Vec<Vec<String>> {
    let ranges = scan::rows(bytes, options.clone(), Mode::Ranges).unwrap();
    let local = scan::rows(bytes, options.clone(), Mode::Local).unwrap();
    assert_eq!(ranges, local);
    ranges
}

/// A v2 page of only nulls has no values, and writers store nothing for them:
/// 0 bytes after the levels, which no codec is asked to decompress.
#[test]
fn v2_pages_without_values_need_no_decompression() {
    let rows = 300;
    let valid: Vec<bool> = (0..rows).map(|i| i >= 200).collect();
    let values: Vec<i64> = (200..rows as i64).collect();
    let column = Column::flat(1, Values::I64(values), &valid);
    let written = write_file(
        &[root(1), optional("id", PhysicalType::Int64, 1)],
        &[column],
        &Options {
            page_version: 2,
            entries_per_page: 100,
            // Stored as written: the empty value sections stay empty.
            codec: Codec::Uncompressed,
            ..Options::default()
        },
    );
    let expected: Vec<Vec<String>> = (0..rows)
        .map(|i| {
            vec![if i >= 200 {
                i.to_string()
            } else {
                "null".into()
            }]
        })
        .collect();
    for codec in [
        Codec::Snappy,
        Codec::Gzip,
        Codec::Zstd,
        Codec::Lz4Raw,
        Codec::Brotli,
    ] {
        // Pages 0 and 1 are all null, so their value sections are empty; page
        // 2 has values, stored uncompressed, which the codec would misread:
        // read the null pages only.
        let bytes = rewrite_footer(&written, |metadata| {
            for chunk in &mut metadata.row_groups[0].columns {
                let meta = chunk.meta_data.as_mut().unwrap();
                meta.codec = CompressionCodec::from_thrift(codec.id());
            }
        });
        let options = ScanOptions {
            batch_size: 200,
            ..project(&[1])
        };
        let file = scan::open(&bytes, "nulls.parquet", Mode::Ranges).unwrap();
        let mut seen = Vec::new();
        let result = scan::for_each_batch(&file, &bytes, options, |schema, batch| {
            let view = crate::arrow::ArrayView::from_data(&batch, schema).unwrap();
            seen.extend(crate::test_support::parquet::render::rows(&view));
        });
        assert_eq!(seen, expected[..200], "{codec}");
        // The third page's values are not in the codec's format.
        let err = result.unwrap_err();
        assert_eq!(err.status(), Status::CorruptData, "{codec}: {err}");
        assert!(
            err.message()
                .starts_with("nulls.parquet: row group 0, column 'id', page 2: "),
            "{codec}: {err}"
        );
    }
    assert_eq!(rows_both_modes(&written.bytes, &project(&[1])), expected);
}

/// Arrow C++ writes an empty column chunk with its dictionary page and
/// `data_page_offset` 0.
#[test]
fn empty_chunks_with_data_page_offset_zero_open() {
    let schema = [
        root(2),
        optional("id", PhysicalType::Int64, 1),
        SchemaElement {
            logical_type: Some(LogicalType::String),
            ..optional("name", PhysicalType::ByteArray, 2)
        },
    ];
    let columns = [
        Column::flat(1, Values::I64(vec![]), &[]).encoded(ValueEncoding::Dictionary),
        Column::flat(1, Values::Bytes(vec![]), &[]).encoded(ValueEncoding::Dictionary),
    ];
    let written = write_file(&schema, &columns, &Options::default());
    let bytes = rewrite_footer(&written, |metadata| {
        for chunk in &mut metadata.row_groups[0].columns {
            let meta = chunk.meta_data.as_mut().unwrap();
            assert!(meta.dictionary_page_offset.is_some());
            meta.data_page_offset = 0;
        }
    });
    for mode in [Mode::Ranges, Mode::Local] {
        let file = scan::open(&bytes, "empty.parquet", mode).unwrap();
        assert_eq!(file.num_rows(), 0);
        assert!(rows_both_modes(&bytes, &project(&[1, 2])).is_empty());
    }
}

/// INT96 as Julian day and nanoseconds of the day.
fn int96(day: i32, nanos: i64) -> [u8; 12] {
    let mut value = [0u8; 12];
    value[..8].copy_from_slice(&nanos.to_le_bytes());
    value[8..].copy_from_slice(&day.to_le_bytes());
    value
}

const JULIAN_EPOCH: i32 = 2_440_588;

#[test]
fn int96_outside_the_nanosecond_range_is_an_error_not_a_wrapped_value() {
    let schema = [root(1), optional("ts", PhysicalType::Int96, 1)];
    // 2262-04-11 is the last day int64 nanoseconds reach; 1677-09-21 the first.
    let last = JULIAN_EPOCH + 106_751;
    let first = JULIAN_EPOCH - 106_752;
    let inside = [
        int96(JULIAN_EPOCH, 1),
        int96(last, 0),
        int96(first, 86_399_999_999_999),
    ];
    let column = Column::flat(1, Values::I96(inside.to_vec()), &[true; 3]);
    let written = write_file(&schema, &[column], &Options::default());
    let nanos = |day: i32, n: i64| {
        (i128::from(day - JULIAN_EPOCH) * 86_400_000_000_000 + i128::from(n)).to_string()
    };
    assert_eq!(
        rows_both_modes(&written.bytes, &project(&[1])),
        vec![
            vec![nanos(JULIAN_EPOCH, 1)],
            vec![nanos(last, 0)],
            vec![nanos(first, 86_399_999_999_999)],
        ]
    );

    for (day, nanos) in [
        (last + 1, 0),
        (first - 1, 0),
        (JULIAN_EPOCH + 1, i64::MAX),
        (0, 0),
    ] {
        let values = vec![int96(JULIAN_EPOCH, 0), int96(day, nanos)];
        let column = Column::flat(1, Values::I96(values), &[true, true]);
        let written = write_file(&schema, &[column], &Options::default());
        for mode in [Mode::Ranges, Mode::Local] {
            let err = scan::rows(&written.bytes, project(&[1]), mode).unwrap_err();
            assert_eq!(err.status(), Status::CorruptData, "{err}");
            assert!(
                err.message()
                    .contains(": row group 0, column 'ts', page 0: "),
                "{err}"
            );
            assert!(
                err.message().ends_with(&format!(
                    "INT96 timestamp (Julian day {day}, {nanos} ns of the day) is outside the \
                     range of 64-bit nanoseconds since 1970"
                )),
                "{err}"
            );
        }
    }
}

/// The format asks readers to ignore logical types they do not know and read
/// the column by its physical (or converted) type.
#[test]
fn unknown_logical_type_annotations_are_ignored() {
    let future = |mut element: SchemaElement| {
        element.logical_type = Some(LogicalType::Unrecognized { field_id: 40 });
        element
    };
    let mut legacy = future(optional("s", PhysicalType::ByteArray, 2));
    legacy.converted_type = Some(ConvertedType::Utf8);
    let schema = [
        root(2),
        future(optional("i", PhysicalType::Int32, 1)),
        legacy,
    ];
    let columns = [
        Column::flat(1, Values::I32(vec![7, -1]), &[true, false, true]),
        Column::flat(1, Values::Bytes(vec![b"a".to_vec()]), &[false, true, false]),
    ];
    let written = write_file(&schema, &columns, &Options::default());
    let file = scan::open(&written.bytes, "future.parquet", Mode::Ranges).unwrap();
    let arrow = file.arrow_schema().unwrap();
    let formats: Vec<String> = arrow
        .children
        .iter()
        .map(|f| f.data_type.format())
        .collect();
    assert_eq!(formats, ["i", "u"]);
    assert_eq!(
        rows_both_modes(&written.bytes, &project(&[1, 2])),
        [["7", "null"], ["null", "61"], ["-1", "null"]]
    );
}

/// UNKNOWN (Iceberg v3's `unknown`) columns hold only nulls: an Arrow null
/// column.
#[test]
fn unknown_logical_type_columns_read_as_nulls() {
    let unknown = |mut element: SchemaElement| {
        element.logical_type = Some(LogicalType::Unknown);
        element
    };
    let schema = [
        root(2),
        optional("id", PhysicalType::Int64, 1),
        unknown(optional("nothing", PhysicalType::Int32, 2)),
    ];
    let columns = [
        Column::flat(1, Values::I64(vec![1, 2, 3]), &[true; 3]),
        Column::flat(1, Values::I32(vec![]), &[false; 3]),
    ];
    let written = write_file(&schema, &columns, &Options::default());
    let file = scan::open(&written.bytes, "unknown.parquet", Mode::Ranges).unwrap();
    let arrow = file.arrow_schema().unwrap();
    assert_eq!(arrow.children[1].data_type.format(), "n");
    let (scanned, batches) = scan::batches(&file, &written.bytes, project(&[2, 1])).unwrap();
    assert_eq!(scanned.children[0].data_type.format(), "n");
    assert_eq!(batches.len(), 1);
    let nulls = &batches[0].children[0];
    assert_eq!((nulls.len, nulls.null_count), (3, 3));
    assert!(nulls.buffers.is_empty() && nulls.validity.is_none());
    assert_eq!(
        rows_both_modes(&written.bytes, &project(&[2, 1])),
        [["null", "1"], ["null", "2"], ["null", "3"]]
    );

    // Iceberg's conversion of such a file calls the column int: nulls of it.
    let expected = |nullable: bool| {
        crate::arrow::Field::new("t", crate::arrow::DataType::Struct, false).with_children(vec![
            crate::arrow::Field::new("nothing", crate::arrow::DataType::Int32, nullable),
        ])
    };
    let as_int = ScanOptions {
        expected: Some(expected(true)),
        ..project(&[2])
    };
    assert_eq!(
        rows_both_modes(&written.bytes, &as_int),
        [["null"], ["null"], ["null"]]
    );
    let required = ScanOptions {
        expected: Some(expected(false)),
        ..project(&[2])
    };
    let err = scan::rows(&written.bytes, required, Mode::Ranges).unwrap_err();
    assert_eq!(err.status(), Status::CorruptData, "{err}");
    assert!(
        err.message().ends_with(
            "field id 2 ('nothing') is required, but the file's column has logical type \
             UNKNOWN, which holds only nulls"
        ),
        "{err}"
    );

    // A value where the type says there are none is a damaged file.
    let columns = [
        Column::flat(1, Values::I64(vec![1, 2, 3]), &[true; 3]),
        Column::flat(1, Values::I32(vec![5]), &[false, true, false]),
    ];
    let written = write_file(&schema, &columns, &Options::default());
    let err = scan::rows(&written.bytes, project(&[2]), Mode::Ranges).unwrap_err();
    assert_eq!(err.status(), Status::CorruptData, "{err}");
    assert_eq!(
        err.message(),
        "test.parquet: row group 0: column 'nothing' holds 1 values, but its logical type \
         UNKNOWN allows only nulls"
    );
}
