//! The Parquet C API as Java uses it: files opened by path or from footer
//! bytes, metadata with pointers into file-owned memory, scans that export
//! batches and ask for byte ranges, errors in the caller's struct, and every
//! exported batch released (the library's counters return to zero).

mod support;

use std::ffi::{CStr, CString};
use std::mem::MaybeUninit;
use std::ptr::{null, null_mut};
use std::sync::Mutex;

use isthmus::arrow_exchange::isthmus_arrow_checksum;
use isthmus::parquet::*;
use isthmus_core::arrow::c_data::{ArrowArray, ArrowSchema};
use isthmus_core::arrow::export_schema;
use isthmus_core::arrow::{DataType, Field};
use isthmus_core::error::Status;
use isthmus_core::parquet::metadata::{LogicalType, PhysicalType, Repetition};
use isthmus_core::test_support::parquet::scan::temp_path;
use isthmus_core::test_support::parquet::writer::{
    write_file, Column, Options, SchemaElement, ValueEncoding, Values,
};
use support::{error, message, open_footer, stats};

/// The counters are global; tests that check them run one at a time.
static COUNTERS: Mutex<()> = Mutex::new(());

/// The Arrow counters are process-wide and tests run in parallel: every test of this binary
/// exports batches, so each holds the lock while it runs, not only the one that reads them.
fn counters() -> std::sync::MutexGuard<'static, ()> {
    COUNTERS
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

fn file_bytes() -> Vec<u8> {
    let schema = vec![
        SchemaElement {
            name: "table".into(),
            num_children: Some(2),
            ..SchemaElement::default()
        },
        SchemaElement {
            physical_type: Some(PhysicalType::Int64),
            repetition: Some(Repetition::Optional),
            name: "price".into(),
            field_id: Some(3),
            ..SchemaElement::default()
        },
        SchemaElement {
            physical_type: Some(PhysicalType::ByteArray),
            repetition: Some(Repetition::Required),
            name: "channel".into(),
            field_id: Some(4),
            logical_type: Some(LogicalType::String),
            ..SchemaElement::default()
        },
    ];
    let rows = 1000;
    let valid: Vec<bool> = (0..rows).map(|i| i % 3 != 0).collect();
    let prices = Values::I64(
        (0..rows as i64)
            .filter(|i| i % 3 != 0)
            .map(|i| i * 100)
            .collect(),
    );
    let channels = Values::Bytes(
        (0..rows)
            .map(|i| ["Google", "Apple"][i % 2].as_bytes().to_vec())
            .collect(),
    );
    let columns = [
        Column::flat(1, prices, &valid),
        Column::flat(0, channels, &vec![true; rows]).encoded(ValueEncoding::Dictionary),
    ];
    let options = Options {
        rows_per_row_group: 400,
        entries_per_page: 150,
        ..Options::default()
    };
    write_file(&schema, &columns, &options).bytes
}

/// Runs a scan to its end through the C API, filling ranges from `bytes`;
/// returns the batches' row counts and checksums.
unsafe fn drain(scan: *mut IsthmusScan, bytes: &[u8]) -> Vec<(i64, u64)> {
    let mut schema = MaybeUninit::<ArrowSchema>::zeroed();
    let mut e = error();
    assert_eq!(
        unsafe { isthmus_scan_schema(scan, schema.as_mut_ptr(), &mut e) },
        0,
        "{}",
        message(&e)
    );
    let mut schema = unsafe { schema.assume_init() };
    let mut out = Vec::new();
    loop {
        let mut array = MaybeUninit::<ArrowArray>::zeroed();
        let mut state = -1;
        let status = unsafe { isthmus_scan_next(scan, array.as_mut_ptr(), &mut state, &mut e) };
        assert_eq!(status, 0, "{}", message(&e));
        match state {
            SCAN_STATE_END => break,
            SCAN_STATE_NEED_RANGES => {
                let mut count = 0u32;
                assert_eq!(
                    unsafe { isthmus_scan_ranges(scan, null_mut(), 0, &mut count, &mut e) },
                    0
                );
                assert!(count >= 1);
                let mut ranges = vec![
                    IsthmusRange {
                        offset: 0,
                        length: 0,
                        buffer: null_mut()
                    };
                    count as usize
                ];
                assert_eq!(
                    unsafe {
                        isthmus_scan_ranges(scan, ranges.as_mut_ptr(), count, &mut count, &mut e)
                    },
                    0
                );
                for r in &ranges {
                    let source = &bytes[r.offset as usize..(r.offset + r.length) as usize];
                    unsafe {
                        std::ptr::copy_nonoverlapping(source.as_ptr(), r.buffer, source.len())
                    };
                }
            }
            SCAN_STATE_BATCH => {
                let mut array = unsafe { array.assume_init() };
                let mut checksum = 0;
                assert_eq!(
                    unsafe { isthmus_arrow_checksum(&array, &schema, &mut checksum, &mut e) },
                    0,
                    "{}",
                    message(&e)
                );
                out.push((array.length, checksum));
                unsafe { (array.release.unwrap())(&mut array) };
            }
            other => panic!("state {other}"),
        }
    }
    unsafe { (schema.release.unwrap())(&mut schema) };
    out
}

