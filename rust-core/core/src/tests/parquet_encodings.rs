//! Value and level encodings: spec examples, encode/decode round trips over
//! many lengths and bit widths, extreme values, and damaged input.

use crate::error::{Error, Result, Status};
use crate::parquet::encodings::byte_stream_split::ByteStreamSplitDecoder;
use crate::parquet::encodings::delta::{
    DeltaBinaryPackedDecoder, DeltaBinaryPackedEncoder, DeltaByteArrayDecoder,
    DeltaByteArrayEncoder, DeltaInt, DeltaLengthByteArrayDecoder, DeltaLengthByteArrayEncoder,
};
use crate::parquet::encodings::levels::LevelDecoder;
use crate::parquet::encodings::plain::{
    PlainBooleanDecoder, PlainBooleanEncoder, PlainDecoder, INT96_WIDTH,
};
use crate::parquet::encodings::rle::{
    encode_dictionary_indices, encode_rle_booleans, RleDecoder, RleEncoder,
};
use crate::parquet::encodings::{split_length_prefixed, ByteArraySink, FixedWidth};
use crate::parquet::format::Encoding;
use crate::parquet::read::column::plain_bytes::PlainByteArrays;
use crate::test_support::encodings::{
    encode_byte_stream_split, encode_byte_stream_split_values, encode_levels_v1, encode_levels_v2,
    encode_plain, encode_plain_byte_array, encode_plain_fixed_len,
};
use crate::test_support::parquet::{fuzz, Rng};

const LENGTHS: [usize; 10] = [0, 1, 7, 8, 9, 127, 128, 129, 1000, 100_000];
/// Batch sizes that straddle the 8/32-value groups of the decoders.
const BATCHES: [usize; 5] = [1, 7, 32, 33, 4096];

fn expect_corrupt<T: std::fmt::Debug>(result: Result<T>, needle: &str) {
    let error = result.expect_err("expected CORRUPT_DATA");
    assert_eq!(error.status(), Status::CorruptData, "{error}");
    assert!(
        error.message().contains(needle),
        "'{needle}' not in: {error}"
    );
}

// ---------------------------------------------------------------------------
// RLE / bit-packing hybrid

fn rle_encode(values: &[u32], bit_width: u8) -> Vec<u8> {
    let mut encoder = RleEncoder::new(bit_width);
    encoder.put_all(values.iter().copied());
    encoder.finish()
}

fn rle_decode(data: &[u8], bit_width: u8, n: usize, batch: usize) -> Result<Vec<u32>> {
    let mut decoder = RleDecoder::new(data, bit_width, n)?;
    let mut out = vec![0u32; n];
    let mut done = 0;
    while done < n {
        let end = (done + batch).min(n);
        let got = decoder.read(&mut out[done..end])?;
        assert_eq!(got, end - done);
        done = end;
    }
    assert_eq!(decoder.read(&mut [0u32; 4])?, 0);
    Ok(out)
}

#[test]
fn rle_spec_examples() {
    // Encodings.md: 0..=7 at bit width 3, bit-packed LSB-first.
    let packed = [0x03, 0x88, 0xc6, 0xfa];
    let values: Vec<u32> = (0..8).collect();
    assert_eq!(rle_decode(&packed, 3, 8, 8).unwrap(), values);
    assert_eq!(rle_encode(&values, 3), packed);
    // The same values in the deprecated BIT_PACKED level encoding, MSB-first.
    let msb = [0x05, 0x39, 0x77, 0xEE];
    let (mut levels, consumed) = LevelDecoder::v1(Encoding::BitPacked, 7, 8, &msb).unwrap();
    assert_eq!(consumed, 3);
    let mut out = [0i16; 8];
    assert_eq!(levels.read(&mut out).unwrap(), 8);
    assert_eq!(out, [0, 1, 2, 3, 4, 5, 6, 7]);
    // An RLE run: 100 copies of 4 at width 3 is header 200 (ULEB 0xc8 0x01)
    // and one value byte.
    let run = [0xc8, 0x01, 0x04];
    assert_eq!(rle_decode(&run, 3, 100, 33).unwrap(), vec![4; 100]);
    assert_eq!(rle_encode(&[4; 100], 3), run);
    // Values wider than a byte take ceil(width / 8) little-endian bytes.
    assert_eq!(rle_encode(&[0x12345; 9], 17), [0x12, 0x45, 0x23, 0x01]);
    assert_eq!(
        rle_decode(&[0x12, 0x45, 0x23, 0x01], 17, 9, 4).unwrap(),
        vec![0x12345; 9]
    );
}

#[test]
fn rle_encoder_matches_parquet_java_layout() {
    // Ten 1s: a group of eight equal values starts an RLE run, which ends at
    // the first 0; then a group of eight distinct values is bit-packed.
    let mut values = vec![1u32; 10];
    values.extend(0..8);
    assert_eq!(rle_encode(&values, 3), [0x14, 0x01, 0x03, 0x88, 0xc6, 0xfa]);
    // A short tail of equal values becomes an RLE run rather than a padded
    // group; a mixed tail is padded with zeros.
    assert_eq!(rle_encode(&[5, 5, 5], 3), [0x06, 0x05]);
    assert_eq!(rle_encode(&[1, 2], 3), [0x03, 0x11, 0x00, 0x00]);
    assert_eq!(rle_encode(&[], 3), [] as [u8; 0]);
    // Bit-packed runs stop at 63 groups so that the header stays one byte.
    let distinct: Vec<u32> = (0..64 * 8).map(|i| i % 2).collect();
    let bytes = rle_encode(&distinct, 1);
    assert_eq!(bytes[0], (63 << 1) | 1);
    assert_eq!(bytes[64], (1 << 1) | 1);
    assert_eq!(bytes.len(), 66);
}

fn patterns(n: usize, bit_width: u8, rng: &mut Rng) -> Vec<Vec<u32>> {
    let max = if bit_width == 0 {
        0
    } else {
        u32::MAX >> (32 - bit_width)
    };
    let random: Vec<u32> = (0..n).map(|_| rng.next_u64() as u32 & max).collect();
    // Runs of random length (1..=40) of random values, so RLE and bit-packed
    // runs alternate at every alignment.
    let mut runs = Vec::with_capacity(n);
    while runs.len() < n {
        let value = rng.next_u64() as u32 & max;
        let len = 1 + rng.below(40);
        runs.extend(std::iter::repeat_n(value, len.min(n - runs.len())));
    }
    let extremes: Vec<u32> = (0..n).map(|i| if i % 3 == 0 { max } else { 0 }).collect();
    vec![random, runs, extremes]
}

