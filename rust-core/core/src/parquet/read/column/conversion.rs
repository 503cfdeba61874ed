//! How a column's physical values become the values of its Arrow array.
//!
//! [`crate::parquet::read::arrow`] picks a [`Conversion`] per leaf from the
//! column's logical type; the column reader then writes converted values
//! straight into the Arrow buffers. Most conversions are the identity (one copy
//! from the page); the others widen, narrow or re-encode a value at a time.

use crate::error::{Error, Result};
use crate::parquet::format::PhysicalType;

/// The Julian day of 1970-01-01, the epoch of INT96 timestamps' day field.
const JULIAN_UNIX_EPOCH: i64 = 2_440_588;
const NANOS_PER_DAY: i64 = 86_400_000_000_000;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Conversion {
    /// BOOLEAN, one byte per value until the array is assembled as a bitmap.
    Boolean,
    /// INT32 as stored: int32, date32, uint32 (same bits), decimal storage.
    Int32,
    /// INT32 truncated to 8 or 16 bits: INTEGER(8|16, signed or not).
    Int32To8,
    Int32To16,
    /// INT32 sign-extended: an int column read as a long (schema evolution).
    Int32To64,
    /// INT32 TIME(MILLIS) as microseconds, the unit of Iceberg's time.
    TimeMillisToMicros,
    /// INT32 or INT64 unscaled decimals, sign-extended to 128 bits.
    Int32ToDecimal,
    Int64ToDecimal,
    /// INT64 as stored.
    Int64,
    /// INT64 TIMESTAMP(MILLIS) as microseconds, the unit of Iceberg's timestamp
    /// (schema evolution: Iceberg reads such columns as timestamps).
    Int64MillisToMicros,
    /// INT96 (nanoseconds of the day, then the Julian day) as nanoseconds since
    /// the epoch; instants outside int64's range (1677 to 2262) are
    /// CORRUPT_DATA, never wrapped.
    Int96ToNanos,
    /// INT96 as microseconds since the epoch, as Iceberg's readers read it into
    /// its timestamptz (`ParquetUtil.extractTimestampInt96`: Julian days in
    /// micros plus nanoseconds of the day truncated to micros).
    Int96ToMicros,
    Float,
    /// FLOAT widened: a float column read as a double (schema evolution).
    FloatToDouble,
    Double,
    /// BYTE_ARRAY as offsets and bytes: binary.
    ByteArray,
    /// BYTE_ARRAY as offsets and bytes, checked to be UTF-8: string.
    Utf8,
    /// BYTE_ARRAY big-endian two's-complement decimals.
    ByteArrayToDecimal,
    /// FIXED_LEN_BYTE_ARRAY of this width as stored.
    FixedLen(usize),
    /// FIXED_LEN_BYTE_ARRAY big-endian decimals of this width.
    FixedLenToDecimal(usize),
}

/// The shape of converted values in a buffer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Output {
    /// Values of this many bytes each.
    Fixed(usize),
    /// One byte (0 or 1) per value.
    Boolean,
    /// 32-bit offsets and value bytes.
    Bytes,
}

impl Conversion {
    /// The physical type this conversion reads.
    pub(crate) fn physical(self) -> PhysicalType {
        use Conversion::*;
        match self {
            Boolean => PhysicalType::Boolean,
            Int32 | Int32To8 | Int32To16 | Int32To64 | TimeMillisToMicros | Int32ToDecimal => {
                PhysicalType::Int32
            }
            Int64 | Int64MillisToMicros | Int64ToDecimal => PhysicalType::Int64,
            Int96ToNanos | Int96ToMicros => PhysicalType::Int96,
            Float | FloatToDouble => PhysicalType::Float,
            Double => PhysicalType::Double,
            ByteArray | Utf8 | ByteArrayToDecimal => PhysicalType::ByteArray,
            FixedLen(_) | FixedLenToDecimal(_) => PhysicalType::FixedLenByteArray,
        }
    }