/// The local file at `path` opened through the C API; the caller closes the handle.
fn open_local(path: &std::path::Path) -> *mut IsthmusFile {
    let c_path = CString::new(path.to_str().unwrap()).unwrap();
    let mut e = error();
    let mut file = null_mut();
    assert_eq!(
        unsafe { isthmus_file_open_path(c_path.as_ptr(), &mut file, &mut e) },
        0,
        "{}",
        message(&e)
    );
    file
}

fn options(ids: &[i32]) -> IsthmusScanOptions {
    IsthmusScanOptions {
        field_ids: ids.as_ptr(),
        expected_schema: null(),
        row_groups: null(),
        first_row: 0,
        num_field_ids: ids.len() as u32,
        num_row_groups: 0,
        batch_size: 256,
        flags: 0,
        max_page_size: 0,
        mapped_names: null(),
        mapped_names_length: 0,
        memory: std::ptr::null(),
    }
}

#[test]
fn path_and_footer_modes_decode_the_same_batches() {
    let _lock = counters();
    let before = stats();
    let bytes = file_bytes();
    let path = temp_path("ffi.parquet");
    std::fs::write(&path, &bytes).unwrap();
    let mut e = error();
    unsafe {
        let local = open_local(&path);
        let remote = open_footer(&bytes, c"s3://bucket/ffi.parquet");
        let ids = [4, 3];
        let mut results = Vec::new();
        for file in [local, remote] {
            let mut scan = null_mut();
            let mut o = options(&ids);
            o.flags = SCAN_FLAG_KEEP_DICTIONARIES;
            assert_eq!(
                isthmus_scan_open(file, &o, &mut scan, &mut e),
                0,
                "{}",
                message(&e)
            );
            // A scan outlives its file handle.
            isthmus_file_close(file);
            results.push(drain(scan, &bytes));
            isthmus_scan_close(scan);
        }
        assert_eq!(results[0], results[1]);
        let lengths: Vec<i64> = results[0].iter().map(|r| r.0).collect();
        assert_eq!(
            lengths,
            [256, 144, 256, 144, 200],
            "batches end at row groups"
        );
    }
    std::fs::remove_file(&path).unwrap();
    let after = stats();
    assert_eq!(
        after.exported_live, before.exported_live,
        "every batch released"
    );
    assert_eq!(after.exported_bytes_live, before.exported_bytes_live);
}

/// A hold keeps the memory of released batches mapped past the scan's close;
/// releasing it, last, frees everything.
#[test]
fn a_memory_hold_outlives_the_scan_and_its_batches() {
    let _lock = counters();
    let bytes = file_bytes();
    let before = isthmus_core::arrow::allocated_bytes();
    let mut e = error();
    unsafe {
        let file = open_footer(&bytes, c"hold.parquet");
        let mut scan = null_mut();
        assert_eq!(
            isthmus_scan_open(file, &options(&[4, 3]), &mut scan, &mut e),
            0
        );
        isthmus_file_close(file);
        let mut hold = null_mut();
        assert_eq!(
            isthmus_scan_hold_memory(scan, &mut hold, &mut e),
            0,
            "{}",
            message(&e)
        );
        assert!(!drain(scan, &bytes).is_empty());
        isthmus_scan_close(scan);
        assert!(
            isthmus_core::arrow::allocated_bytes() > before,
            "the released batches' buffers stay with the held pool"
        );
        isthmus_scan_memory_release(hold);
        isthmus_scan_memory_release(null_mut());
        assert_eq!(isthmus_core::arrow::allocated_bytes(), before);
        assert_ne!(isthmus_scan_hold_memory(null_mut(), &mut hold, &mut e), 0);
        assert!(message(&e).contains("scan"), "{}", message(&e));
    }
}

