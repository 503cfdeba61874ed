//! The canonical checksum (docs/arrow-checksum.md): vectors computed by hand from
//! the documented byte sequences, and the invariances the definition promises.

use crate::arrow::checksum::checksum_data;
use crate::arrow::copy::deep_copy;
use crate::arrow::{ArrayData, ArrayView, DataType, Field};
use crate::test_support::arrow::*;

/// FNV-1a 64 over `bytes`, written out from the definition.
fn fnv(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf29ce484222325, |hash, &byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x100000001b3)
    })
}

fn count(n: u64) -> [u8; 8] {
    n.to_le_bytes()
}

fn sum(field: &Field, data: &ArrayData) -> u64 {
    checksum_data(data, field).unwrap()
}

#[test]
fn nested_vectors_by_hand() {
    // list<int8> [[1, 2], null, []]
    let list = field("l", DataType::List).with_children(vec![field("item", DataType::Int8)]);
    let data = list_of(
        DataType::List,
        primitive(DataType::Int8, &[Some(1i8), Some(2)]),
        &[Some(2), None, Some(0)],
    );
    let bytes = [&[1][..], &count(2), &[1, 1, 1, 2], &[0], &[1], &count(0)].concat();
    assert_eq!(sum(&list, &data), fnv(&bytes));

    // struct<a: bool, b: utf8> [{true, "hi"}, null, {false, null}]
    let point = field("p", DataType::Struct).with_children(vec![
        field("a", DataType::Boolean),
        field("b", DataType::Utf8),
    ]);
    let data = struct_of(
        vec![
            booleans(&[Some(true), Some(false), Some(false)]),
            strings(DataType::Utf8, &[Some("hi"), Some("zz"), None]),
        ],
        &[true, false, true],
    );
    let bytes = [&[1, 1, 1, 1][..], &count(2), b"hi", &[0], &[1, 1, 0, 0]].concat();
    assert_eq!(sum(&point, &data), fnv(&bytes));

    // dictionary<int32, utf8>: indices [1, null, 0] into ["a", "bc"]
    let dict = field("d", DataType::Int32).with_dictionary(field("", DataType::Utf8), false);
    let data = dictionary(
        primitive(DataType::Int32, &[Some(1i32), None, Some(0)]),
        strings(DataType::Utf8, &[Some("a"), Some("bc")]),
    );
    let bytes = [&[1][..], &count(2), b"bc", &[0], &[1], &count(1), b"a"].concat();
    assert_eq!(sum(&dict, &data), fnv(&bytes));

    // map<utf8, int32> [{"k": 7}] and the null type
    let map = map_field("m", false, DataType::Utf8, DataType::Int32);
    let entries = struct_of(
        vec![
            strings(DataType::Utf8, &[Some("k")]),
            primitive(DataType::Int32, &[Some(7i32)]),
        ],
        &[true],
    );
    let data = list_of(DataType::Map { keys_sorted: false }, entries, &[Some(1)]);
    let bytes = [
        &[1][..],
        &count(1),
        &[1, 1],
        &count(1),
        b"k",
        &[1, 7, 0, 0, 0],
    ]
    .concat();
    assert_eq!(sum(&map, &data), fnv(&bytes));
    assert_eq!(sum(&field("n", DataType::Null), &nulls(2)), fnv(&[0, 0]));

    // decimal128(5, 2) [-1] and fixed-size binary(3) [null, "abc"]
    let decimal = DataType::Decimal128 {
        precision: 5,
        scale: 2,
    };
    let data = primitive(decimal.clone(), &[Some(-1i128)]);
    let bytes = [&[1][..], &[0xff; 16]].concat();
    assert_eq!(sum(&field("d", decimal), &data), fnv(&bytes));
    let data = fixed_binary(3, &[None, Some(b"abc")]);
    assert_eq!(
        sum(&field("f", DataType::FixedSizeBinary(3)), &data),
        fnv(&[0, 1, b'a', b'b', b'c'])
    );
}