    pub(crate) fn output(self) -> Output {
        use Conversion::*;
        match self {
            Boolean => Output::Boolean,
            Int32To8 => Output::Fixed(1),
            Int32To16 => Output::Fixed(2),
            Int32 | Float => Output::Fixed(4),
            Int32To64 | TimeMillisToMicros | Int64 | Int64MillisToMicros | Int96ToNanos
            | Int96ToMicros | FloatToDouble | Double => Output::Fixed(8),
            Int32ToDecimal | Int64ToDecimal | ByteArrayToDecimal | FixedLenToDecimal(_) => {
                Output::Fixed(16)
            }
            FixedLen(width) => Output::Fixed(width),
            ByteArray | Utf8 => Output::Bytes,
        }
    }
}

/// An INT96 timestamp's Julian day and nanoseconds within the day: 8 bytes of
/// nanoseconds, then 4 bytes of day, little-endian.
fn int96_parts(value: &[u8; 12]) -> (i32, i64) {
    let (nanos, day) = value.split_at(8);
    let nanos = i64::from_le_bytes(nanos.try_into().unwrap_or_default());
    let day = i32::from_le_bytes(day.try_into().unwrap_or_default());
    (day, nanos)
}

/// Computed in 128 bits, where neither the product nor the sum can overflow.
fn int96_since_epoch(
    value: &[u8; 12],
    per_day: i64,
    nanos_per_unit: i64,
    unit: &str,
) -> Result<i64> {
    let (day, nanos) = int96_parts(value);
    let days = i128::from(day) - i128::from(JULIAN_UNIX_EPOCH);
    let instant = days * i128::from(per_day) + i128::from(nanos / nanos_per_unit);
    i64::try_from(instant).map_err(|_| {
        Error::corrupt_data(format!(
            "INT96 timestamp (Julian day {day}, {nanos} ns of the day) is outside the range of \
             64-bit {unit} since 1970"
        ))
    })
}

/// An INT96 timestamp in nanoseconds since the epoch.
pub(super) fn int96_to_nanos(value: &[u8; 12]) -> Result<i64> {
    int96_since_epoch(value, NANOS_PER_DAY, 1, "nanoseconds")
}

/// An INT96 timestamp in microseconds since the epoch, as Iceberg computes it
/// (days in micros plus the nanoseconds of the day truncated to micros).
pub(super) fn int96_to_micros(value: &[u8; 12]) -> Result<i64> {
    int96_since_epoch(value, NANOS_PER_DAY / 1000, 1000, "microseconds")
}

/// A big-endian two's-complement integer of 1 to 16 bytes (or longer, if the
/// extra leading bytes only repeat the sign) as an i128.
pub(super) fn decimal_from_be(bytes: &[u8]) -> Result<i128> {
    let Some(&first) = bytes.first() else {
        return Err(Error::corrupt_data("a decimal value has no bytes"));
    };
    let (extra, bytes) = bytes.split_at(bytes.len().saturating_sub(16));
    let sign = if first & 0x80 != 0 { 0xff } else { 0 };
    let keeps_sign = |&b: &u8| b == sign;
    // The first kept byte must agree with the dropped ones about the sign.
    let kept_sign = bytes
        .first()
        .map_or(0, |&b| if b & 0x80 != 0 { 0xff } else { 0 });
    if !extra.iter().all(keeps_sign) || (!extra.is_empty() && kept_sign != sign) {
        return Err(Error::corrupt_data(format!(
            "a decimal value of {} bytes does not fit 128 bits",
            extra.len() + bytes.len()
        )));
    }
    let mut wide = [sign; 16];
    wide[16 - bytes.len()..].copy_from_slice(bytes);
    Ok(i128::from_be_bytes(wide))
}