/// Scans opened with a hold on an earlier scan's pool take their memory from
/// it: once the first scan's batches are released, the next scans of the same
/// file allocate nothing more, decode the same batches, and the pool is freed
/// when the last of them lets it go.
#[test]
fn scans_sharing_a_pool_reuse_what_earlier_scans_gave_back() {
    let _lock = counters();
    let bytes = file_bytes();
    let path = temp_path("shared-pool.parquet");
    std::fs::write(&path, &bytes).unwrap();
    let before = isthmus_core::arrow::allocated_bytes();
    let mut e = error();
    unsafe {
        let file = open_local(&path);
        let ids = [4, 3];
        let mut first = null_mut();
        assert_eq!(
            isthmus_scan_open(file, &options(&ids), &mut first, &mut e),
            0
        );
        let mut hold = null_mut();
        assert_eq!(isthmus_scan_hold_memory(first, &mut hold, &mut e), 0);
        let expected = drain(first, &bytes);
        isthmus_scan_close(first);
        let pooled = isthmus_core::arrow::allocated_bytes();
        assert!(pooled > before, "the first scan's buffers stay in the pool");
        for _ in 0..3 {
            let mut shared = options(&ids);
            shared.memory = hold;
            let mut scan = null_mut();
            assert_eq!(
                isthmus_scan_open(file, &shared, &mut scan, &mut e),
                0,
                "{}",
                message(&e)
            );
            assert_eq!(drain(scan, &bytes), expected);
            assert_eq!(
                isthmus_core::arrow::allocated_bytes(),
                pooled,
                "a scan of the same shape allocates nothing more"
            );
            isthmus_scan_close(scan);
        }
        // A scan keeps the pool after the caller's hold is gone.
        let mut shared = options(&ids);
        shared.memory = hold;
        let mut last = null_mut();
        assert_eq!(isthmus_scan_open(file, &shared, &mut last, &mut e), 0);
        isthmus_scan_memory_release(hold);
        isthmus_file_close(file);
        assert_eq!(drain(last, &bytes), expected);
        assert_eq!(isthmus_core::arrow::allocated_bytes(), pooled);
        isthmus_scan_close(last);
        assert_eq!(
            isthmus_core::arrow::allocated_bytes(),
            before,
            "the last scan closed, the pool is freed"
        );
    }
    std::fs::remove_file(&path).unwrap();
}

