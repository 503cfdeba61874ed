//! One data page's values, whatever their encoding, decoded into a
//! [`LeafBatch`] in the Arrow representation a [`Conversion`] asks for.
//!
//! Fixed-width PLAIN values whose stored form is their Arrow form are copied
//! from the page in one go; dictionary indices are unpacked a block at a time
//! and gathered straight into the output; everything else decodes into the
//! output slice, or through a small stack buffer when a value changes width.

use std::mem::size_of;

use super::batch::LeafBatch;
use super::conversion::{
    check_utf8, decimal_from_be, int96_to_micros, int96_to_nanos, Conversion, Output,
};
use super::dictionary::Dictionary;
use super::plain_bytes::PlainByteArrays;
use crate::arrow::buffer::NativeType;
use crate::arrow::MutableBuffer;
use crate::error::{Error, Result};
use crate::parquet::encodings::byte_stream_split::ByteStreamSplitDecoder;
use crate::parquet::encodings::delta::{
    DeltaBinaryPackedDecoder, DeltaByteArrayDecoder, DeltaLengthByteArrayDecoder,
};
use crate::parquet::encodings::plain::{PlainBooleanDecoder, PlainDecoder, INT96_WIDTH};
use crate::parquet::encodings::rle::RleDecoder;
use crate::parquet::encodings::{ByteArraySink, FixedWidth};
use crate::parquet::format::{Encoding, PhysicalType};

/// Values converted per step when a value changes width.
const CHUNK: usize = 256;

