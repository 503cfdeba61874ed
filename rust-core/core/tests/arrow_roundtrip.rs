//! Export -> import round trips inside Rust over every supported type, slices and
//! empty arrays, and the release protocol as the counters see it.

use std::ptr::{self, NonNull};

use isthmus_core::arrow::c_data::ArrowArray;
use isthmus_core::arrow::stats::{snapshot, ArrowStats};
use isthmus_core::arrow::{
    allocated_bytes, checksum, checksum_data, deep_copy, export, export_array, export_schema,
    import_array, import_schema, read_schema, view_array, ArrayData, ArrayView, Buffer, DataType,
    Field, MutableBuffer,
};
use isthmus_core::test_support::arrow::*;

/// The Arrow layer's counters, as `isthmus_arrow_stats` reports them.
fn stats() -> ArrowStats {
    snapshot()
}

/// Nothing exported or imported is live, and no buffer is allocated.
#[track_caller]
fn assert_quiescent() {
    let stats = stats();
    assert_eq!(
        (
            stats.exported_live,
            stats.exported_bytes_live,
            stats.imported_live
        ),
        (0, 0, 0),
        "{stats:?}"
    );
    assert_eq!(allocated_bytes(), 0);
}

/// Exports `data`, imports it back, and checks that nothing changed on the way.
fn round_trip(field: &Field, data: &ArrayData) {
    let expected = checksum_data(data, field).unwrap();
    let normalised = deep_copy(&ArrayView::from_data(data, field).unwrap()).unwrap();
    assert_eq!(normalised.offset, 0);
    assert_eq!(checksum_data(&normalised, field).unwrap(), expected);

    let (mut array, mut schema) = export(data.clone(), field).unwrap();
    assert_eq!(array.length, data.len as i64);
    assert_eq!(array.offset, data.offset as i64);
    let imported_field = unsafe { import_schema(&mut schema) }.unwrap();
    assert!(schema.release.is_none());
    assert_eq!(&imported_field, field);
    let imported = unsafe { import_array(&mut array) }.unwrap();
    assert!(array.release.is_none());
    let view = imported.view(&imported_field).unwrap();
    assert_eq!(view.len(), data.len);
    assert_eq!(view.null_count(), data.null_count);
    assert_eq!(checksum(&view), expected, "{field:?}");
    assert_eq!(deep_copy(&view).unwrap(), normalised);
}

#[test]
fn every_type_survives_export_and_import() {
    let _lock = counters_lock();
    let before = stats();
    let cases = every_type();
    for (field, data) in &cases {
        round_trip(field, data);
        let len = data.len;
        for (offset, slice_len) in [(1, len - 2), (len - 1, 1), (0, 0), (len, 0), (2, len - 2)] {
            let slice = data.slice(offset, slice_len).unwrap();
            round_trip(field, &slice);
        }
    }
    let after = stats();
    let exports = 6 * cases.len() as i64;
    assert_eq!(after.exported_total - before.exported_total, exports);
    assert_eq!(after.imported_total - before.imported_total, exports);
    drop(cases);
    assert_quiescent();
}

#[test]
fn empty_arrays_built_empty_survive_too() {
    let _lock = counters_lock();
    let list = field("l", DataType::List).with_children(vec![field("item", DataType::Utf8)]);
    let cases = [
        (
            field("i", DataType::Int64),
            primitive::<i64>(DataType::Int64, &[]),
        ),
        (field("s", DataType::Utf8), strings(DataType::Utf8, &[])),
        (field("b", DataType::Boolean), booleans(&[])),
        (field("n", DataType::Null), nulls(0)),
        (
            list,
            list_of(DataType::List, strings(DataType::Utf8, &[]), &[]),
        ),
    ];
    for (field, data) in &cases {
        round_trip(field, data);
    }
    drop(cases);
    assert_quiescent();
}

#[test]
fn exported_structs_are_what_the_specification_says() {
    let _lock = counters_lock();
    let (field, data) = nested_types().swap_remove(4); // the dictionary of strings
    assert_eq!(field.name, "dict");
    let (mut array, mut schema) = export(data, &field).unwrap();
    unsafe {
        assert_eq!(std::ffi::CStr::from_ptr(schema.format).to_str(), Ok("i"));
        assert_eq!(std::ffi::CStr::from_ptr(schema.name).to_str(), Ok("dict"));
        assert_eq!(
            schema.flags,
            isthmus_core::arrow::c_data::ARROW_FLAG_NULLABLE
        );
        assert!(schema.children.is_null() && schema.n_children == 0);
        assert_eq!(
            std::ffi::CStr::from_ptr((*schema.dictionary).format).to_str(),
            Ok("u")
        );
        assert_eq!((array.length, array.null_count, array.offset), (5, 1, 0));
        assert_eq!(array.n_buffers, 2);
        let dictionary = &*array.dictionary;
        assert_eq!((dictionary.length, dictionary.n_buffers), (3, 3));
        for i in 0..3 {
            let pointer = *dictionary.buffers.add(i) as usize;
            assert_eq!(pointer % 64, 0, "buffers are 64-byte aligned");
        }
        assert!(dictionary.release.is_some() && array.release.is_some());
    }
    // Reading the exported structs in place (borrowing) agrees with the fixture.
    let read = unsafe { read_schema(&schema) }.unwrap();
    assert_eq!(read, field);
    let view = unsafe { view_array(&array, &read) }.unwrap();
    let (_, fixture) = nested_types().swap_remove(4);
    assert_eq!(checksum(&view), checksum_data(&fixture, &field).unwrap());
    drop((view, fixture));
    release_array(&mut array);
    release_schema(&mut schema);
    assert_quiescent();
}