#[test]
fn metadata_points_into_file_owned_memory() {
    let _lock = counters();
    let bytes = file_bytes();
    let path = temp_path("meta.parquet");
    std::fs::write(&path, &bytes).unwrap();
    let mut e = error();
    unsafe {
        let file = open_local(&path);
        let mut info = MaybeUninit::<IsthmusFileInfo>::uninit();
        assert_eq!(isthmus_file_get_info(file, info.as_mut_ptr(), &mut e), 0);
        let info = info.assume_init();
        assert_eq!(
            (
                info.num_rows,
                info.num_row_groups,
                info.num_columns,
                info.num_fields
            ),
            (1000, 3, 2, 2)
        );
        assert_eq!(info.file_size, bytes.len() as i64);

        let mut rg = MaybeUninit::<IsthmusRowGroupInfo>::uninit();
        assert_eq!(isthmus_file_row_group(file, 2, rg.as_mut_ptr(), &mut e), 0);
        let rg = rg.assume_init();
        assert_eq!((rg.num_rows, rg.first_row), (200, 800));
        assert!(rg.byte_offset > 4 && rg.byte_length > 0);
        assert_eq!(
            isthmus_file_row_group(file, 3, null_mut(), &mut e),
            Status::InvalidArgument.code()
        );

        let mut column = MaybeUninit::<IsthmusColumnInfo>::uninit();
        assert_eq!(isthmus_file_column(file, 1, column.as_mut_ptr(), &mut e), 0);
        let column = column.assume_init();
        assert_eq!(CStr::from_ptr(column.path).to_str().unwrap(), "channel");
        assert_eq!(CStr::from_ptr(column.arrow_format).to_str().unwrap(), "u");
        assert_eq!(
            (
                column.field_id,
                column.has_field_id,
                column.physical_type,
                column.logical_type
            ),
            (4, 1, 6, 1)
        );
        assert_eq!(
            (
                column.max_definition_level,
                column.repetition,
                column.converted_type
            ),
            (0, 0, -1)
        );

        let mut chunk = MaybeUninit::<IsthmusColumnChunkInfo>::uninit();
        assert_eq!(
            isthmus_file_column_chunk(file, 1, 0, chunk.as_mut_ptr(), &mut e),
            0
        );
        let chunk = chunk.assume_init();
        assert_eq!(chunk.num_values, 400);
        // Rows 400..800 with every third null: 133 nulls; min and max are the
        // first and last values the test writer saw.
        assert_eq!(chunk.null_count, 133);
        let min = std::slice::from_raw_parts(chunk.min_value, chunk.min_length as usize);
        let max = std::slice::from_raw_parts(chunk.max_value, chunk.max_length as usize);
        assert_eq!(i64::from_le_bytes(min.try_into().unwrap()), 40_000);
        assert_eq!(i64::from_le_bytes(max.try_into().unwrap()), 79_900);
        assert_eq!(
            (
                chunk.codec,
                chunk.dictionary_page_offset,
                chunk.all_dictionary
            ),
            (0, -1, 0)
        );
        assert_eq!(chunk.encodings, 1 << 0 | 1 << 3, "PLAIN and RLE");
        let mut dict = MaybeUninit::<IsthmusColumnChunkInfo>::uninit();
        assert_eq!(
            isthmus_file_column_chunk(file, 0, 1, dict.as_mut_ptr(), &mut e),
            0
        );
        let dict = dict.assume_init();
        assert_eq!(dict.all_dictionary, 1);
        assert_eq!(dict.dictionary_page_offset, dict.byte_offset);

        let mut schema = MaybeUninit::<ArrowSchema>::zeroed();
        assert_eq!(isthmus_file_schema(file, schema.as_mut_ptr(), &mut e), 0);
        let mut schema = schema.assume_init();
        let field = isthmus_core::arrow::read_schema(&schema).unwrap();
        assert_eq!(field.children[0].name, "price");
        let metadata = field.children[0].metadata.as_ref().unwrap();
        let expected = isthmus_core::arrow::encode_metadata(&[("PARQUET:field_id", b"3")]).unwrap();
        assert_eq!(metadata, &expected);
        (schema.release.unwrap())(&mut schema);
        isthmus_file_close(file);
    }
    std::fs::remove_file(&path).unwrap();
}

