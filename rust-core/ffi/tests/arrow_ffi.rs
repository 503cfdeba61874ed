//! The Arrow exchange exports called as a C or Java caller would: raw structs,
//! status codes, caller-owned error structs, and release callbacks counted.

use std::mem::{size_of, MaybeUninit};
use std::ptr::{null, null_mut};
use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use std::sync::Arc;

use isthmus::arrow_exchange::{
    isthmus_arrow_checksum, isthmus_arrow_echo, isthmus_arrow_stats_get, IsthmusArrowStats,
};
use isthmus::{IsthmusError, ERROR_MESSAGE_CAPACITY};
use isthmus_core::arrow::allocated_bytes;
use isthmus_core::arrow::c_data::{ArrowArray, ArrowSchema};
use isthmus_core::arrow::checksum_data;
use isthmus_core::arrow::export;
use isthmus_core::arrow::read_schema;
use isthmus_core::arrow::DataType;
use isthmus_core::error::Status;
use isthmus_core::test_support::arrow::*;

const OK: i32 = Status::Ok as i32;
const INVALID_ARGUMENT: i32 = Status::InvalidArgument as i32;
const UNSUPPORTED: i32 = Status::Unsupported as i32;
const GARBAGE: u8 = 0x5A;

/// A struct full of garbage, as a C caller's stack would hold.
fn garbage<T>() -> Box<T> {
    let mut value = Box::new(MaybeUninit::<T>::uninit());
    // SAFETY: only used for plain C structs, for which any bytes are a value.
    unsafe {
        value
            .as_mut_ptr()
            .cast::<u8>()
            .write_bytes(GARBAGE, size_of::<T>());
        Box::from_raw(Box::into_raw(value).cast())
    }
}

fn untouched<T>(value: &T) -> bool {
    let bytes =
        unsafe { std::slice::from_raw_parts((value as *const T).cast::<u8>(), size_of::<T>()) };
    bytes.iter().all(|&b| b == GARBAGE)
}

fn message(error: &IsthmusError) -> &str {
    let len = error.message_length as usize;
    assert!(len < ERROR_MESSAGE_CAPACITY);
    let bytes: &[u8] = unsafe { std::slice::from_raw_parts(error.message.as_ptr().cast(), len) };
    std::str::from_utf8(bytes).unwrap()
}

fn stats() -> IsthmusArrowStats {
    let mut out = *garbage::<IsthmusArrowStats>();
    assert_eq!(unsafe { isthmus_arrow_stats_get(&mut out, null_mut()) }, OK);
    out
}

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

fn checksum_of(array: &ArrowArray, schema: &ArrowSchema) -> Result<u64, (i32, String)> {
    let mut out = 0u64;
    let mut error = garbage::<IsthmusError>();
    match unsafe { isthmus_arrow_checksum(array, schema, &mut out, &mut *error) } {
        OK => Ok(out),
        status => Err((status, message(&error).to_owned())),
    }
}

struct Echo {
    status: i32,
    error: Box<IsthmusError>,
    array: Box<ArrowArray>,
    schema: Box<ArrowSchema>,
}

fn echo(array: *mut ArrowArray, schema: *mut ArrowSchema) -> Echo {
    let mut out = Echo {
        status: -1,
        error: garbage(),
        array: garbage(),
        schema: garbage(),
    };
    out.status = unsafe {
        isthmus_arrow_echo(
            array,
            schema,
            &mut *out.array,
            &mut *out.schema,
            &mut *out.error,
        )
    };
    out
}

impl Echo {
    #[track_caller]
    fn assert_failed(&self, status: i32, text: &str) {
        assert_eq!(self.status, status, "{}", message(&self.error));
        assert_eq!(self.error.code, status);
        assert_eq!(message(&self.error), text);
        assert!(
            untouched(&*self.array) && untouched(&*self.schema),
            "out structs untouched"
        );
    }
}

#[test]
fn echo_returns_an_equal_copy_of_rust_exported_arrays() {
    let _lock = counters_lock();
    let before = stats();
    let mut echoes = 0;
    for (field, data) in every_type() {
        for data in [data.clone(), data.slice(1, data.len - 2).unwrap()] {
            let expected = checksum_data(&data, &field).unwrap();
            let (mut array, mut schema) = export(data, &field).unwrap();
            assert_eq!(checksum_of(&array, &schema), Ok(expected));
            let mut out = echo(&mut array, &mut schema);
            assert_eq!(out.status, OK, "{}", message(&out.error));
            assert!(untouched(&*out.error), "the error is untouched on success");
            assert!(
                array.release.is_none() && schema.release.is_none(),
                "inputs moved"
            );
            assert_eq!(out.array.offset, 0, "the copy is normalised");
            assert_eq!(unsafe { read_schema(&*out.schema) }.unwrap(), field);
            assert_eq!(
                checksum_of(&out.array, &out.schema),
                Ok(expected),
                "{field:?}"
            );
            assert_eq!(
                stats().exported_live,
                before.exported_live + 1,
                "only the echo is live"
            );
            release_array(&mut out.array);
            release_schema(&mut out.schema);
            echoes += 1;
        }
    }
    let after = stats();
    assert_eq!(after.imported_total - before.imported_total, echoes);
    assert_eq!(after.exported_total - before.exported_total, 2 * echoes);
    assert_quiescent();
}

