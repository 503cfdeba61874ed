//! `isthmus_file_dictionary`: one column chunk's dictionary page, from bytes the
//! caller read, exported as an Arrow array of the column's type. Valid pages of
//! every physical type a dictionary can hold, in several codecs; damaged,
//! truncated and oversized input fails with the page's location and never
//! panics; every export is released exactly once.

mod support;

use std::ffi::CStr;
use std::mem::MaybeUninit;
use std::ptr::{null, null_mut};
use std::sync::Mutex;

use isthmus::parquet::*;
use isthmus_core::arrow::c_data::{ArrowArray, ArrowSchema};
use isthmus_core::compression::Codec;
use isthmus_core::error::Status;
use isthmus_core::parquet::metadata::{LogicalType, PhysicalType, Repetition};
use isthmus_core::test_support::parquet::writer::{
    write_file, Column, Options, PageHeader, SchemaElement, ValueEncoding, Values,
};
use isthmus_core::test_support::parquet::Rng;
use support::{error, message, open_footer, stats};

/// The Arrow counters are process-wide and tests run in parallel.
static COUNTERS: Mutex<()> = Mutex::new(());

fn counters() -> std::sync::MutexGuard<'static, ()> {
    COUNTERS
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

fn leaf(
    name: &str,
    id: i32,
    physical: PhysicalType,
    logical: Option<LogicalType>,
) -> SchemaElement {
    SchemaElement {
        physical_type: Some(physical),
        repetition: Some(Repetition::Optional),
        name: name.into(),
        field_id: Some(id),
        logical_type: logical,
        type_length: (physical == PhysicalType::FixedLenByteArray).then_some(3),
        ..SchemaElement::default()
    }
}

const ROWS: usize = 600;

/// One column of each physical type a dictionary holds (plus a string and a
/// PLAIN column), with nulls, 3 distinct values each, in 2 row groups.
fn file(codec: Codec, crc: bool, edit: Option<fn(usize, usize, &mut PageHeader)>) -> Vec<u8> {
    let schema = vec![
        SchemaElement {
            name: "table".into(),
            num_children: Some(8),
            ..SchemaElement::default()
        },
        leaf("i32", 1, PhysicalType::Int32, None),
        leaf("i64", 2, PhysicalType::Int64, None),
        leaf("i96", 3, PhysicalType::Int96, None),
        leaf("f32", 4, PhysicalType::Float, None),
        leaf("f64", 5, PhysicalType::Double, None),
        leaf("s", 6, PhysicalType::ByteArray, Some(LogicalType::String)),
        leaf("w3", 7, PhysicalType::FixedLenByteArray, None),
        leaf("plain", 8, PhysicalType::Int64, None),
    ];
    let valid: Vec<bool> = (0..ROWS).map(|i| i % 5 != 0).collect();
    let n = valid.iter().filter(|&&v| v).count();
    let pick = |i: usize| i % 3;
    let words = ["mango", "apple", "zebra"];
    let columns = [
        Values::I32((0..n).map(|i| [7, -1, 1 << 20][pick(i)]).collect()),
        Values::I64((0..n).map(|i| [1i64 << 40, -5, 0][pick(i)]).collect()),
        Values::I96(
            (0..n)
                .map(|i| {
                    let mut v = [0u8; 12];
                    v[..8].copy_from_slice(&(pick(i) as i64 * 1000).to_le_bytes());
                    v[8..].copy_from_slice(&(2_440_588 + pick(i) as u32).to_le_bytes());
                    v
                })
                .collect(),
        ),
        Values::F32((0..n).map(|i| [1.5f32, -0.0, f32::NAN][pick(i)]).collect()),
        Values::F64((0..n).map(|i| [2.25f64, 1e300, -3.0][pick(i)]).collect()),
        Values::Bytes((0..n).map(|i| words[pick(i)].as_bytes().to_vec()).collect()),
        Values::Fixed(3, (0..n).map(|i| vec![pick(i) as u8, 0xff, 9]).collect()),
        Values::I64((0..n as i64).collect()),
    ];
    let columns: Vec<Column> = columns
        .into_iter()
        .enumerate()
        .map(|(k, values)| {
            let column = Column::flat(1, values, &valid);
            if k < 7 {
                column.encoded(ValueEncoding::Dictionary)
            } else {
                column
            }
        })
        .collect();
    let options = Options {
        codec,
        rows_per_row_group: ROWS / 2,
        entries_per_page: 100,
        crc,
        edit_header: edit,
        ..Options::default()
    };
    write_file(&schema, &columns, &options).bytes
}

struct File {
    handle: *mut IsthmusFile,
}

impl File {
    fn open(bytes: &[u8]) -> File {
        File {
            handle: open_footer(bytes, c"dict.parquet"),
        }
    }