#[test]
fn a_slice_hashes_like_its_normalised_copy() {
    for (field, data) in every_type() {
        for (offset, len) in [(1, data.len - 2), (2, 1), (data.len, 0)] {
            let slice = data.slice(offset, len).unwrap();
            let copy = deep_copy(&ArrayView::from_data(&slice, &field).unwrap()).unwrap();
            assert_eq!(copy.offset, 0);
            assert_eq!(sum(&field, &slice), sum(&field, &copy), "{field:?}");
        }
    }
    // ... and like the same values built on their own.
    let texts = [Some("a"), None, Some("bc"), Some("d")];
    let text = field("t", DataType::Utf8);
    let slice = strings(DataType::Utf8, &texts).slice(1, 2).unwrap();
    assert_eq!(
        sum(&text, &slice),
        sum(&text, &strings(DataType::Utf8, &texts[1..3]))
    );
    // A struct's offset reaches its children.
    let point = field("p", DataType::Struct).with_children(vec![field("x", DataType::Int64)]);
    let whole = struct_of(
        vec![primitive(DataType::Int64, &[Some(1i64), Some(2), Some(3)])],
        &[true, false, true],
    );
    let alone = struct_of(
        vec![primitive(DataType::Int64, &[Some(2i64), Some(3)])],
        &[false, true],
    );
    assert_eq!(
        sum(&point, &whole.slice(1, 2).unwrap()),
        sum(&point, &alone)
    );
    // A list over a sliced child reads the child from the child's own offset.
    let list = field("l", DataType::List).with_children(vec![field("item", DataType::Int32)]);
    let child = primitive(DataType::Int32, &[Some(9i32), Some(1), Some(2)]);
    let over_slice = list_of(DataType::List, child.slice(1, 2).unwrap(), &[Some(2)]);
    let over_copy = list_of(
        DataType::List,
        primitive(DataType::Int32, &[Some(1i32), Some(2)]),
        &[Some(2)],
    );
    assert_eq!(sum(&list, &over_slice), sum(&list, &over_copy));
}

#[test]
fn a_dictionary_hashes_like_its_decoded_values() {
    let dict = field("d", DataType::Int8).with_dictionary(field("", DataType::Utf8), false);
    let encoded = dictionary(
        primitive(
            DataType::Int8,
            &[Some(2i8), None, Some(0), Some(1), Some(2)],
        ),
        strings(DataType::Utf8, &[Some("zero"), None, Some("two")]),
    );
    let plain = strings(
        DataType::Utf8,
        &[Some("two"), None, Some("zero"), None, Some("two")],
    );
    assert_eq!(
        sum(&dict, &encoded),
        sum(&field("s", DataType::Utf8), &plain)
    );
    let sliced = encoded.slice(2, 3).unwrap();
    assert_eq!(
        sum(&dict, &sliced),
        sum(&field("s", DataType::Utf8), &plain.slice(2, 3).unwrap())
    );
}

#[test]
fn small_and_large_variants_hash_alike() {
    let texts = [Some("héllo"), None, Some(""), Some("x")];
    assert_eq!(
        sum(
            &field("s", DataType::Utf8),
            &strings(DataType::Utf8, &texts)
        ),
        sum(
            &field("s", DataType::LargeUtf8),
            &strings(DataType::LargeUtf8, &texts)
        ),
    );
    let blobs: [Option<&[u8]>; 3] = [Some(&[1, 2]), None, Some(&[])];
    assert_eq!(
        sum(
            &field("b", DataType::Binary),
            &var_bytes(DataType::Binary, &blobs)
        ),
        sum(
            &field("b", DataType::LargeBinary),
            &var_bytes(DataType::LargeBinary, &blobs)
        ),
    );
    let child = || primitive(DataType::Int16, &[Some(1i16), None, Some(3)]);
    let lengths = [Some(1), None, Some(2)];
    let list = |data_type: DataType| {
        field("l", data_type).with_children(vec![field("i", DataType::Int16)])
    };
    assert_eq!(
        sum(
            &list(DataType::List),
            &list_of(DataType::List, child(), &lengths)
        ),
        sum(
            &list(DataType::LargeList),
            &list_of(DataType::LargeList, child(), &lengths)
        ),
    );
    // Types are not hashed: the same 4 bytes as an int32 and as a date.
    let values = [Some(19_000i32), None];
    assert_eq!(
        sum(
            &field("i", DataType::Int32),
            &primitive(DataType::Int32, &values)
        ),
        sum(
            &field("d", DataType::Date32),
            &primitive(DataType::Date32, &values)
        ),
    );
}
