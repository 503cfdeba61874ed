//! Import validation: hand-made C structs that break one rule each must fail with
//! InvalidArgument (or Unsupported) and a message naming the field, never panic,
//! and never be released by a borrowing read.

use std::ptr::null_mut;
use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use std::sync::Arc;

use crate::arrow::import::{import_array, import_schema, read_schema, view_array};
use crate::arrow::{ArrayView, DataType, Field};
use crate::error::{Error, Status};
use crate::test_support::arrow::*;

fn view_error(spec: CArraySpec, field: &Field) -> Error {
    let releases = Arc::new(AtomicUsize::new(0));
    let mut array = spec.build(&releases);
    let err = unsafe { view_array(&array, field) }.unwrap_err();
    assert_eq!(releases.load(SeqCst), 0, "borrowing never releases");
    release_array(&mut array);
    assert_eq!(releases.load(SeqCst), 1);
    err
}

#[track_caller]
fn assert_invalid(err: Error, message: &str) {
    assert_eq!(err.status(), Status::InvalidArgument, "{err}");
    assert_eq!(err.message(), message);
}

fn int32(values: &[i32]) -> CArraySpec {
    CArraySpec::new(values.len() as i64, vec![None, Some(le_i32(values))])
}

fn utf8(offsets: &[i32], data: &[u8]) -> CArraySpec {
    CArraySpec::new(
        offsets.len() as i64 - 1,
        vec![None, Some(le_i32(offsets)), Some(data.to_vec())],
    )
}

fn bids() -> Field {
    field("", DataType::Struct).with_children(vec![
        field("bids", DataType::Struct).with_children(vec![field("price", DataType::Int64)])
    ])
}

fn bids_array(price: CArraySpec) -> CArraySpec {
    CArraySpec::new(10, vec![None])
        .children(vec![CArraySpec::new(10, vec![None]).children(vec![price])])
}

#[test]
fn buffer_counts_and_null_buffers() {
    let price = CArraySpec::new(10, vec![None]);
    assert_invalid(
        view_error(bids_array(price), &bids()),
        "field 'bids.price' (format 'l'): n_buffers is 1, the format needs 2",
    );
    let price = CArraySpec::new(10, vec![None, None]);
    assert_invalid(
        view_error(bids_array(price), &bids()),
        "field 'bids.price' (format 'l'): buffer 1 is NULL but length is 10",
    );
    let spec = CArraySpec::new(3, vec![None, Some(le_i32(&[1, 2, 3]))]).null_count(2);
    assert_invalid(
        view_error(spec, &field("x", DataType::Int32)),
        "field 'x' (format 'i'): buffer 0 (validity) is NULL but null_count is 2",
    );
    let spec = utf8(&[0, 1, 2], b"ab");
    let mut spec = spec;
    spec.buffers[2] = None;
    assert_invalid(
        view_error(spec, &field("s", DataType::Utf8)),
        "field 's' (format 'u'): buffer 2 is NULL but the offsets end at 2",
    );
    // A producer whose `buffers` pointer is NULL although it declares two.
    let releases = Arc::new(AtomicUsize::new(0));
    let mut array = int32(&[1]).build(&releases);
    let buffers = std::mem::replace(&mut array.buffers, null_mut());
    let err = unsafe { view_array(&array, &field("x", DataType::Int32)) }.unwrap_err();
    assert_invalid(
        err,
        "field 'x' (format 'i'): buffers is NULL but n_buffers is 2",
    );
    array.buffers = buffers;
    release_array(&mut array);
}

