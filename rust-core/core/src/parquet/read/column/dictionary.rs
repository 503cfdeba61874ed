//! A column chunk's dictionary: its dictionary page decoded once into the
//! column's Arrow representation, so that data pages only gather.

use super::batch::LeafBatch;
use super::conversion::Output;
use super::plain_bytes::{copy_value, SLACK};
use crate::arrow::buffer::{cast_slice, NativeType};
use crate::arrow::{ArrayData, Buffer, DataType};
use crate::error::{Error, Result};

/// The longest byte array values for which a gather reserves room for the
/// longest value at every index instead of adding up the lengths.
pub(super) const BOUNDED_LEN: usize = 64;

#[derive(Debug)]
pub(crate) struct Dictionary {
    len: usize,
    output: Output,
    /// Converted fixed-width values, or the bytes of byte arrays.
    values: Buffer,
    /// For byte arrays: `len + 1` i32 offsets into `values`.
    offsets: Option<Buffer>,
    /// For byte arrays: the length of the longest value.
    longest: usize,
}

impl Dictionary {
    /// The dictionary of the `len` entries a PLAIN decoder wrote into `batch`,
    /// converted for `output` (byte arrays with their offsets).
    pub(super) fn from_batch(
        len: usize,
        output: Output,
        mut batch: LeafBatch,
    ) -> Result<Dictionary> {
        let longest = batch
            .offsets
            .typed::<i32>()
            .windows(2)
            .map(|w| w[1].abs_diff(w[0]) as usize)
            .max()
            .unwrap_or(0);
        let (mut values, offsets) = batch.take_values();
        if output == Output::Bytes {
            // Room for gather's block copies past the last value.
            values.extend_zeros(SLACK)?;
        }
        Ok(Dictionary {
            len,
            output,
            values: values.freeze(),
            offsets: (output == Output::Bytes).then(|| offsets.freeze()),
            longest,
        })
    }

    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Appends the entries `indices` select (all below [`Dictionary::len`]).
    pub(crate) fn gather(&self, indices: &[u32], out: &mut LeafBatch) -> Result<()> {
        match self.output {
            Output::Fixed(1) | Output::Boolean => self.gather_typed::<u8>(indices, out),
            Output::Fixed(2) => self.gather_typed::<i16>(indices, out),
            Output::Fixed(4) => self.gather_typed::<i32>(indices, out),
            Output::Fixed(8) => self.gather_typed::<i64>(indices, out),
            Output::Fixed(16) => self.gather_typed::<i128>(indices, out),
            Output::Fixed(width) => {
                let values = self.values.as_slice();
                out.values.reserve(indices.len() * width)?;
                for &i in indices {
                    let start = i as usize * width;
                    let value = values
                        .get(start..start + width)
                        .ok_or_else(|| Error::internal("a dictionary index beyond its values"))?;
                    out.values.extend_from_slice(value)?;
                }
                Ok(())
            }
            Output::Bytes => self.gather_bytes(indices, out),
        }
    }

    fn gather_typed<T: NativeType + Default>(
        &self,
        indices: &[u32],
        out: &mut LeafBatch,
    ) -> Result<()> {
        let values = cast_slice::<T>(self.values.as_slice())
            .ok_or_else(|| Error::internal("a dictionary's values are misaligned"))?;
        // In range: the caller checked every index against the length.
        out.values.extend_with::<T>(indices.len(), |k| {
            values.get(indices[k] as usize).copied().unwrap_or_default()
        })
    }

    fn gather_bytes(&self, indices: &[u32], out: &mut LeafBatch) -> Result<()> {
        let offsets = self.byte_offsets()?;
        let data = self.values.as_slice();
        let range = |i: u32| {
            let i = i as usize;
            match (offsets.get(i), offsets.get(i + 1)) {
                (Some(&start), Some(&end)) => Ok(start as usize..end as usize),
                _ => Err(Error::internal("a dictionary index beyond its offsets")),
            }
        };
        if out.offsets.is_empty() {
            out.offsets.push(0i32)?;
        }
        let base = out.values.len();
        // With short values, room for the longest at every index spares a pass
        // that adds up the lengths first; long ones would reserve too much.
        let bound = indices.len().saturating_mul(self.longest);
        let total =
            if self.longest <= BOUNDED_LEN && base.saturating_add(bound) <= i32::MAX as usize {
                bound
            } else {
                let mut total = 0usize;
                for &i in indices {
                    total += range(i)?.len();
                }
                total
            };
        if base + total > i32::MAX as usize {
            return Err(Error::unsupported(
                "a batch's byte array data exceeds 2 GiB, the limit of Arrow's 32-bit offsets; \
                 use a smaller batch size",
            ));
        }
        out.values.reserve(total + SLACK)?;
        let spare = out.values.spare_capacity_mut();
        let mut at = 0;
        out.offsets.try_extend_with::<i32>(indices.len(), |k| {
            let range = range(indices[k])?;
            copy_value(spare, at, data, range.start, range.len());
            at += range.len();
            Ok((base + at) as i32)
        })?;
        // SAFETY: the loop wrote every byte of [base, base + at), and `at` is
        // at most `total`, for which room was reserved.
        unsafe { out.values.set_len(base + at) };
        Ok(())
    }

    fn byte_offsets(&self) -> Result<&[i32]> {
        self.offsets
            .as_ref()
            .and_then(|o| cast_slice::<i32>(o.as_slice()))
            .ok_or_else(|| Error::internal("a byte array dictionary without offsets"))
    }

    /// The entries as an Arrow array of `data_type`, the column's type: for
    /// output that keeps the dictionary encoding, and for pruning by the
    /// dictionary's values. Shares the buffers.
    pub(crate) fn to_array(&self, data_type: DataType) -> Result<ArrayData> {
        let buffers = match (self.output, &self.offsets) {
            (Output::Bytes, Some(offsets)) => vec![offsets.clone(), self.values.clone()],
            (Output::Fixed(_), None) => vec![self.values.clone()],
            _ => {
                return Err(Error::internal(
                    "a dictionary's values do not match its output",
                ))
            }
        };
        Ok(ArrayData {
            data_type,
            len: self.len,
            offset: 0,
            null_count: 0,
            validity: None,
            buffers,
            children: vec![],
            dictionary: None,
        })
    }
}
