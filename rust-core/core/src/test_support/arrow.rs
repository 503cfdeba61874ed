//! Fixtures of the Arrow tests: arrays built through the public API, and
//! hand-made C structs (valid or not) whose release callbacks count their calls.

use std::ffi::{c_void, CString};
use std::ptr::{null, null_mut};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use crate::arrow::bitmap::BitmapBuilder;
use crate::arrow::buffer::NativeType;
use crate::arrow::c_data::{ArrowArray, ArrowSchema};
use crate::arrow::field::encode_metadata;
use crate::arrow::{ArrayData, Buffer, DataType, Field, MutableBuffer, TimeUnit};

/// The Arrow counters are global: tests that read them take this lock, and so
/// does every other test in the same binary that exports or imports.
pub fn counters_lock() -> MutexGuard<'static, ()> {
    static LOCK: Mutex<()> = Mutex::new(());
    LOCK.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

// ------------------------------------------------------------------ ArrayData

pub fn buffer<T: NativeType>(values: &[T]) -> Buffer {
    let mut buffer = MutableBuffer::new();
    buffer.extend_from_slice(values).unwrap();
    buffer.freeze()
}

/// A validity bitmap and null count; None when every slot is valid.
pub fn validity(valid: impl IntoIterator<Item = bool>) -> (Option<Buffer>, usize) {
    let mut builder = BitmapBuilder::default();
    let mut nulls = 0;
    for bit in valid {
        builder.append(bit).unwrap();
        nulls += usize::from(!bit);
    }
    ((nulls > 0).then(|| builder.finish()), nulls)
}

fn array(
    data_type: DataType,
    valid: impl IntoIterator<Item = bool>,
    len: usize,
    buffers: Vec<Buffer>,
    children: Vec<ArrayData>,
) -> ArrayData {
    let (validity, null_count) = validity(valid);
    ArrayData {
        data_type,
        len,
        offset: 0,
        null_count,
        validity,
        buffers,
        children,
        dictionary: None,
    }
}

pub fn nulls(len: usize) -> ArrayData {
    ArrayData {
        data_type: DataType::Null,
        len,
        offset: 0,
        null_count: len,
        validity: None,
        buffers: vec![],
        children: vec![],
        dictionary: None,
    }
}

pub fn primitive<T: NativeType + Default>(data_type: DataType, values: &[Option<T>]) -> ArrayData {
    let data: Vec<T> = values.iter().map(|v| v.unwrap_or_default()).collect();
    array(
        data_type,
        values.iter().map(Option::is_some),
        values.len(),
        vec![buffer(&data)],
        vec![],
    )
}

pub fn booleans(values: &[Option<bool>]) -> ArrayData {
    let mut bits = BitmapBuilder::default();
    for value in values {
        bits.append(value.unwrap_or(false)).unwrap();
    }
    array(
        DataType::Boolean,
        values.iter().map(Option::is_some),
        values.len(),
        vec![bits.finish()],
        vec![],
    )
}

/// Utf8, LargeUtf8, Binary or LargeBinary.
pub fn var_bytes(data_type: DataType, values: &[Option<&[u8]>]) -> ArrayData {
    let large = matches!(data_type, DataType::LargeUtf8 | DataType::LargeBinary);
    let mut data = Vec::new();
    let mut ends = vec![0usize];
    for value in values {
        data.extend_from_slice(value.unwrap_or_default());
        ends.push(data.len());
    }
    array(
        data_type,
        values.iter().map(Option::is_some),
        values.len(),
        vec![offsets(&ends, large), buffer(&data)],
        vec![],
    )
}

pub fn strings(data_type: DataType, values: &[Option<&str>]) -> ArrayData {
    let bytes: Vec<Option<&[u8]>> = values.iter().map(|v| v.map(str::as_bytes)).collect();
    var_bytes(data_type, &bytes)
}

fn offsets(ends: &[usize], large: bool) -> Buffer {
    if large {
        buffer(&ends.iter().map(|&e| e as i64).collect::<Vec<_>>())
    } else {
        buffer(&ends.iter().map(|&e| e as i32).collect::<Vec<_>>())
    }
}