#[test]
fn null_buffers_are_fine_where_they_would_hold_nothing() {
    let releases = Arc::new(AtomicUsize::new(0));
    let cases = [
        (
            field("i", DataType::Int32),
            CArraySpec::new(0, vec![None, None]),
        ),
        (
            field("s", DataType::Utf8),
            CArraySpec::new(0, vec![None, None, None]),
        ),
        // Three empty strings: the values buffer would hold 0 bytes.
        (field("e", DataType::Utf8), utf8(&[0, 0, 0, 0], b"")),
        (
            field("l", DataType::List).with_children(vec![field("item", DataType::Int8)]),
            CArraySpec::new(0, vec![None, None])
                .children(vec![CArraySpec::new(0, vec![None, None])]),
        ),
        (
            field("n", DataType::Null),
            CArraySpec::new(5, vec![]).null_count(5),
        ),
        // Empty and sliced past everything: the (dangling, empty) buffers are not read.
        (
            field("o", DataType::Utf8),
            CArraySpec::new(0, vec![Some(vec![]), Some(vec![]), Some(vec![])]).offset(9),
        ),
    ];
    for (field, mut spec) in cases {
        if field.name == "e" {
            spec.buffers[2] = None;
        }
        let mut array = spec.build(&releases);
        let view = unsafe { view_array(&array, &field) }.unwrap();
        assert_eq!(view.null_count(), if field.name == "n" { 5 } else { 0 });
        release_array(&mut array);
    }
    assert_eq!(releases.load(SeqCst), 6);
}

#[test]
fn counts_lengths_and_null_counts() {
    let x = field("x", DataType::Int32);
    assert_invalid(
        view_error(int32(&[1]).offset(-1), &x),
        "field 'x' (format 'i'): offset is negative (-1)",
    );
    let mut negative = int32(&[1]);
    negative.length = -2;
    assert_invalid(
        view_error(negative, &x),
        "field 'x' (format 'i'): length is negative (-2)",
    );
    assert_invalid(
        view_error(int32(&[1, 2, 3]).null_count(4), &x),
        "field 'x' (format 'i'): null_count 4 exceeds the length 3",
    );
    let mut wrong = int32(&[1, 2, 3]).null_count(2);
    wrong.buffers[0] = Some(bits(&[true, false, true]));
    assert_invalid(
        view_error(wrong, &x),
        "field 'x' (format 'i'): null_count is 2 but the validity bitmap has 1 nulls",
    );
    // -1 means "not computed": the library counts.
    let mut unknown = int32(&[1, 2, 3]).null_count(-1);
    unknown.buffers[0] = Some(bits(&[true, false, false]));
    let releases = Arc::new(AtomicUsize::new(0));
    let mut array = unknown.build(&releases);
    assert_eq!(unsafe { view_array(&array, &x) }.unwrap().null_count(), 2);
    release_array(&mut array);
}

#[test]
fn offsets_must_increase_and_stay_within_children() {
    let s = field("s", DataType::Utf8);
    assert_invalid(
        view_error(utf8(&[0, 5, 3, 6], b"abcdef"), &s),
        "field 's' (format 'u'): offsets decrease at slot 1: 5 then 3",
    );
    assert_invalid(
        view_error(utf8(&[-1, 2], b"ab"), &s),
        "field 's' (format 'u'): offset of slot 0 is negative (-1)",
    );
    // Sliced: slot 0 is the array's offset, and earlier offsets do not matter.
    let sliced = utf8(&[9, 0, 2, 1], b"ab").offset(1);
    let mut sliced = sliced;
    sliced.length = 2;
    assert_invalid(
        view_error(sliced, &s),
        "field 's' (format 'u'): offsets decrease at slot 1: 2 then 1",
    );
    let xs = field("xs", DataType::List).with_children(vec![field("item", DataType::Int32)]);
    let list = CArraySpec::new(2, vec![None, Some(le_i32(&[0, 3, 7]))])
        .children(vec![int32(&[1, 2, 3, 4, 5])]);
    assert_invalid(
        view_error(list, &xs),
        "field 'xs' (format '+l'): the offsets end at 7, past the 5 slots of child 'item'",
    );
    let large =
        field("xs", DataType::LargeList).with_children(vec![field("item", DataType::Int32)]);
    let list =
        CArraySpec::new(2, vec![None, Some(le_i64(&[0, 3, 2]))]).children(vec![int32(&[1, 2, 3])]);
    assert_invalid(
        view_error(list, &large),
        "field 'xs' (format '+L'): offsets decrease at slot 1: 3 then 2",
    );
    let text = field("t", DataType::Utf8);
    assert_invalid(
        view_error(utf8(&[0, 1, 3], b"a\xff\xfe"), &text),
        "field 't' (format 'u'): value 1 is not valid UTF-8 (invalid utf-8 sequence of 1 bytes from index 0)",
    );
    // Valid text as a whole, but the offsets split a character.
    assert_invalid(
        view_error(utf8(&[0, 1, 2], "é".as_bytes()), &text),
        "field 't' (format 'u'): value 0 is not valid UTF-8 (incomplete utf-8 byte sequence from index 0)",
    );
    // Invalid bytes in a null slot are not a value.
    let mut null_slot = utf8(&[0, 1, 3], b"a\xff\xfe").null_count(1);
    null_slot.buffers[0] = Some(bits(&[true, false]));
    let releases = Arc::new(AtomicUsize::new(0));
    let mut array = null_slot.build(&releases);
    unsafe { view_array(&array, &text) }.unwrap();
    release_array(&mut array);
    // Null slots that split a character between them are not values either.
    let mut split_null = utf8(&[0, 1, 2, 3, 4], "aéb".as_bytes()).null_count(2);
    split_null.buffers[0] = Some(bits(&[true, false, false, true]));
    let mut array = split_null.build(&releases);
    unsafe { view_array(&array, &text) }.unwrap();
    release_array(&mut array);
}

