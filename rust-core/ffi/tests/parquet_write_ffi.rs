//! The encoder's C API: lifecycles in path and buffered mode, results, and bad
//! input (exact messages, no file left that could be committed, every moved
//! array released exactly once, no panic).

use std::ffi::{c_char, CString};
use std::path::{Path, PathBuf};
use std::ptr::{null, null_mut};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use isthmus::parquet_write::*;
use isthmus::IsthmusError;
use isthmus_core::arrow::c_data::{ArrowArray, ArrowSchema};
use isthmus_core::arrow::encode_metadata;
use isthmus_core::arrow::{ArrayData, DataType, Field};
use isthmus_core::error::Status;
use isthmus_core::test_support::write::reader::read_file;
use isthmus_core::test_support::write::*;

fn new_error() -> Box<IsthmusError> {
    Box::new(IsthmusError {
        code: -1,
        message_length: 0,
        message: [0; 1024],
    })
}

fn message(error: &IsthmusError) -> String {
    let bytes: Vec<u8> = error.message[..error.message_length as usize]
        .iter()
        .map(|&c| c as u8)
        .collect();
    String::from_utf8(bytes).unwrap()
}

/// Runs a call that must fail with `status`; returns its message.
fn fails(status: Status, call: impl FnOnce(*mut IsthmusError) -> i32) -> String {
    let mut error = new_error();
    let code = call(&mut *error);
    let text = message(&error);
    assert_eq!(code, status.code(), "{text}");
    assert_eq!(error.code, status.code());
    text
}

fn ok(call: impl FnOnce(*mut IsthmusError) -> i32) {
    let mut error = new_error();
    let code = call(&mut *error);
    assert_eq!(code, 0, "{}", message(&error));
}

