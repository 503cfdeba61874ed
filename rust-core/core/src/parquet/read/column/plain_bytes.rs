//! PLAIN BYTE_ARRAY values straight into Arrow offsets and bytes, the hot path
//! of string columns whose dictionary fell back to PLAIN.
//!
//! Values sit behind 4-byte length prefixes, so each must be copied on its
//! own. The output is reserved once per call for everything the page has left
//! (no value can be longer), so the loop only checks each prefix against the
//! page, copies and writes the offset. Values are copied in fixed-size blocks
//! that may read and write up to [`SLACK`] bytes past their end (where both
//! buffers have room; later values overwrite the excess), which beats a call
//! to memcpy for the short strings of typical columns.

use std::mem::MaybeUninit;

use crate::arrow::MutableBuffer;
use crate::error::{Error, Result};
use crate::parquet::encodings::ByteArraySink;

/// Room a buffer needs after its last value for [`copy_value`]'s blocks.
pub(crate) const SLACK: usize = 32;

/// Copies `src[from..from + len]` to `dst[at..at + len]`, possibly writing up
/// to [`SLACK`] bytes further; `dst` must have room for them.
#[inline(always)]
pub(crate) fn copy_value(
    dst: &mut [MaybeUninit<u8>],
    at: usize,
    src: &[u8],
    from: usize,
    len: usize,
) {
    if len <= 16 {
        if let Some(block) = src.get(from..from + 16) {
            dst[at..at + 16].write_copy_of_slice(block);
            return;
        }
    } else if from + len.next_multiple_of(SLACK) <= src.len() {
        for step in (0..len).step_by(SLACK) {
            dst[at + step..at + step + SLACK]
                .write_copy_of_slice(&src[from + step..from + step + SLACK]);
        }
        return;
    }
    dst[at..at + len].write_copy_of_slice(&src[from..from + len]);
}

pub struct PlainByteArrays<'a> {
    data: &'a [u8],
    pos: usize,
    remaining: usize,
}

fn prefix(data: &[u8], pos: usize) -> Option<usize> {
    let bytes = data.get(pos..pos.checked_add(4)?)?;
    Some(u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]) as usize)
}

impl<'a> PlainByteArrays<'a> {
    /// `count` values (at most) in `data`.
    pub fn new(data: &'a [u8], count: usize) -> Self {
        PlainByteArrays {
            data,
            pos: 0,
            remaining: count,
        }
    }

    /// Appends up to `n` values as Arrow offsets (i32, after the last one
    /// already in `offsets`) and bytes; returns how many.
    pub fn read(
        &mut self,
        n: usize,
        offsets: &mut MutableBuffer,
        values: &mut MutableBuffer,
    ) -> Result<usize> {
        let n = n.min(self.remaining);
        let base = values.len();
        // The values left in the page are shorter than its bytes left, which
        // bounds what this call can append without a check per value.
        let left = self.data.len() - self.pos;
        values.reserve(left + SLACK)?;
        let spare = values.spare_capacity_mut();
        let (data, mut pos, mut at) = (self.data, self.pos, 0usize);
        let written = offsets.try_extend_with::<i32>(n, |_| {
            let value = prefix(data, pos).and_then(|len| {
                let end = pos.checked_add(4)?.checked_add(len)?;
                (end <= data.len()).then_some((len, end))
            });
            let Some((len, end)) = value else {
                return Err(Error::corrupt_data(format!(
                    "PLAIN byte array at byte {pos}: its length prefix or value runs past the \
                     page's {} bytes",
                    data.len()
                )));
            };
            copy_value(spare, at, data, pos + 4, len);
            at += len;
            pos = end;
            Ok((base + at) as i32)
        });
        if let Err(e) = written {
            // SAFETY: the values before the bad one were written in full.
            unsafe { values.set_len(base + at) };
            return Err(e);
        }
        if base + at > i32::MAX as usize {
            return Err(Error::unsupported(
                "a batch's byte array data exceeds 2 GiB, the limit of Arrow's 32-bit offsets; \
                 use a smaller batch size",
            ));
        }
        // SAFETY: the loop wrote every byte of [base, base + at).
        unsafe { values.set_len(base + at) };
        self.pos = pos;
        self.remaining -= n;
        Ok(n)
    }

    /// Hands up to `n` values to `sink`; returns how many.
    pub fn read_into(&mut self, n: usize, sink: &mut impl ByteArraySink) -> Result<usize> {
        let n = n.min(self.remaining);
        for _ in 0..n {
            let pos = self.pos;
            let value = prefix(self.data, pos).and_then(|len| {
                self.data
                    .get(pos + 4..pos.checked_add(4)?.checked_add(len)?)
            });
            let Some(value) = value else {
                return Err(Error::corrupt_data(format!(
                    "PLAIN byte array at byte {pos}: its length prefix or value runs past the \
                     page's {} bytes",
                    self.data.len()
                )));
            };
            sink.push(value)?;
            self.pos = pos + 4 + value.len();
            self.remaining -= 1;
        }
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::encodings::encode_plain_byte_array;

    #[test]
    fn values_of_every_length_land_behind_their_offsets() {
        let words: Vec<Vec<u8>> = (0..100).map(|n| (0..n as u8).collect()).collect();
        let mut page = Vec::new();
        for word in &words {
            encode_plain_byte_array(word, &mut page).unwrap();
        }
        let mut decoder = PlainByteArrays::new(&page, words.len());
        let (mut offsets, mut values) = (MutableBuffer::new(), MutableBuffer::new());
        offsets.push(0i32).unwrap();
        assert_eq!(decoder.read(25, &mut offsets, &mut values).unwrap(), 25);
        assert_eq!(decoder.read(100, &mut offsets, &mut values).unwrap(), 75);
        let offsets = offsets.typed::<i32>();
        for (i, word) in words.iter().enumerate() {
            let value = &values.as_slice()[offsets[i] as usize..offsets[i + 1] as usize];
            assert_eq!(value, &word[..], "value {i}");
        }
        assert_eq!(values.len(), words.iter().map(Vec::len).sum::<usize>());
    }

    #[test]
    fn truncated_values_are_corrupt() {
        let mut page = Vec::new();
        encode_plain_byte_array(b"hello", &mut page).unwrap();
        page.pop();
        let mut decoder = PlainByteArrays::new(&page, 1);
        let (mut offsets, mut values) = (MutableBuffer::new(), MutableBuffer::new());
        let err = decoder.read(1, &mut offsets, &mut values).unwrap_err();
        assert_eq!(
            err.message(),
            "PLAIN byte array at byte 0: its length prefix or value runs past the page's 8 bytes"
        );
    }
}
