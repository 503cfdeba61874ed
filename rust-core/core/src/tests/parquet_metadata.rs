//! parquet.thrift structures: Iceberg-like footers, page headers and the page
//! index round trip; unknown fields and union members are tolerated; damaged
//! encodings fail cleanly. Also the page CRC.

use crate::error::Status;
use crate::parquet::crc::{crc32_of, crc32_update, verify_page_crc};
use crate::parquet::format::{
    BoundaryOrder, ClosedEnum, ColumnChunk, ColumnIndex, ColumnMetaData, ColumnOrder,
    CompressionCodec, ConvertedType, DataPageHeader, DataPageHeaderV2, DictionaryPageHeader,
    EdgeInterpolationAlgorithm, Encoding, FileMetaData, KeyValue, LogicalType, OffsetIndex,
    PageEncodingStats, PageHeader, PageLocation, PageType, PhysicalType, Repetition, RowGroup,
    SchemaElement, SortingColumn, Statistics, ThriftStruct, TimeUnit,
};
use crate::parquet::thrift::{CompactWriter, WireType};
use crate::test_support::parquet::fuzz;

fn encode<T: ThriftStruct>(value: &T) -> Vec<u8> {
    let mut out = Vec::new();
    value.encode(&mut out).unwrap();
    out
}

/// Encodes, decodes, compares, and checks that re-encoding is byte-identical.
fn round_trip<T: ThriftStruct + PartialEq + std::fmt::Debug>(value: &T) -> Vec<u8> {
    let bytes = encode(value);
    let (decoded, len) = T::decode(&bytes).unwrap();
    assert_eq!(len, bytes.len());
    assert_eq!(&decoded, value);
    assert_eq!(encode(&decoded), bytes);
    bytes
}

fn leaf(name: &str, ty: PhysicalType, repetition: Repetition, field_id: i32) -> SchemaElement {
    SchemaElement {
        physical_type: Some(ty),
        repetition: Some(repetition),
        name: name.to_owned(),
        field_id: Some(field_id),
        ..SchemaElement::default()
    }
}

fn group(name: &str, repetition: Option<Repetition>, children: i32) -> SchemaElement {
    SchemaElement {
        repetition,
        name: name.to_owned(),
        num_children: Some(children),
        ..SchemaElement::default()
    }
}

/// The schema of an Iceberg table as parquet-java 1.17 writes it.
pub(super) fn iceberg_schema() -> Vec<SchemaElement> {
    let micros = TimeUnit::Micros;
    vec![
        group("table", None, 9),
        leaf("id", PhysicalType::Int64, Repetition::Required, 1),
        SchemaElement {
            converted_type: Some(ConvertedType::Utf8),
            logical_type: Some(LogicalType::String),
            ..leaf("data", PhysicalType::ByteArray, Repetition::Optional, 2)
        },
        SchemaElement {
            converted_type: Some(ConvertedType::TimestampMicros),
            logical_type: Some(LogicalType::Timestamp {
                is_adjusted_to_utc: true,
                unit: micros,
            }),
            ..leaf("ts", PhysicalType::Int64, Repetition::Optional, 3)
        },
        SchemaElement {
            type_length: Some(5),
            converted_type: Some(ConvertedType::Decimal),
            scale: Some(2),
            precision: Some(10),
            logical_type: Some(LogicalType::Decimal {
                scale: 2,
                precision: 10,
            }),
            ..leaf(
                "price",
                PhysicalType::FixedLenByteArray,
                Repetition::Optional,
                4,
            )
        },
        SchemaElement {
            converted_type: Some(ConvertedType::List),
            logical_type: Some(LogicalType::List),
            field_id: Some(5),
            ..group("tags", Some(Repetition::Optional), 1)
        },
        group("list", Some(Repetition::Repeated), 1),
        SchemaElement {
            converted_type: Some(ConvertedType::Utf8),
            logical_type: Some(LogicalType::String),
            ..leaf("element", PhysicalType::ByteArray, Repetition::Optional, 6)
        },
        SchemaElement {
            converted_type: Some(ConvertedType::Map),
            logical_type: Some(LogicalType::Map),
            field_id: Some(7),
            ..group("props", Some(Repetition::Optional), 1)
        },
        group("key_value", Some(Repetition::Repeated), 2),
        SchemaElement {
            logical_type: Some(LogicalType::String),
            ..leaf("key", PhysicalType::ByteArray, Repetition::Required, 8)
        },
        leaf("value", PhysicalType::Int32, Repetition::Optional, 9),
        SchemaElement {
            type_length: Some(16),
            logical_type: Some(LogicalType::Uuid),
            ..leaf(
                "uuid",
                PhysicalType::FixedLenByteArray,
                Repetition::Optional,
                10,
            )
        },
        SchemaElement {
            converted_type: Some(ConvertedType::Date),
            logical_type: Some(LogicalType::Date),
            ..leaf("day", PhysicalType::Int32, Repetition::Optional, 11)
        },
        SchemaElement {
            converted_type: Some(ConvertedType::TimeMicros),
            logical_type: Some(LogicalType::Time {
                is_adjusted_to_utc: false,
                unit: micros,
            }),
            ..leaf("time", PhysicalType::Int64, Repetition::Optional, 12)
        },
        SchemaElement {
            converted_type: Some(ConvertedType::Int16),
            logical_type: Some(LogicalType::Integer {
                bit_width: 16,
                is_signed: true,
            }),
            ..leaf("small", PhysicalType::Int32, Repetition::Optional, 13)
        },
    ]
}

