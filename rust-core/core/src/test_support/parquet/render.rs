//! Arrow values as canonical text, the form `tests/data/GenerateFixtures.java`
//! writes its expected values in, so that every value can be compared:
//!
//! - `null`; booleans `true`/`false`;
//! - integers, dates (days), times and timestamps (in their unit) and decimals
//!   (the unscaled integer) in decimal;
//! - floats as the hex digits of their IEEE bits (8 or 16, lower case);
//! - strings, binaries and fixed-size binaries as the hex digits of their bytes;
//! - structs `{a,b}`, lists `[x,y]`, maps as lists of `{key,value}` entries.

use std::fmt::Write;

use crate::arrow::{ArrayView, DataType};

pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().fold(String::new(), |mut s, b| {
        let _ = write!(s, "{b:02x}");
        s
    })
}

fn int(bytes: &[u8], signed: bool) -> i128 {
    let mut wide = [if signed && bytes.last().is_some_and(|b| b & 0x80 != 0) {
        0xff
    } else {
        0
    }; 16];
    wide[..bytes.len()].copy_from_slice(bytes);
    i128::from_le_bytes(wide)
}

/// Slot `i` of `view` as canonical text.
pub fn value(view: &ArrayView, i: usize) -> String {
    if !view.is_valid(i) {
        return "null".into();
    }
    if let Some(dictionary) = view.dictionary() {
        return value(dictionary, view.dictionary_key(i));
    }
    use DataType::*;
    match view.data_type() {
        Boolean => view.bool_value(i).to_string(),
        Int8
        | Int16
        | Int32
        | Int64
        | Date32
        | Date64
        | Time(_)
        | Timestamp { .. }
        | Duration(_)
        | Decimal128 { .. } => int(view.fixed_value(i), true).to_string(),
        UInt8 | UInt16 | UInt32 | UInt64 => int(view.fixed_value(i), false).to_string(),
        Float32 => format!(
            "{:08x}",
            u32::from_le_bytes(view.fixed_value(i).try_into().unwrap())
        ),
        Float64 => format!(
            "{:016x}",
            u64::from_le_bytes(view.fixed_value(i).try_into().unwrap())
        ),
        Utf8 | LargeUtf8 | Binary | LargeBinary => hex(view.binary_value(i)),
        FixedSizeBinary(_) => hex(view.fixed_value(i)),
        Struct => {
            let fields: Vec<String> = view.children().iter().map(|c| value(c, i)).collect();
            format!("{{{}}}", fields.join(","))
        }
        List | LargeList | Map { .. } => {
            let child = &view.children()[0];
            let items: Vec<String> = view.value_range(i).map(|j| value(child, j)).collect();
            format!("[{}]", items.join(","))
        }
        Null => "null".into(),
    }
}

/// Each row of a struct batch as its fields' texts.
pub fn rows(batch: &ArrayView) -> Vec<Vec<String>> {
    (0..batch.len())
        .map(|i| batch.children().iter().map(|c| value(c, i)).collect())
        .collect()
}
