//! Whole columns through the library's Rust API: 1,048,576 Nexmark-like bids
//! (ids, hot and cold auctions, prices, a channel of a few values, a URL,
//! microsecond event times) encoded into a Parquet file with Iceberg's
//! defaults (dictionaries, zstd 3, 1 MiB pages), once more uncompressed, and
//! that file scanned back into Arrow batches; and, uncompressed, three columns
//! of short dictionary strings alone and a struct of three fields (the values
//! of `NestedBenchmark`'s rows).
//! `cargo bench --bench column [-- NAME]`.

mod harness;

use harness::Bench;
use std::ops::Range;

use isthmus_core::arrow::{ArrayData, DataType, Field, TimeUnit};
use isthmus_core::test_support::parquet::scan::{for_each_batch, open, project, Mode};
use isthmus_core::test_support::rng::Rng;
use isthmus_core::test_support::write::{
    batch, options, primitive, strings, structure, write_file, write_into,
};

const ROWS: usize = 1 << 20;
/// Rows per batch, as the sink hands them over.
const BATCH_ROWS: usize = 8_192;

/// The schema and batches `chunk` builds, a batch for each run of `BATCH_ROWS` rows, each with
/// arrays of its own. (Slices of one long batch would have every batch validate the whole of its
/// children.)
fn batched(chunk: impl Fn(Range<usize>) -> (Field, ArrayData)) -> (Field, Vec<ArrayData>) {
    let (fields, batches): (Vec<_>, Vec<_>) = (0..ROWS)
        .step_by(BATCH_ROWS)
        .map(|start| chunk(start..(start + BATCH_ROWS).min(ROWS)))
        .unzip();
    (fields.into_iter().next().expect("ROWS > 0"), batches)
}

fn main() {
    let bench = Bench::from_args();
    let mut rng = Rng::new(3);
    let hot = |rng: &mut Rng, cold: usize| {
        if rng.below(100) < 90 {
            rng.below(100)
        } else {
            rng.below(cold)
        }
    };
    let ids: Vec<Option<i64>> = (0..ROWS as i64).map(Some).collect();
    let auctions: Vec<Option<i64>> = (0..ROWS)
        .map(|_| Some(hot(&mut rng, 120_000) as i64))
        .collect();
    let prices: Vec<Option<i64>> = (0..ROWS)
        .map(|_| Some(rng.below(10_000_000) as i64))
        .collect();
    let channels: Vec<Option<String>> = (0..ROWS)
        .map(|_| Some(["Google", "Facebook", "Baidu", "Apple"][rng.below(4)].to_owned()))
        .collect();
    let urls: Vec<Option<String>> = (0..ROWS)
        .map(|_| {
            Some(format!(
                "https://www.nexmark.com/{}/item.htm?query={}",
                rng.below(10_000),
                rng.below(1_000_000)
            ))
        })
        .collect();
    let mut at = 1_767_225_600_000_000i64;
    let times: Vec<Option<i64>> = (0..ROWS)
        .map(|_| {
            at += rng.below(200) as i64;
            Some(at)
        })
        .collect();
    let micros = DataType::Timestamp {
        unit: TimeUnit::Microsecond,
        timezone: None,
    };
    let (schema, batches) = batched(|rows| {
        batch(&[
            primitive("id", 1, DataType::Int64, false, &ids[rows.clone()]),
            primitive(
                "auction",
                2,
                DataType::Int64,
                false,
                &auctions[rows.clone()],
            ),
            primitive("price", 3, DataType::Int64, false, &prices[rows.clone()]),
            strings("channel", 4, true, &channels[rows.clone()]),
            strings("url", 5, true, &urls[rows.clone()]),
            primitive("dateTime", 6, micros.clone(), false, &times[rows]),
        ])
    });
    let defaults = || options(&[]);
    let (file, _) = write_file(&schema, &batches, defaults());
    // The file's buffer is reused, so that its growth is not timed.
    let mut out = Vec::new();
    bench.run("column/encode bids", 0, || {
        write_into(&schema, &batches, defaults(), &mut out).file_size
    });
    // The encoder's own work (dictionaries, statistics, page assembly), which
    // zstd's share hides in the case above.
    let uncompressed = || options(&[("write.parquet.compression-codec", "uncompressed")]);
    bench.run("column/encode bids uncompressed", 0, || {
        write_into(&schema, &batches, uncompressed(), &mut out).file_size
    });

    // Short dictionary strings alone, the values of nested Nexmark-like rows: item names of
    // 5,000 values, tags of seven, the channel of four.
    let items: Vec<Option<String>> = (0..ROWS)
        .map(|_| Some(format!("item-{}", rng.below(5_000))))
        .collect();
    let tags: Vec<Option<String>> = (0..ROWS)
        .map(|_| {
            Some(
                [
                    "new", "used", "rare", "signed", "boxed", "vintage", "bundle",
                ][rng.below(7)]
                .to_owned(),
            )
        })
        .collect();
    let (short_schema, short_batches) = batched(|rows| {
        batch(&[
            strings("item", 1, true, &items[rows.clone()]),
            strings("tag", 2, true, &tags[rows.clone()]),
            strings("channel", 3, true, &channels[rows]),
        ])
    });
    bench.run("column/encode short strings uncompressed", 0, || {
        write_into(&short_schema, &short_batches, uncompressed(), &mut out).file_size
    });

    // A struct of an auction's details as `NestedBenchmark`'s rows hold it (null in one row of
    // 20; a reserve in three of four), uncompressed: the struct's levels and its leaves.
    let present: Vec<bool> = (0..ROWS).map(|_| rng.below(20) != 0).collect();
    let categories: Vec<Option<i64>> = (0..ROWS).map(|_| Some(rng.below(10) as i64)).collect();
    let reserves: Vec<Option<i64>> = (0..ROWS)
        .map(|_| (rng.below(4) != 0).then(|| 100 + rng.below(1_000_000) as i64))
        .collect();
    let (nested_schema, nested_batches) = batched(|rows| {
        batch(&[structure(
            "details",
            1,
            true,
            &present[rows.clone()],
            vec![
                strings("itemName", 2, true, &items[rows.clone()]),
                primitive(
                    "category",
                    3,
                    DataType::Int64,
                    true,
                    &categories[rows.clone()],
                ),
                primitive("reserve", 4, DataType::Int64, true, &reserves[rows]),
            ],
        )])
    });
    bench.run("column/encode nested struct uncompressed", 0, || {
        write_into(&nested_schema, &nested_batches, uncompressed(), &mut out).file_size
    });

    let parquet = open(&file, "bids.parquet", Mode::Ranges).unwrap();
    bench.run("column/decode bids", 0, || {
        let mut rows = 0;
        for_each_batch(&parquet, &file, project(&[1, 2, 3, 4, 5, 6]), |_, batch| {
            rows += batch.len
        })
        .unwrap();
        rows
    });
    println!("(file of {} bytes, {ROWS} rows)", file.len());
}