#[test]
fn rle_round_trips_all_widths_and_lengths() {
    let mut rng = Rng::new(1);
    for bit_width in 0..=32u8 {
        for &n in &LENGTHS {
            // The largest length only at a few widths, to keep debug runs fast.
            if n == 100_000 && ![0, 1, 3, 8, 17, 32].contains(&bit_width) {
                continue;
            }
            for (p, values) in patterns(n, bit_width, &mut rng).iter().enumerate() {
                let bytes = rle_encode(values, bit_width);
                let batch = BATCHES[(bit_width as usize + p) % BATCHES.len()];
                let decoded = rle_decode(&bytes, bit_width, n, batch).unwrap();
                assert!(decoded == *values, "width {bit_width} n {n} pattern {p}");
            }
        }
    }
}

/// Decodes indices and looks each up in `dictionary`, as a reader of a
/// dictionary-encoded page does (the library's own gathers straight into Arrow
/// buffers, in `parquet::read::column`).
fn read_with_dictionary<T: Copy>(
    decoder: &mut RleDecoder<'_>,
    dictionary: &[T],
    out: &mut [T],
) -> Result<usize> {
    let mut indices = vec![0u32; out.len()];
    let n = decoder.read(&mut indices)?;
    for (slot, &index) in out.iter_mut().zip(&indices[..n]) {
        *slot = *dictionary.get(index as usize).ok_or_else(|| {
            Error::corrupt_data(format!(
                "dictionary index {index} is out of range for a dictionary of {} entries",
                dictionary.len()
            ))
        })?;
    }
    Ok(n)
}

#[test]
fn rle_into_other_types_and_through_a_dictionary() {
    let values: Vec<u32> = (0..300).map(|i| (i / 7) % 5).collect();
    let bytes = rle_encode(&values, 3);
    let mut decoder = RleDecoder::new(&bytes, 3, values.len()).unwrap();
    let mut levels = vec![0i16; 300];
    assert_eq!(decoder.read(&mut levels).unwrap(), 300);
    assert!(levels.iter().zip(&values).all(|(&l, &v)| l as u32 == v));

    let dictionary = [10.5f64, 20.5, 30.5, 40.5, 50.5];
    let mut decoder = RleDecoder::new(&bytes, 3, values.len()).unwrap();
    let mut out = vec![0f64; 300];
    let mut done = 0;
    while done < 300 {
        done += read_with_dictionary(
            &mut decoder,
            &dictionary,
            &mut out[done..(done + 45).min(300)],
        )
        .unwrap();
    }
    assert!(out
        .iter()
        .zip(&values)
        .all(|(&o, &v)| o == dictionary[v as usize]));

    // An index past the end of the dictionary, in an RLE run and in a
    // bit-packed run.
    let mut decoder = RleDecoder::new(&bytes, 3, values.len()).unwrap();
    expect_corrupt(
        read_with_dictionary(&mut decoder, &dictionary[..2], &mut out),
        "dictionary index 2 is out of range",
    );
    let packed = rle_encode(&[0, 1, 2, 3, 4, 5, 6, 7], 3);
    let mut decoder = RleDecoder::new(&packed, 3, 8).unwrap();
    expect_corrupt(
        read_with_dictionary(&mut decoder, &dictionary, &mut out[..8]),
        "index 5",
    );
}

#[test]
fn dictionary_index_framing() {
    let indices: Vec<u32> = (0..1000).map(|i| (i * 7 % 300) as u32).collect();
    let mut page = Vec::new();
    encode_dictionary_indices(&indices, 300, &mut page).unwrap();
    assert_eq!(page[0], 9, "300 entries need 9 bits");
    let mut decoder = RleDecoder::dictionary_indices(&page, indices.len()).unwrap();
    let mut out = vec![0u32; indices.len()];
    assert_eq!(decoder.read(&mut out).unwrap(), indices.len());
    assert_eq!(out, indices);
    // A single-entry dictionary needs width 0: the runs carry no value bytes.
    let mut page = Vec::new();
    encode_dictionary_indices(&[0; 50], 1, &mut page).unwrap();
    assert_eq!(page, [0, 100]);
    let mut decoder = RleDecoder::dictionary_indices(&page, 50).unwrap();
    assert_eq!(
        read_with_dictionary(&mut decoder, &["only"], &mut [""; 50]).unwrap(),
        50
    );
    // Writers may not encode an index outside the dictionary.
    let error = encode_dictionary_indices(&[3], 3, &mut Vec::new()).unwrap_err();
    assert_eq!(error.status(), Status::InvalidArgument);
    // A page of nulls only may have no index bytes at all.
    assert_eq!(
        RleDecoder::dictionary_indices(&[], 0).unwrap().remaining(),
        0
    );
    expect_corrupt(
        RleDecoder::dictionary_indices(&[], 1).map(drop),
        "are empty",
    );
    expect_corrupt(
        RleDecoder::dictionary_indices(&[33, 0], 1).map(drop),
        "bit width 33",
    );
}

#[test]
fn rle_boolean_framing() {
    let values: Vec<bool> = (0..1000)
        .map(|i| i % 3 == 0 || (200..400).contains(&i))
        .collect();
    let mut data = Vec::new();
    encode_rle_booleans(&values, &mut data).unwrap();
    let len = u32::from_le_bytes(data[..4].try_into().unwrap()) as usize;
    assert_eq!(len + 4, data.len());
    data.extend_from_slice(b"next");
    let (mut decoder, consumed) = RleDecoder::booleans(&data, values.len()).unwrap();
    assert_eq!(consumed, len + 4);
    let mut out = vec![false; values.len()];
    assert_eq!(decoder.read(&mut out).unwrap(), values.len());
    assert_eq!(out, values);
    expect_corrupt(
        RleDecoder::booleans(&[1, 0], 1).map(drop),
        "4-byte length prefix",
    );
    expect_corrupt(
        RleDecoder::booleans(&[9, 0, 0, 0, 1], 1).map(drop),
        "length prefix 9 exceeds the 1 bytes",
    );
}

/// A bit-packed run may declare more values than are left: DuckDB pads its last
/// run of levels to its vector size (2048 values). Like parquet-java and
/// arrow-rs, the decoder reads what it needs and ignores the rest.
#[test]
fn rle_bit_packed_run_longer_than_the_values_left_is_read_in_part() {
    // 16 values declared (two groups), 5 wanted: 1,0,1,1,0 then padding.
    assert_eq!(
        rle_decode(&[5, 0b1100_1101, 0xff], 1, 5, 64).unwrap(),
        [1, 0, 1, 1, 0]
    );
    // 256 values of 2 bits declared, 236 wanted, after an RLE run of 8.
    let mut data = vec![16, 3, 32 << 1 | 1];
    data.extend((0..64).map(|i| (i % 256) as u8));
    let values = rle_decode(&data, 2, 8 + 236, 100).unwrap();
    assert_eq!(&values[..8], &[3; 8]);
    for (i, v) in values[8..].iter().enumerate() {
        assert_eq!(
            *v,
            u32::from((i / 4) as u8) >> (2 * (i % 4)) & 3,
            "value {i}"
        );
    }
    // Bytes short of what is wanted are still an error.
    expect_corrupt(rle_decode(&[5, 0], 1, 9, 64), "ends after 8 of the values");
}