/// The decoder of one data page's value section. There is one per loaded
/// page, so the size of the largest variant does not matter, while boxing it
/// would add an indirection to every read.
#[allow(clippy::large_enum_variant)]
pub(super) enum ValueDecoder<'a> {
    Plain(PlainDecoder<'a>),
    PlainBytes(PlainByteArrays<'a>),
    PlainBoolean(PlainBooleanDecoder<'a>),
    RleBoolean(RleDecoder<'a>),
    Dictionary(RleDecoder<'a>),
    DeltaInt32(DeltaBinaryPackedDecoder<'a, i32>),
    DeltaInt64(DeltaBinaryPackedDecoder<'a, i64>),
    DeltaLength(DeltaLengthByteArrayDecoder<'a>),
    DeltaByteArray(DeltaByteArrayDecoder<'a>),
    ByteStreamSplit(ByteStreamSplitDecoder<'a>),
}

/// Whether a page in `encoding` must be told exactly how many values it holds
/// (its streams carry their own counts, which must agree); the others only need
/// an upper bound, such as the page's level entries.
pub(super) fn needs_exact_count(encoding: Encoding) -> bool {
    matches!(
        encoding,
        Encoding::DeltaBinaryPacked
            | Encoding::DeltaLengthByteArray
            | Encoding::DeltaByteArray
            | Encoding::ByteStreamSplit
    )
}

fn unsupported(encoding: Encoding, physical: PhysicalType) -> Error {
    match encoding {
        Encoding::Unknown(id) => Error::unsupported(format!("encoding {id} is not supported")),
        _ => Error::unsupported(format!(
            "{encoding:?} values of a {physical:?} column are not supported"
        )),
    }
}

impl<'a> ValueDecoder<'a> {
    /// A decoder for the value section `data` of a page in `encoding`, holding
    /// `count` values (exactly, if [`needs_exact_count`], else at most).
    pub(super) fn new(
        encoding: Encoding,
        physical: PhysicalType,
        type_length: usize,
        data: &'a [u8],
        count: usize,
    ) -> Result<Self> {
        use PhysicalType as P;
        Ok(match (encoding, physical) {
            (Encoding::Plain, P::Boolean) => {
                // Nulls have no bits, so the bound may exceed what is stored.
                let bits = data.len().saturating_mul(8);
                ValueDecoder::PlainBoolean(PlainBooleanDecoder::new(data, count.min(bits))?)
            }
            (Encoding::Plain, P::ByteArray) => {
                ValueDecoder::PlainBytes(PlainByteArrays::new(data, count))
            }
            (Encoding::Plain, _) => ValueDecoder::Plain(PlainDecoder::new(data, count)),
            (Encoding::Rle, P::Boolean) => {
                ValueDecoder::RleBoolean(RleDecoder::booleans(data, count)?.0)
            }
            (Encoding::PlainDictionary | Encoding::RleDictionary, P::Boolean) => {
                return Err(unsupported(encoding, physical))
            }
            (Encoding::PlainDictionary | Encoding::RleDictionary, _) => {
                ValueDecoder::Dictionary(RleDecoder::dictionary_indices(data, count)?)
            }
            (Encoding::DeltaBinaryPacked, P::Int32) => {
                ValueDecoder::DeltaInt32(DeltaBinaryPackedDecoder::new(data, count)?)
            }
            (Encoding::DeltaBinaryPacked, P::Int64) => {
                ValueDecoder::DeltaInt64(DeltaBinaryPackedDecoder::new(data, count)?)
            }
            (Encoding::DeltaLengthByteArray, P::ByteArray) => {
                ValueDecoder::DeltaLength(DeltaLengthByteArrayDecoder::new(data, count)?)
            }
            (Encoding::DeltaByteArray, P::ByteArray | P::FixedLenByteArray) => {
                ValueDecoder::DeltaByteArray(DeltaByteArrayDecoder::new(data, count)?)
            }
            (
                Encoding::ByteStreamSplit,
                P::Int32 | P::Int64 | P::Float | P::Double | P::FixedLenByteArray,
            ) => {
                let width = match physical {
                    P::Int32 | P::Float => 4,
                    P::Int64 | P::Double => 8,
                    _ => type_length,
                };
                ValueDecoder::ByteStreamSplit(ByteStreamSplitDecoder::new(data, width, count)?)
            }
            _ => return Err(unsupported(encoding, physical)),
        })
    }

    /// Decodes the next `n` values into `out`, converted as `conversion` says.
    /// A dictionary-encoded page gathers from `dictionary`, or with
    /// `keep_indices` stores the indices themselves (as i32).
    pub(super) fn decode(
        &mut self,
        n: usize,
        conversion: Conversion,
        dictionary: Option<&Dictionary>,
        keep_indices: bool,
        out: &mut LeafBatch,
    ) -> Result<()> {
        if n == 0 {
            return Ok(());
        }
        if let ValueDecoder::Dictionary(indices) = self {
            let Some(dictionary) = dictionary else {
                return Err(Error::corrupt_data(
                    "a dictionary-encoded page, but the column chunk has no dictionary page",
                ));
            };
            return gather(indices, dictionary, n, keep_indices, out);
        }
        if keep_indices {
            return Err(Error::corrupt_data(
                "the page is not dictionary-encoded, but the column chunk's encoding_stats say \
                 every data page is",
            ));
        }
        use Conversion as C;
        let values = &mut out.values;
        match conversion {
            C::Int32 | C::Int64 | C::Float | C::Double | C::FixedLen(_) => {
                let Output::Fixed(width) = conversion.output() else {
                    return Err(Error::internal("a fixed-width conversion without a width"));
                };
                match self {
                    // Stored little-endian, which is the in-memory form here.
                    ValueDecoder::Plain(plain) => {
                        let raw = plain.read_raw(n, width)?;
                        check_count(raw.len() / width.max(1), n)?;
                        values.extend_from_slice(raw)?;
                    }
                    _ => match conversion {
                        C::Int32 => self.read_into(n, values, Self::read_i32)?,
                        C::Int64 => self.read_into(n, values, Self::read_i64)?,
                        C::Float => self.read_into(n, values, Self::read_fixed_width::<f32>)?,
                        C::Double => self.read_into(n, values, Self::read_fixed_width::<f64>)?,
                        _ => check_count(self.append_fixed_len(n, width, values)?, n)?,
                    },
                }
            }
            C::Int32To8 => self.convert(n, values, Self::read_i32, |v| v as i8)?,
            C::Int32To16 => self.convert(n, values, Self::read_i32, |v| v as i16)?,
            C::Int32To64 => self.convert(n, values, Self::read_i32, i64::from)?,
            C::TimeMillisToMicros => {
                self.convert(n, values, Self::read_i32, |v| i64::from(v) * 1000)?
            }
            // Wrapping, like Iceberg's reader (millis * 1000), for the few
            // instants outside int64 microseconds.
            C::Int64MillisToMicros => {
                self.convert(n, values, Self::read_i64, |v| v.wrapping_mul(1000))?
            }
            C::Int32ToDecimal => self.convert(n, values, Self::read_i32, i128::from)?,
            C::Int64ToDecimal => self.convert(n, values, Self::read_i64, i128::from)?,
            C::FloatToDouble => {
                self.convert(n, values, Self::read_fixed_width::<f32>, f64::from)?
            }
            C::Int96ToNanos => {
                self.try_convert(n, values, Self::read_int96, |v| int96_to_nanos(&v))?
            }
            C::Int96ToMicros => {
                self.try_convert(n, values, Self::read_int96, |v| int96_to_micros(&v))?
            }
            C::FixedLenToDecimal(width) => {
                let read = |d: &mut Self, out: &mut [[u8; 16]]| d.read_fixed_decimal(width, out);
                let slot = fixed_slots::<i128>(values, n)?;
                let mut scratch = [[0u8; 16]; CHUNK];
                for chunk in slot.chunks_mut(CHUNK) {
                    let got = read(self, &mut scratch[..chunk.len()])?;
                    check_count(got, chunk.len())?;
                    for (d, s) in chunk.iter_mut().zip(&scratch) {
                        *d = decimal_from_be(&s[16 - width..])?;
                    }
                }
            }
            C::Boolean => {
                let slot = fixed_slots::<u8>(values, n)?;
                let mut scratch = [false; CHUNK];
                for chunk in slot.chunks_mut(CHUNK) {
                    let got = self.read_booleans(&mut scratch[..chunk.len()])?;
                    check_count(got, chunk.len())?;
                    for (d, &s) in chunk.iter_mut().zip(&scratch) {
                        *d = u8::from(s);
                    }
                }
            }
            C::ByteArray | C::Utf8 => {
                if out.offsets.is_empty() {
                    out.offsets.push(0i32)?;
                }
                out.offsets.reserve(n * 4)?;
                let (data_start, offsets_start) = (out.values.len(), out.offsets.len() / 4);
                let read = match self {
                    ValueDecoder::PlainBytes(plain) => {
                        plain.read(n, &mut out.offsets, &mut out.values)?
                    }
                    _ => {
                        let mut sink = BytesSink {
                            offsets: &mut out.offsets,
                            data: &mut out.values,
                        };
                        self.read_byte_arrays(n, &mut sink)?
                    }
                };
                check_count(read, n)?;
                if conversion == C::Utf8 {
                    let offsets = out
                        .offsets
                        .typed::<i32>()
                        .get(offsets_start..)
                        .unwrap_or(&[]);
                    check_utf8(&out.values.as_slice()[data_start..], data_start, offsets)?;
                }
            }
            C::ByteArrayToDecimal => {
                values.reserve(byte_len(n, 16)?)?;
                let mut sink = DecimalSink { values };
                check_count(self.read_byte_arrays(n, &mut sink)?, n)?;
            }
        }
        out.count += n;
        Ok(())
    }

    /// Decodes `n` values of `T` directly into the end of `values`.
    fn read_into<T: NativeType + Default>(
        &mut self,
        n: usize,
        values: &mut MutableBuffer,
        read: fn(&mut Self, &mut [T]) -> Result<usize>,
    ) -> Result<()> {
        let slot = fixed_slots::<T>(values, n)?;
        check_count(read(self, slot)?, n)
    }

    /// Decodes `n` values of `P` a chunk at a time and stores them converted.
    fn convert<P: Copy + Default, O: NativeType>(
        &mut self,
        n: usize,
        values: &mut MutableBuffer,
        read: fn(&mut Self, &mut [P]) -> Result<usize>,
        convert: impl Fn(P) -> O,
    ) -> Result<()> {
        self.try_convert(n, values, read, |p| Ok(convert(p)))
    }

    /// Decodes `n` values of `P` a chunk at a time and stores them converted,
    /// for values whose converted form may not exist.
    fn try_convert<P: Copy + Default, O: NativeType>(
        &mut self,
        n: usize,
        values: &mut MutableBuffer,
        read: fn(&mut Self, &mut [P]) -> Result<usize>,
        convert: impl Fn(P) -> Result<O>,
    ) -> Result<()> {
        let slot = fixed_slots::<O>(values, n)?;
        let mut scratch = [P::default(); CHUNK];
        for chunk in slot.chunks_mut(CHUNK) {
            let got = read(self, &mut scratch[..chunk.len()])?;
            check_count(got, chunk.len())?;
            for (d, &s) in chunk.iter_mut().zip(&scratch) {
                *d = convert(s)?;
            }
        }
        Ok(())
    }

    fn read_i32(&mut self, out: &mut [i32]) -> Result<usize> {
        match self {
            ValueDecoder::DeltaInt32(delta) => delta.read(out),
            _ => self.read_fixed_width(out),
        }
    }

    fn read_i64(&mut self, out: &mut [i64]) -> Result<usize> {
        match self {
            ValueDecoder::DeltaInt64(delta) => delta.read(out),
            _ => self.read_fixed_width(out),
        }
    }

    /// INT32, INT64, FLOAT, DOUBLE from PLAIN or BYTE_STREAM_SPLIT.
    fn read_fixed_width<T: FixedWidth>(&mut self, out: &mut [T]) -> Result<usize> {
        match self {
            ValueDecoder::Plain(plain) => plain.read(out),
            ValueDecoder::ByteStreamSplit(split) => split.read(out),
            _ => Err(mismatch()),
        }
    }

    /// FIXED_LEN_BYTE_ARRAY (or INT96) values back to back into `out`.
    fn read_fixed_len(&mut self, width: usize, out: &mut [u8]) -> Result<usize> {
        match self {
            ValueDecoder::Plain(plain) => plain.read_fixed_len(width, out),
            ValueDecoder::ByteStreamSplit(split) => split.read_fixed_len(out),
            ValueDecoder::DeltaByteArray(delta) => {
                let count = out.len() / width.max(1);
                let mut sink = FixedSink { out, width, at: 0 };
                delta.read(count, &mut sink)
            }
            _ => Err(mismatch()),
        }
    }

    /// Appends `n` FIXED_LEN_BYTE_ARRAY values of `width` bytes to `values`.
    /// The width comes from the file, so memory grows with values found in
    /// the page (DELTA_BYTE_ARRAY) or checked against it (BYTE_STREAM_SPLIT
    /// checks its size up front), never with the width times a count alone.
    fn append_fixed_len(
        &mut self,
        n: usize,
        width: usize,
        values: &mut MutableBuffer,
    ) -> Result<usize> {
        if let ValueDecoder::DeltaByteArray(delta) = self {
            let mut sink = AppendFixedSink { values, width };
            return delta.read(n, &mut sink);
        }
        let start = values.len();
        values.extend_zeros(byte_len(n, width)?)?;
        self.read_fixed_len(width, &mut values.as_mut_slice()[start..])
    }

    fn read_int96(&mut self, out: &mut [[u8; INT96_WIDTH]]) -> Result<usize> {
        self.read_fixed_len(INT96_WIDTH, out.as_flattened_mut())
    }

    /// FIXED_LEN_BYTE_ARRAY decimals of `width` (at most 16) bytes, each
    /// right-aligned in 16 bytes.
    fn read_fixed_decimal(&mut self, width: usize, out: &mut [[u8; 16]]) -> Result<usize> {
        let mut packed = [0u8; CHUNK * 16];
        let packed = &mut packed[..out.len() * width];
        let read = self.read_fixed_len(width, packed)?;
        for (value, bytes) in out.iter_mut().zip(packed.chunks_exact(width.max(1))) {
            value[16 - width..].copy_from_slice(bytes);
        }
        Ok(read)
    }

    fn read_booleans(&mut self, out: &mut [bool]) -> Result<usize> {
        match self {
            ValueDecoder::PlainBoolean(plain) => plain.read(out),
            ValueDecoder::RleBoolean(rle) => rle.read(out),
            _ => Err(mismatch()),
        }
    }

    fn read_byte_arrays(&mut self, n: usize, sink: &mut impl ByteArraySink) -> Result<usize> {
        match self {
            ValueDecoder::PlainBytes(plain) => plain.read_into(n, sink),
            ValueDecoder::DeltaLength(delta) => delta.read(n, sink),
            ValueDecoder::DeltaByteArray(delta) => delta.read(n, sink),
            _ => Err(mismatch()),
        }
    }
}

/// The constructor pairs encodings with physical types, and the mapping pairs
/// physical types with conversions, so this is a bug if it happens.
fn mismatch() -> Error {
    Error::internal("a value decoder was asked for values of another physical type")
}

fn check_count(read: usize, wanted: usize) -> Result<()> {
    if read == wanted {
        return Ok(());
    }
    Err(Error::corrupt_data(format!(
        "the page's values end after {read} of the {wanted} its levels call for"
    )))
}

fn byte_len(n: usize, width: usize) -> Result<usize> {
    n.checked_mul(width)
        .ok_or_else(|| Error::out_of_memory(format!("{n} values of {width} bytes overflow")))
}

/// Appends `n` zeroed values of `T` to `values` and returns them to fill.
pub(super) fn fixed_slots<T: NativeType>(values: &mut MutableBuffer, n: usize) -> Result<&mut [T]> {
    let width = size_of::<T>();
    let start = values.len() / width;
    values.extend_zeros(byte_len(n, width)?)?;
    values
        .typed_mut::<T>()
        .get_mut(start..)
        .ok_or_else(|| Error::internal("a value buffer holds a partial value"))
}

/// Byte arrays as Arrow offsets and bytes.
struct BytesSink<'b> {
    offsets: &'b mut MutableBuffer,
    data: &'b mut MutableBuffer,
}

impl ByteArraySink for BytesSink<'_> {
    #[inline]
    fn push(&mut self, value: &[u8]) -> Result<()> {
        self.data.extend_from_slice(value)?;
        let end = i32::try_from(self.data.len()).map_err(|_| {
            Error::unsupported(
                "a batch's byte array data exceeds 2 GiB, the limit of Arrow's 32-bit offsets; \
                 use a smaller batch size",
            )
        })?;
        self.offsets.push(end)
    }
}

/// Big-endian decimals of any length as i128.
struct DecimalSink<'b> {
    values: &'b mut MutableBuffer,
}

impl ByteArraySink for DecimalSink<'_> {
    fn push(&mut self, value: &[u8]) -> Result<()> {
        self.values.push(decimal_from_be(value)?)
    }
}

/// DELTA_BYTE_ARRAY values of a FIXED_LEN_BYTE_ARRAY column, each checked to
/// have the column's width.
struct FixedSink<'b> {
    out: &'b mut [u8],
    width: usize,
    at: usize,
}

impl ByteArraySink for FixedSink<'_> {
    fn push(&mut self, value: &[u8]) -> Result<()> {
        if value.len() != self.width {
            return Err(Error::corrupt_data(format!(
                "a value of {} bytes in a FIXED_LEN_BYTE_ARRAY({}) column",
                value.len(),
                self.width
            )));
        }
        let end = self.at + self.width;
        let slot = self
            .out
            .get_mut(self.at..end)
            .ok_or_else(|| Error::internal("more fixed-length values than room"))?;
        slot.copy_from_slice(value);
        self.at = end;
        Ok(())
    }
}

/// DELTA_BYTE_ARRAY values of a FIXED_LEN_BYTE_ARRAY column appended to an
/// output buffer, each checked to have the column's width.
struct AppendFixedSink<'b> {
    values: &'b mut MutableBuffer,
    width: usize,
}

impl ByteArraySink for AppendFixedSink<'_> {
    fn push(&mut self, value: &[u8]) -> Result<()> {
        if value.len() != self.width {
            return Err(Error::corrupt_data(format!(
                "a value of {} bytes in a FIXED_LEN_BYTE_ARRAY({}) column",
                value.len(),
                self.width
            )));
        }
        self.values.extend_from_slice(value)
    }
}

/// Decodes a dictionary page's `count` PLAIN values from `data`.
pub(super) fn decode_dictionary(
    data: &[u8],
    count: usize,
    encoding: Encoding,
    conversion: Conversion,
    type_length: usize,
) -> Result<Dictionary> {
    if !matches!(encoding, Encoding::Plain | Encoding::PlainDictionary) {
        return Err(Error::unsupported(format!(
            "a dictionary page in {encoding:?} encoding is not supported"
        )));
    }
    let physical = conversion.physical();
    // Every stored value takes at least this many bytes, which bounds what
    // the count may claim before anything is allocated for it.
    let min_width = match physical {
        PhysicalType::Boolean => {
            return Err(Error::unsupported(
                "dictionary-encoded BOOLEAN columns are not supported",
            ))
        }
        PhysicalType::Int32 | PhysicalType::Float | PhysicalType::ByteArray => 4,
        PhysicalType::Int64 | PhysicalType::Double => 8,
        PhysicalType::Int96 => 12,
        PhysicalType::FixedLenByteArray => type_length.max(1),
    };
    if count > data.len() / min_width {
        return Err(Error::corrupt_data(format!(
            "a dictionary page of {} bytes cannot hold {count} {physical:?} values",
            data.len()
        )));
    }
    let mut batch = LeafBatch::default();
    let output = conversion.output();
    if output == Output::Bytes {
        batch.offsets.push(0i32)?;
    }
    let mut decoder = ValueDecoder::new(Encoding::Plain, physical, type_length, data, count)?;
    decoder.decode(count, conversion, None, false, &mut batch)?;
    Dictionary::from_batch(count, output, batch)
}

/// Dictionary indices unpacked per step: enough to amortise the range check.
const INDEX_BLOCK: usize = 1024;

/// Reads `n` indices and stores the dictionary entries they select (or, with
/// `keep_indices`, the indices as i32).
fn gather(
    indices: &mut RleDecoder<'_>,
    dictionary: &Dictionary,
    n: usize,
    keep_indices: bool,
    out: &mut LeafBatch,
) -> Result<()> {
    let mut block = [0u32; INDEX_BLOCK];
    let mut left = n;
    while left > 0 {
        let k = left.min(INDEX_BLOCK);
        let block = &mut block[..k];
        check_count(indices.read(block)?, k)?;
        let max = block.iter().fold(0, |m, &i| m.max(i));
        if max as usize >= dictionary.len() {
            return Err(Error::corrupt_data(format!(
                "dictionary index {max} out of range (dictionary has {} entries)",
                dictionary.len()
            )));
        }
        if keep_indices {
            // Indices below the dictionary's length fit i32 (it came from an i32 count).
            out.values.extend_with::<i32>(k, |j| block[j] as i32)?;
        } else {
            dictionary.gather(block, out)?;
        }
        out.count += k;
        left -= k;
    }
    Ok(())
}

// A dictionary page decoded, then gathered from.
#[cfg(test)]
mod tests {
    use super::super::dictionary::BOUNDED_LEN;
    use super::*;
    use crate::arrow::DataType;
    use crate::error::Status;
    use crate::test_support::encodings::encode_plain_byte_array;

    #[test]
    fn byte_array_dictionaries_gather_and_export() {
        let mut page = Vec::new();
        for word in ["", "ab", "xyz"] {
            encode_plain_byte_array(word.as_bytes(), &mut page).unwrap();
        }
        let dictionary = decode_dictionary(
            &page,
            3,
            Encoding::PlainDictionary,
            Conversion::ByteArray,
            0,
        )
        .unwrap();
        assert_eq!(dictionary.len(), 3);
        let mut out = LeafBatch::default();
        dictionary.gather(&[2, 0, 1, 2], &mut out).unwrap();
        assert_eq!(out.values.as_slice(), b"xyzabxyz");
        assert_eq!(out.offsets.typed::<i32>(), &[0, 3, 3, 5, 8]);
        let array = dictionary.to_array(DataType::Utf8).unwrap();
        assert_eq!(array.len, 3);
    }

    #[test]
    fn long_byte_array_values_gather_exactly() {
        let long = "x".repeat(BOUNDED_LEN + 37);
        let mut page = Vec::new();
        for word in ["ab", long.as_str()] {
            encode_plain_byte_array(word.as_bytes(), &mut page).unwrap();
        }
        let dictionary =
            decode_dictionary(&page, 2, Encoding::Plain, Conversion::ByteArray, 0).unwrap();
        let mut out = LeafBatch::default();
        dictionary.gather(&[1, 0, 1], &mut out).unwrap();
        dictionary.gather(&[0], &mut out).unwrap();
        let expected = format!("{long}ab{long}ab");
        assert_eq!(out.values.as_slice(), expected.as_bytes());
        let n = long.len() as i32;
        assert_eq!(
            out.offsets.typed::<i32>(),
            &[0, n, n + 2, 2 * n + 2, 2 * n + 4]
        );
    }

    #[test]
    fn fixed_width_dictionaries_convert_once() {
        let page: Vec<u8> = [5i32, -7].iter().flat_map(|v| v.to_le_bytes()).collect();
        let dictionary =
            decode_dictionary(&page, 2, Encoding::Plain, Conversion::Int32ToDecimal, 0).unwrap();
        let mut out = LeafBatch::default();
        dictionary.gather(&[1, 1, 0], &mut out).unwrap();
        assert_eq!(out.values.typed::<i128>(), &[-7, -7, 5]);
        let array = dictionary
            .to_array(DataType::Decimal128 {
                precision: 9,
                scale: 2,
            })
            .unwrap();
        assert_eq!(array.len, 2);
        assert_eq!(array.buffers.len(), 1, "fixed-width values need no offsets");
    }

    #[test]
    fn counts_are_bounded_by_the_page() {
        let err = decode_dictionary(&[0; 7], 2, Encoding::Plain, Conversion::Int32, 0).unwrap_err();
        assert_eq!(err.status(), Status::CorruptData);
        assert_eq!(
            err.message(),
            "a dictionary page of 7 bytes cannot hold 2 Int32 values"
        );
        let err = decode_dictionary(&[0; 8], 2, Encoding::Rle, Conversion::Int32, 0).unwrap_err();
        assert_eq!(err.status(), Status::Unsupported);
        let err =
            decode_dictionary(&[0; 8], 2, Encoding::Plain, Conversion::Boolean, 0).unwrap_err();
        assert_eq!(err.status(), Status::Unsupported);
    }
}