#[test]
fn dictionary_indices_must_be_in_range() {
    let d = field("d", DataType::Int32).with_dictionary(field("", DataType::Utf8), false);
    let values = utf8(&[0, 1, 2, 3], b"abc");
    assert_invalid(
        view_error(int32(&[0, 3, 1]).dictionary(values), &d),
        "field 'd' (format 'i'): index 3 at slot 1 is outside the dictionary's 3 values",
    );
    let values = utf8(&[0, 1, 2, 3], b"abc");
    assert_invalid(
        view_error(int32(&[-1]).dictionary(values), &d),
        "field 'd' (format 'i'): index -1 at slot 0 is outside the dictionary's 3 values",
    );
    // A null slot's index is never looked at.
    let mut null_index = int32(&[0, 99]).null_count(1);
    null_index.buffers[0] = Some(bits(&[true, false]));
    let releases = Arc::new(AtomicUsize::new(0));
    let mut array = null_index.dictionary(utf8(&[0, 1], b"a")).build(&releases);
    unsafe { view_array(&array, &d) }.unwrap();
    release_array(&mut array);
    assert_invalid(
        view_error(int32(&[0]), &d),
        "field 'd' (format 'i'): has no dictionary, the schema declares one",
    );
    assert_invalid(
        view_error(
            int32(&[0]).dictionary(int32(&[5])),
            &field("p", DataType::Int32),
        ),
        "field 'p' (format 'i'): has a dictionary the schema does not declare",
    );
    let bad_values = utf8(&[0, 2, 1], b"ab");
    assert_invalid(
        view_error(int32(&[0]).dictionary(bad_values), &d),
        "field 'd[dictionary]' (format 'u'): offsets decrease at slot 1: 2 then 1",
    );
}

#[test]
fn children_must_be_present_and_long_enough() {
    let point = field("", DataType::Struct).with_children(vec![
        field("a", DataType::Int32),
        field("b", DataType::Int32),
    ]);
    assert_invalid(
        view_error(CArraySpec::new(2, vec![None]), &point),
        "top-level field (format '+s'): n_children is 0, the schema has 2",
    );
    let short = CArraySpec::new(3, vec![None]).children(vec![int32(&[1, 2, 3]), int32(&[1, 2])]);
    assert_invalid(
        view_error(short, &point),
        "top-level field (format '+s'): child 'b' has 2 slots, the struct spans 3",
    );
    // The struct's offset applies to its children.
    let sliced = CArraySpec::new(2, vec![None])
        .offset(1)
        .children(vec![int32(&[1, 2, 3]), int32(&[1, 2])]);
    assert_invalid(
        view_error(sliced, &point),
        "top-level field (format '+s'): child 'b' has 2 slots, the struct spans 3",
    );

    let releases = Arc::new(AtomicUsize::new(0));
    let spec = || CArraySpec::new(1, vec![None]).children(vec![int32(&[1]), int32(&[2])]);
    let mut array = spec().build(&releases);
    let children = std::mem::replace(&mut array.children, null_mut());
    assert_invalid(
        unsafe { view_array(&array, &point) }.unwrap_err(),
        "top-level field (format '+s'): children is NULL but n_children is 2",
    );
    array.children = children;
    let second = unsafe { std::ptr::replace(array.children.add(1), null_mut()) };
    assert_invalid(
        unsafe { view_array(&array, &point) }.unwrap_err(),
        "top-level field (format '+s'): child 1 is NULL",
    );
    unsafe { *array.children.add(1) = second };
    let release = unsafe { (*second).release.take() };
    assert_invalid(
        unsafe { view_array(&array, &point) }.unwrap_err(),
        "top-level field (format '+s'): child 1 has been released",
    );
    unsafe { (*second).release = release };
    unsafe { view_array(&array, &point) }.unwrap();
    release_array(&mut array);
}

