//! A damaged page header cannot make a scan allocate what the page's bytes
//! cannot hold: the scan fails naming the page, and its peak memory stays
//! that of a scan of the intact file. Measured with a counting global
//! allocator, so this binary holds one test (tests run on parallel threads).

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

use isthmus_core::compression::Codec;
use isthmus_core::error::{Error, Status};
use isthmus_core::parquet::metadata::{PhysicalType, Repetition};
use isthmus_core::test_support::parquet::scan::{self, project, Mode};
use isthmus_core::test_support::parquet::writer::{
    write_file, Column, Options, PageHeader, SchemaElement, Values,
};
use isthmus_core::test_support::parquet::Rng;

struct Counting;

static CURRENT: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

fn grew(bytes: usize) {
    let now = CURRENT.fetch_add(bytes, Ordering::Relaxed) + bytes;
    PEAK.fetch_max(now, Ordering::Relaxed);
}

// SAFETY: every call is forwarded to the system allocator unchanged.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let ptr = unsafe { System.alloc(layout) };
        if !ptr.is_null() {
            grew(layout.size());
        }
        ptr
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let ptr = unsafe { System.alloc_zeroed(layout) };
        if !ptr.is_null() {
            grew(layout.size());
        }
        ptr
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) };
        CURRENT.fetch_sub(layout.size(), Ordering::Relaxed);
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let new = unsafe { System.realloc(ptr, layout, new_size) };
        if !new.is_null() {
            CURRENT.fetch_sub(layout.size(), Ordering::Relaxed);
            grew(new_size);
        }
        new
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// The most the scan of `bytes` had allocated at once beyond what was live
/// before it, and its result.
fn peak_of_scan(bytes: &[u8], mode: Mode) -> (usize, Result<usize, Error>) {
    let base = CURRENT.load(Ordering::Relaxed);
    PEAK.store(base, Ordering::Relaxed);
    let result = scan::rows(bytes, project(&[1]), mode).map(|rows| rows.len());
    (PEAK.load(Ordering::Relaxed) - base, result)
}

const ROWS: usize = 20_000;

/// One required INT64 column of random values in pages of 10,000 (80 KB of
/// incompressible bytes each, so a ratio-based bound would allow 2 GiB).
fn file(codec: Codec, edit: Option<fn(usize, usize, &mut PageHeader)>) -> Vec<u8> {
    let mut rng = Rng::new(3);
    let values: Vec<i64> = (0..ROWS).map(|_| rng.next_u64() as i64).collect();
    let schema = [
        SchemaElement {
            name: "table".into(),
            num_children: Some(1),
            ..SchemaElement::default()
        },
        SchemaElement {
            physical_type: Some(PhysicalType::Int64),
            repetition: Some(Repetition::Required),
            name: "v".into(),
            field_id: Some(1),
            ..SchemaElement::default()
        },
    ];
    let column = Column::flat(0, Values::I64(values), &[]);
    let options = Options {
        codec,
        entries_per_page: 10_000,
        edit_header: edit,
        ..Options::default()
    };
    write_file(&schema, &[column], &options).bytes
}

fn claims_2_gib(_column: usize, ordinal: usize, header: &mut PageHeader) {
    if ordinal == 1 {
        header.uncompressed_page_size = i32::MAX;
    }
}

const SLACK: usize = 64 << 20;

#[test]
fn pages_claiming_2_gib_fail_without_allocating_it() {
    for codec in [
        Codec::Zstd,
        Codec::Snappy,
        Codec::Gzip,
        Codec::Lz4Raw,
        Codec::Brotli,
    ] {
        for mode in [Mode::Ranges, Mode::Local] {
            let (normal, result) = peak_of_scan(&file(codec, None), mode);
            assert_eq!(result.unwrap(), ROWS, "{codec}");
            let (damaged, result) = peak_of_scan(&file(codec, Some(claims_2_gib)), mode);
            let err = result.unwrap_err();
            assert!(
                damaged <= normal + SLACK,
                "{codec} {mode:?}: the damaged scan peaked at {damaged} bytes, the intact one at \
                 {normal}"
            );
            assert!(
                err.message()
                    .contains("test.parquet: row group 0, column 'v', page 1: "),
                "{codec}: {err}"
            );
            assert_eq!(err.status(), Status::CorruptData, "{codec}: {err}");
            // Brotli's framing bounds nothing: the scan's page limit refuses it.
            if codec == Codec::Brotli {
                assert!(
                    err.message().ends_with(
                        "uncompressed_page_size 2147483647 exceeds the scan's limit of 268435456 \
                         bytes per page (the max_page_size scan option)"
                    ),
                    "{err}"
                );
            } else {
                assert!(
                    err.message()
                        .contains("uncompressed_page_size 2147483647 is impossible for "),
                    "{codec}: {err}"
                );
            }
        }
    }
}