fn stats(min: &[u8], max: &[u8], nulls: i64) -> Statistics {
    Statistics {
        null_count: Some(nulls),
        min_value: Some(min.to_vec()),
        max_value: Some(max.to_vec()),
        is_min_value_exact: Some(true),
        is_max_value_exact: Some(false),
        ..Statistics::default()
    }
}

fn chunk(path: &[&str], ty: PhysicalType, offset: i64, row_group: i64) -> ColumnChunk {
    ColumnChunk {
        file_path: None,
        file_offset: 0,
        meta_data: Some(ColumnMetaData {
            physical_type: ty,
            encodings: vec![
                Encoding::PlainDictionary,
                Encoding::Plain,
                Encoding::Rle,
                Encoding::RleDictionary,
            ],
            path_in_schema: path.iter().map(|s| s.to_string()).collect(),
            codec: CompressionCodec::Zstd,
            num_values: 10_000 + row_group,
            total_uncompressed_size: 80_123,
            total_compressed_size: 12_345,
            key_value_metadata: None,
            data_page_offset: offset + 100,
            index_page_offset: None,
            dictionary_page_offset: Some(offset),
            statistics: Some(stats(&1i64.to_le_bytes(), &9_999i64.to_le_bytes(), 3)),
            encoding_stats: Some(vec![
                PageEncodingStats {
                    page_type: PageType::DictionaryPage,
                    encoding: Encoding::Plain,
                    count: 1,
                },
                PageEncodingStats {
                    page_type: PageType::DataPage,
                    encoding: Encoding::RleDictionary,
                    count: 2,
                },
            ]),
            bloom_filter_offset: Some(900_000 + offset),
            bloom_filter_length: Some(1024),
        }),
        offset_index_offset: Some(1_000_000 + offset),
        offset_index_length: Some(37),
        column_index_offset: Some(2_000_000 + offset),
        column_index_length: Some(58),
    }
}