#[test]
fn map_keys_must_not_be_null() {
    let m = map_field("m", false, DataType::Utf8, DataType::Int32);
    let mut keys = utf8(&[0, 1, 2], b"ab").null_count(1);
    keys.buffers[0] = Some(bits(&[true, false]));
    let entries = CArraySpec::new(2, vec![None]).children(vec![keys, int32(&[1, 2])]);
    let map = CArraySpec::new(1, vec![None, Some(le_i32(&[0, 2]))]).children(vec![entries]);
    assert_invalid(
        view_error(map, &m),
        "field 'm' (format '+m'): the map's keys hold 1 nulls",
    );
}

#[test]
fn data_built_here_is_held_to_the_same_rules() {
    let x = field("x", DataType::Int32);
    let mut data = primitive(DataType::Int32, &[Some(1i32), Some(2)]);
    data.len = 3;
    assert_invalid(
        ArrayView::from_data(&data, &x).unwrap_err(),
        "field 'x' (format 'i'): buffer 1 has 8 bytes but needs 12",
    );
    let mut text = strings(DataType::Utf8, &[Some("ab"), Some("c")]);
    text.buffers[1] = buffer(b"a");
    assert_invalid(
        ArrayView::from_data(&text, &field("t", DataType::Utf8)).unwrap_err(),
        "field 't' (format 'u'): buffer 2 has 1 bytes but needs 3",
    );
    assert_invalid(
        ArrayView::from_data(&text, &field("t", DataType::LargeUtf8)).unwrap_err(),
        "field 't' (format 'U'): the array's type is 'u'",
    );
    let mut counted = primitive(DataType::Int32, &[Some(1i32), None]);
    counted.null_count = 0;
    assert_invalid(
        ArrayView::from_data(&counted, &x).unwrap_err(),
        "field 'x' (format 'i'): null_count is 0 but the validity bitmap has 1 nulls",
    );
    let mut extra = nulls(2);
    extra.validity = Some(buffer(&[0u8]));
    assert_invalid(
        ArrayView::from_data(&extra, &field("n", DataType::Null)).unwrap_err(),
        "field 'n' (format 'n'): n_buffers is 1, the format needs 0",
    );
}

// ------------------------------------------------------------------ schemas

fn schema_error(spec: CSchemaSpec) -> Error {
    let releases = Arc::new(AtomicUsize::new(0));
    let mut schema = spec.build(&releases);
    let err = unsafe { read_schema(&schema) }.unwrap_err();
    assert_eq!(releases.load(SeqCst), 0, "reading never releases");
    release_schema(&mut schema);
    err
}