#[test]
fn rle_rejects_malformed_runs() {
    let read = |data: &[u8], width: u8, n: usize| rle_decode(data, width, n, 64);
    expect_corrupt(RleDecoder::new(&[], 33, 1).map(drop), "bit width 33");
    // RLE run longer than the values left.
    expect_corrupt(
        read(&[20, 1], 1, 5),
        "RLE run of 10 values at byte 0 exceeds the 5 values left",
    );
    // RLE value that does not fit the width.
    expect_corrupt(read(&[2, 9], 3, 1), "RLE value 9 at byte 0 does not fit");
    // Truncated RLE value, missing runs, over-long header.
    expect_corrupt(read(&[2, 0x34], 9, 1), "is truncated");
    expect_corrupt(read(&[4, 1], 1, 5), "ends after 2 of the values");
    expect_corrupt(
        read(&[0xff, 0xff, 0xff, 0xff, 0x7f], 1, 5),
        "exceeds 32 bits",
    );
    // Zero-length runs are tolerated.
    assert_eq!(read(&[0, 1, 1, 6, 1], 1, 3).unwrap(), [1, 1, 1]);
}

#[test]
fn rle_tolerates_a_truncated_final_bit_packed_run() {
    // One group of eight 8-bit values with its last three bytes missing, as
    // some writers leave the padding of the final group out: the five values
    // present decode; asking for more is an error.
    let full = [0x03, 1, 2, 3, 4, 5, 6, 7, 8];
    assert_eq!(rle_decode(&full[..6], 8, 5, 2).unwrap(), [1, 2, 3, 4, 5]);
    expect_corrupt(rle_decode(&full[..6], 8, 6, 2), "ends after");
    // Padding of the last group: 5 values from a whole group.
    assert_eq!(rle_decode(&full, 8, 5, 32).unwrap(), [1, 2, 3, 4, 5]);
}

#[test]
fn damaged_rle_never_panics() {
    let mut rng = Rng::new(3);
    for (i, width) in [1u8, 3, 8, 13, 32].into_iter().enumerate() {
        let values = &patterns(300, width, &mut rng)[1];
        let bytes = rle_encode(values, width);
        let mut dictionary_page = vec![width];
        dictionary_page.extend_from_slice(&bytes);
        let dictionary: Vec<u64> = (0..1000).collect();
        fuzz(&bytes, 1500, i as u64, |data| {
            rle_decode(data, width, 300, 29).map(drop)
        });
        fuzz(&dictionary_page, 1000, 100 + i as u64, |data| {
            let mut decoder = RleDecoder::dictionary_indices(data, 300)?;
            read_with_dictionary(&mut decoder, &dictionary, &mut [0u64; 300]).map(drop)
        });
    }
}

// ---------------------------------------------------------------------------
// Levels

fn read_levels(mut decoder: LevelDecoder<'_>, n: usize) -> Result<Vec<i16>> {
    let mut out = vec![-1i16; n];
    let mut done = 0;
    while done < n {
        let end = (done + 50).min(n);
        done += decoder.read(&mut out[done..end])?;
    }
    assert_eq!(decoder.read(&mut [0; 3])?, 0);
    Ok(out)
}

#[test]
fn level_framing_v1_and_v2() {
    let mut rng = Rng::new(5);
    for max_level in [0i16, 1, 2, 3, 7, 100] {
        for &n in &LENGTHS[..9] {
            let levels: Vec<i16> = (0..n)
                .map(|_| rng.below(max_level as usize + 1) as i16)
                .collect();
            // v1: [def levels with a 4-byte length][values...]
            let mut page = Vec::new();
            encode_levels_v1(&levels, max_level, &mut page).unwrap();
            let section = page.len();
            page.extend_from_slice(b"VALUES");
            let (decoder, consumed) = LevelDecoder::v1(Encoding::Rle, max_level, n, &page).unwrap();
            assert_eq!(consumed, section);
            if max_level == 0 {
                assert_eq!(section, 0, "no level section for max level 0");
            } else {
                let (runs, len) = split_length_prefixed(&page, "levels").unwrap();
                assert_eq!((len, runs.len() + 4), (section, section));
            }
            assert_eq!(read_levels(decoder, n).unwrap(), levels);
            // v2: the runs only, length reported for the header.
            let mut v2 = Vec::new();
            let len = encode_levels_v2(&levels, max_level, &mut v2).unwrap();
            assert_eq!(len, v2.len());
            assert_eq!(
                read_levels(LevelDecoder::v2(max_level, n, &v2).unwrap(), n).unwrap(),
                levels
            );
            if max_level > 0 {
                assert_eq!(&page[4..section], &v2[..], "v1 = length + v2 runs");
            }
        }
    }
}

#[test]
fn levels_are_checked_against_the_maximum() {
    // Max level 2 needs width 2, which can also hold 3.
    let runs = rle_encode(&[0, 1, 2, 3, 2], 2);
    let error = read_levels(LevelDecoder::v2(2, 5, &runs).unwrap(), 5).unwrap_err();
    assert!(
        error
            .message()
            .contains("level 3 exceeds the column's maximum level 2"),
        "{error}"
    );
    // Writers may not pass out-of-range levels either.
    assert_eq!(
        encode_levels_v1(&[0, 3], 2, &mut Vec::new())
            .unwrap_err()
            .status(),
        Status::InvalidArgument
    );
    assert_eq!(
        encode_levels_v2(&[-1], 2, &mut Vec::new())
            .unwrap_err()
            .status(),
        Status::InvalidArgument
    );
    assert_eq!(
        LevelDecoder::v2(-1, 1, &[]).map(drop).unwrap_err().status(),
        Status::InvalidArgument
    );
    // Level encodings other than RLE and BIT_PACKED.
    expect_corrupt(
        LevelDecoder::v1(Encoding::Plain, 1, 1, &[0; 8]).map(drop),
        "not a level encoding",
    );
    let unknown = LevelDecoder::v1(Encoding::Unknown(12), 1, 1, &[0; 8])
        .map(drop)
        .unwrap_err();
    assert_eq!(unknown.status(), Status::Unsupported);
    // BIT_PACKED sections must hold ceil(n * width / 8) bytes.
    expect_corrupt(
        LevelDecoder::v1(Encoding::BitPacked, 3, 17, &[0; 4]).map(drop),
        "BIT_PACKED levels",
    );
    // A v1 RLE section whose length prefix overruns the page.
    expect_corrupt(
        LevelDecoder::v1(Encoding::Rle, 1, 4, &[200, 0, 0, 0, 8]).map(drop),
        "length prefix 200",
    );
}

