//! The Thrift compact protocol: each wire construct against hand-written
//! bytes from the protocol spec, writer/reader agreement, and robustness.

use crate::error::{Result, Status};
use crate::parquet::thrift::{CompactReader, CompactWriter, WireType, MAX_DEPTH};
use crate::test_support::parquet::{fuzz, Rng};

fn write(body: impl FnOnce(&mut CompactWriter<'_>)) -> Vec<u8> {
    let mut out = Vec::new();
    let mut writer = CompactWriter::new(&mut out);
    body(&mut writer);
    writer.finish().unwrap();
    out
}

fn corrupt_message(result: Result<impl std::fmt::Debug>) -> String {
    let error = result.expect_err("expected an error");
    assert_eq!(error.status(), Status::CorruptData, "{error}");
    error.message().to_owned()
}

#[test]
fn varint_example_from_the_spec() {
    // 50399 = 0xDF 0x89 0x03, the spec's worked example.
    let mut reader = CompactReader::new(&[0xdf, 0x89, 0x03]);
    assert_eq!(reader.read_varint().unwrap(), 50399);
    assert_eq!(reader.position(), 3);
    assert_eq!(write(|w| w.write_varint(50399)), [0xdf, 0x89, 0x03]);
}

#[test]
fn zigzag_integers() {
    let cases: &[(i64, &[u8])] = &[
        (0, &[0x00]),
        (-1, &[0x01]),
        (1, &[0x02]),
        (-2, &[0x03]),
        (2, &[0x04]),
        (63, &[0x7e]),
        (-64, &[0x7f]),
        (64, &[0x80, 0x01]),
        (i32::MAX as i64, &[0xfe, 0xff, 0xff, 0xff, 0x0f]),
        (i32::MIN as i64, &[0xff, 0xff, 0xff, 0xff, 0x0f]),
    ];
    for &(value, bytes) in cases {
        assert_eq!(write(|w| w.write_i64(value)), bytes, "i64 {value}");
        assert_eq!(CompactReader::new(bytes).read_i64().unwrap(), value);
        if let Ok(v32) = i32::try_from(value) {
            assert_eq!(write(|w| w.write_i32(v32)), bytes, "i32 {value}");
            assert_eq!(CompactReader::new(bytes).read_i32().unwrap(), v32);
        }
    }
    let max = write(|w| w.write_i64(i64::MAX));
    assert_eq!(
        max,
        [0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01]
    );
    assert_eq!(CompactReader::new(&max).read_i64().unwrap(), i64::MAX);
    let min = write(|w| w.write_i64(i64::MIN));
    assert_eq!(
        min,
        [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01]
    );
    assert_eq!(CompactReader::new(&min).read_i64().unwrap(), i64::MIN);
}

#[test]
fn malformed_integers() {
    // An i32 whose varint needs more than 32 bits.
    let message = corrupt_message(CompactReader::new(&[0xff, 0xff, 0xff, 0xff, 0x1f]).read_i32());
    assert!(message.contains("exceeds 32 bits"), "{message}");
    // An i16 out of range.
    corrupt_message(CompactReader::new(&[0x80, 0x80, 0x04]).read_i16());
    // 11 continuation bytes, and a tenth byte with more than the last bit.
    corrupt_message(CompactReader::new(&[0xff; 11]).read_varint());
    corrupt_message(
        CompactReader::new(&[0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02])
            .read_varint(),
    );
    // Truncated.
    let message = corrupt_message(CompactReader::new(&[0x80, 0x80]).read_varint());
    assert!(message.contains("at byte 0"), "{message}");
}

#[test]
fn binary_string_double_and_i8() {
    let bytes = write(|w| {
        w.write_binary(b"abc");
        w.write_string("");
        w.write_double(1.5);
        w.write_i8(-2);
    });
    assert_eq!(
        bytes,
        [3, b'a', b'b', b'c', 0, 0, 0, 0, 0, 0, 0, 0xf8, 0x3f, 0xfe]
    );
    let mut reader = CompactReader::new(&bytes);
    assert_eq!(reader.read_binary().unwrap(), b"abc");
    assert_eq!(reader.read_string().unwrap(), "");
    assert_eq!(reader.read_double().unwrap(), 1.5);
    assert_eq!(reader.read_i8().unwrap(), -2);
    // A length beyond the input, and invalid UTF-8 in a string.
    let message = corrupt_message(CompactReader::new(&[10, 1, 2]).read_binary());
    assert!(
        message.contains("10 bytes needed but only 2 remain"),
        "{message}"
    );
    corrupt_message(CompactReader::new(&[2, 0xc3, 0x28]).read_string());
}

/// Reads a struct into (id, type, value summary) triples, skipping nothing,
/// and checks that it spans all of `bytes`.
fn fields(bytes: &[u8]) -> Result<Vec<(i16, WireType, String)>> {
    let (seen, len) = fields_prefix(bytes)?;
    assert_eq!(len, bytes.len());
    Ok(seen)
}

type Fields = Vec<(i16, WireType, String)>;

fn fields_prefix(bytes: &[u8]) -> Result<(Fields, usize)> {
    let mut reader = CompactReader::new(bytes);
    let mut seen = Vec::new();
    reader.read_struct("test", |r, f| {
        let value = match f.ty {
            WireType::Bool => f.bool_value().to_string(),
            WireType::I8 => r.read_i8()?.to_string(),
            WireType::I16 => r.read_i16()?.to_string(),
            WireType::I32 => r.read_i32()?.to_string(),
            WireType::I64 => r.read_i64()?.to_string(),
            WireType::Binary => String::from_utf8_lossy(r.read_binary()?).into_owned(),
            _ => return Ok(false),
        };
        seen.push((f.id, f.ty, value));
        Ok(true)
    })?;
    Ok((seen, reader.position()))
}

#[test]
fn field_headers_short_and_long_form() {
    // Field 1 i32 5 (delta 1), field 20 i32 7 (delta 19: long form, zigzag id
    // 40), field 21 i64 -1 (delta 1 from 20), field 5 binary (negative delta:
    // long form), stop.
    let bytes = [
        0x15, 0x0a, 0x05, 0x28, 0x0e, 0x16, 0x01, 0x08, 0x0a, 0x01, b'x', 0x00,
    ];
    let expected = vec![
        (1, WireType::I32, "5".to_owned()),
        (20, WireType::I32, "7".to_owned()),
        (21, WireType::I64, "-1".to_owned()),
        (5, WireType::Binary, "x".to_owned()),
    ];
    assert_eq!(fields(&bytes).unwrap(), expected);
    let written = write(|w| {
        w.write_struct(|w| {
            w.field_i32(1, 5);
            w.field_i32(20, 7);
            w.field_i64(21, -1);
            w.field_binary(5, b"x");
        })
    });
    assert_eq!(written, bytes);
}

#[test]
fn bool_fields_carry_their_value_in_the_type() {
    // Field 1 true (type 1), field 2 false (type 2), field 3 i8 (type 3).
    let bytes = [0x11, 0x12, 0x13, 0x7f, 0x00];
    assert_eq!(
        fields(&bytes).unwrap(),
        vec![
            (1, WireType::Bool, "true".to_owned()),
            (2, WireType::Bool, "false".to_owned()),
            (3, WireType::I8, "127".to_owned()),
        ]
    );
    let written = write(|w| {
        w.write_struct(|w| {
            w.field_bool(1, true);
            w.field_bool(2, false);
            w.field_i8(3, 127);
        })
    });
    assert_eq!(written, bytes);
}

#[test]
fn nested_structs_restore_the_field_id_base() {
    // { 1: { 5: i32 3 }, 2: i16 -3 }: the outer field 2 is a delta from 1, not
    // from the inner 5.
    let bytes = [0x1c, 0x55, 0x06, 0x00, 0x14, 0x05, 0x00];
    let mut reader = CompactReader::new(&bytes);
    let (mut inner, mut outer) = (None, None);
    reader
        .read_struct("outer", |r, f| {
            match (f.id, f.ty) {
                (1, WireType::Struct) => r.read_struct("inner", |r, f| {
                    assert_eq!((f.id, f.ty), (5, WireType::I32));
                    inner = Some(r.read_i32()?);
                    Ok(true)
                })?,
                (2, WireType::I16) => outer = Some(r.read_i16()?),
                other => panic!("unexpected field {other:?}"),
            }
            Ok(true)
        })
        .unwrap();
    assert_eq!((inner, outer), (Some(3), Some(-3)));
    let written = write(|w| {
        w.write_struct(|w| {
            w.field_begin(1, WireType::Struct);
            w.write_struct(|w| w.field_i32(5, 3));
            w.field_i16(2, -3);
        })
    });
    assert_eq!(written, bytes);
}

#[test]
fn lists_short_and_long_form() {
    // list<i32> [1, -1, 2]: size 3 in the high nibble, type 5.
    let short = [0x35, 0x02, 0x01, 0x04];
    let mut reader = CompactReader::new(&short);
    assert_eq!(
        reader
            .read_list(WireType::I32, CompactReader::read_i32)
            .unwrap(),
        [1, -1, 2]
    );
    assert_eq!(
        write(|w| {
            w.list_begin(WireType::I32, 3);
            for v in [1, -1, 2] {
                w.write_i32(v);
            }
        }),
        short
    );

    // 20 binaries: size nibble 15, then varint 20.
    let items: Vec<Vec<u8>> = (0..20u8).map(|i| vec![i; usize::from(i % 3)]).collect();
    let long = write(|w| {
        w.list_begin(WireType::Binary, items.len());
        for item in &items {
            w.write_binary(item);
        }
    });
    assert_eq!(&long[..2], [0xf8, 20]);
    let mut reader = CompactReader::new(&long);
    let read = reader
        .read_list(WireType::Binary, |r| r.read_binary().map(<[u8]>::to_vec))
        .unwrap();
    assert_eq!(read, items);

    // Bool elements: one byte each; 1 is true, 0 and 2 are false.
    let bools = [0x31, 0x01, 0x02, 0x00];
    let mut reader = CompactReader::new(&bools);
    assert_eq!(
        reader
            .read_list(WireType::Bool, CompactReader::read_bool_element)
            .unwrap(),
        [true, false, false]
    );
    let mut reader = CompactReader::new(&[0x12, 0x07]);
    corrupt_message(reader.read_list(WireType::Bool, CompactReader::read_bool_element));
    // A list header written with the "false" bool type is still a bool list.
    let mut reader = CompactReader::new(&[0x12, 0x01]);
    assert_eq!(
        reader
            .read_list(WireType::Bool, CompactReader::read_bool_element)
            .unwrap(),
        [true]
    );
}

#[test]
fn list_sizes_are_checked_before_allocating() {
    // Claims 2^31 - 1 i64 elements with five bytes of input.
    let bytes = [0xf6, 0xff, 0xff, 0xff, 0xff, 0x07, 0x00];
    let message = corrupt_message(
        CompactReader::new(&bytes).read_list(WireType::I64, CompactReader::read_i64),
    );
    assert!(
        message.contains("2147483647 elements cannot fit"),
        "{message}"
    );
    // A size varint beyond 32 bits.
    corrupt_message(
        CompactReader::new(&[0xf6, 0xff, 0xff, 0xff, 0xff, 0x7f])
            .read_list(WireType::I64, CompactReader::read_i64),
    );
    // An element type that is not the expected one.
    let message = corrupt_message(
        CompactReader::new(&short_i32_list()).read_list(WireType::I64, CompactReader::read_i64),
    );
    assert!(
        message.contains("list of I32 where a list of I64"),
        "{message}"
    );
    // Unknown element type nibbles.
    for nibble in [0u8, 14, 15] {
        corrupt_message(
            CompactReader::new(&[0x10 | nibble, 0])
                .read_list(WireType::I32, CompactReader::read_i32),
        );
    }
}

fn short_i32_list() -> Vec<u8> {
    vec![0x15, 0x02]
}

/// A struct with one unknown field of type `ty` whose value `body` writes,
/// followed by a known i32 field that must still be found.
fn with_unknown_field(id: i16, ty: WireType, body: impl FnOnce(&mut CompactWriter<'_>)) -> Vec<u8> {
    write(|w| {
        w.write_struct(|w| {
            w.field_begin(id, ty);
            body(w);
            w.field_i32(id.saturating_add(1), 42);
        })
    })
}

fn read_known_after_skip(bytes: &[u8]) -> Result<i32> {
    let mut reader = CompactReader::new(bytes);
    let mut known = None;
    reader.read_struct("test", |r, f| {
        if f.ty == WireType::I32 {
            known = Some(r.read_i32()?);
            return Ok(true);
        }
        Ok(false)
    })?;
    assert_eq!(reader.position(), bytes.len());
    Ok(known.unwrap())
}

#[test]
fn skipping_every_wire_type() {
    let cases: Vec<Vec<u8>> = vec![
        with_unknown_field(3, WireType::I8, |w| w.write_i8(-1)),
        with_unknown_field(3, WireType::I16, |w| w.write_i16(-300)),
        with_unknown_field(3, WireType::I64, |w| w.write_i64(i64::MIN)),
        with_unknown_field(3, WireType::Double, |w| w.write_double(f64::NAN)),
        with_unknown_field(3, WireType::Binary, |w| w.write_binary(&[0; 300])),
        with_unknown_field(3, WireType::Uuid, |w| {
            for _ in 0..16 {
                w.write_i8(7);
            }
        }),
        with_unknown_field(200, WireType::Struct, |w| {
            w.write_struct(|w| {
                w.field_bool(1, true);
                w.field_begin(2, WireType::List);
                w.list_begin(WireType::Struct, 2);
                w.write_struct(|w| w.field_i32(1, 1));
                w.write_struct(|_| {});
                w.field_begin(9, WireType::Set);
                w.list_begin(WireType::Bool, 3);
                for b in [true, false, true] {
                    w.write_bool_element(b);
                }
            })
        }),
        // A map<string, list<i64>> with two entries, and an empty map.
        with_unknown_field(-5, WireType::Map, |w| {
            w.write_varint(2);
            w.write_i8(0x89u8 as i8);
            for key in ["a", "b"] {
                w.write_string(key);
                w.list_begin(WireType::I64, 1);
                w.write_i64(9);
            }
        }),
        with_unknown_field(4, WireType::Map, |w| w.write_varint(0)),
        // A list of lists.
        with_unknown_field(4, WireType::List, |w| {
            w.list_begin(WireType::List, 2);
            w.list_begin(WireType::Double, 1);
            w.write_double(2.0);
            w.list_begin(WireType::Binary, 0);
        }),
    ];
    for bytes in cases {
        assert_eq!(read_known_after_skip(&bytes).unwrap(), 42, "{bytes:02x?}");
    }
}

#[test]
fn skip_rejects_bad_containers() {
    // Map with invalid key/value type nibbles.
    let bad_types = with_unknown_field(3, WireType::Map, |w| {
        w.write_varint(1);
        w.write_i8(0xe5u8 as i8);
    });
    corrupt_message(read_known_after_skip(&bad_types));
    // Map claiming more entries than bytes.
    let huge = with_unknown_field(3, WireType::Map, |w| {
        w.write_varint(1 << 30);
        w.write_i8(0x55);
    });
    let message = corrupt_message(read_known_after_skip(&huge));
    assert!(message.contains("cannot fit"), "{message}");
    // An unknown field type nibble.
    corrupt_message(read_known_after_skip(&[0x1e, 0x00]));
    // Field id overflow through deltas: long-form 32767, then delta 1.
    corrupt_message(read_known_after_skip(&[
        0x05, 0xfe, 0xff, 0x03, 0x00, 0x15, 0x00, 0x00,
    ]));
}

#[test]
fn nesting_is_limited() {
    // Unknown struct fields nested far deeper than MAX_DEPTH: field 1 of
    // type struct, over and over.
    let depth = MAX_DEPTH * 4;
    let mut bytes = vec![0x1c; depth];
    bytes.extend(std::iter::repeat_n(0, depth + 1));
    let message = corrupt_message(read_known_after_skip(&bytes));
    assert!(message.contains("nesting deeper than"), "{message}");
    // Nested lists, likewise.
    let mut lists = vec![0x1c];
    lists.extend(std::iter::repeat_n(0x19, depth));
    corrupt_message(read_known_after_skip(&lists));
    // Exactly at the limit is fine: MAX_DEPTH - 1 nested unknown structs
    // inside the outer one.
    let inner = MAX_DEPTH - 1;
    let mut ok = vec![0x1c; inner];
    ok.extend(std::iter::repeat_n(0, inner));
    ok.extend([0x25, 0x54, 0x00]);
    assert_eq!(read_known_after_skip(&ok).unwrap(), 42);
}

#[test]
fn writer_reports_oversized_lengths() {
    let mut out = Vec::new();
    let mut writer = CompactWriter::new(&mut out);
    writer.list_begin(WireType::I32, 1 << 31);
    let error = writer.finish().unwrap_err();
    assert_eq!(error.status(), Status::InvalidArgument);
    assert!(error.message().contains("list size"), "{error}");
}

#[test]
fn random_structs_round_trip_and_survive_mutation() {
    // Random field sequences through the writer, read back field by field.
    let mut rng = Rng::new(7);
    for case in 0..200 {
        let count = rng.below(12);
        let mut id = 0i16;
        let mut expected = Vec::new();
        let bytes = write(|w| {
            w.write_struct(|w| {
                for _ in 0..count {
                    // Mostly small deltas, sometimes long-form jumps.
                    id += if rng.below(4) == 0 {
                        1 + rng.below(300) as i16
                    } else {
                        1
                    };
                    match rng.below(5) {
                        0 => {
                            let b = rng.below(2) == 1;
                            w.field_bool(id, b);
                            expected.push((id, WireType::Bool, b.to_string()));
                        }
                        1 => {
                            let v = rng.next_u64() as i32;
                            w.field_i32(id, v);
                            expected.push((id, WireType::I32, v.to_string()));
                        }
                        2 => {
                            let v = rng.next_u64() as i64;
                            w.field_i64(id, v);
                            expected.push((id, WireType::I64, v.to_string()));
                        }
                        3 => {
                            let v = rng.next_u64() as i16;
                            w.field_i16(id, v);
                            expected.push((id, WireType::I16, v.to_string()));
                        }
                        _ => {
                            let s = "x".repeat(rng.below(40));
                            w.field_string(id, &s);
                            expected.push((id, WireType::Binary, s));
                        }
                    }
                }
            })
        });
        assert_eq!(fields(&bytes).unwrap(), expected, "case {case}");
        fuzz(&bytes, 20, case, |input| fields_prefix(input).map(drop));
    }
}