    fn chunk(&self, rg: u32, column: u32) -> IsthmusColumnChunkInfo {
        let mut out = MaybeUninit::<IsthmusColumnChunkInfo>::uninit();
        let mut e = error();
        assert_eq!(
            unsafe { isthmus_file_column_chunk(self.handle, rg, column, out.as_mut_ptr(), &mut e) },
            0
        );
        unsafe { out.assume_init() }
    }

    /// The bytes Java reads for the dictionary: [dictionary_page_offset, data_page_offset).
    fn dictionary_range(&self, rg: u32, column: u32) -> std::ops::Range<usize> {
        let chunk = self.chunk(rg, column);
        assert!(chunk.dictionary_page_offset >= 0);
        chunk.dictionary_page_offset as usize..chunk.data_page_offset as usize
    }

    /// Calls isthmus_file_dictionary; on success returns the array and schema.
    fn dictionary(
        &self,
        rg: u32,
        column: u32,
        bytes: &[u8],
    ) -> Result<(ArrowArray, ArrowSchema), (i32, String)> {
        let mut array = MaybeUninit::<ArrowArray>::zeroed();
        let mut schema = MaybeUninit::<ArrowSchema>::zeroed();
        let mut e = error();
        let status = unsafe {
            isthmus_file_dictionary(
                self.handle,
                rg,
                column,
                if bytes.is_empty() {
                    null()
                } else {
                    bytes.as_ptr()
                },
                bytes.len() as u64,
                array.as_mut_ptr(),
                schema.as_mut_ptr(),
                &mut e,
            )
        };
        if status != 0 {
            let (array, schema) = unsafe { (array.assume_init(), schema.assume_init()) };
            assert!(
                array.release.is_none() && schema.release.is_none(),
                "nothing written on error"
            );
            assert_eq!(e.code, status);
            return Err((status, message(&e)));
        }
        Ok(unsafe { (array.assume_init(), schema.assume_init()) })
    }
}

impl Drop for File {
    fn drop(&mut self) {
        unsafe { isthmus_file_close(self.handle) };
    }
}

fn format(schema: &ArrowSchema) -> String {
    unsafe { CStr::from_ptr(schema.format) }
        .to_str()
        .unwrap()
        .to_owned()
}

/// Buffer `i` of `array` as `len` values of `T`.
fn values<T: Copy>(array: &ArrowArray, i: usize, len: usize) -> Vec<T> {
    unsafe {
        let buffer = *array.buffers.add(i) as *const T;
        std::slice::from_raw_parts(buffer, len).to_vec()
    }
}

fn strings(array: &ArrowArray) -> Vec<String> {
    let offsets: Vec<i32> = values(array, 1, array.length as usize + 1);
    let data = unsafe { *array.buffers.add(2) } as *const u8;
    offsets
        .windows(2)
        .map(|w| {
            let bytes = unsafe {
                std::slice::from_raw_parts(data.add(w[0] as usize), (w[1] - w[0]) as usize)
            };
            String::from_utf8(bytes.to_vec()).unwrap()
        })
        .collect()
}

fn release(mut array: ArrowArray, mut schema: ArrowSchema) {
    unsafe {
        (array.release.unwrap())(&mut array);
        (schema.release.unwrap())(&mut schema);
    }
    assert!(array.release.is_none() && schema.release.is_none());
}