#[test]
fn bit_packed_levels_msb_first_across_bytes() {
    // Width 3, values 7 0 5 2 1 6 3 4 4, packed from the most significant bit.
    let values = [7i16, 0, 5, 2, 1, 6, 3, 4, 4];
    let mut bits = String::new();
    for v in values {
        bits.push_str(&format!("{v:03b}"));
    }
    while !bits.len().is_multiple_of(8) {
        bits.push('0');
    }
    let bytes: Vec<u8> = bits
        .as_bytes()
        .chunks(8)
        .map(|c| u8::from_str_radix(std::str::from_utf8(c).unwrap(), 2).unwrap())
        .collect();
    let (decoder, consumed) =
        LevelDecoder::v1(Encoding::BitPacked, 7, values.len(), &bytes).unwrap();
    assert_eq!(consumed, 4);
    assert_eq!(read_levels(decoder, values.len()).unwrap(), values);
    fuzz(&bytes, 200, 9, |data| {
        let (decoder, _) = LevelDecoder::v1(Encoding::BitPacked, 5, values.len(), data)?;
        read_levels(decoder, values.len()).map(drop)
    });
}

// ---------------------------------------------------------------------------
// PLAIN

fn plain_round_trip<T: FixedWidth>(values: &[T]) {
    let mut bytes = Vec::new();
    encode_plain(values, &mut bytes);
    assert_eq!(bytes.len(), values.len() * T::WIDTH);
    let mut decoder = PlainDecoder::new(&bytes, values.len());
    let mut out = vec![T::default(); values.len() + 3];
    let mut done = 0;
    for batch in BATCHES.iter().cycle() {
        if done == values.len() {
            break;
        }
        done += decoder
            .read(&mut out[done..(done + batch).min(values.len())])
            .unwrap();
    }
    assert_eq!(decoder.read(&mut out[done..]).unwrap(), 0);
    let same = out[..values.len()]
        .iter()
        .zip(values)
        .all(|(a, b)| format!("{a:?}") == format!("{b:?}"));
    assert!(same, "{} values", values.len());
}

#[test]
fn plain_fixed_width_types() {
    assert_eq!(
        {
            let mut b = Vec::new();
            encode_plain(&[1i32, -2], &mut b);
            b
        },
        [1, 0, 0, 0, 0xfe, 0xff, 0xff, 0xff]
    );
    let mut rng = Rng::new(11);
    for &n in &LENGTHS {
        let ints: Vec<i64> = (0..n).map(|_| rng.next_u64() as i64).collect();
        plain_round_trip(&ints);
        plain_round_trip(&ints.iter().map(|&v| v as i32).collect::<Vec<_>>());
        plain_round_trip(
            &ints
                .iter()
                .map(|&v| f64::from_bits(v as u64))
                .collect::<Vec<_>>(),
        );
        plain_round_trip(
            &ints
                .iter()
                .map(|&v| f32::from_bits(v as u32))
                .collect::<Vec<_>>(),
        );
    }
    plain_round_trip(&[
        f64::NAN,
        -0.0,
        f64::INFINITY,
        f64::MIN_POSITIVE,
        i64::MAX as f64,
    ]);
    plain_round_trip(&[i32::MIN, i32::MAX, 0]);
    // Truncated data: ten values claimed, nine present.
    let bytes = vec![0u8; 36];
    let mut decoder = PlainDecoder::new(&bytes, 10);
    expect_corrupt(
        decoder.read(&mut [0i32; 10]),
        "10 values of 4 bytes at byte 0 exceed the 36 bytes left",
    );
}

#[test]
fn plain_int96_and_fixed_len() {
    let mut rng = Rng::new(12);
    for width in [INT96_WIDTH, 1, 16] {
        let values: Vec<u8> = (0..width * 100).map(|_| rng.byte()).collect();
        let mut bytes = Vec::new();
        encode_plain_fixed_len(&values, width, &mut bytes).unwrap();
        assert_eq!(bytes, values);
        let mut decoder = PlainDecoder::new(&bytes, 100);
        let mut out = vec![0u8; values.len()];
        assert_eq!(
            decoder
                .read_fixed_len(width, &mut out[..width * 33 + width - 1])
                .unwrap(),
            33
        );
        assert_eq!(
            decoder
                .read_fixed_len(width, &mut out[width * 33..])
                .unwrap(),
            67
        );
        assert_eq!(out, values);
    }
    assert_eq!(
        encode_plain_fixed_len(&[0; 5], 2, &mut Vec::new())
            .unwrap_err()
            .status(),
        Status::InvalidArgument
    );
    assert_eq!(
        PlainDecoder::new(&[], 1)
            .read_fixed_len(0, &mut [0; 4])
            .unwrap_err()
            .status(),
        Status::InvalidArgument
    );
}

/// Collects byte arrays as owned vectors.
#[derive(Default)]
struct Collect(Vec<Vec<u8>>);

impl ByteArraySink for Collect {
    fn push(&mut self, value: &[u8]) -> Result<()> {
        self.0.push(value.to_vec());
        Ok(())
    }
}

fn byte_arrays(n: usize, rng: &mut Rng) -> Vec<Vec<u8>> {
    // Sorted-ish strings with shared prefixes, empty values and binary bytes.
    let mut values: Vec<Vec<u8>> = (0..n)
        .map(|i| match i % 5 {
            0 => Vec::new(),
            1 => format!("user-{:06}", rng.below(1_000_000)).into_bytes(),
            2 => (0..rng.below(40)).map(|_| rng.byte()).collect(),
            _ => format!("https://example.com/{}/{}", i / 100, rng.below(50)).into_bytes(),
        })
        .collect();
    if n > 3 {
        values[n / 2] = vec![0xff; 3000];
    }
    values
}

