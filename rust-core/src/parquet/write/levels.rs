//! Definition and repetition levels of a nested leaf, found by walking the
//! Arrow values of its top-level column down the leaf's steps, in the order
//! parquet-java's record consumer writes them: per row, a slot for every
//! value of the leaf, and one for every null or empty list or map on the way
//! (at the level reached).

use super::schema::{LeafColumn, Step, StepKind};
use crate::arrow::ArrayView;
use crate::error::{Error, Result};

/// The levels of one leaf over some rows, and where its values are.
#[derive(Default)]
pub(crate) struct LeafLevels {
    pub def: Vec<i16>,
    pub rep: Vec<i16>,
    /// The leaf array's slots that hold the values (`def == max_def`), in order.
    pub slots: Vec<usize>,
}

impl LeafLevels {
    /// The levels of rows `[start, start + rows)` of `top` (logical indices;
    /// `first_row` is the first one's row in the caller's batch, for
    /// messages). A null where the schema says required fails, naming the
    /// field and the row.
    pub fn compute(
        &mut self,
        column: &LeafColumn,
        top: &ArrayView<'_>,
        start: usize,
        rows: usize,
        first_row: usize,
    ) -> Result<()> {
        self.def.clear();
        self.rep.clear();
        self.slots.clear();
        for row in 0..rows {
            self.walk(&column.steps, top, start + row, 0, 0)
                .map_err(|field| required_null(column, field, first_row + row))?;
        }
        Ok(())
    }

    /// Levels of `slot` of `array`, the node of `steps[0]`; a required null
    /// gives back the field id of the node that held it.
    fn walk(
        &mut self,
        steps: &[Step],
        array: &ArrayView<'_>,
        slot: usize,
        def: i16,
        rep: i16,
    ) -> std::result::Result<(), Option<i32>> {
        let step = steps[0];
        if !array.is_valid(slot) {
            if !step.optional {
                return Err(step.field_id);
            }
            self.def.push(def);
            self.rep.push(rep);
            return Ok(());
        }
        let def = def + i16::from(step.optional);
        match step.kind {
            StepKind::Leaf => {
                self.def.push(def);
                self.rep.push(rep);
                self.slots.push(slot);
            }
            StepKind::Struct(k) => self.walk(
                &steps[1..],
                &array.children()[k],
                array.offset() + slot,
                def,
                rep,
            )?,
            StepKind::Repeated(level) => {
                let range = array.value_range(slot);
                if range.is_empty() {
                    self.def.push(def);
                    self.rep.push(rep);
                    return Ok(());
                }
                let child = &array.children()[0];
                let first = range.start;
                for at in range {
                    let rep = if at == first { rep } else { level };
                    self.walk(&steps[1..], child, at, def + 1, rep)?;
                }
            }
        }
        Ok(())
    }
}

/// The array holding the values of `column`, under its top-level column's.
pub(crate) fn leaf_array<'v, 'a>(column: &LeafColumn, top: &'v ArrayView<'a>) -> &'v ArrayView<'a> {
    let mut array = top;
    for step in &column.steps {
        array = match step.kind {
            StepKind::Leaf => return array,
            StepKind::Struct(k) => &array.children()[k],
            StepKind::Repeated(_) => &array.children()[0],
        };
    }
    array
}

fn required_null(column: &LeafColumn, field: Option<i32>, row: usize) -> Error {
    let what = match field {
        Some(id) if id == column.field_id => "the value".to_owned(),
        Some(id) => format!("field id {id} on its path"),
        None => "a map entry".to_owned(),
    };
    Error::invalid_argument(format!(
        "column '{}' (field id {}): row {row} holds a null in {what}, which is required",
        column.name, column.field_id
    ))
}