#[test]
fn every_physical_type_in_every_codec_decodes_to_the_columns_arrow_type() {
    let _lock = counters();
    let before = stats();
    for codec in [
        Codec::Uncompressed,
        Codec::Zstd,
        Codec::Snappy,
        Codec::Gzip,
        Codec::Lz4Raw,
    ] {
        let bytes = file(codec, true, None);
        let file = File::open(&bytes);
        for rg in 0..2 {
            let get = |column: u32| {
                let range = file.dictionary_range(rg, column);
                file.dictionary(rg, column, &bytes[range])
                    .unwrap_or_else(|(_, m)| panic!("{codec:?} column {column}: {m}"))
            };
            let (array, schema) = get(0);
            assert_eq!(
                (format(&schema), array.length, array.null_count),
                ("i".into(), 3, 0)
            );
            assert_eq!(values::<i32>(&array, 1, 3), [7, -1, 1 << 20]);
            let name = unsafe { CStr::from_ptr(schema.name) };
            assert_eq!(name.to_str().unwrap(), "i32");
            let metadata = unsafe { CStr::from_ptr(schema.metadata.add(8)) };
            assert!(metadata.to_bytes().starts_with(b"PARQUET:field_id"));
            release(array, schema);

            let (array, schema) = get(1);
            assert_eq!(format(&schema), "l");
            assert_eq!(values::<i64>(&array, 1, 3), [1 << 40, -5, 0]);
            release(array, schema);

            let (array, schema) = get(2);
            assert_eq!(format(&schema), "tsn:UTC");
            assert_eq!(
                values::<i64>(&array, 1, 3),
                [
                    0,
                    86_400_000_000_000 + 1000,
                    2 * (86_400_000_000_000 + 1000)
                ]
            );
            release(array, schema);

            let (array, schema) = get(3);
            assert_eq!(format(&schema), "f");
            let f: Vec<f32> = values(&array, 1, 3);
            assert_eq!(
                (f[0], f[1].to_bits(), f[2].is_nan()),
                (1.5, (-0.0f32).to_bits(), true)
            );
            release(array, schema);

            let (array, schema) = get(4);
            assert_eq!(format(&schema), "g");
            assert_eq!(values::<f64>(&array, 1, 3), [2.25, 1e300, -3.0]);
            release(array, schema);

            let (array, schema) = get(5);
            assert_eq!(format(&schema), "u");
            assert_eq!(strings(&array), ["mango", "apple", "zebra"]);
            release(array, schema);

            let (array, schema) = get(6);
            assert_eq!(format(&schema), "w:3");
            assert_eq!(
                values::<[u8; 3]>(&array, 1, 3),
                [[0, 0xff, 9], [1, 0xff, 9], [2, 0xff, 9]]
            );
            release(array, schema);
        }
    }
    let after = stats();
    assert_eq!(
        after.exported_live, before.exported_live,
        "every export released once"
    );
    assert_eq!(after.exported_bytes_live, before.exported_bytes_live);
    assert_eq!(after.exported_total, before.exported_total + 5 * 2 * 7);
}

#[test]
fn an_export_outlives_its_file_and_the_whole_chunk_may_be_given() {
    let _lock = counters();
    let before = stats();
    let bytes = file(Codec::Zstd, true, None);
    let file = File::open(&bytes);
    let chunk = file.chunk(1, 5);
    let start = chunk.dictionary_page_offset as usize;
    let whole = &bytes[start..start + chunk.compressed_size as usize];
    let (array, schema) = file.dictionary(1, 5, whole).unwrap();
    drop(file);
    assert_eq!(strings(&array), ["mango", "apple", "zebra"]);
    assert_eq!(stats().exported_live, before.exported_live + 1);
    release(array, schema);
    assert_eq!(stats().exported_live, before.exported_live);
}

#[test]
fn bad_arguments_are_refused() {
    let _lock = counters();
    let bytes = file(Codec::Zstd, true, None);
    let file = File::open(&bytes);
    let range = file.dictionary_range(0, 0);
    let invalid = Status::InvalidArgument as i32;

    let (status, m) = file.dictionary(0, 7, &bytes[range.clone()]).unwrap_err();
    assert_eq!(status, invalid);
    assert_eq!(
        m,
        "dict.parquet: row group 0, column 'plain': the column chunk has no dictionary page"
    );

    let chunk = file.chunk(0, 0);
    let start = chunk.dictionary_page_offset as usize;
    let oversized = &bytes[start..start + chunk.compressed_size as usize + 1];
    let (status, m) = file.dictionary(0, 0, oversized).unwrap_err();
    assert_eq!(status, invalid);
    assert!(
        m.ends_with(&format!(
            "column 'i32': {} bytes given for a column chunk of {} bytes",
            oversized.len(),
            chunk.compressed_size
        )),
        "{m}"
    );

    assert_eq!(
        file.dictionary(2, 0, &bytes[range.clone()]).unwrap_err().0,
        invalid
    );
    assert_eq!(
        file.dictionary(0, 8, &bytes[range.clone()]).unwrap_err().0,
        invalid
    );
    let mut e = error();
    let mut array = MaybeUninit::<ArrowArray>::zeroed();
    let mut schema = MaybeUninit::<ArrowSchema>::zeroed();
    let (array, schema) = (array.as_mut_ptr(), schema.as_mut_ptr());
    let cases = [
        ("no file", null(), null(), 0, array, schema),
        (
            "NULL bytes of length 5",
            file.handle.cast_const(),
            null(),
            5,
            array,
            schema,
        ),
        (
            "no out_array",
            file.handle.cast_const(),
            bytes.as_ptr(),
            4,
            null_mut(),
            schema,
        ),
        (
            "no out_schema",
            file.handle.cast_const(),
            bytes.as_ptr(),
            4,
            array,
            null_mut(),
        ),
    ];
    for (what, handle, data, length, out_array, out_schema) in cases {
        let status = unsafe {
            isthmus_file_dictionary(handle, 0, 0, data, length, out_array, out_schema, &mut e)
        };
        assert_eq!(status, invalid, "{what}");
    }
}