#[test]
fn plain_byte_arrays() {
    let mut rng = Rng::new(13);
    for &n in &LENGTHS {
        let values = byte_arrays(n, &mut rng);
        let mut bytes = Vec::new();
        for v in &values {
            encode_plain_byte_array(v, &mut bytes).unwrap();
        }
        let mut decoder = PlainByteArrays::new(&bytes, n);
        let mut sink = Collect::default();
        assert_eq!(decoder.read_into(n / 3, &mut sink).unwrap(), n / 3);
        assert_eq!(decoder.read_into(n, &mut sink).unwrap(), n - n / 3);
        assert_eq!(decoder.read_into(1, &mut sink).unwrap(), 0, "none left");
        assert_eq!(sink.0, values);
    }
    expect_corrupt(
        PlainByteArrays::new(&[3, 0, 0], 1).read_into(1, &mut Collect::default()),
        "PLAIN byte array at byte 0: its length prefix or value runs past the page's 3 bytes",
    );
    expect_corrupt(
        PlainByteArrays::new(&[3, 0, 0, 0, b'a'], 1).read_into(1, &mut Collect::default()),
        "PLAIN byte array at byte 0: its length prefix or value runs past the page's 5 bytes",
    );
    let valid = {
        let mut b = Vec::new();
        for v in byte_arrays(40, &mut rng) {
            encode_plain_byte_array(&v, &mut b).unwrap();
        }
        b
    };
    fuzz(&valid, 1000, 14, |data| {
        PlainByteArrays::new(data, 40)
            .read_into(40, &mut Collect::default())
            .map(drop)
    });
}

#[test]
fn plain_booleans() {
    let mut rng = Rng::new(15);
    for &n in &LENGTHS {
        let values: Vec<bool> = (0..n).map(|_| rng.below(3) == 0).collect();
        // Encode across calls of uneven sizes to exercise the partial byte.
        let mut encoder = PlainBooleanEncoder::new();
        let mut bytes = Vec::new();
        let mut start = 0;
        for size in [3, 1, 8, 13, 64].iter().cycle() {
            if start == n {
                break;
            }
            let end = (start + size).min(n);
            encoder.put(&values[start..end], &mut bytes);
            start = end;
        }
        encoder.finish(&mut bytes);
        assert_eq!(bytes.len(), n.div_ceil(8));
        let mut decoder = PlainBooleanDecoder::new(&bytes, n).unwrap();
        let mut out = vec![false; n];
        let mut done = 0;
        for size in [5, 8, 1, 30, 1000].iter().cycle() {
            if done == n {
                break;
            }
            done += decoder.read(&mut out[done..(done + size).min(n)]).unwrap();
        }
        assert_eq!(out, values);
    }
    // LSB first: true, false, false, true -> 0b1001.
    let mut bytes = Vec::new();
    let mut encoder = PlainBooleanEncoder::new();
    encoder.put(&[true, false, false, true], &mut bytes);
    encoder.finish(&mut bytes);
    assert_eq!(bytes, [0b1001]);
    expect_corrupt(
        PlainBooleanDecoder::new(&[0], 9).map(drop),
        "9 values need 2 bytes",
    );
}

// ---------------------------------------------------------------------------
// DELTA_BINARY_PACKED

fn delta_encode<T: DeltaInt>(values: &[T]) -> Vec<u8> {
    let mut encoder = DeltaBinaryPackedEncoder::new();
    for chunk in values.chunks(77) {
        encoder.put(chunk);
    }
    assert_eq!(encoder.len(), values.len());
    assert_eq!(encoder.is_empty(), values.is_empty());
    let mut out = Vec::new();
    encoder.finish(&mut out);
    out
}

fn delta_decode<T: DeltaInt>(data: &[u8], n: usize, batch: usize) -> Result<Vec<T>> {
    let mut decoder = DeltaBinaryPackedDecoder::<T>::new(data, n)?;
    let mut out = vec![T::default(); n];
    let mut done = 0;
    while done < n {
        done += decoder.read(&mut out[done..(done + batch).min(n)])?;
    }
    assert_eq!(decoder.read(&mut [T::default(); 2])?, 0);
    Ok(out)
}

#[test]
fn delta_spec_examples() {
    // Encodings.md example 1: 1 2 3 4 5, block size 8, one miniblock: every
    // delta equals the minimum, so the width is 0 and there is no data.
    let example1 = [0x08, 0x01, 0x05, 0x02, 0x02, 0x00];
    assert_eq!(
        delta_decode::<i32>(&example1, 5, 2).unwrap(),
        [1, 2, 3, 4, 5]
    );
    // Example 2: 7 5 3 1 2 3 4 5: deltas -2 -2 -2 1 1 1 1, min -2, relative
    // 0 0 0 3 3 3 3 at width 2.
    let example2 = [0x08, 0x01, 0x08, 0x0e, 0x03, 0x02, 0xc0, 0x3f];
    assert_eq!(
        delta_decode::<i64>(&example2, 8, 3).unwrap(),
        [7, 5, 3, 1, 2, 3, 4, 5]
    );
    // Our encoder: blocks of 128 in 4 miniblocks, header 128 4 count first.
    let bytes = delta_encode(&[7i32, 5, 3, 1, 2, 3, 4, 5]);
    assert_eq!(&bytes[..5], [0x80, 0x01, 0x04, 0x08, 0x0e]);
    // Min delta -2, widths 2 0 0 0, then one miniblock of 32 values at 2 bits.
    assert_eq!(&bytes[5..10], [0x03, 0x02, 0x00, 0x00, 0x00]);
    assert_eq!(bytes.len(), 10 + 8);
    // Zero and one values: a header only.
    assert_eq!(delta_encode::<i64>(&[]), [0x80, 0x01, 0x04, 0x00, 0x00]);
    assert_eq!(delta_encode(&[-1i64]), [0x80, 0x01, 0x04, 0x01, 0x01]);
}

fn delta_patterns_i64(n: usize, rng: &mut Rng) -> Vec<Vec<i64>> {
    let sorted: Vec<i64> = (0..n as i64)
        .map(|i| 1_600_000_000_000_000 + i * 1000 + (i % 7))
        .collect();
    let random: Vec<i64> = (0..n).map(|_| rng.next_u64() as i64).collect();
    let extremes: Vec<i64> = (0..n)
        .map(|i| if i % 2 == 0 { i64::MIN } else { i64::MAX })
        .collect();
    let constant = vec![-42i64; n];
    let small: Vec<i64> = (0..n).map(|_| rng.below(1000) as i64 - 500).collect();
    vec![sorted, random, extremes, constant, small]
}

#[test]
fn delta_round_trips_int64() {
    let mut rng = Rng::new(21);
    for &n in &LENGTHS {
        for (p, values) in delta_patterns_i64(n, &mut rng).iter().enumerate() {
            let bytes = delta_encode(values);
            let batch = BATCHES[p % BATCHES.len()];
            assert!(
                delta_decode::<i64>(&bytes, n, batch).unwrap() == *values,
                "n {n} pattern {p}"
            );
        }
    }
}