/// A fresh empty directory for one test.
fn scratch_dir(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("parquet_write_ffi")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn entries(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

fn c_path(path: &Path) -> CString {
    CString::new(path.to_str().unwrap()).unwrap()
}

/// Owned C option arrays.
struct Options {
    _strings: Vec<CString>,
    keys: Vec<*const c_char>,
    values: Vec<*const c_char>,
}

fn c_options(pairs: &[(&str, &str)]) -> Options {
    let mut strings = Vec::new();
    let (mut keys, mut values) = (Vec::new(), Vec::new());
    for (k, v) in pairs {
        let (k, v) = (CString::new(*k).unwrap(), CString::new(*v).unwrap());
        keys.push(k.as_ptr());
        values.push(v.as_ptr());
        strings.push(k);
        strings.push(v);
    }
    Options {
        _strings: strings,
        keys,
        values,
    }
}

fn sample_columns(rows: usize) -> Vec<Column> {
    vec![
        primitive(
            "id",
            1,
            DataType::Int64,
            false,
            &(0..rows as i64).map(Some).collect::<Vec<_>>(),
        ),
        strings(
            "name",
            2,
            true,
            &(0..rows)
                .map(|i| (i % 4 != 3).then(|| format!("name {}", i % 10)))
                .collect::<Vec<_>>(),
        ),
        primitive(
            "score",
            3,
            DataType::Float64,
            true,
            &(0..rows)
                .map(|i| Some(if i == 5 { f64::NAN } else { i as f64 / 2.0 }))
                .collect::<Vec<_>>(),
        ),
    ]
}

struct Writer(*mut IsthmusWriter);

impl Drop for Writer {
    fn drop(&mut self) {
        unsafe { isthmus_writer_free(self.0) };
    }
}

fn open_path(path: &Path, schema: &Field, pairs: &[(&str, &str)]) -> Writer {
    let mut c_schema = c_schema(schema);
    let options = c_options(pairs);
    let mut writer = null_mut();
    ok(|e| unsafe {
        isthmus_writer_open_path(
            c_path(path).as_ptr(),
            &c_schema,
            options.keys.as_ptr(),
            options.values.as_ptr(),
            options.keys.len() as u32,
            &mut writer,
            e,
        )
    });
    release_schema(&mut c_schema);
    Writer(writer)
}

fn open_buffered(schema: &Field, pairs: &[(&str, &str)]) -> Writer {
    let mut c_schema = c_schema(schema);
    let options = c_options(pairs);
    let mut writer = null_mut();
    ok(|e| unsafe {
        isthmus_writer_open_buffered(
            &c_schema,
            options.keys.as_ptr(),
            options.values.as_ptr(),
            options.keys.len() as u32,
            &mut writer,
            e,
        )
    });
    release_schema(&mut c_schema);
    Writer(writer)
}

fn release_schema(schema: &mut ArrowSchema) {
    if let Some(release) = schema.release {
        unsafe { release(schema) };
    }
}

fn write(
    writer: &Writer,
    data: ArrayData,
    schema: &Field,
    releases: &Arc<AtomicUsize>,
) -> Result<(), (i32, String)> {
    let mut array = counted_array(data, schema, releases);
    let mut error = new_error();
    let code = unsafe { isthmus_writer_write(writer.0, &mut array, null(), &mut *error) };
    assert!(
        array.release.is_none(),
        "the caller's struct is marked moved"
    );
    if code == 0 {
        Ok(())
    } else {
        Err((code, message(&error)))
    }
}

fn take_all(writer: &Writer, out: &mut Vec<u8>) {
    loop {
        let (mut data, mut len) = (null(), 0u64);
        ok(|e| unsafe { isthmus_writer_take_output(writer.0, &mut data, &mut len, e) });
        if len == 0 {
            assert!(data.is_null());
            return;
        }
        out.extend_from_slice(unsafe { std::slice::from_raw_parts(data, len as usize) });
    }
}

fn close(writer: &Writer) -> *mut IsthmusWriteResult {
    let mut result = null_mut();
    ok(|e| unsafe { isthmus_writer_close(writer.0, &mut result, e) });
    result
}

#[test]
fn path_writer_lifecycle() {
    let dir = scratch_dir("lifecycle");
    let path = dir.join("data.parquet");
    let columns = sample_columns(100);
    let (schema, data) = batch(&columns);
    let releases = Arc::new(AtomicUsize::new(0));
    let writer = open_path(
        &path,
        &schema,
        &[("write.parquet.compression-codec", "snappy")],
    );
    assert_eq!(entries(&dir).len(), 1, "a hidden temporary file");
    assert!(!path.exists());
    for slice in slices(&data, 40) {
        write(&writer, slice, &schema, &releases).unwrap();
    }
    assert_eq!(releases.load(Ordering::SeqCst), 3);
    let (mut written, mut estimated) = (0, 0);
    ok(|e| unsafe { isthmus_writer_size(writer.0, &mut written, &mut estimated, e) });
    assert_eq!(written, 4);
    assert!(estimated > 4);
    let result = close(&writer);
    assert_eq!(entries(&dir), ["data.parquet"]);
    let bytes = std::fs::read(&path).unwrap();
    let file = read_file(&bytes);
    assert_checksums(&columns, &file, "path");

    let (mut rows, mut size, mut count) = (0, 0, 0);
    ok(|e| unsafe { isthmus_write_result_file(result, &mut rows, &mut size, &mut count, e) });
    assert_eq!((rows, size as usize, count), (100, bytes.len(), 3));
    let (mut offsets, mut n) = (null(), 0);
    ok(|e| unsafe { isthmus_write_result_split_offsets(result, &mut offsets, &mut n, e) });
    assert_eq!(
        unsafe { std::slice::from_raw_parts(offsets, n as usize) },
        [4]
    );
    let metrics = |c: u32| {
        let (mut id, mut values, mut nulls, mut nans, mut compressed) = (0, 0, 0, 0, 0);
        ok(|e| unsafe {
            isthmus_write_result_column(
                result,
                c,
                &mut id,
                &mut values,
                &mut nulls,
                &mut nans,
                &mut compressed,
                e,
            )
        });
        (id, values, nulls, nans, compressed)
    };
    assert_eq!((metrics(0).0, metrics(0).3), (1, -1));
    assert_eq!((metrics(1).1, metrics(1).2, metrics(1).3), (100, 25, -1));
    assert_eq!((metrics(2).0, metrics(2).3), (3, 1));
    let total: i64 = (0..3).map(|c| metrics(c).4).sum();
    assert_eq!(
        total,
        file.metadata.row_groups[0].total_compressed_size.unwrap()
    );
    let bounds = |c: u32| {
        let (mut min, mut min_len, mut max, mut max_len) = (null(), 0, null(), 0);
        ok(|e| unsafe {
            isthmus_write_result_column_bounds(
                result,
                c,
                &mut min,
                &mut min_len,
                &mut max,
                &mut max_len,
                e,
            )
        });
        let slice = |p: *const u8, n: u64| {
            (!p.is_null()).then(|| unsafe { std::slice::from_raw_parts(p, n as usize) }.to_vec())
        };
        (slice(min, min_len), slice(max, max_len))
    };
    assert_eq!(
        bounds(0),
        (
            Some(0i64.to_le_bytes().to_vec()),
            Some(99i64.to_le_bytes().to_vec())
        )
    );
    assert_eq!(
        bounds(1),
        (Some(b"name 0".to_vec()), Some(b"name 9".to_vec()))
    );
    assert_eq!(
        bounds(2),
        (
            Some(0f64.to_le_bytes().to_vec()),
            Some(49.5f64.to_le_bytes().to_vec())
        ),
        "NaN left out"
    );
    let text = fails(Status::InvalidArgument, |e| unsafe {
        isthmus_write_result_column(result, 3, &mut 0, &mut 0, &mut 0, &mut 0, &mut 0, e)
    });
    assert_eq!(text, "column 3 is out of range: the file has 3 columns");
    unsafe { isthmus_write_result_free(result) };

    // Closed: more rows are refused, and path writers have no output to take.
    let (code, text) = write(&writer, sample_batch(3), &schema, &releases).unwrap_err();
    assert_eq!(
        (code, text.as_str()),
        (Status::InvalidArgument.code(), "the writer is closed")
    );
    assert_eq!(releases.load(Ordering::SeqCst), 4);
    let text = fails(Status::InvalidArgument, |e| unsafe {
        isthmus_writer_take_output(writer.0, &mut null(), &mut 0, e)
    });
    assert_eq!(
        text,
        "a writer opened on a path has no output to take; it writes the file itself"
    );
    drop(writer);
    assert_eq!(
        entries(&dir),
        ["data.parquet"],
        "free after close keeps the file"
    );

    // The path now exists: a second writer refuses it unless asked to overwrite.
    let mut c = c_schema(&schema);
    let text = fails(Status::Io, |e| unsafe {
        isthmus_writer_open_path(
            c_path(&path).as_ptr(),
            &c,
            null(),
            null(),
            0,
            &mut null_mut(),
            e,
        )
    });
    assert_eq!(text, format!("{}: the file already exists", path.display()));
    release_schema(&mut c);
    let writer = open_path(&path, &schema, &[("isthmus.overwrite", "true")]);
    write(&writer, sample_batch(7), &schema, &releases).unwrap();
    let result = close(&writer);
    unsafe { isthmus_write_result_free(result) };
    assert_eq!(
        read_file(&std::fs::read(&path).unwrap()).metadata.num_rows,
        7
    );
    assert_eq!(entries(&dir), ["data.parquet"]);
}

fn sample_batch(rows: usize) -> ArrayData {
    batch(&sample_columns(rows)).1
}

#[test]
fn buffered_writer_lifecycle() {
    let columns = sample_columns(5000);
    let (schema, data) = batch(&columns);
    let releases = Arc::new(AtomicUsize::new(0));
    let writer = open_buffered(
        &schema,
        &[
            ("write.parquet.row-group-size-bytes", "20000"),
            ("write.parquet.page-version", "v2"),
        ],
    );
    let mut out = Vec::new();
    for slice in slices(&data, 1000) {
        write(&writer, slice, &schema, &releases).unwrap();
        take_all(&writer, &mut out);
        let (mut written, mut estimated) = (0, 0);
        ok(|e| unsafe { isthmus_writer_size(writer.0, &mut written, &mut estimated, e) });
        assert_eq!(written as usize, out.len());
    }
    let result = close(&writer);
    take_all(&writer, &mut out);
    let (mut rows, mut size, mut count) = (0, 0, 0);
    ok(|e| unsafe { isthmus_write_result_file(result, &mut rows, &mut size, &mut count, e) });
    assert_eq!((rows, size as usize), (5000, out.len()));
    let file = read_file(&out);
    assert!(file.metadata.row_groups.len() > 1);
    assert_checksums(&columns, &file, "buffered");
    let (mut offsets, mut n) = (null(), 0);
    ok(|e| unsafe { isthmus_write_result_split_offsets(result, &mut offsets, &mut n, e) });
    assert_eq!(n as usize, file.metadata.row_groups.len());
    unsafe { isthmus_write_result_free(result) };
    assert_eq!(releases.load(Ordering::SeqCst), 5);
}

/// A struct batch whose C struct is then edited by `edit` before it is moved in.
fn write_edited(
    writer: &Writer,
    data: ArrayData,
    schema: &Field,
    edit: impl FnOnce(&mut ArrowArray),
) -> (i32, String, usize) {
    let releases = Arc::new(AtomicUsize::new(0));
    let mut array = counted_array(data, schema, &releases);
    edit(&mut array);
    let mut error = new_error();
    let code = unsafe { isthmus_writer_write(writer.0, &mut array, null(), &mut *error) };
    let count = releases.load(Ordering::SeqCst);
    if array.release.is_some() {
        // A released-array case: nothing was moved.
        unsafe { (array.release.unwrap())(&mut array) };
    }
    (code, message(&error), count)
}

#[test]
fn bad_batches_fail_the_writer_and_leave_no_file() {
    type Case = (
        &'static str,
        Box<dyn Fn() -> (Field, ArrayData)>,
        Box<dyn Fn(&mut ArrowArray)>,
        &'static str,
    );
    let none = || -> Box<dyn Fn(&mut ArrowArray)> { Box::new(|_| {}) };
    let cases: Vec<Case> = vec![
        (
            "null in a required column",
            Box::new(move || {
                let mut columns = sample_columns(4);
                columns[0] = primitive("id", 1, DataType::Int64, false, &[Some(1i64), Some(2), None, Some(4)]);
                with_schema(batch(&columns).1)
            }),
            none(),
            "column 'id' (field id 1) is required, but row 2 of the batch is null",
        ),
        (
            "decreasing offsets",
            Box::new(move || {
                let mut columns = sample_columns(3);
                let mut strings = columns[1].data.clone();
                strings.validity = None;
                strings.null_count = 0;
                strings.buffers[0] = buffer(&[0i32, 5, 3, 6]);
                strings.buffers[1] = buffer(b"abcdefgh");
                columns[1].data = strings;
                with_schema(batch(&columns).1)
            }),
            none(),
            "field 'name' (format 'u'): offsets decrease at slot 1: 5 then 3",
        ),
        (
            "a column shorter than the batch",
            Box::new(move || with_schema(good_batch(4))),
            Box::new(|array: &mut ArrowArray| array.length = 5),
            "top-level field (format '+s'): child 'id' has 4 slots, the struct spans 5",
        ),
        (
            "invalid UTF-8",
            Box::new(move || {
                let mut columns = sample_columns(2);
                columns[1] = bytes("name", 2, DataType::Utf8, true, &[Some(b"ok".to_vec()), Some(vec![0xff, 0xfe])]);
                with_schema(batch(&columns).1)
            }),
            none(),
            "field 'name' (format 'u'): value 1 is not valid UTF-8 (invalid utf-8 sequence of 1 bytes from index 0)",
        ),
        (
            "null rows of the struct",
            Box::new(move || {
                let mut data = good_batch(4);
                data.validity = Some(buffer(&[0b1011u8]));
                data.null_count = 1;
                with_schema(data)
            }),
            none(),
            "the batch's top-level struct has 1 null rows; rows cannot be null",
        ),
        (
            "a decimal beyond its precision",
            Box::new(move || batch(&[primitive("d", 9, DataType::Decimal128 { precision: 5, scale: 2 }, true, &[Some(5i128), None, Some(100_000)])])),
            none(),
            "column 'd' (field id 9): row 2 holds the unscaled value 100000, which does not fit the column's precision 5",
        ),
        (
            "a released array",
            Box::new(move || with_schema(good_batch(4))),
            Box::new(|array: &mut ArrowArray| {
                let mut copy = ArrowArray { ..*array };
                array.release = None;
                // Release the real one right away; the writer sees a released struct.
                unsafe { (copy.release.unwrap())(&mut copy) };
            }),
            "array has been released",
        ),
    ];
    for (mode, buffered) in [("path", false), ("buffered", true)] {
        for (name, make, edit, expected) in &cases {
            let dir = scratch_dir(&format!("bad-{mode}-{}", name.replace(' ', "-")));
            let path = dir.join("data.parquet");
            let (schema, data) = make();
            let writer = if buffered {
                open_buffered(&schema, &[])
            } else {
                open_path(&path, &schema, &[])
            };
            // A good batch first, so the failure has something to discard.
            let releases = Arc::new(AtomicUsize::new(0));
            if schema.children.len() == 3 {
                write(&writer, good_batch(4), &schema, &releases).unwrap();
            }
            let (code, text, released) = write_edited(&writer, data, &schema, edit);
            assert_eq!(text, *expected, "{mode}: {name}");
            assert_eq!(code, Status::InvalidArgument.code(), "{mode}: {name}");
            if *name != "a released array" {
                assert_eq!(released, 1, "{mode}: {name}: released exactly once");
            }
            assert!(
                entries(&dir).is_empty(),
                "{mode}: {name}: {:?}",
                entries(&dir)
            );
            // Every later call reports the failure.
            let again = format!("the writer failed earlier: {expected}");
            let (code, text, released) = write_edited(&writer, make().1, &schema, |_| {});
            assert_eq!(
                (code, text.as_str(), released),
                (Status::InvalidArgument.code(), again.as_str(), 1)
            );
            let text = fails(Status::InvalidArgument, |e| unsafe {
                isthmus_writer_close(writer.0, &mut null_mut(), e)
            });
            assert_eq!(text, again);
            if buffered {
                let text = fails(Status::InvalidArgument, |e| unsafe {
                    isthmus_writer_take_output(writer.0, &mut null(), &mut 0, e)
                });
                assert_eq!(text, again);
            }
            ok(|e| unsafe { isthmus_writer_abort(writer.0, e) });
            drop(writer);
            assert!(entries(&dir).is_empty());
        }
    }
}

fn with_schema(data: ArrayData) -> (Field, ArrayData) {
    (batch(&sample_columns(1)).0, data)
}

fn good_batch(rows: usize) -> ArrayData {
    sample_batch(rows)
}

#[test]
fn batch_schemas_must_match() {
    let (schema, data) = batch(&sample_columns(3));
    let writer = open_buffered(&schema, &[]);
    let mut other = schema.clone();
    other.children[2].data_type = DataType::Float32;
    let mut c_other = c_schema(&other);
    let releases = Arc::new(AtomicUsize::new(0));
    let mut array = counted_array(data.clone(), &schema, &releases);
    let text = fails(Status::InvalidArgument, |e| unsafe {
        isthmus_writer_write(writer.0, &mut array, &c_other, e)
    });
    assert_eq!(
        text,
        "column 'score': the batch's type is 'f', the writer's schema says 'g'"
    );
    assert_eq!(releases.load(Ordering::SeqCst), 1);
    release_schema(&mut c_other);
    // A matching schema is accepted (by a fresh writer: the first one failed).
    let writer = open_buffered(&schema, &[]);
    let mut c_same = c_schema(&schema);
    let mut array = counted_array(data, &schema, &releases);
    ok(|e| unsafe { isthmus_writer_write(writer.0, &mut array, &c_same, e) });
    release_schema(&mut c_same);
    assert_eq!(releases.load(Ordering::SeqCst), 2);
}

#[test]
fn null_and_misused_handles() {
    let (schema, data) = batch(&sample_columns(2));
    let releases = Arc::new(AtomicUsize::new(0));
    let mut array = counted_array(data, &schema, &releases);
    let text = fails(Status::InvalidArgument, |e| unsafe {
        isthmus_writer_write(null_mut(), &mut array, null(), e)
    });
    assert_eq!(text, "writer is NULL");
    assert_eq!(
        releases.load(Ordering::SeqCst),
        1,
        "moved in and released even so"
    );
    let writer = open_buffered(&schema, &[]);
    let text = fails(Status::InvalidArgument, |e| unsafe {
        isthmus_writer_write(writer.0, null_mut(), null(), e)
    });
    assert_eq!(text, "array is NULL");
    let text = fails(Status::InvalidArgument, |e| unsafe {
        isthmus_writer_close(writer.0, null_mut(), e)
    });
    assert_eq!(text, "out_result is NULL");
    let text = fails(Status::InvalidArgument, |e| unsafe {
        isthmus_writer_size(writer.0, null_mut(), &mut 0, e)
    });
    assert_eq!(text, "out_bytes_written is NULL");
    let text = fails(Status::InvalidArgument, |e| unsafe {
        isthmus_write_result_file(null(), &mut 0, &mut 0, &mut 0, e)
    });
    assert_eq!(text, "result is NULL");
    unsafe {
        isthmus_writer_free(null_mut());
        isthmus_write_result_free(null_mut());
    }
}

#[test]
fn open_refuses_what_it_cannot_write() {
    let id = |id: i32| encode_metadata(&[("PARQUET:field_id", id.to_string().as_bytes())]).unwrap();
    let root =
        |children: Vec<Field>| Field::new("", DataType::Struct, false).with_children(children);
    type Case = (
        Field,
        Vec<(&'static str, &'static str)>,
        Status,
        &'static str,
    );
    let cases: Vec<Case> = vec![
        (
            root(vec![Field::new("tags", DataType::List, true)
                .with_children(vec![Field::new("item", DataType::Utf8, true)])
                .with_metadata(id(1))]),
            vec![],
            Status::InvalidArgument,
            "column 'tags.list.element' has no Iceberg field id (field metadata PARQUET:field_id)",
        ),
        (
            root(vec![Field::new("s", DataType::Struct, true)
                .with_children(vec![Field::new("x", DataType::Int16, true).with_metadata(id(2))])
                .with_metadata(id(1))]),
            vec![],
            Status::Unsupported,
            "column 's.x' (format 's'): Iceberg has no 8- or 16-bit integers; widen to 'i'",
        ),
        (
            root(vec![Field::new("x", DataType::Int64, true)]),
            vec![],
            Status::InvalidArgument,
            "column 'x' has no Iceberg field id (field metadata PARQUET:field_id)",
        ),
        (
            root(vec![Field::new("x", DataType::Int64, true).with_metadata(encode_metadata(&[("PARQUET:field_id", b"seven")]).unwrap())]),
            vec![],
            Status::InvalidArgument,
            "column 'x': PARQUET:field_id 'seven' is not an integer",
        ),
        (
            root(vec![Field::new("x", DataType::Int16, true).with_metadata(id(1))]),
            vec![],
            Status::Unsupported,
            "column 'x' (format 's'): Iceberg has no 8- or 16-bit integers; widen to 'i'",
        ),
        (
            root(vec![Field::new("t", DataType::Timestamp { unit: isthmus_core::arrow::TimeUnit::Millisecond, timezone: None }, true).with_metadata(id(1))]),
            vec![],
            Status::Unsupported,
            "column 't' (format 'tsm:'): Iceberg's timestamps are microseconds ('tsu:') or nanoseconds ('tsn:')",
        ),
        (
            root(vec![Field::new("a", DataType::Int32, true).with_metadata(id(1)), Field::new("b", DataType::Int32, true).with_metadata(id(1))]),
            vec![],
            Status::InvalidArgument,
            "column 'b': field id 1 is used twice",
        ),
        (
            root(vec![Field::new("u", DataType::FixedSizeBinary(8), true).with_metadata(
                encode_metadata(&[("PARQUET:field_id", b"1"), ("ARROW:extension:name", b"arrow.uuid")]).unwrap(),
            )]),
            vec![],
            Status::InvalidArgument,
            "column 'u' is marked arrow.uuid but its format is 'w:8', not 'w:16'",
        ),
        (
            Field::new("x", DataType::Int64, true),
            vec![],
            Status::InvalidArgument,
            "the schema must be a struct of columns (format '+s'), not 'l'",
        ),
        (
            root(vec![Field::new("x", DataType::Int64, true).with_metadata(id(1))]),
            vec![("write.parquet.page-row-limit", "0")],
            Status::InvalidArgument,
            "option write.parquet.page-row-limit = '0': expected a value in 1..=2147483647",
        ),
        (
            root(vec![Field::new("x", DataType::Int64, true).with_metadata(id(1))]),
            vec![("write.parquet.compression-codec", "lzo")],
            Status::InvalidArgument,
            "option write.parquet.compression-codec = 'lzo': LZO is not supported",
        ),
    ];
    let dir = scratch_dir("open");
    for (schema, pairs, status, expected) in cases {
        let mut c = c_schema(&schema);
        let options = c_options(&pairs);
        let path = c_path(&dir.join("x.parquet"));
        let text = fails(status, |e| unsafe {
            isthmus_writer_open_path(
                path.as_ptr(),
                &c,
                options.keys.as_ptr(),
                options.values.as_ptr(),
                options.keys.len() as u32,
                &mut null_mut(),
                e,
            )
        });
        assert_eq!(text, expected);
        let text = fails(status, |e| unsafe {
            isthmus_writer_open_buffered(
                &c,
                options.keys.as_ptr(),
                options.values.as_ptr(),
                options.keys.len() as u32,
                &mut null_mut(),
                e,
            )
        });
        assert_eq!(text, expected);
        release_schema(&mut c);
        assert!(entries(&dir).is_empty());
    }
    let text = fails(Status::InvalidArgument, |e| unsafe {
        isthmus_writer_open_buffered(null(), null(), null(), 0, &mut null_mut(), e)
    });
    assert_eq!(text, "schema is NULL");
    let text = fails(Status::InvalidArgument, |e| unsafe {
        isthmus_writer_open_buffered(null(), null(), null(), 2, &mut null_mut(), e)
    });
    assert_eq!(text, "schema is NULL");
    let (schema, _) = batch(&sample_columns(1));
    let mut c = c_schema(&schema);
    let text = fails(Status::InvalidArgument, |e| unsafe {
        isthmus_writer_open_buffered(&c, null(), null(), 2, &mut null_mut(), e)
    });
    assert_eq!(
        text,
        "option_keys or option_values is NULL but option_count is 2"
    );
    let missing = dir.join("no/such/dir/x.parquet");
    let text = fails(Status::Io, |e| unsafe {
        isthmus_writer_open_path(
            c_path(&missing).as_ptr(),
            &c,
            null(),
            null(),
            0,
            &mut null_mut(),
            e,
        )
    });
    assert!(text.starts_with("creating "), "{text}");
    release_schema(&mut c);
}

#[test]
fn abort_and_free_delete_the_file() {
    let dir = scratch_dir("abort");
    let (schema, data) = batch(&sample_columns(50));
    let releases = Arc::new(AtomicUsize::new(0));
    let writer = open_path(&dir.join("a.parquet"), &schema, &[]);
    write(&writer, data.clone(), &schema, &releases).unwrap();
    ok(|e| unsafe { isthmus_writer_abort(writer.0, e) });
    assert!(entries(&dir).is_empty());
    ok(|e| unsafe { isthmus_writer_abort(writer.0, e) });
    let (_, text) = write(&writer, data.clone(), &schema, &releases).unwrap_err();
    assert_eq!(text, "the writer was aborted");
    drop(writer);

    let writer = open_path(&dir.join("b.parquet"), &schema, &[]);
    write(&writer, data.clone(), &schema, &releases).unwrap();
    assert_eq!(entries(&dir).len(), 1);
    drop(writer);
    assert!(
        entries(&dir).is_empty(),
        "free without close deletes the partial file"
    );

    let writer = open_buffered(&schema, &[]);
    write(&writer, data, &schema, &releases).unwrap();
    ok(|e| unsafe { isthmus_writer_abort(writer.0, e) });
    let text = fails(Status::InvalidArgument, |e| unsafe {
        isthmus_writer_take_output(writer.0, &mut null(), &mut 0, e)
    });
    assert_eq!(text, "the writer was aborted");
    assert_eq!(releases.load(Ordering::SeqCst), 4);
}

#[test]
fn concurrent_calls_on_one_writer_are_refused_not_raced() {
    let (schema, data) = batch(&sample_columns(2000));
    let writer = open_buffered(&schema, &[]);
    let handle = writer.0 as usize;
    let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let busy = Arc::new(AtomicUsize::new(0));
    let poller = {
        let (stop, busy) = (stop.clone(), busy.clone());
        std::thread::spawn(move || {
            while !stop.load(Ordering::SeqCst) {
                let mut error = new_error();
                let code = unsafe {
                    isthmus_writer_size(handle as *const IsthmusWriter, &mut 0, &mut 0, &mut *error)
                };
                if code != 0 {
                    assert_eq!(message(&error), "the writer is in use by another thread; calls on one writer must not overlap");
                    busy.fetch_add(1, Ordering::SeqCst);
                }
            }
        })
    };
    let releases = Arc::new(AtomicUsize::new(0));
    let mut out = Vec::new();
    for slice in slices(&data, 100) {
        loop {
            match write(&writer, slice.clone(), &schema, &releases) {
                Ok(()) => break,
                Err((_, text)) => assert!(text.contains("in use by another thread"), "{text}"),
            }
        }
        loop {
            let (mut p, mut n) = (null(), 0u64);
            let mut error = new_error();
            if unsafe { isthmus_writer_take_output(writer.0, &mut p, &mut n, &mut *error) } != 0 {
                continue;
            }
            if n == 0 {
                break;
            }
            out.extend_from_slice(unsafe { std::slice::from_raw_parts(p, n as usize) });
        }
    }
    stop.store(true, Ordering::SeqCst);
    poller.join().unwrap();
    let result = close(&writer);
    take_all(&writer, &mut out);
    unsafe { isthmus_write_result_free(result) };
    assert_eq!(read_file(&out).metadata.num_rows, 2000);
}