#[test]
fn damaged_pages_are_corrupt_and_name_their_location() {
    let _lock = counters();
    let before = stats();
    let corrupt = Status::CorruptData as i32;
    let bytes = file(Codec::Zstd, true, None);
    let file = File::open(&bytes);
    let range = file.dictionary_range(1, 5);
    let page = &bytes[range.clone()];

    // Truncated: the page's body runs past the bytes given.
    let (status, m) = file.dictionary(1, 5, &page[..page.len() - 1]).unwrap_err();
    assert_eq!(status, corrupt);
    assert!(
        m.starts_with("dict.parquet: row group 1, column 's', page 0: compressed_page_size"),
        "{m}"
    );
    let (status, m) = file.dictionary(1, 5, &[]).unwrap_err();
    assert_eq!(status, corrupt);
    assert!(
        m.starts_with("dict.parquet: row group 1, column 's', page 0: "),
        "{m}"
    );

    // A flipped body byte: the CRC says so.
    let mut flipped = page.to_vec();
    *flipped.last_mut().unwrap() ^= 0x10;
    let (status, m) = file.dictionary(1, 5, &flipped).unwrap_err();
    assert_eq!(status, corrupt);
    assert!(
        m.contains("column 's', page 0: page checksum mismatch"),
        "{m}"
    );

    // The first page is a data page (the bytes start at the wrong page).
    let chunk = file.chunk(1, 5);
    let data = chunk.data_page_offset as usize;
    let end = (chunk.byte_offset + chunk.compressed_size) as usize;
    let (status, m) = file.dictionary(1, 5, &bytes[data..end]).unwrap_err();
    assert_eq!(status, corrupt);
    assert!(
        m.contains("column 's', page 0: the column chunk's first page is a data page"),
        "{m}"
    );
    assert_eq!(stats().exported_live, before.exported_live);
}

fn more_values(_: usize, ordinal: usize, header: &mut PageHeader) {
    if let (0, Some(d)) = (ordinal, header.dictionary_page_header.as_mut()) {
        d.num_values = 1 << 30;
    }
}

fn huge_size(_: usize, ordinal: usize, header: &mut PageHeader) {
    if ordinal == 0 {
        header.uncompressed_page_size = i32::MAX;
    }
}

fn plain_bytes_damaged(_: usize, ordinal: usize, header: &mut PageHeader) {
    if ordinal == 0 {
        header.uncompressed_page_size += 1;
    }
}

#[test]
fn impossible_counts_and_sizes_are_refused_before_allocating() {
    let _lock = counters();
    let corrupt = Status::CorruptData as i32;
    for (edit, codec, expected) in [
        (
            more_values as fn(usize, usize, &mut _),
            Codec::Zstd,
            "cannot hold 1073741824",
        ),
        (
            huge_size,
            Codec::Zstd,
            "uncompressed_page_size 2147483647 is impossible",
        ),
        (
            plain_bytes_damaged,
            Codec::Uncompressed,
            "is impossible for",
        ),
        (plain_bytes_damaged, Codec::Snappy, "page 0: "),
    ] {
        let bytes = file(codec, true, Some(edit));
        let file = File::open(&bytes);
        for column in 0..7 {
            let range = file.dictionary_range(0, column);
            let (status, m) = file.dictionary(0, column, &bytes[range]).unwrap_err();
            assert_eq!(status, corrupt, "{m}");
            assert!(
                m.contains(expected) && m.contains("row group 0, column '"),
                "{m}"
            );
        }
    }
}

#[test]
fn random_damage_never_panics() {
    let _lock = counters();
    let before = stats();
    let mut rng = Rng::new(6);
    for (codec, crc) in [
        (Codec::Zstd, false),
        (Codec::Snappy, false),
        (Codec::Uncompressed, true),
    ] {
        let bytes = file(codec, crc, None);
        let file = File::open(&bytes);
        for column in 0..7 {
            let range = file.dictionary_range(0, column);
            let page = &bytes[range];
            for len in 0..page.len() {
                let status = file
                    .dictionary(0, column, &page[..len])
                    .map_or_else(|e| e.0, |_| 0);
                assert_eq!(status, Status::CorruptData as i32, "a truncated page");
            }
            for _ in 0..200 {
                let mut damaged = page.to_vec();
                for _ in 0..1 + rng.below(3) {
                    let at = rng.below(damaged.len());
                    damaged[at] = rng.next_u64() as u8;
                }
                match file.dictionary(0, column, &damaged) {
                    Ok((array, schema)) => release(array, schema),
                    Err((status, m)) => assert!(
                        status == Status::CorruptData as i32
                            || status == Status::Unsupported as i32,
                        "{m}"
                    ),
                }
            }
        }
    }
    assert_eq!(stats().exported_live, before.exported_live);
}