pub(super) fn iceberg_footer() -> FileMetaData {
    let columns: &[(&[&str], PhysicalType)] = &[
        (&["id"], PhysicalType::Int64),
        (&["data"], PhysicalType::ByteArray),
        (&["ts"], PhysicalType::Int64),
        (&["price"], PhysicalType::FixedLenByteArray),
        (&["tags", "list", "element"], PhysicalType::ByteArray),
        (&["props", "key_value", "key"], PhysicalType::ByteArray),
        (&["props", "key_value", "value"], PhysicalType::Int32),
        (&["uuid"], PhysicalType::FixedLenByteArray),
        (&["day"], PhysicalType::Int32),
        (&["time"], PhysicalType::Int64),
        (&["small"], PhysicalType::Int32),
    ];
    let row_groups = (0..3)
        .map(|rg| RowGroup {
            columns: columns
                .iter()
                .enumerate()
                .map(|(i, (path, ty))| chunk(path, *ty, 4 + rg * 100_000 + i as i64 * 5_000, rg))
                .collect(),
            total_byte_size: 880_000,
            num_rows: 10_000,
            sorting_columns: (rg == 0).then(|| {
                vec![SortingColumn {
                    column_idx: 0,
                    descending: false,
                    nulls_first: true,
                }]
            }),
            file_offset: Some(4 + rg * 100_000),
            total_compressed_size: Some(135_000),
            ordinal: Some(rg as i16),
        })
        .collect();
    FileMetaData {
        version: 1,
        schema: iceberg_schema(),
        num_rows: 30_000,
        row_groups,
        key_value_metadata: Some(vec![
            KeyValue {
                key: "iceberg.schema".to_owned(),
                value: Some(r#"{"type":"struct","schema-id":0,"fields":[{"id":1,"name":"id","required":true,"type":"long"}]}"#.to_owned()),
            },
            KeyValue { key: "writer.model.name".to_owned(), value: Some("iceberg".to_owned()) },
            KeyValue { key: "empty".to_owned(), value: None },
        ]),
        created_by: Some("parquet-mr version 1.17.0 (build 2ef5b6ba2b7f2d3b4e3d6a8c7b5a1f2e3d4c5b6a)".to_owned()),
        column_orders: Some(vec![ColumnOrder::TypeDefinedOrder; columns.len()]),
    }
}

#[test]
fn iceberg_footer_round_trips() {
    let footer = iceberg_footer();
    let bytes = round_trip(&footer);
    // Trailing bytes are not part of the struct.
    let mut padded = bytes.clone();
    padded.extend_from_slice(b"PAR1");
    let (decoded, len) = FileMetaData::decode(&padded).unwrap();
    assert_eq!((decoded, len), (footer, bytes.len()));
}

#[test]
fn every_logical_type_round_trips() {
    let types = [
        LogicalType::String,
        LogicalType::Map,
        LogicalType::List,
        LogicalType::Enum,
        LogicalType::Decimal {
            scale: 0,
            precision: 38,
        },
        LogicalType::Date,
        LogicalType::Time {
            is_adjusted_to_utc: true,
            unit: TimeUnit::Millis,
        },
        LogicalType::Time {
            is_adjusted_to_utc: false,
            unit: TimeUnit::Nanos,
        },
        LogicalType::Timestamp {
            is_adjusted_to_utc: false,
            unit: TimeUnit::Nanos,
        },
        LogicalType::Timestamp {
            is_adjusted_to_utc: true,
            unit: TimeUnit::Unrecognized { field_id: 9 },
        },
        LogicalType::Integer {
            bit_width: 8,
            is_signed: false,
        },
        LogicalType::Integer {
            bit_width: 64,
            is_signed: true,
        },
        LogicalType::Unknown,
        LogicalType::Json,
        LogicalType::Bson,
        LogicalType::Uuid,
        LogicalType::Float16,
        LogicalType::Variant {
            specification_version: Some(1),
        },
        LogicalType::Variant {
            specification_version: None,
        },
        LogicalType::Geometry {
            crs: Some("OGC:CRS84".to_owned()),
        },
        LogicalType::Geography {
            crs: None,
            algorithm: Some(EdgeInterpolationAlgorithm::Karney),
        },
        LogicalType::Geography {
            crs: Some("srid:4326".to_owned()),
            algorithm: Some(EdgeInterpolationAlgorithm::Unknown(77)),
        },
        LogicalType::Unrecognized { field_id: 19 },
        LogicalType::Unrecognized { field_id: 300 },
    ];
    for logical_type in types {
        round_trip(&logical_type);
        let element = SchemaElement {
            logical_type: Some(logical_type),
            ..leaf("c", PhysicalType::Int64, Repetition::Optional, 1)
        };
        round_trip(&element);
    }
}

#[test]
fn logical_type_wire_bytes() {
    // TIMESTAMP(isAdjustedToUTC=true, MICROS): field 8 struct { 1: true, 2:
    // struct { 2: struct {} } }.
    let bytes = encode(&LogicalType::Timestamp {
        is_adjusted_to_utc: true,
        unit: TimeUnit::Micros,
    });
    assert_eq!(bytes, [0x8c, 0x11, 0x1c, 0x2c, 0x00, 0x00, 0x00, 0x00]);
    // STRING: field 1, empty struct.
    assert_eq!(encode(&LogicalType::String), [0x1c, 0x00, 0x00]);
}

fn write_struct(body: impl FnOnce(&mut CompactWriter<'_>)) -> Vec<u8> {
    let mut out = Vec::new();
    let mut writer = CompactWriter::new(&mut out);
    writer.write_struct(body);
    writer.finish().unwrap();
    out
}

#[test]
fn unknown_fields_are_skipped() {
    // A footer written field by field, with fields a newer writer might add
    // (encryption algorithm, signing key, made-up ids of every type) mixed in.
    let footer = FileMetaData {
        key_value_metadata: None,
        column_orders: None,
        row_groups: vec![],
        ..iceberg_footer()
    };
    let bytes = write_struct(|w| {
        w.field_i32(1, footer.version);
        w.field_list(2, WireType::Struct, &footer.schema, |w, e| e.write(w));
        w.field_i64(3, footer.num_rows);
        w.field_list(4, WireType::Struct, &footer.row_groups, |w, g| g.write(w));
        w.field_begin(5, WireType::Map); // wrong type for key_value_metadata: skipped
        w.write_varint(0);
        w.field_string(6, footer.created_by.as_deref().unwrap());
        w.field_begin(8, WireType::Struct);
        w.write_struct(|w| {
            w.field_begin(1, WireType::Struct);
            w.write_struct(|w| {
                w.field_binary(1, b"aad");
                w.field_bool(3, true);
            });
        });
        w.field_binary(9, b"key metadata");
        w.field_begin(100, WireType::Uuid);
        for _ in 0..16 {
            w.write_i8(1);
        }
        w.field_begin(101, WireType::Double);
        w.write_double(3.5);
        w.field_begin(1000, WireType::Set);
        w.list_begin(WireType::Binary, 2);
        w.write_binary(b"x");
        w.write_binary(b"y");
    });
    let (decoded, len) = FileMetaData::decode(&bytes).unwrap();
    assert_eq!(len, bytes.len());
    assert_eq!(decoded, footer);

    // Column metadata with size statistics (field 16) and geospatial
    // statistics (17), which this layer skips.
    let meta = chunk(&["id"], PhysicalType::Int64, 4, 0).meta_data.unwrap();
    let mut bytes = encode(&meta);
    bytes.pop(); // the stop byte
    let extra = {
        let mut out = Vec::new();
        let mut w = CompactWriter::new(&mut out);
        w.field_begin(16, WireType::Struct);
        w.write_struct(|w| {
            w.field_i64(1, 123);
            w.field_list(2, WireType::I64, &[1i64, 2, 3], |w, &v| w.write_i64(v));
        });
        w.finish().unwrap();
        out
    };
    // The last written field was 15, so field 16 is a delta of 1 from it.
    bytes.extend_from_slice(&extra[..]);
    bytes.push(0);
    let (decoded, _) = ColumnMetaData::decode(&bytes).unwrap();
    assert_eq!(decoded, meta);
}

#[test]
fn unknown_union_members_are_kept_as_unrecognized() {
    // LogicalType member 19 (VECTOR) with content.
    let bytes = write_struct(|w| {
        w.field_begin(19, WireType::Struct);
        w.write_struct(|w| w.field_i32(1, 3));
    });
    assert_eq!(
        LogicalType::decode(&bytes).unwrap().0,
        LogicalType::Unrecognized { field_id: 19 }
    );
    // A known member id with an unexpected type is also unrecognized.
    let bytes = write_struct(|w| w.field_i32(1, 5));
    assert_eq!(
        LogicalType::decode(&bytes).unwrap().0,
        LogicalType::Unrecognized { field_id: 1 }
    );
    // ColumnOrder and TimeUnit members from the future.
    let bytes = write_struct(|w| w.field_empty_struct(4));
    assert_eq!(
        ColumnOrder::decode(&bytes).unwrap().0,
        ColumnOrder::Unrecognized { field_id: 4 }
    );
    assert_eq!(
        TimeUnit::decode(&bytes).unwrap().0,
        TimeUnit::Unrecognized { field_id: 4 }
    );
    for order in [
        ColumnOrder::TypeDefinedOrder,
        ColumnOrder::Ieee754TotalOrder,
        ColumnOrder::Int96TimestampOrder,
    ] {
        round_trip(&order);
    }
    // Known empty members tolerate fields inside them.
    let bytes = write_struct(|w| {
        w.field_begin(1, WireType::Struct);
        w.write_struct(|w| w.field_string(7, "collation"));
    });
    assert_eq!(
        ColumnOrder::decode(&bytes).unwrap().0,
        ColumnOrder::TypeDefinedOrder
    );
}

#[test]
fn unions_need_exactly_one_member() {
    let none = write_struct(|_| {});
    let error = LogicalType::decode(&none).unwrap_err();
    assert_eq!(error.status(), Status::CorruptData);
    assert!(error.message().contains("has no member"), "{error}");
    let two = write_struct(|w| {
        w.field_empty_struct(1);
        w.field_empty_struct(3);
    });
    let error = ColumnOrder::decode(&two).unwrap_err();
    assert!(error.message().contains("more than one member"), "{error}");
}

#[test]
fn missing_required_fields_are_named() {
    let bytes = write_struct(|w| {
        w.field_i32(1, 1);
        w.field_list(2, WireType::Struct, &iceberg_schema(), |w, e| e.write(w));
        w.field_i64(3, 0);
    });
    let error = FileMetaData::decode(&bytes).unwrap_err();
    assert_eq!(error.status(), Status::CorruptData);
    assert!(
        error.message().contains("lacks required field row_groups"),
        "{error}"
    );
    // Nested: a DecimalType without precision, inside a schema element.
    let bytes = write_struct(|w| {
        w.field_string(4, "d");
        w.field_begin(10, WireType::Struct);
        w.write_struct(|w| {
            w.field_begin(5, WireType::Struct);
            w.write_struct(|w| w.field_i32(1, 2));
        });
    });
    let error = SchemaElement::decode(&bytes).unwrap_err();
    let message = error.message();
    assert!(message.contains("SchemaElement field 10"), "{message}");
    assert!(
        message.contains("lacks required field precision"),
        "{message}"
    );
}

#[test]
fn enums_closed_and_open() {
    for &ty in PhysicalType::ALL {
        assert_eq!(PhysicalType::from_thrift(ty.to_thrift()), Some(ty));
    }
    for &ty in ConvertedType::ALL {
        assert_eq!(ConvertedType::from_thrift(ty.to_thrift()), Some(ty));
    }
    for &r in Repetition::ALL {
        assert_eq!(Repetition::from_thrift(r.to_thrift()), Some(r));
    }
    for &b in BoundaryOrder::ALL {
        assert_eq!(BoundaryOrder::from_thrift(b.to_thrift()), Some(b));
    }
    assert_eq!(PhysicalType::from_thrift(8), None);
    assert_eq!(ConvertedType::from_thrift(22), None);
    // An unknown physical type in a schema element is corrupt, with the offset.
    let bytes = write_struct(|w| {
        w.field_i32(1, 9);
        w.field_string(4, "x");
    });
    let error = SchemaElement::decode(&bytes).unwrap_err();
    assert!(
        error
            .message()
            .contains("unknown physical type 9 at byte 1"),
        "{error}"
    );

    for id in -1..12 {
        assert_eq!(Encoding::from_thrift(id).to_thrift(), id);
        assert_eq!(CompressionCodec::from_thrift(id).to_thrift(), id);
        assert_eq!(PageType::from_thrift(id).to_thrift(), id);
    }
    assert_eq!(Encoding::from_thrift(1), Encoding::Unknown(1));
    assert_eq!(Encoding::from_thrift(9), Encoding::ByteStreamSplit);
    assert_eq!(PageType::from_thrift(4), PageType::Unknown(4));
    // A column chunk naming a future encoding and codec still decodes.
    let mut meta = chunk(&["id"], PhysicalType::Int64, 4, 0).meta_data.unwrap();
    meta.encodings = vec![Encoding::Unknown(42)];
    meta.codec = CompressionCodec::Unknown(99);
    round_trip(&meta);
}

#[test]
fn codec_mapping() {
    use crate::compression::Codec;
    assert_eq!(CompressionCodec::Zstd.codec().unwrap(), Codec::Zstd);
    assert_eq!(CompressionCodec::Lz4.codec().unwrap(), Codec::Lz4Hadoop);
    assert_eq!(CompressionCodec::Lz4Raw.codec().unwrap(), Codec::Lz4Raw);
    assert_eq!(
        CompressionCodec::Uncompressed.codec().unwrap(),
        Codec::Uncompressed
    );
    assert_eq!(CompressionCodec::Snappy.codec().unwrap(), Codec::Snappy);
    assert_eq!(CompressionCodec::Gzip.codec().unwrap(), Codec::Gzip);
    assert_eq!(CompressionCodec::Brotli.codec().unwrap(), Codec::Brotli);
    assert_eq!(
        CompressionCodec::Lzo.codec().unwrap_err().status(),
        Status::Unsupported
    );
    assert_eq!(
        CompressionCodec::Unknown(8).codec().unwrap_err().status(),
        Status::Unsupported
    );
}

fn data_page_v1() -> PageHeader {
    PageHeader {
        page_type: PageType::DataPage,
        uncompressed_page_size: 1_048_576,
        compressed_page_size: 262_144,
        crc: Some(0xCBF4_3926u32 as i32),
        data_page_header: Some(DataPageHeader {
            num_values: 20_000,
            encoding: Encoding::RleDictionary,
            definition_level_encoding: Encoding::Rle,
            repetition_level_encoding: Encoding::BitPacked,
            statistics: Some(Statistics {
                max: Some(vec![9]),
                min: Some(vec![1]),
                distinct_count: Some(7),
                nan_count: Some(0),
                ..stats(b"a", b"zz", 12)
            }),
        }),
        has_index_page_header: false,
        dictionary_page_header: None,
        data_page_header_v2: None,
    }
}

fn dictionary_page() -> PageHeader {
    PageHeader {
        page_type: PageType::DictionaryPage,
        uncompressed_page_size: 400,
        compressed_page_size: 120,
        crc: None,
        data_page_header: None,
        has_index_page_header: false,
        dictionary_page_header: Some(DictionaryPageHeader {
            num_values: 100,
            encoding: Encoding::Plain,
            is_sorted: Some(false),
        }),
        data_page_header_v2: None,
    }
}

fn data_page_v2(is_compressed: bool) -> PageHeader {
    PageHeader {
        page_type: PageType::DataPageV2,
        uncompressed_page_size: 5000,
        compressed_page_size: 3000,
        crc: Some(-1),
        data_page_header: None,
        has_index_page_header: false,
        dictionary_page_header: None,
        data_page_header_v2: Some(DataPageHeaderV2 {
            num_values: 1000,
            num_nulls: 10,
            num_rows: 900,
            encoding: Encoding::DeltaBinaryPacked,
            definition_levels_byte_length: 20,
            repetition_levels_byte_length: 30,
            is_compressed,
            statistics: None,
        }),
    }
}

#[test]
fn page_headers_round_trip() {
    for header in [
        data_page_v1(),
        dictionary_page(),
        data_page_v2(true),
        data_page_v2(false),
    ] {
        let bytes = round_trip(&header);
        // A header is followed by its page; decode reports where the page starts.
        let mut page = bytes.clone();
        page.extend_from_slice(&[0xAB; 64]);
        let (decoded, len) = PageHeader::decode(&page).unwrap();
        assert_eq!((decoded, len), (header, bytes.len()));
    }
    let index_page = PageHeader {
        page_type: PageType::IndexPage,
        has_index_page_header: true,
        ..dictionary_page()
    };
    round_trip(&PageHeader {
        dictionary_page_header: None,
        ..index_page
    });
}

#[test]
fn v2_is_compressed_defaults_to_true() {
    let v2 = data_page_v2(true).data_page_header_v2.unwrap();
    let bytes = write_struct(|w| {
        w.field_i32(1, v2.num_values);
        w.field_i32(2, v2.num_nulls);
        w.field_i32(3, v2.num_rows);
        w.field_i32(4, v2.encoding.to_thrift());
        w.field_i32(5, v2.definition_levels_byte_length);
        w.field_i32(6, v2.repetition_levels_byte_length);
    });
    assert_eq!(DataPageHeaderV2::decode(&bytes).unwrap().0, v2);
}

#[test]
fn negative_page_sizes_are_corrupt() {
    let mut header = data_page_v1();
    header.compressed_page_size = -5;
    let error = PageHeader::decode(&encode(&header)).unwrap_err();
    assert_eq!(error.status(), Status::CorruptData);
    assert!(
        error
            .message()
            .contains("compressed_page_size is negative (-5)"),
        "{error}"
    );
    let mut header = data_page_v2(true);
    if let Some(v2) = header.data_page_header_v2.as_mut() {
        v2.repetition_levels_byte_length = i32::MIN;
    }
    let error = PageHeader::decode(&encode(&header)).unwrap_err();
    assert!(
        error
            .message()
            .contains("repetition_levels_byte_length is negative"),
        "{error}"
    );
    let mut header = dictionary_page();
    if let Some(dict) = header.dictionary_page_header.as_mut() {
        dict.num_values = -1;
    }
    assert_eq!(
        PageHeader::decode(&encode(&header)).unwrap_err().status(),
        Status::CorruptData
    );
}

fn offset_index() -> OffsetIndex {
    OffsetIndex {
        page_locations: (0..20)
            .map(|i| PageLocation {
                offset: 4 + i * 70_000,
                compressed_page_size: 69_999,
                first_row_index: i * 20_000,
            })
            .collect(),
        unencoded_byte_array_data_bytes: Some((0..20).map(|i| i * 1000).collect()),
    }
}

fn column_index() -> ColumnIndex {
    ColumnIndex {
        null_pages: (0..20).map(|i| i % 7 == 3).collect(),
        min_values: (0..20)
            .map(|i: u8| if i % 7 == 3 { vec![] } else { vec![b'a', i] })
            .collect(),
        max_values: (0..20)
            .map(|i: u8| if i % 7 == 3 { vec![] } else { vec![b'z', i] })
            .collect(),
        boundary_order: BoundaryOrder::Ascending,
        null_counts: Some((0..20).collect()),
        repetition_level_histograms: Some(vec![5; 40]),
        definition_level_histograms: None,
    }
}

#[test]
fn page_index_round_trips() {
    round_trip(&offset_index());
    round_trip(&OffsetIndex {
        unencoded_byte_array_data_bytes: None,
        ..offset_index()
    });
    round_trip(&column_index());
    round_trip(&ColumnIndex {
        boundary_order: BoundaryOrder::Unordered,
        null_counts: None,
        ..column_index()
    });
}

#[test]
fn column_index_lists_must_agree() {
    let mut index = column_index();
    index.max_values.pop();
    let error = ColumnIndex::decode(&encode(&index)).unwrap_err();
    assert_eq!(error.status(), Status::CorruptData);
    assert!(
        error
            .message()
            .contains("19 max_values entries for 20 pages"),
        "{error}"
    );
    let mut index = column_index();
    index.null_counts = Some(vec![0; 3]);
    assert_eq!(
        ColumnIndex::decode(&encode(&index)).unwrap_err().status(),
        Status::CorruptData
    );
    let mut offsets = offset_index();
    offsets.unencoded_byte_array_data_bytes = Some(vec![1]);
    assert_eq!(
        OffsetIndex::decode(&encode(&offsets)).unwrap_err().status(),
        Status::CorruptData
    );
}

fn decodes<T: ThriftStruct>(input: &[u8]) -> crate::error::Result<()> {
    T::decode(input).map(drop)
}

#[test]
fn damaged_metadata_never_panics() {
    let footer = encode(&iceberg_footer());
    let ok = fuzz(&footer, 3000, 1, decodes::<FileMetaData>);
    // Mutations of string bytes or values keep many footers valid; most
    // structural damage does not.
    assert!(ok > 0 && ok < 3000 + footer.len(), "{ok}");
    for (seed, header) in [data_page_v1(), dictionary_page(), data_page_v2(false)]
        .iter()
        .enumerate()
    {
        fuzz(
            &encode(header),
            3000,
            10 + seed as u64,
            decodes::<PageHeader>,
        );
    }
    fuzz(&encode(&column_index()), 3000, 20, decodes::<ColumnIndex>);
    fuzz(&encode(&offset_index()), 3000, 21, decodes::<OffsetIndex>);
    for (seed, element) in iceberg_schema().iter().enumerate() {
        fuzz(
            &encode(element),
            300,
            30 + seed as u64,
            decodes::<SchemaElement>,
        );
    }
}

#[test]
fn crc32_known_vectors() {
    assert_eq!(crc32_of(b"123456789"), 0xCBF4_3926);
    assert_eq!(crc32_of(b""), 0);
    assert_eq!(
        crc32_of(b"The quick brown fox jumps over the lazy dog"),
        0x414F_A339
    );
    let data: Vec<u8> = (0..10_000u32).map(|i| (i * 31 % 251) as u8).collect();
    let (a, b) = data.split_at(3333);
    assert_eq!(crc32_update(crc32_update(0, a), b), crc32_of(&data));
    // The header stores the CRC as a signed i32.
    verify_page_crc(0xCBF4_3926u32 as i32, b"123456789").unwrap();
    let error = verify_page_crc(0, b"123456789").unwrap_err();
    assert_eq!(error.status(), Status::CorruptData);
    assert!(error.message().contains("0xcbf43926"), "{error}");
}