pub fn fixed_binary(width: u32, values: &[Option<&[u8]>]) -> ArrayData {
    let zeros = vec![0u8; width as usize];
    let data: Vec<u8> = values
        .iter()
        .flat_map(|v| v.unwrap_or(&zeros).iter().copied())
        .collect();
    array(
        DataType::FixedSizeBinary(width),
        values.iter().map(Option::is_some),
        values.len(),
        vec![buffer(&data)],
        vec![],
    )
}

pub fn struct_of(children: Vec<ArrayData>, valid: &[bool]) -> ArrayData {
    array(
        DataType::Struct,
        valid.iter().copied(),
        valid.len(),
        vec![],
        children,
    )
}

/// List, LargeList or Map over `child`, one entry per slot: None is a null slot.
pub fn list_of(data_type: DataType, child: ArrayData, lengths: &[Option<usize>]) -> ArrayData {
    let mut ends = vec![0usize];
    for length in lengths {
        ends.push(ends.last().unwrap() + length.unwrap_or(0));
    }
    assert_eq!(*ends.last().unwrap(), child.len, "lengths cover the child");
    let large = data_type == DataType::LargeList;
    array(
        data_type,
        lengths.iter().map(Option::is_some),
        lengths.len(),
        vec![offsets(&ends, large)],
        vec![child],
    )
}

pub fn dictionary(mut indices: ArrayData, values: ArrayData) -> ArrayData {
    indices.dictionary = Some(Box::new(values));
    indices
}

pub fn field(name: &str, data_type: DataType) -> Field {
    Field::new(name, data_type, true)
}

pub fn map_field(name: &str, keys_sorted: bool, key: DataType, value: DataType) -> Field {
    field(name, DataType::Map { keys_sorted }).with_children(vec![Field::new(
        "entries",
        DataType::Struct,
        false,
    )
    .with_children(vec![Field::new("key", key, false), field("value", value)])])
}

/// One array of every supported type, each with nulls and at least four slots.
pub fn every_type() -> Vec<(Field, ArrayData)> {
    use DataType::*;
    let mut cases = vec![
        (field("null", Null), nulls(4)),
        (
            field("bool", Boolean),
            booleans(&[Some(true), None, Some(false), Some(true), Some(true)]),
        ),
        (
            field("i8", Int8),
            primitive(Int8, &[Some(-128i8), None, Some(0), Some(127)]),
        ),
        (
            field("i16", Int16),
            primitive(Int16, &[Some(-3i16), None, Some(300), Some(i16::MAX)]),
        ),
        (
            field("i32", Int32),
            primitive(Int32, &[Some(1i32), None, Some(-1), Some(i32::MIN)]),
        ),
        (
            field("i64", Int64),
            primitive(Int64, &[None, Some(i64::MAX), Some(-7i64), None]),
        ),
        (
            field("u8", UInt8),
            primitive(UInt8, &[Some(255u8), None, Some(0), Some(1)]),
        ),
        (
            field("u16", UInt16),
            primitive(UInt16, &[Some(65535u16), None, Some(0), Some(1)]),
        ),
        (
            field("u32", UInt32),
            primitive(UInt32, &[Some(u32::MAX), None, Some(0), Some(1)]),
        ),
        (
            field("u64", UInt64),
            primitive(UInt64, &[Some(u64::MAX), None, Some(0), Some(1)]),
        ),
        (
            field("f32", Float32),
            primitive(Float32, &[Some(1.5f32), None, Some(f32::NAN), Some(-0.0)]),
        ),
        (
            field("f64", Float64),
            primitive(
                Float64,
                &[
                    Some(f64::INFINITY),
                    None,
                    Some(-0.0),
                    Some(f64::from_bits(0x7ff8_0000_0000_0001)),
                ],
            ),
        ),
        (
            field(
                "dec",
                Decimal128 {
                    precision: 38,
                    scale: 10,
                },
            ),
            primitive(
                Decimal128 {
                    precision: 38,
                    scale: 10,
                },
                &[Some(-1i128), None, Some(10i128.pow(37)), Some(0)],
            ),
        ),
        (
            field("date32", Date32),
            primitive(Date32, &[Some(19_000i32), None, Some(-1), Some(0)]),
        ),
        (
            field("date64", Date64),
            primitive(
                Date64,
                &[Some(1_700_000_000_000i64), None, Some(-1), Some(0)],
            ),
        ),
        (
            field("uuid", FixedSizeBinary(16)),
            fixed_binary(
                16,
                &[
                    Some(&[7u8; 16]),
                    None,
                    Some(&[0u8; 16]),
                    Some(&[0xffu8; 16]),
                ],
            ),
        ),
    ];
    for unit in [
        TimeUnit::Second,
        TimeUnit::Millisecond,
        TimeUnit::Microsecond,
        TimeUnit::Nanosecond,
    ] {
        let time = Time(unit);
        cases.push(match unit {
            TimeUnit::Second | TimeUnit::Millisecond => (
                field("time", time.clone()),
                primitive(time, &[Some(1i32), None, Some(86_399), Some(0)]),
            ),
            _ => (
                field("time", time.clone()),
                primitive(time, &[Some(1i64), None, Some(86_399_000_000), Some(0)]),
            ),
        });
        for timezone in [None, Some("Europe/Paris".to_owned())] {
            let timestamp = Timestamp { unit, timezone };
            cases.push((
                field("ts", timestamp.clone()),
                primitive(timestamp, &[Some(1i64), None, Some(-1), Some(i64::MIN)]),
            ));
        }
        cases.push((
            field("duration", Duration(unit)),
            primitive(Duration(unit), &[Some(5i64), None, Some(-5), Some(0)]),
        ));
    }
    let texts = [Some("héllo"), None, Some(""), Some("wörld €"), Some("x")];
    for data_type in [Utf8, LargeUtf8] {
        cases.push((field("text", data_type.clone()), strings(data_type, &texts)));
    }
    let blobs: [Option<&[u8]>; 4] = [Some(&[0, 1, 2]), None, Some(&[]), Some(&[0xff; 9])];
    for data_type in [Binary, LargeBinary] {
        cases.push((
            field("blob", data_type.clone()),
            var_bytes(data_type, &blobs),
        ));
    }
    cases.extend(nested_types());
    cases
}