#[test]
fn options_and_errors_cross_the_boundary() {
    let _lock = counters();
    let bytes = file_bytes();
    let path = temp_path("errors.parquet");
    std::fs::write(&path, &bytes).unwrap();
    let mut e = error();
    unsafe {
        let missing = CString::new("/nonexistent/x.parquet").unwrap();
        let mut file = null_mut();
        assert_eq!(
            isthmus_file_open_path(missing.as_ptr(), &mut file, &mut e),
            Status::Io.code()
        );
        assert!(
            message(&e).starts_with("/nonexistent/x.parquet: cannot open: "),
            "{}",
            message(&e)
        );
        assert_eq!(
            isthmus_file_open_path(null(), &mut file, &mut e),
            Status::InvalidArgument.code()
        );
        assert_eq!(
            isthmus_footer_length(b"PAR1PAR1".as_ptr(), 7, 100, &mut 0, &mut e),
            Status::InvalidArgument.code()
        );
        assert_eq!(
            isthmus_footer_length(b"\0\0\0\0PARX".as_ptr(), 8, 100, &mut 0, &mut e),
            Status::CorruptData.code()
        );

        file = open_local(&path);
        // An expected schema (borrowed) types a missing id and renames a present one.
        let expected = Field::new("t", DataType::Struct, false).with_children(vec![
            Field::new("cost", DataType::Int64, true),
            Field::new("added", DataType::Boolean, true),
        ]);
        let mut c_expected = export_schema(&expected).unwrap();
        let ids = [3, 77];
        let mut o = options(&ids);
        o.expected_schema = &c_expected;
        o.first_row = 990;
        let mut scan = null_mut();
        assert_eq!(
            isthmus_scan_open(file, &o, &mut scan, &mut e),
            0,
            "{}",
            message(&e)
        );
        assert!(c_expected.release.is_some(), "borrowed, not released");
        (c_expected.release.unwrap())(&mut c_expected);
        let batches = drain(scan, &bytes);
        assert_eq!(batches.iter().map(|b| b.0).sum::<i64>(), 10);
        // Ranges are only pending after NEED_RANGES.
        let mut count = 0;
        assert_eq!(
            isthmus_scan_ranges(scan, null_mut(), 0, &mut count, &mut e),
            Status::InvalidArgument.code()
        );
        isthmus_scan_close(scan);

        o = options(&ids);
        assert_eq!(
            isthmus_scan_open(file, &o, &mut scan, &mut e),
            Status::InvalidArgument.code()
        );
        assert!(message(&e)
            .ends_with("field id 77 is not in the file, and no expected schema gives its type"));
        o.flags = 8;
        assert_eq!(
            isthmus_scan_open(file, &o, &mut scan, &mut e),
            Status::InvalidArgument.code()
        );
        assert_eq!(
            message(&e),
            format!("{}: unknown flags 0x8", path.display()),
            "misuse names the file too"
        );
        // A name mapping's lists must be whole, one per field id.
        for (names, why) in [
            (&b"a\0\0b"[..], "a name is not NUL-terminated"),
            (&b"a\0\0"[..], "1 lists of names for 2 field ids"),
            (
                &b"a\0\0\0b\0"[..],
                "the last list of names is not ended by an empty name",
            ),
            (&b"\xff\0\0\0"[..], "a name is not UTF-8"),
        ] {
            o = options(&ids);
            o.mapped_names = names.as_ptr();
            o.mapped_names_length = names.len() as u64;
            assert_eq!(
                isthmus_scan_open(file, &o, &mut scan, &mut e),
                Status::InvalidArgument.code()
            );
            assert!(
                message(&e).ends_with(&format!("mapped_names: {why}")),
                "{}",
                message(&e)
            );
        }
        o = options(&ids);
        o.mapped_names_length = 4;
        assert_eq!(
            isthmus_scan_open(file, &o, &mut scan, &mut e),
            Status::InvalidArgument.code(),
            "NULL names with a length"
        );
        let mut info = MaybeUninit::<IsthmusRowGroupInfo>::zeroed();
        assert_eq!(
            isthmus_file_row_group(file, 9, info.as_mut_ptr(), &mut e),
            Status::InvalidArgument.code()
        );
        assert_eq!(
            message(&e),
            format!(
                "{}: row group 9 is out of range (the file has 3)",
                path.display()
            )
        );
        o = options(&ids);
        o.num_field_ids = 3;
        o.field_ids = null();
        assert_eq!(
            isthmus_scan_open(file, &o, &mut scan, &mut e),
            Status::InvalidArgument.code()
        );
        assert_eq!(
            isthmus_scan_open(file, null(), &mut scan, &mut e),
            Status::InvalidArgument.code()
        );
        let rgs = [2u32, 0];
        o = options(&[3]);
        o.row_groups = rgs.as_ptr();
        o.num_row_groups = 2;
        o.flags = SCAN_FLAG_SKIP_CRC;
        assert_eq!(isthmus_scan_open(file, &o, &mut scan, &mut e), 0);
        let lengths: Vec<i64> = drain(scan, &bytes).iter().map(|b| b.0).collect();
        assert_eq!(lengths, [200, 256, 144]);
        let mut state = 0;
        let mut array = MaybeUninit::<ArrowArray>::zeroed();
        assert_eq!(
            isthmus_scan_next(scan, array.as_mut_ptr(), &mut state, &mut e),
            0
        );
        assert_eq!(state, SCAN_STATE_END, "stays at the end");
        assert_eq!(
            isthmus_scan_next(null_mut(), array.as_mut_ptr(), &mut state, &mut e),
            Status::InvalidArgument.code()
        );
        isthmus_scan_close(scan);

        // A page larger than the scan's limit is refused when it is reached.
        o = options(&[3]);
        o.max_page_size = 100;
        assert_eq!(isthmus_scan_open(file, &o, &mut scan, &mut e), 0);
        assert_eq!(
            isthmus_scan_next(scan, array.as_mut_ptr(), &mut state, &mut e),
            Status::CorruptData.code()
        );
        assert!(
            message(&e).contains("errors.parquet: row group 0, column 'price', page 0: ")
                && message(&e).ends_with(
                    " exceeds the scan's limit of 100 bytes per page (the max_page_size scan \
                     option)"
                ),
            "{}",
            message(&e)
        );
        isthmus_scan_close(scan);
        isthmus_scan_close(null_mut());
        isthmus_file_close(file);
        isthmus_file_close(null_mut());
    }
    std::fs::remove_file(&path).unwrap();
}
