//! The value and level encodings alone, over a million values each: RLE and
//! bit-packing (dictionary indices, definition levels), DELTA_BINARY_PACKED
//! (timestamps), PLAIN and DELTA_LENGTH_BYTE_ARRAY strings, BYTE_STREAM_SPLIT
//! doubles. `cargo bench --bench encodings [-- NAME]`.

mod harness;

use harness::Bench;
use isthmus_core::error::Result;
use isthmus_core::test_support::encodings::{
    encode_byte_stream_split_values, encode_plain_byte_array, ByteArraySink,
    ByteStreamSplitDecoder, DeltaBinaryPackedDecoder, DeltaBinaryPackedEncoder,
    DeltaLengthByteArrayDecoder, DeltaLengthByteArrayEncoder, PlainByteArrays, RleDecoder,
    RleEncoder,
};
use isthmus_core::test_support::rng::Rng;

const N: usize = 1 << 20;

/// Counts the bytes of the values it is handed, as a consumer that looks at each would.
struct CountingSink(usize);

impl ByteArraySink for CountingSink {
    fn push(&mut self, value: &[u8]) -> Result<()> {
        self.0 += value.len();
        Ok(())
    }
}

fn main() {
    let bench = Bench::from_args();
    let mut rng = Rng::new(7);

    // Dictionary indices of a 3,000-entry dictionary: 12 bits, no runs, so all bit-packed.
    let indices: Vec<u32> = (0..N).map(|_| rng.below(3_000) as u32).collect();
    let mut encoder = RleEncoder::new(12);
    encoder.put_slice(&indices);
    let packed = encoder.finish();
    bench.run("rle/encode 12-bit indices", N * 4, || {
        let mut encoder = RleEncoder::new(12);
        encoder.put_slice(&indices);
        encoder.finish()
    });
    let mut out = vec![0u32; N];
    bench.run("rle/decode 12-bit indices", N * 4, || {
        let mut decoder = RleDecoder::new(&packed, 12, N).unwrap();
        decoder.read(&mut out).unwrap()
    });

    // Definition levels of an optional column, nulls in runs of 1 to 16 among runs of values.
    let mut levels = Vec::with_capacity(N);
    while levels.len() < N {
        let value = u32::from(levels.len() % 3 != 0);
        let run = 1 + rng.below(16);
        levels.extend(std::iter::repeat_n(value, run.min(N - levels.len())));
    }
    let mut encoder = RleEncoder::new(1);
    encoder.put_slice(&levels);
    let level_bytes = encoder.finish();
    let mut level_out = vec![0i16; N];
    bench.run("rle/decode definition levels", N * 2, || {
        let mut decoder = RleDecoder::new(&level_bytes, 1, N).unwrap();
        decoder.read(&mut level_out).unwrap()
    });

    // Microsecond timestamps a few milliseconds apart, as event times are.
    let mut at = 1_767_225_600_000_000i64;
    let timestamps: Vec<i64> = (0..N)
        .map(|_| {
            at += rng.below(5_000) as i64;
            at
        })
        .collect();
    let mut delta = Vec::new();
    let mut encoder = DeltaBinaryPackedEncoder::<i64>::new();
    encoder.put(&timestamps);
    encoder.finish(&mut delta);
    bench.run("delta/encode i64 timestamps", N * 8, || {
        let mut encoder = DeltaBinaryPackedEncoder::<i64>::new();
        encoder.put(&timestamps);
        let mut bytes = Vec::with_capacity(delta.len());
        encoder.finish(&mut bytes);
        bytes
    });
    let mut decoded = vec![0i64; N];
    bench.run("delta/decode i64 timestamps", N * 8, || {
        let mut decoder = DeltaBinaryPackedDecoder::<i64>::new(&delta, N).unwrap();
        decoder.read(&mut decoded).unwrap()
    });

    // Strings of 5 to 40 bytes, as names and URLs are.
    let strings: Vec<Vec<u8>> = (0..N)
        .map(|_| {
            let len = 5 + rng.below(36);
            (0..len).map(|_| b'a' + rng.below(26) as u8).collect()
        })
        .collect();
    let string_bytes: usize = strings.iter().map(Vec::len).sum();
    let mut plain = Vec::new();
    for s in &strings {
        encode_plain_byte_array(s, &mut plain).unwrap();
    }
    bench.run("plain/decode strings", string_bytes, || {
        let mut sink = CountingSink(0);
        PlainByteArrays::new(&plain, N)
            .read_into(N, &mut sink)
            .unwrap();
        sink.0
    });
    let mut encoder = DeltaLengthByteArrayEncoder::default();
    for s in &strings {
        encoder.put(s).unwrap();
    }
    let mut delta_lengths = Vec::new();
    encoder.finish(&mut delta_lengths);
    bench.run("delta-length/decode strings", string_bytes, || {
        let mut sink = CountingSink(0);
        DeltaLengthByteArrayDecoder::new(&delta_lengths, N)
            .unwrap()
            .read(N, &mut sink)
            .unwrap();
        sink.0
    });

    // Doubles, as prices are.
    let doubles: Vec<f64> = (0..N)
        .map(|_| rng.below(1_000_000) as f64 / 100.0)
        .collect();
    let mut split = Vec::new();
    encode_byte_stream_split_values(&doubles, &mut split);
    let mut doubles_out = vec![0f64; N];
    bench.run("byte-stream-split/decode doubles", N * 8, || {
        let mut decoder = ByteStreamSplitDecoder::new(&split, 8, N).unwrap();
        decoder.read(&mut doubles_out).unwrap()
    });
}