/// Structs, lists, maps and dictionaries, nested inside one another too.
pub fn nested_types() -> Vec<(Field, ArrayData)> {
    use DataType::*;
    let point = field("point", Struct).with_children(vec![field("x", Int32), field("label", Utf8)]);
    let points = struct_of(
        vec![
            primitive(Int32, &[Some(1i32), Some(2), None, Some(4)]),
            strings(Utf8, &[Some("a"), None, Some("c"), Some("d")]),
        ],
        &[true, true, false, true],
    );
    let list = field("list", List).with_children(vec![field("item", Int64)]);
    let lists = list_of(
        List,
        primitive(Int64, &[Some(1i64), None, Some(3), Some(4), Some(5)]),
        &[Some(2), None, Some(0), Some(3)],
    );
    let large_list = field("large", LargeList).with_children(vec![field("item", Utf8)]);
    let large_lists = list_of(
        LargeList,
        strings(Utf8, &[Some("a"), Some("bb"), None]),
        &[Some(1), Some(0), None, Some(2)],
    );
    let map = map_field("map", false, Utf8, Int32);
    let entries = struct_of(
        vec![
            strings(Utf8, &[Some("k1"), Some("k2"), Some("k3")]),
            primitive(Int32, &[Some(1i32), None, Some(3)]),
        ],
        &[true, true, true],
    );
    let maps = list_of(
        Map { keys_sorted: false },
        entries,
        &[Some(2), None, Some(0), Some(1)],
    );
    let dict = field("dict", Int32).with_dictionary(field("", Utf8), false);
    let dicts = dictionary(
        primitive(Int32, &[Some(2i32), None, Some(0), Some(2), Some(1)]),
        strings(Utf8, &[Some("zero"), None, Some("two")]),
    );
    let small_dict = Field::new("small", UInt8, false)
        .with_dictionary(Field::new("", Int64, false), true)
        .with_metadata(encode_metadata(&[("PARQUET:field_id", b"3")]).unwrap());
    let small_dicts = dictionary(
        primitive(UInt8, &[Some(1u8), Some(1), Some(0), Some(1)]),
        primitive(Int64, &[Some(-5i64), Some(5)]),
    );
    // struct<id: int64, tags: list<struct<k: utf8, v: map<utf8, int32>>>, d: dict<utf8>>
    let tag = field("tag", Struct)
        .with_children(vec![field("k", Utf8), map_field("v", true, Utf8, Int32)]);
    let deep = Field::new("", Struct, false).with_children(vec![
        field("id", Int64),
        field("tags", List).with_children(vec![tag]),
        field("d", Int16).with_dictionary(field("", Utf8), false),
    ]);
    let tag_maps = list_of(
        Map { keys_sorted: true },
        struct_of(
            vec![
                strings(Utf8, &[Some("a"), Some("b"), Some("c")]),
                primitive(Int32, &[Some(1i32), Some(2), None]),
            ],
            &[true, true, true],
        ),
        &[Some(2), None, Some(1)],
    );
    let tags = struct_of(
        vec![strings(Utf8, &[Some("x"), Some("y"), None]), tag_maps],
        &[true, false, true],
    );
    let deeps = struct_of(
        vec![
            primitive(Int64, &[Some(1i64), Some(2), Some(3), None]),
            list_of(List, tags, &[Some(1), Some(0), None, Some(2)]),
            dictionary(
                primitive(Int16, &[Some(0i16), None, Some(1), Some(1)]),
                strings(Utf8, &[Some("p"), Some("q")]),
            ),
        ],
        &[true, true, true, true],
    );
    vec![
        (point, points),
        (list, lists),
        (large_list, large_lists),
        (map, maps),
        (dict, dicts),
        (small_dict, small_dicts),
        (deep, deeps),
    ]
}