#[test]
fn delta_round_trips_int32() {
    let mut rng = Rng::new(22);
    for &n in &LENGTHS {
        for (p, values) in delta_patterns_i64(n, &mut rng).iter().enumerate() {
            let values: Vec<i32> = values.iter().map(|&v| v as i32).collect();
            let bytes = delta_encode(&values);
            let batch = BATCHES[(p + 2) % BATCHES.len()];
            assert!(
                delta_decode::<i32>(&bytes, n, batch).unwrap() == values,
                "n {n} pattern {p}"
            );
        }
    }
    // i32::MIN -> i32::MAX is a delta of -1 after wrapping: width stays 32 at
    // most, and decoding wraps back.
    let values = [i32::MIN, i32::MAX, i32::MIN, 0, i32::MAX];
    assert_eq!(
        delta_decode::<i32>(&delta_encode(&values), 5, 1).unwrap(),
        values
    );
}

#[test]
fn delta_every_bit_width() {
    // Values whose deltas need exactly `width` bits after the minimum.
    for width in 0..=64u32 {
        let span = if width == 0 {
            0
        } else {
            u64::MAX >> (64 - width)
        };
        let mut values = vec![0i64; 129];
        for i in 1..values.len() {
            let delta = if i % 2 == 0 { span } else { 0 };
            values[i] = values[i - 1].wrapping_add(delta as i64);
        }
        let bytes = delta_encode(&values);
        // First miniblock's width byte follows the header (5 bytes here) and
        // the min delta.
        assert_eq!(
            delta_decode::<i64>(&bytes, values.len(), 31).unwrap(),
            values,
            "width {width}"
        );
        if width <= 32 {
            let narrow: Vec<i32> = values.iter().map(|&v| v as i32).collect();
            assert_eq!(
                delta_decode::<i32>(&delta_encode(&narrow), narrow.len(), 40).unwrap(),
                narrow
            );
        }
    }
}

/// A one-block stream: block 32 in one miniblock of `width`, count values,
/// first value 0, min delta 0, then `data`.
fn hand_stream(count: u8, width: u8, data: &[u8]) -> Vec<u8> {
    let mut bytes = vec![32, 1, count, 0, 0, width];
    bytes.extend_from_slice(data);
    bytes
}

#[test]
fn delta_rejects_malformed_streams() {
    expect_corrupt(
        delta_decode::<i32>(&hand_stream(3, 65, &[0; 300]), 3, 8),
        "bit width 65 exceeds 64",
    );
    expect_corrupt(
        delta_decode::<i64>(&hand_stream(3, 65, &[0; 300]), 3, 8),
        "bit width 65 exceeds 64",
    );
    expect_corrupt(delta_decode::<i64>(&[0, 1, 1, 0], 1, 1), "block size 0");
    expect_corrupt(delta_decode::<i64>(&[8, 0, 1, 0], 1, 1), "0 miniblocks");
    expect_corrupt(delta_decode::<i64>(&[12, 1, 1, 0], 1, 1), "multiples of 8");
    expect_corrupt(delta_decode::<i64>(&[8, 3, 1, 0], 1, 1), "multiples of 8");
    // A count beyond i32 and a count below what the page needs.
    expect_corrupt(
        delta_decode::<i64>(&[0x80, 0x01, 4, 0x80, 0x80, 0x80, 0x80, 0x08, 0], 1, 1),
        "exceeds the i32 range",
    );
    expect_corrupt(
        delta_decode::<i64>(&hand_stream(3, 0, &[]), 4, 1),
        "holds 3 values where 4 are expected",
    );
    // Blocks missing or cut short.
    expect_corrupt(
        delta_decode::<i64>(&[32, 1, 3, 0], 3, 1),
        "min delta at byte 4 is truncated",
    );
    expect_corrupt(
        delta_decode::<i64>(&[32, 1, 3, 0, 0], 3, 1),
        "bit widths at byte 5 are truncated",
    );
    expect_corrupt(
        delta_decode::<i64>(&hand_stream(30, 8, &[1; 20]), 30, 1),
        "is truncated",
    );
    // Over-long varints.
    expect_corrupt(delta_decode::<i64>(&[0xff; 12], 1, 1), "exceeds 64 bits");
    // A stream may hold more values than the page reads.
    assert_eq!(
        delta_decode::<i64>(&hand_stream(5, 0, &[]), 2, 1).unwrap(),
        [0, 0]
    );
}

#[test]
fn delta_accepts_unpadded_last_miniblock_and_arbitrary_unused_widths() {
    // Three values at width 8: two deltas need two bytes of the 32 a padded
    // miniblock would take.
    let values = delta_decode::<i32>(&hand_stream(3, 8, &[5, 7]), 3, 1).unwrap();
    assert_eq!(values, [0, 5, 12]);
    // Block of 64 in two miniblocks; the second is unused, its width byte is
    // garbage and has no data.
    let bytes = [
        64, 2, 2, 0, 0, 4, 0xff, 0x07, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    ];
    assert_eq!(delta_decode::<i64>(&bytes, 2, 1).unwrap(), [0, 7]);
}

#[test]
fn damaged_delta_streams_never_panic() {
    let mut rng = Rng::new(23);
    let patterns = delta_patterns_i64(300, &mut rng);
    for (i, values) in patterns.iter().enumerate() {
        let bytes = delta_encode(values);
        fuzz(&bytes, 800, 200 + i as u64, |data| {
            delta_decode::<i64>(data, 300, 50).map(drop)
        });
        let narrow: Vec<i32> = values.iter().map(|&v| v as i32).collect();
        fuzz(&delta_encode(&narrow), 400, 300 + i as u64, |data| {
            delta_decode::<i32>(data, 300, 64).map(drop)
        });
    }
}

// ---------------------------------------------------------------------------
// DELTA_LENGTH_BYTE_ARRAY and DELTA_BYTE_ARRAY

fn dlba_encode(values: &[Vec<u8>]) -> Vec<u8> {
    let mut encoder = DeltaLengthByteArrayEncoder::default();
    for v in values {
        encoder.put(v).unwrap();
    }
    let mut out = Vec::new();
    encoder.finish(&mut out);
    out
}

fn dba_encode(values: &[Vec<u8>]) -> Vec<u8> {
    let mut encoder = DeltaByteArrayEncoder::new();
    for v in values {
        encoder.put(v).unwrap();
    }
    let mut out = Vec::new();
    encoder.finish(&mut out);
    out
}

