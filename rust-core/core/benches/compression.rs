//! Page compression and decompression per codec, on a 1 MiB page of
//! text-like values (the default page size), at the levels Iceberg's writer
//! uses (zstd 3, gzip 6). `cargo bench --bench compression [-- NAME]`.

mod harness;

use harness::Bench;
use isthmus_core::compression::Codec;
use isthmus_core::test_support::rng::Rng;

const PAGE: usize = 1 << 20;

/// Words and numbers from a small vocabulary: compresses 3-5x with the fast codecs.
fn page(rng: &mut Rng) -> Vec<u8> {
    const WORDS: [&str; 12] = [
        "auction",
        "bid",
        "person",
        "channel-",
        "http://www.nexmark.com/",
        "item",
        "seller",
        "zip",
        "price",
        "category",
        "reserve",
        "expires",
    ];
    let mut page = Vec::with_capacity(PAGE + 64);
    while page.len() < PAGE {
        page.extend_from_slice(WORDS[rng.below(WORDS.len())].as_bytes());
        page.extend_from_slice(rng.below(100_000).to_string().as_bytes());
    }
    page.truncate(PAGE);
    page
}

fn main() {
    let bench = Bench::from_args();
    let input = page(&mut Rng::new(11));
    for (codec, level) in [
        (Codec::Zstd, 3),
        (Codec::Snappy, 0),
        (Codec::Lz4Raw, 0),
        (Codec::Gzip, 6),
    ] {
        let mut compressed = vec![0u8; codec.max_compressed_len(PAGE).unwrap()];
        let len = codec.compress(level, &input, &mut compressed).unwrap();
        compressed.truncate(len);
        let mut scratch = vec![0u8; codec.max_compressed_len(PAGE).unwrap()];
        bench.run(&format!("{codec:?}/compress 1 MiB"), PAGE, || {
            codec.compress(level, &input, &mut scratch).unwrap()
        });
        let mut output = vec![0u8; PAGE];
        bench.run(&format!("{codec:?}/decompress 1 MiB"), PAGE, || {
            codec.decompress(&compressed, &mut output).unwrap()
        });
    }
}