// ------------------------------------------------------------------ C structs

pub fn le_i32(values: &[i32]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}

pub fn le_i64(values: &[i64]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}

pub fn bits(values: &[bool]) -> Vec<u8> {
    let mut bytes = vec![0u8; values.len().div_ceil(8)];
    for (i, _) in values.iter().enumerate().filter(|(_, &bit)| bit) {
        bytes[i / 8] |= 1 << (i % 8);
    }
    bytes
}

/// An `ArrowArray` to hand-make, valid or not. Buffers are `None` for NULL.
pub struct CArraySpec {
    pub length: i64,
    pub null_count: i64,
    pub offset: i64,
    pub buffers: Vec<Option<Vec<u8>>>,
    pub children: Vec<CArraySpec>,
    pub dictionary: Option<Box<CArraySpec>>,
}

impl CArraySpec {
    pub fn new(length: i64, buffers: Vec<Option<Vec<u8>>>) -> CArraySpec {
        CArraySpec {
            length,
            null_count: 0,
            offset: 0,
            buffers,
            children: vec![],
            dictionary: None,
        }
    }

    pub fn null_count(mut self, null_count: i64) -> CArraySpec {
        self.null_count = null_count;
        self
    }

    pub fn offset(mut self, offset: i64) -> CArraySpec {
        self.offset = offset;
        self
    }

    pub fn children(mut self, children: Vec<CArraySpec>) -> CArraySpec {
        self.children = children;
        self
    }

    pub fn dictionary(mut self, dictionary: CArraySpec) -> CArraySpec {
        self.dictionary = Some(Box::new(dictionary));
        self
    }

    /// The struct; its release (only the top level's) adds one to `releases`.
    pub fn build(self, releases: &Arc<AtomicUsize>) -> ArrowArray {
        self.build_with(Some(releases.clone()))
    }

    fn build_with(self, releases: Option<Arc<AtomicUsize>>) -> ArrowArray {
        let pointers: Vec<*const c_void> = self
            .buffers
            .iter()
            .map(|b| b.as_ref().map_or(null(), |b| b.as_ptr().cast()))
            .collect();
        let mut private = Box::new(TestPrivate {
            _buffers: self.buffers,
            pointers,
            children: self
                .children
                .into_iter()
                .map(|c| Box::into_raw(Box::new(c.build_with(None))))
                .collect(),
            dictionary: self
                .dictionary
                .map_or(null_mut(), |d| Box::into_raw(Box::new(d.build_with(None)))),
            releases,
        });
        ArrowArray {
            length: self.length,
            null_count: self.null_count,
            offset: self.offset,
            n_buffers: private.pointers.len() as i64,
            n_children: private.children.len() as i64,
            buffers: private.pointers.as_mut_ptr(),
            children: private.children.as_mut_ptr(),
            dictionary: private.dictionary,
            release: Some(release_test_array),
            private_data: Box::into_raw(private).cast(),
        }
    }
}