#[test]
fn echo_reads_other_producers_and_keeps_dictionaries() {
    let _lock = counters_lock();
    let releases = Arc::new(AtomicUsize::new(0));
    // Sliced strings with an unknown null count and offsets that do not start at 0,
    // dictionary-encoded.
    let mut indices = CArraySpec::new(
        2,
        vec![Some(bits(&[false, true, true])), Some(le_i32(&[7, 1, 0]))],
    )
    .offset(1)
    .null_count(-1);
    indices.dictionary = Some(Box::new(CArraySpec::new(
        2,
        vec![None, Some(le_i32(&[3, 5, 8])), Some(b"xyzabcdef".to_vec())],
    )));
    let mut array = indices.build(&releases);
    let mut schema = CSchemaSpec::new("i", "d")
        .dictionary(CSchemaSpec::new("u", ""))
        .build(&releases);
    let expected = checksum_of(&array, &schema).unwrap();
    let plain = strings(DataType::Utf8, &[Some("cde"), Some("ab")]);
    assert_eq!(
        expected,
        checksum_data(&plain, &field("s", DataType::Utf8)).unwrap(),
        "\"cde\" then \"ab\""
    );
    drop(plain);
    assert_eq!(releases.load(SeqCst), 0, "checksum borrows");

    let mut out = echo(&mut array, &mut schema);
    assert_eq!(out.status, OK, "{}", message(&out.error));
    assert_eq!(
        releases.load(SeqCst),
        2,
        "both inputs released before return"
    );
    assert!(!out.array.dictionary.is_null() && !out.schema.dictionary.is_null());
    assert_eq!((out.array.offset, out.array.null_count), (0, 0));
    assert_eq!(checksum_of(&out.array, &out.schema), Ok(expected));
    release_array(&mut out.array);
    release_schema(&mut out.schema);
    assert_quiescent();
}

#[test]
fn an_invalid_array_fails_cleanly_and_is_released_once() {
    let _lock = counters_lock();
    let releases = Arc::new(AtomicUsize::new(0));
    let mut array = CArraySpec::new(
        3,
        vec![None, Some(le_i32(&[0, 5, 3, 6])), Some(b"abcdef".to_vec())],
    )
    .build(&releases);
    let mut schema = CSchemaSpec::new("+s", "")
        .children(vec![CSchemaSpec::new("u", "s")])
        .build(&releases);
    assert_eq!(
        checksum_of(&array, &schema),
        Err((
            INVALID_ARGUMENT,
            "top-level field (format '+s'): n_buffers is 3, the format needs 1".into()
        ))
    );
    let mut schema = {
        release_schema(&mut schema);
        CSchemaSpec::new("u", "s").build(&releases)
    };
    assert_eq!(releases.load(SeqCst), 1);
    let out = echo(&mut array, &mut schema);
    out.assert_failed(
        INVALID_ARGUMENT,
        "field 's' (format 'u'): offsets decrease at slot 1: 5 then 3",
    );
    assert_eq!(
        releases.load(SeqCst),
        3,
        "array and schema released once each"
    );
    assert!(array.release.is_none() && schema.release.is_none());

    let mut array = CArraySpec::new(1, vec![None, Some(vec![0; 2])]).build(&releases);
    let mut schema = CSchemaSpec::new("e", "half").build(&releases);
    echo(&mut array, &mut schema).assert_failed(
        UNSUPPORTED,
        "field 'half': format 'e' (float16) is not supported",
    );
    assert_eq!(releases.load(SeqCst), 5);
    assert_quiescent();
}