fn dlba_decode(data: &[u8], n: usize, batch: usize) -> Result<Vec<Vec<u8>>> {
    let mut decoder = DeltaLengthByteArrayDecoder::new(data, n)?;
    let mut sink = Collect::default();
    while decoder.remaining() > 0 {
        decoder.read(batch, &mut sink)?;
    }
    assert_eq!(decoder.read(5, &mut sink)?, 0);
    Ok(sink.0)
}

fn dba_decode(data: &[u8], n: usize, batch: usize) -> Result<Vec<Vec<u8>>> {
    let mut decoder = DeltaByteArrayDecoder::new(data, n)?;
    let mut sink = Collect::default();
    while decoder.remaining() > 0 {
        decoder.read(batch, &mut sink)?;
    }
    assert_eq!(decoder.read(5, &mut sink)?, 0);
    Ok(sink.0)
}

fn strings(values: &[&str]) -> Vec<Vec<u8>> {
    values.iter().map(|s| s.as_bytes().to_vec()).collect()
}

#[test]
fn byte_array_delta_spec_examples() {
    // DELTA_LENGTH_BYTE_ARRAY: lengths 5 5 6 6 delta-encoded, then the bytes.
    let values = strings(&["Hello", "World", "Foobar", "ABCDEF"]);
    let bytes = dlba_encode(&values);
    let lengths = delta_encode(&[5i32, 5, 6, 6]);
    assert_eq!(&bytes[..lengths.len()], &lengths[..]);
    assert_eq!(&bytes[lengths.len()..], b"HelloWorldFoobarABCDEF");
    assert_eq!(dlba_decode(&bytes, 4, 3).unwrap(), values);
    // DELTA_BYTE_ARRAY: prefix lengths 0 2 0 3, suffixes axis le babble yhood.
    let values = strings(&["axis", "axle", "babble", "babyhood"]);
    let mut expected = delta_encode(&[0i32, 2, 0, 3]);
    expected.extend(dlba_encode(&strings(&["axis", "le", "babble", "yhood"])));
    assert_eq!(dba_encode(&values), expected);
    assert_eq!(dba_decode(&expected, 4, 1).unwrap(), values);
}

#[test]
fn byte_array_delta_round_trips() {
    let mut rng = Rng::new(31);
    for &n in &LENGTHS {
        let mut values = byte_arrays(n, &mut rng);
        assert_eq!(
            dlba_decode(&dlba_encode(&values), n, 100).unwrap(),
            values,
            "DLBA n {n}"
        );
        assert_eq!(
            dba_decode(&dba_encode(&values), n, 33).unwrap(),
            values,
            "DBA n {n}"
        );
        values.sort();
        assert_eq!(
            dba_decode(&dba_encode(&values), n, 1000).unwrap(),
            values,
            "sorted DBA n {n}"
        );
    }
    // All empty.
    let empty = vec![Vec::new(); 500];
    assert_eq!(dlba_decode(&dlba_encode(&empty), 500, 7).unwrap(), empty);
    assert_eq!(dba_decode(&dba_encode(&empty), 500, 7).unwrap(), empty);
}

#[test]
fn byte_array_deltas_reject_bad_lengths() {
    // A negative length.
    let mut bytes = delta_encode(&[2i32, -1]);
    bytes.extend_from_slice(b"ab");
    expect_corrupt(dlba_decode(&bytes, 2, 10), "value of length -1");
    // Lengths beyond the data.
    let mut bytes = delta_encode(&[2i32, 5]);
    bytes.extend_from_slice(b"abcd");
    expect_corrupt(dlba_decode(&bytes, 2, 10), "value of length 5 at byte");
    // A prefix longer than the previous value.
    let mut bytes = delta_encode(&[0i32, 3]);
    bytes.extend(dlba_encode(&strings(&["ab", "c"])));
    expect_corrupt(
        dba_decode(&bytes, 2, 10),
        "prefix length 3 exceeds the previous value's 2 bytes",
    );
    // Suffixes fewer than prefixes.
    let mut bytes = delta_encode(&[0i32, 0]);
    bytes.extend(dlba_encode(&strings(&["ab"])));
    expect_corrupt(dba_decode(&bytes, 2, 10), "suffixes");
    // The length stream itself is cut.
    expect_corrupt(
        dlba_decode(&delta_encode(&[1i32; 40])[..8], 40, 1),
        "value lengths",
    );
}

#[test]
fn damaged_byte_array_deltas_never_panic() {
    let mut rng = Rng::new(32);
    let mut values = byte_arrays(60, &mut rng);
    values.truncate(60);
    fuzz(&dlba_encode(&values), 1500, 400, |data| {
        dlba_decode(data, 60, 16).map(drop)
    });
    values.sort();
    fuzz(&dba_encode(&values), 1500, 401, |data| {
        dba_decode(data, 60, 16).map(drop)
    });
}

// ---------------------------------------------------------------------------
// BYTE_STREAM_SPLIT

fn bss_round_trip<T: FixedWidth>(values: &[T]) {
    let mut bytes = Vec::new();
    encode_byte_stream_split_values(values, &mut bytes);
    let mut decoder = ByteStreamSplitDecoder::new(&bytes, T::WIDTH, values.len()).unwrap();
    let mut out = vec![T::default(); values.len()];
    let mut done = 0;
    for batch in BATCHES.iter().cycle() {
        if done == values.len() {
            break;
        }
        done += decoder
            .read(&mut out[done..(done + batch).min(values.len())])
            .unwrap();
    }
    let same = out
        .iter()
        .zip(values)
        .all(|(a, b)| format!("{a:?}") == format!("{b:?}"));
    assert!(same);
    // The generic byte path agrees with the typed one.
    let mut plain = Vec::new();
    T::encode_le(values, &mut plain);
    let mut decoder = ByteStreamSplitDecoder::new(&bytes, T::WIDTH, values.len()).unwrap();
    let mut raw = vec![0u8; plain.len()];
    assert_eq!(decoder.read_fixed_len(&mut raw).unwrap(), values.len());
    assert_eq!(decoder.remaining(), 0);
    assert_eq!(raw, plain);
}