struct TestPrivate {
    _buffers: Vec<Option<Vec<u8>>>,
    pointers: Vec<*const c_void>,
    children: Vec<*mut ArrowArray>,
    dictionary: *mut ArrowArray,
    releases: Option<Arc<AtomicUsize>>,
}

unsafe extern "C" fn release_test_array(array: *mut ArrowArray) {
    unsafe {
        let private = Box::from_raw((*array).private_data.cast::<TestPrivate>());
        for &child in private.children.iter().chain([&private.dictionary]) {
            if !child.is_null() {
                let mut child = Box::from_raw(child);
                if let Some(release) = child.release {
                    release(&mut *child);
                }
            }
        }
        if let Some(releases) = &private.releases {
            releases.fetch_add(1, Ordering::SeqCst);
        }
        (*array).release = None;
    }
}

/// An `ArrowSchema` to hand-make, valid or not.
pub struct CSchemaSpec {
    pub format: Option<&'static str>,
    pub name: &'static str,
    pub flags: i64,
    pub children: Vec<CSchemaSpec>,
    pub dictionary: Option<Box<CSchemaSpec>>,
}

impl CSchemaSpec {
    pub fn new(format: &'static str, name: &'static str) -> CSchemaSpec {
        CSchemaSpec {
            format: Some(format),
            name,
            flags: crate::arrow::c_data::ARROW_FLAG_NULLABLE,
            children: vec![],
            dictionary: None,
        }
    }

    pub fn children(mut self, children: Vec<CSchemaSpec>) -> CSchemaSpec {
        self.children = children;
        self
    }

    pub fn dictionary(mut self, dictionary: CSchemaSpec) -> CSchemaSpec {
        self.dictionary = Some(Box::new(dictionary));
        self
    }

    pub fn build(self, releases: &Arc<AtomicUsize>) -> ArrowSchema {
        self.build_with(Some(releases.clone()))
    }

    fn build_with(self, releases: Option<Arc<AtomicUsize>>) -> ArrowSchema {
        let mut private = Box::new(TestSchemaPrivate {
            format: self.format.map(|f| CString::new(f).unwrap()),
            name: CString::new(self.name).unwrap(),
            children: self
                .children
                .into_iter()
                .map(|c| Box::into_raw(Box::new(c.build_with(None))))
                .collect(),
            dictionary: self
                .dictionary
                .map_or(null_mut(), |d| Box::into_raw(Box::new(d.build_with(None)))),
            releases,
        });
        ArrowSchema {
            format: private.format.as_ref().map_or(null(), |f| f.as_ptr()),
            name: private.name.as_ptr(),
            metadata: null(),
            flags: self.flags,
            n_children: private.children.len() as i64,
            children: private.children.as_mut_ptr(),
            dictionary: private.dictionary,
            release: Some(release_test_schema),
            private_data: Box::into_raw(private).cast(),
        }
    }
}

struct TestSchemaPrivate {
    format: Option<CString>,
    name: CString,
    children: Vec<*mut ArrowSchema>,
    dictionary: *mut ArrowSchema,
    releases: Option<Arc<AtomicUsize>>,
}

unsafe extern "C" fn release_test_schema(schema: *mut ArrowSchema) {
    unsafe {
        let private = Box::from_raw((*schema).private_data.cast::<TestSchemaPrivate>());
        for &child in private.children.iter().chain([&private.dictionary]) {
            if !child.is_null() {
                let mut child = Box::from_raw(child);
                if let Some(release) = child.release {
                    release(&mut *child);
                }
            }
        }
        if let Some(releases) = &private.releases {
            releases.fetch_add(1, Ordering::SeqCst);
        }
        (*schema).release = None;
    }
}

/// Calls a struct's release if it is still live.
pub fn release_array(array: &mut ArrowArray) {
    if let Some(release) = array.release {
        unsafe { release(array) };
    }
    assert!(array.release.is_none(), "release marks the struct released");
}

pub fn release_schema(schema: &mut ArrowSchema) {
    if let Some(release) = schema.release {
        unsafe { release(schema) };
    }
    assert!(
        schema.release.is_none(),
        "release marks the struct released"
    );
}