#[test]
fn null_pointers_are_invalid_arguments_and_inputs_are_still_released() {
    let _lock = counters_lock();
    let releases = Arc::new(AtomicUsize::new(0));
    let int32 = || CArraySpec::new(1, vec![None, Some(le_i32(&[7]))]);
    let schema = || CSchemaSpec::new("i", "x");

    let mut s = schema().build(&releases);
    echo(null_mut(), &mut s).assert_failed(INVALID_ARGUMENT, "array is NULL");
    assert_eq!(
        releases.load(SeqCst),
        1,
        "the schema was moved and released"
    );

    let mut a = int32().build(&releases);
    echo(&mut a, null_mut()).assert_failed(INVALID_ARGUMENT, "schema is NULL");
    assert_eq!(releases.load(SeqCst), 2, "the array was moved and released");

    for missing in ["out_array", "out_schema"] {
        let (mut a, mut s) = (int32().build(&releases), schema().build(&releases));
        let mut error = garbage::<IsthmusError>();
        let mut out_array = garbage::<ArrowArray>();
        let mut out_schema = garbage::<ArrowSchema>();
        let (out_array_ptr, out_schema_ptr): (*mut ArrowArray, *mut ArrowSchema) = match missing {
            "out_array" => (null_mut(), &mut *out_schema),
            _ => (&mut *out_array, null_mut()),
        };
        let status = unsafe {
            isthmus_arrow_echo(&mut a, &mut s, out_array_ptr, out_schema_ptr, &mut *error)
        };
        assert_eq!(status, INVALID_ARGUMENT);
        assert_eq!(message(&error), format!("{missing} is NULL"));
        assert!(untouched(&*out_array) && untouched(&*out_schema));
        assert!(a.release.is_none() && s.release.is_none());
    }
    assert_eq!(releases.load(SeqCst), 6);
    // The error struct is optional.
    let mut a = int32().build(&releases);
    let status =
        unsafe { isthmus_arrow_echo(&mut a, null_mut(), null_mut(), null_mut(), null_mut()) };
    assert_eq!(status, INVALID_ARGUMENT);
    assert_eq!(releases.load(SeqCst), 7);

    let mut error = garbage::<IsthmusError>();
    assert_eq!(
        unsafe { isthmus_arrow_stats_get(null_mut(), &mut *error) },
        INVALID_ARGUMENT
    );
    assert_eq!(message(&error), "out is NULL");

    let (mut a, mut s) = (int32().build(&releases), schema().build(&releases));
    assert_eq!(
        checksum_of(&a, &s).map_err(|e| e.0),
        checksum_of(&a, &s).map_err(|e| e.0)
    );
    let cases: [(*const ArrowArray, *const ArrowSchema, &str); 2] = [
        (null(), &s, "array is NULL"),
        (&a, null(), "schema is NULL"),
    ];
    for (array, schema, text) in cases {
        let mut out = 0u64;
        let mut error = garbage::<IsthmusError>();
        let status = unsafe { isthmus_arrow_checksum(array, schema, &mut out, &mut *error) };
        assert_eq!((status, message(&error)), (INVALID_ARGUMENT, text));
    }
    let mut error = garbage::<IsthmusError>();
    let status = unsafe { isthmus_arrow_checksum(&a, &s, null_mut(), &mut *error) };
    assert_eq!(
        (status, message(&error)),
        (INVALID_ARGUMENT, "out_checksum is NULL")
    );
    assert_eq!(releases.load(SeqCst), 7, "checksum never releases");
    release_array(&mut a);
    release_schema(&mut s);
    assert_quiescent();
}

#[test]
fn released_inputs_are_invalid_arguments() {
    let _lock = counters_lock();
    let releases = Arc::new(AtomicUsize::new(0));
    let mut a = CArraySpec::new(1, vec![None, Some(le_i32(&[7]))]).build(&releases);
    let mut s = CSchemaSpec::new("i", "x").build(&releases);
    release_array(&mut a);
    assert_eq!(
        checksum_of(&a, &s),
        Err((INVALID_ARGUMENT, "array has been released".into()))
    );
    echo(&mut a, &mut s).assert_failed(INVALID_ARGUMENT, "array has been released");
    assert_eq!(
        releases.load(SeqCst),
        2,
        "the live schema was still moved and released"
    );
    // Echoing the same (now released) structs again releases nothing twice.
    echo(&mut a, &mut s).assert_failed(INVALID_ARGUMENT, "array has been released");
    assert_eq!(
        checksum_of(&a, &s),
        Err((INVALID_ARGUMENT, "schema has been released".into()))
    );
    assert_eq!(releases.load(SeqCst), 2);
    assert_quiescent();
}

#[test]
fn echo_may_write_its_output_over_its_input() {
    let _lock = counters_lock();
    let (field, data) = nested_types().pop().unwrap();
    let expected = checksum_data(&data, &field).unwrap();
    let (mut array, mut schema) = export(data, &field).unwrap();
    let mut error = garbage::<IsthmusError>();
    // Moving the inputs out first is what makes this safe.
    let status = unsafe {
        isthmus_arrow_echo(
            &mut array,
            &mut schema,
            &mut array,
            &mut schema,
            &mut *error,
        )
    };
    assert_eq!(status, OK, "{}", message(&error));
    assert_eq!(checksum_of(&array, &schema), Ok(expected));
    assert_eq!(stats().exported_live, 1);
    release_array(&mut array);
    release_schema(&mut schema);
    assert_quiescent();
}
