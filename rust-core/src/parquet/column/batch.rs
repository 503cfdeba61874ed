//! [`LeafBatch`]: what a column reader hands over for one batch.

use crate::arrow::{ArrayData, MutableBuffer};

/// One leaf column's share of a batch: its level entries, and its non-null
/// values packed densely (nulls take no slot yet; assembly spreads the values
/// over the slots the levels define).
#[derive(Debug, Default)]
pub struct LeafBatch {
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
}

impl LeafBatch {
    /// Forgets the contents but keeps the allocations, for decode-and-discard.
    pub fn clear(&mut self) {
        self.def.clear();
        self.rep.clear();
        self.entries = 0;
        self.values.truncate(0);
        self.offsets.truncate(0);
        self.count = 0;
        self.dictionary = None;
    }

    /// Moves the value buffers out (to become Arrow buffers), leaving empty
    /// ones; the levels stay, for the assembly of the leaf's ancestors.
    pub fn take_values(&mut self) -> (MutableBuffer, MutableBuffer) {
        (
            std::mem::take(&mut self.values),
            std::mem::take(&mut self.offsets),
        )
    }
}