/// Checks that `data` (byte arrays laid out back to back from offset `base`)
/// is UTF-8 and that every offset in `offsets` falls on a character boundary,
/// so that each value is UTF-8 on its own: one pass over the bytes in all.
pub(super) fn check_utf8(data: &[u8], base: usize, offsets: &[i32]) -> Result<()> {
    // Most strings are ASCII, which is UTF-8 with every byte a boundary; the
    // ASCII test is a vectorised OR over the bytes, several times faster than
    // decoding.
    if data.is_ascii() {
        return Ok(());
    }
    let text = match std::str::from_utf8(data) {
        Ok(text) => text,
        Err(e) => {
            return Err(Error::corrupt_data(format!(
                "a STRING value is not UTF-8 (byte {} of the batch's string data)",
                base + e.valid_up_to()
            )))
        }
    };
    for &offset in offsets {
        let at = (offset as usize).wrapping_sub(base);
        if !text.is_char_boundary(at) {
            return Err(Error::corrupt_data(format!(
                "a STRING value is not UTF-8: it starts or ends inside a character (byte {offset})"
            )));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Status;

    #[test]
    fn int96_is_julian_day_and_nanos() {
        let mut value = [0u8; 12];
        value[8..].copy_from_slice(&2_440_588i32.to_le_bytes());
        value[..8].copy_from_slice(&1_000i64.to_le_bytes());
        assert_eq!(int96_to_nanos(&value).unwrap(), 1_000);
        assert_eq!(int96_to_micros(&value).unwrap(), 1);
        value[8..].copy_from_slice(&2_440_589i32.to_le_bytes());
        assert_eq!(int96_to_nanos(&value).unwrap(), NANOS_PER_DAY + 1_000);
        value[8..].copy_from_slice(&0i32.to_le_bytes());
        // 4713 BC: microseconds reach it, nanoseconds do not.
        assert_eq!(
            int96_to_micros(&value).unwrap(),
            -JULIAN_UNIX_EPOCH * 86_400_000_000 + 1
        );
        let err = int96_to_nanos(&value).unwrap_err();
        assert_eq!(err.status(), crate::error::Status::CorruptData);
        assert_eq!(
            err.message(),
            "INT96 timestamp (Julian day 0, 1000 ns of the day) is outside the range of 64-bit \
             nanoseconds since 1970"
        );
        value[8..].copy_from_slice(&i32::MAX.to_le_bytes());
        let err = int96_to_micros(&value).unwrap_err();
        assert!(
            err.message().ends_with("64-bit microseconds since 1970"),
            "{err}"
        );
    }

    #[test]
    fn decimals_sign_extend_from_any_width() {
        assert_eq!(decimal_from_be(&[0x01]).unwrap(), 1);
        assert_eq!(decimal_from_be(&[0xff]).unwrap(), -1);
        assert_eq!(decimal_from_be(&[0x80, 0x00]).unwrap(), -32768);
        assert_eq!(
            decimal_from_be(&[0x7f; 16]).unwrap(),
            i128::from_be_bytes([0x7f; 16])
        );
        let mut long = vec![0xff; 4];
        long.extend_from_slice(&(-5i128).to_be_bytes());
        assert_eq!(decimal_from_be(&long).unwrap(), -5);
        let mut wrong_sign = vec![0xff; 4];
        wrong_sign.extend_from_slice(&5i128.to_be_bytes());
        let err = decimal_from_be(&wrong_sign).unwrap_err();
        assert_eq!(
            err.message(),
            "a decimal value of 20 bytes does not fit 128 bits"
        );
        let mut too_big = vec![0x01];
        too_big.extend_from_slice(&[0; 16]);
        assert!(decimal_from_be(&too_big).is_err());
        assert_eq!(
            decimal_from_be(&[]).unwrap_err().status(),
            Status::CorruptData
        );
    }

    #[test]
    fn utf8_is_checked_per_value() {
        check_utf8("aé€".as_bytes(), 10, &[10, 11, 13, 16]).unwrap();
        let err = check_utf8("aé".as_bytes(), 10, &[10, 12, 13]).unwrap_err();
        assert_eq!(
            err.message(),
            "a STRING value is not UTF-8: it starts or ends inside a character (byte 12)"
        );
        let err = check_utf8(b"ok\xff", 0, &[0, 3]).unwrap_err();
        assert_eq!(
            err.message(),
            "a STRING value is not UTF-8 (byte 2 of the batch's string data)"
        );
    }

    #[test]
    fn outputs_match_physical_types() {
        assert_eq!(Conversion::Int96ToNanos.output(), Output::Fixed(8));
        assert_eq!(Conversion::FixedLen(3).output(), Output::Fixed(3));
        assert_eq!(Conversion::FixedLenToDecimal(3).output(), Output::Fixed(16));
        assert_eq!(
            Conversion::TimeMillisToMicros.physical(),
            PhysicalType::Int32
        );
        assert_eq!(Conversion::ByteArray.output(), Output::Bytes);
    }
}
