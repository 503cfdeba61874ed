//! [`LeafBatch`]: what a column reader hands over for one batch.

use std::sync::Arc;

use crate::arrow::pool::BufferPool;
use crate::arrow::{ArrayData, MutableBuffer};
use crate::error::Result;

/// One leaf column's share of a batch: its level entries, and its non-null
/// values packed densely (nulls take no slot yet; assembly spreads the values
/// over the slots the levels define).
#[derive(Debug, Default)]
pub(crate) struct LeafBatch {
    /// One definition level per entry; empty when the column's maximum is 0,
    /// and for a top-level leaf when every entry is defined.
    pub def: Vec<i16>,
    /// One repetition level per entry; empty when the column's maximum is 0.
    pub rep: Vec<i16>,
    /// Level entries read: rows, for a column without repetition.
    pub entries: usize,
    /// Non-null values: converted fixed-width values, booleans as bytes,
    /// dictionary indices as i32, or the bytes of byte arrays.
    pub values: MutableBuffer,
    /// For byte arrays: `count + 1` i32 offsets into `values`, from 0.
    pub offsets: MutableBuffer,
    /// Non-null values read.
    pub count: usize,
    /// When the reader keeps dictionary indices: the dictionary they index.
    pub dictionary: Option<ArrayData>,
    /// The bytes of values and offsets the last batch took: the next one
    /// probably needs as much.
    pub taken: (usize, usize),
}

impl LeafBatch {
    /// Forgets the contents but keeps the allocations, for decode-and-discard.
    pub(crate) fn clear(&mut self) {
        self.def.clear();
        self.rep.clear();
        self.entries = 0;
        self.values.truncate(0);
        self.offsets.truncate(0);
        self.count = 0;
        self.dictionary = None;
    }

    /// Clears the batch for the next one, with value buffers from `pool` of
    /// at least `values` bytes and as large as the last batch's, so that a
    /// batch like the last is decoded without growing them.
    pub(crate) fn prepare_in(&mut self, pool: &Arc<BufferPool>, values: usize) -> Result<()> {
        self.clear();
        if self.values.capacity() == 0 {
            self.values = MutableBuffer::new_in(pool);
        }
        if self.offsets.capacity() == 0 {
            self.offsets = MutableBuffer::new_in(pool);
        }
        self.values.reserve(values.max(self.taken.0))?;
        self.offsets.reserve(self.taken.1)
    }

    /// Moves the value buffers out (to become Arrow buffers), leaving empty
    /// ones; the levels stay, for the assembly of the leaf's ancestors.
    pub(crate) fn take_values(&mut self) -> (MutableBuffer, MutableBuffer) {
        self.taken = (self.values.len(), self.offsets.len());
        (
            std::mem::take(&mut self.values),
            std::mem::take(&mut self.offsets),
        )
    }
}