#[test]
fn a_moved_child_is_released_on_its_own() {
    let _lock = counters_lock();
    let (field, data) = nested_types().swap_remove(0); // struct<x: int32, label: utf8>
    assert_eq!(field.name, "point");
    let x_checksum = checksum_data(&data.children[0], &field.children[0]).unwrap();

    // The child first, then the parent.
    let base = stats();
    let mut array = export_array(data.clone(), &field).unwrap();
    let exported = stats();
    assert_eq!(exported.exported_live, base.exported_live + 1);
    assert!(exported.exported_bytes_live > base.exported_bytes_live);
    let mut child = move_child(&mut array, 0);
    let view = unsafe { view_array(&child, &field.children[0]) }.unwrap();
    assert_eq!(checksum(&view), x_checksum);
    release_array(&mut child);
    assert_eq!(
        stats().exported_live,
        base.exported_live + 1,
        "the parent is still live"
    );
    release_array(&mut array);
    assert_eq!(stats().exported_live, base.exported_live);
    assert_eq!(stats().exported_bytes_live, base.exported_bytes_live);

    // The parent first (as the specification asks of movers), then the child.
    let mut array = export_array(data, &field).unwrap();
    let mut child = move_child(&mut array, 0);
    release_array(&mut array);
    let between = stats();
    assert_eq!(between.exported_live, base.exported_live);
    let child_bytes = 4 * 4 + 1; // four int32 values and one validity byte
    assert_eq!(
        between.exported_bytes_live,
        base.exported_bytes_live + child_bytes
    );
    let view = unsafe { view_array(&child, &field.children[0]) }.unwrap();
    assert_eq!(checksum(&view), x_checksum);
    release_array(&mut child);
    drop(field);
    assert_quiescent();
}

/// Moves child `i` out of `array` the way the specification describes: a
/// bitwise copy, and the original marked released.
fn move_child(array: &mut ArrowArray, i: usize) -> ArrowArray {
    unsafe {
        let slot = *array.children.add(i);
        let moved = ptr::read(slot);
        (*slot).release = None;
        moved
    }
}

#[test]
fn exports_may_be_released_from_another_thread() {
    let _lock = counters_lock();
    struct Exported(ArrowArray, isthmus_core::arrow::c_data::ArrowSchema);
    // SAFETY: the C Data Interface lets a consumer release from any thread.
    unsafe impl Send for Exported {}
    let (field, data) = nested_types().pop().unwrap();
    let (array, schema) = export(data, &field).unwrap();
    assert_eq!(stats().exported_live, 1);
    let exported = Exported(array, schema);
    std::thread::spawn(move || {
        let mut exported = exported;
        release_array(&mut exported.0);
        release_schema(&mut exported.1);
    })
    .join()
    .unwrap();
    assert_quiescent();
}

#[test]
fn export_checks_what_it_hands_out() {
    let _lock = counters_lock();
    let before = (stats(), allocated_bytes());
    let x = field("x", DataType::Int32);
    let mut short = primitive(DataType::Int32, &[Some(1i32), Some(2)]);
    short.len = 3;
    let err = export(short.clone(), &x).unwrap_err();
    assert_eq!(
        err.message(),
        "field 'x' (format 'i'): buffer 1 has 8 bytes but needs 12"
    );
    let err = export_array(short, &x).unwrap_err();
    assert_eq!(
        err.message(),
        "field 'x' (format 'i'): buffer 1 has 8 bytes but needs 12"
    );
    let err = export_schema(&Field::new("a\0b", DataType::Int8, true)).unwrap_err();
    assert_eq!(
        err.message(),
        "field 'a\0b' (format 'c'): the name contains a NUL"
    );
    let bad_zone = Field::new(
        "t",
        DataType::Timestamp {
            unit: isthmus_core::arrow::TimeUnit::Second,
            timezone: Some("UTC\0".into()),
        },
        true,
    );
    let data = primitive(bad_zone.data_type.clone(), &[Some(1i64)]);
    let err = export(data, &bad_zone).unwrap_err();
    assert!(
        err.message().ends_with("the format contains a NUL"),
        "{err}"
    );
    let mut no_offsets = strings(DataType::Utf8, &[]);
    no_offsets.buffers[0] = MutableBuffer::new().freeze();
    let err = export_array(no_offsets, &field("s", DataType::Utf8)).unwrap_err();
    assert_eq!(
        err.message(),
        "field 's' (format 'u'): buffer 1 has 0 bytes but needs 4"
    );
    assert_eq!((stats(), allocated_bytes()), before, "nothing was exported");
    assert_quiescent();
}

#[test]
fn a_panic_while_releasing_stays_inside_the_library() {
    let _lock = counters_lock();
    struct Grenade;
    impl Drop for Grenade {
        fn drop(&mut self) {
            panic!("the buffer's owner failed to let go");
        }
    }
    static VALUES: [u8; 4] = [1, 0, 0, 0];
    // SAFETY: static memory, never written.
    let values = unsafe { Buffer::from_foreign(NonNull::from(&VALUES).cast(), 4, Grenade) };
    let data = ArrayData {
        data_type: DataType::Int32,
        len: 1,
        offset: 0,
        null_count: 0,
        validity: None,
        buffers: vec![values],
        children: vec![],
        dictionary: None,
    };
    let mut array = export_array(data, &field("x", DataType::Int32)).unwrap();
    // An unwinding release callback would abort the process here.
    release_array(&mut array);
    assert_quiescent();
}