#[test]
fn byte_stream_split_example_and_round_trips() {
    // 1.0f32 = 00 00 80 3f, 2.0f32 = 00 00 00 40: streams of byte 0, 1, 2, 3.
    let mut bytes = Vec::new();
    encode_byte_stream_split_values(&[1.0f32, 2.0], &mut bytes);
    assert_eq!(bytes, [0x00, 0x00, 0x00, 0x00, 0x80, 0x00, 0x3f, 0x40]);

    let mut rng = Rng::new(41);
    for &n in &LENGTHS {
        let bits: Vec<u64> = (0..n).map(|_| rng.next_u64()).collect();
        bss_round_trip(&bits.iter().map(|&b| f64::from_bits(b)).collect::<Vec<_>>());
        bss_round_trip(
            &bits
                .iter()
                .map(|&b| f32::from_bits(b as u32))
                .collect::<Vec<_>>(),
        );
        bss_round_trip(&bits.iter().map(|&b| b as i64).collect::<Vec<_>>());
        bss_round_trip(&bits.iter().map(|&b| b as i32).collect::<Vec<_>>());
    }
    // NaN payloads, signed zeros and infinities keep their exact bits.
    let specials = [
        f64::NAN,
        -f64::NAN,
        f64::from_bits(0x7ff0_0000_0000_0001),
        -0.0,
        0.0,
        f64::INFINITY,
        f64::NEG_INFINITY,
    ];
    let mut bytes = Vec::new();
    encode_byte_stream_split_values(&specials, &mut bytes);
    let mut out = [0f64; 7];
    ByteStreamSplitDecoder::new(&bytes, 8, 7)
        .unwrap()
        .read(&mut out)
        .unwrap();
    assert!(out
        .iter()
        .zip(&specials)
        .all(|(a, b)| a.to_bits() == b.to_bits()));
    let specials32 = [f32::NAN, -0.0f32, f32::INFINITY, f32::MIN_POSITIVE];
    let mut bytes = Vec::new();
    encode_byte_stream_split_values(&specials32, &mut bytes);
    let mut out = [0f32; 4];
    ByteStreamSplitDecoder::new(&bytes, 4, 4)
        .unwrap()
        .read(&mut out)
        .unwrap();
    assert!(out
        .iter()
        .zip(&specials32)
        .all(|(a, b)| a.to_bits() == b.to_bits()));
}

#[test]
fn byte_stream_split_fixed_len() {
    let mut rng = Rng::new(42);
    for width in [1usize, 2, 3, 12, 16] {
        for &n in &LENGTHS[..9] {
            let values: Vec<u8> = (0..n * width).map(|_| rng.byte()).collect();
            let mut bytes = Vec::new();
            encode_byte_stream_split(&values, width, &mut bytes).unwrap();
            let mut decoder = ByteStreamSplitDecoder::new(&bytes, width, n).unwrap();
            let mut out = vec![0u8; values.len()];
            let partial = ((n / 2) * width + width - 1).min(out.len());
            let first = decoder.read_fixed_len(&mut out[..partial]).unwrap();
            assert_eq!(first, n / 2);
            assert_eq!(
                decoder.read_fixed_len(&mut out[first * width..]).unwrap(),
                n - first
            );
            assert_eq!(out, values);
        }
    }
}

#[test]
fn byte_stream_split_rejects_bad_sizes() {
    expect_corrupt(
        ByteStreamSplitDecoder::new(&[0; 7], 4, 1).map(drop),
        "7 bytes are not 1 or more values of 4 bytes",
    );
    expect_corrupt(
        ByteStreamSplitDecoder::new(&[0; 8], 4, 3).map(drop),
        "not 3 or more",
    );
    assert_eq!(
        ByteStreamSplitDecoder::new(&[0; 8], 0, 1)
            .map(drop)
            .unwrap_err()
            .status(),
        Status::InvalidArgument
    );
    let mut decoder = ByteStreamSplitDecoder::new(&[0; 8], 4, 2).unwrap();
    assert_eq!(
        decoder.read(&mut [0f64; 1]).unwrap_err().status(),
        Status::InvalidArgument
    );
    assert_eq!(
        encode_byte_stream_split(&[0; 5], 2, &mut Vec::new())
            .unwrap_err()
            .status(),
        Status::InvalidArgument
    );
}

#[test]
fn rle_runs_can_be_skipped_without_materialising_them() {
    // 100 ones (an RLE run), then a mixed bit-packed stretch, then 50 zeros.
    let mut values = vec![1u32; 100];
    values.extend((0..24).map(|i| i % 2));
    values.extend([0u32; 50]);
    let data = rle_encode(&values, 1);
    let mut decoder = RleDecoder::new(&data, 1, values.len()).unwrap();
    assert!(!decoder.skip_run_of(0, 10).unwrap(), "wrong value");
    assert!(decoder.skip_run_of(1, 60).unwrap());
    assert!(!decoder.skip_run_of(1, 41).unwrap(), "longer than the run");
    assert!(decoder.skip_run_of(1, 40).unwrap());
    assert!(
        !decoder.skip_run_of(0, 1).unwrap(),
        "a bit-packed stretch is not a run"
    );
    let mut mixed = [0u32; 24];
    assert_eq!(decoder.read(&mut mixed).unwrap(), 24);
    assert_eq!(&mixed[..], &values[100..124]);
    assert!(decoder.skip_run_of(0, 50).unwrap());
    assert!(!decoder.skip_run_of(0, 1).unwrap(), "nothing left");
    assert_eq!(decoder.remaining(), 0);

    // Levels: without levels (maximum 0) every run is of zeros.
    let mut levels = Vec::new();
    encode_levels_v2(&[2; 30], 2, &mut levels).unwrap();
    let mut decoder = LevelDecoder::v2(2, 30, &levels).unwrap();
    assert!(decoder.skip_run_of(2, 30).unwrap());
    let mut zeros = LevelDecoder::v2(0, 5, &[]).unwrap();
    assert!(!zeros.skip_run_of(1, 5).unwrap());
    assert!(zeros.skip_run_of(0, 5).unwrap());
}

/// DuckDB computes INT32 deltas in 64 bits, so a block going from i32::MIN to
/// i32::MAX has a 33-bit miniblock; parquet-java reads it (in longs), and so
/// must the decoder: sums wrap to the same INT32 values.
#[test]
fn delta_int32_with_33_bit_miniblocks() {
    // Header: block 32, 1 miniblock, 3 values, first value i32::MIN (zigzag
    // 2^32 - 1). Block: min delta -1 (zigzag 1), width 33; deltas minus the
    // minimum: 2^32 (+(2^32 - 1), to i32::MAX) and 0 (-1, to i32::MAX - 1).
    let mut bytes = vec![32, 1, 3];
    bytes.extend([0xff, 0xff, 0xff, 0xff, 0x0f]);
    bytes.extend([1, 33]);
    let mut packed = vec![0u8; 4 * 33];
    // Value 0 (bits 0..33) is 2^32: bit 32 set.
    packed[4] = 1;
    bytes.extend(packed);
    let values = delta_decode::<i32>(&bytes, 3, 8).unwrap();
    assert_eq!(values, [i32::MIN, i32::MAX, i32::MAX - 1]);
}