#[test]
fn schema_errors_name_the_field() {
    let err = schema_error(CSchemaSpec::new("+s", "").children(vec![
        CSchemaSpec::new("i", "a"),
        CSchemaSpec::new("xyz", "b"),
    ]));
    assert_invalid(err, "field 'b': unknown format 'xyz'");
    let err =
        schema_error(CSchemaSpec::new("+s", "t").children(vec![CSchemaSpec::new("e", "half")]));
    assert_eq!(err.status(), Status::Unsupported);
    assert_eq!(
        err.message(),
        "field 't.half': format 'e' (float16) is not supported"
    );
    let mut no_format = CSchemaSpec::new("i", "a");
    no_format.format = None;
    assert_invalid(schema_error(no_format), "field 'a': format is NULL");
    let err = schema_error(CSchemaSpec::new("w:", "fixed"));
    assert_invalid(err, "field 'fixed': format 'w:': bad byte width ''");
    let err = schema_error(CSchemaSpec::new("d:40,2", "price"));
    assert_invalid(
        err,
        "field 'price': format 'd:40,2': precision must be 1..=38 (expected d:P,S[,128])",
    );
    let err = schema_error(
        CSchemaSpec::new("+l", "l")
            .children(vec![CSchemaSpec::new("i", "a"), CSchemaSpec::new("i", "b")]),
    );
    assert_invalid(
        err,
        "field 'l' (format '+l'): a list has exactly 1 child, this one has 2",
    );
    let entries = CSchemaSpec::new("+s", "entries").children(vec![
        CSchemaSpec::new("u", "key"),
        CSchemaSpec::new("i", "value"),
    ]);
    let err = schema_error(CSchemaSpec::new("+m", "m").children(vec![entries]));
    assert_invalid(
        err,
        "field 'm' (format '+m'): the map's key field 'key' is nullable",
    );
    let err = schema_error(CSchemaSpec::new("u", "d").dictionary(CSchemaSpec::new("u", "")));
    assert_invalid(
        err,
        "field 'd' (format 'u'): a dictionary's index type must be an integer",
    );
    let err = schema_error(CSchemaSpec::new("i", "d").dictionary(CSchemaSpec::new("?", "")));
    assert_invalid(err, "field 'd[dictionary]': unknown format '?'");
}

#[test]
fn a_cyclic_schema_is_refused_not_followed_forever() {
    let releases = Arc::new(AtomicUsize::new(0));
    let mut schema = CSchemaSpec::new("+s", "loop")
        .children(vec![CSchemaSpec::new("i", "x")])
        .build(&releases);
    let child = unsafe { *schema.children };
    unsafe { *schema.children = &mut schema };
    let err = unsafe { read_schema(&schema) }.unwrap_err();
    assert_eq!(err.status(), Status::InvalidArgument);
    assert!(
        err.message().ends_with(": nested deeper than 64 levels"),
        "{err}"
    );
    assert!(err.message().starts_with("field 'loop.loop.loop."), "{err}");
    unsafe { *schema.children = child };
    release_schema(&mut schema);
}

#[test]
fn a_schema_child_that_was_released_is_refused() {
    let releases = Arc::new(AtomicUsize::new(0));
    let mut schema = CSchemaSpec::new("+s", "s")
        .children(vec![CSchemaSpec::new("i", "x")])
        .build(&releases);
    let child = unsafe { *schema.children };
    let release = unsafe { (*child).release.take() };
    assert_invalid(
        unsafe { read_schema(&schema) }.unwrap_err(),
        "field 's' (format '+s'): child 0 has been released",
    );
    unsafe { (*child).release = release };
    release_schema(&mut schema);
}

// ------------------------------------------------------------------ moving in

#[test]
fn moving_in_releases_exactly_once_even_on_error() {
    let _lock = counters_lock();
    let releases = Arc::new(AtomicUsize::new(0));
    let mut schema = CSchemaSpec::new("xyz", "bad").build(&releases);
    let err = unsafe { import_schema(&mut schema) }.unwrap_err();
    assert_invalid(err, "field 'bad': unknown format 'xyz'");
    assert!(
        schema.release.is_none(),
        "the caller's struct is marked released"
    );
    assert_eq!(releases.load(SeqCst), 1);
    let err = unsafe { import_schema(&mut schema) }.unwrap_err();
    assert_invalid(err, "schema has been released");
    assert_eq!(releases.load(SeqCst), 1);

    let x = field("x", DataType::Int32);
    let mut array = int32(&[1, 2]).null_count(5).build(&releases);
    let imported = unsafe { import_array(&mut array) }.unwrap();
    assert!(array.release.is_none());
    assert_invalid(
        imported.view(&x).unwrap_err(),
        "field 'x' (format 'i'): null_count 5 exceeds the length 2",
    );
    assert_eq!(releases.load(SeqCst), 1, "released only when dropped");
    let moved = std::thread::spawn(move || drop(imported));
    moved.join().unwrap();
    assert_eq!(releases.load(SeqCst), 2);
    assert_invalid(
        unsafe { import_array(&mut array) }.unwrap_err(),
        "array has been released",
    );
    assert_invalid(
        unsafe { import_array(null_mut()) }.unwrap_err(),
        "array is NULL",
    );
    assert_eq!(releases.load(SeqCst), 2);
}
