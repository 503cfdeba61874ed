//! Definition and repetition levels of a nested leaf, found by walking the
//! Arrow values of its top-level column down the leaf's steps, in the order
//! parquet-java's record consumer writes them: per row, a slot for every
//! value of the leaf, and one for every null or empty list or map on the way
//! (at the level reached).

use super::page::Validity;
use super::schema::{LeafColumn, Step, StepKind};
use crate::arrow::datatype::Layout;
use crate::arrow::ArrayView;
use crate::error::{Error, Result};

/// The levels of one leaf over some rows, and where its values are.
#[derive(Default)]
pub(crate) struct LeafLevels {
    pub def: Vec<i16>,
    pub rep: Vec<i16>,
    /// The leaf array's slots that hold the values (`def == max_def`), in
    /// order; left empty when `first_slot` says where they are.
    pub slots: Vec<usize>,
    /// For a leaf under structs only, level slot `i` is leaf slot
    /// `first_slot + i` (a value where `def == max_def`): the values can be
    /// read in place.
    pub first_slot: Option<usize>,
}

impl LeafLevels {
    /// The levels of rows `[start, start + rows)` of `top` (logical indices;
    /// `first_row` is the first one's row in the caller's batch, for
    /// messages). A null where the schema says required fails, naming the
    /// field and the row.
    pub(super) fn compute(
        &mut self,
        column: &LeafColumn,
        top: &ArrayView<'_>,
        start: usize,
        rows: usize,
        first_row: usize,
    ) -> Result<()> {
        self.clear();
        if let Some(first) = self.struct_only(&column.steps, top, start, rows) {
            self.first_slot = Some(first);
            return Ok(());
        }
        if let [list, leaf] = column.steps[..] {
            if let (StepKind::Repeated(level), StepKind::Leaf, Layout::List { .. }) =
                (list.kind, leaf.kind, top.layout())
            {
                return self
                    .list_of_values(list, leaf, level, top, start, rows)
                    .map_err(|(row, field)| required_null(column, field, first_row + row));
            }
        }
        self.walk_rows(column, top, start, rows, first_row)
    }

    /// The levels of a top-level list of plain values (tags, say), list by
    /// list: what [`LeafLevels::walk`] gives, without a call per element.
    /// A required null fails with its row and the field id of its node.
    fn list_of_values(
        &mut self,
        list: Step,
        leaf: Step,
        level: i16,
        top: &ArrayView<'_>,
        start: usize,
        rows: usize,
    ) -> std::result::Result<(), (usize, Option<i32>)> {
        let child = &top.children()[0];
        let in_list = i16::from(list.optional) + 1;
        let present = in_list + i16::from(leaf.optional);
        for row in 0..rows {
            let slot = start + row;
            if !top.is_valid(slot) {
                if !list.optional {
                    return Err((row, list.field_id));
                }
                self.def.push(0);
                self.rep.push(0);
                continue;
            }
            let range = top.value_range(slot);
            if range.is_empty() {
                self.def.push(in_list - 1);
                self.rep.push(0);
                continue;
            }
            let first = range.start;
            for at in range {
                self.rep.push(if at == first { 0 } else { level });
                if child.is_valid(at) {
                    self.def.push(present);
                    self.slots.push(at);
                } else if leaf.optional {
                    self.def.push(in_list);
                } else {
                    return Err((row, leaf.field_id));
                }
            }
        }
        Ok(())
    }

    /// [`LeafLevels::compute`] row by row, for any steps.
    fn walk_rows(
        &mut self,
        column: &LeafColumn,
        top: &ArrayView<'_>,
        start: usize,
        rows: usize,
        first_row: usize,
    ) -> Result<()> {
        self.clear();
        for row in 0..rows {
            self.walk(&column.steps, top, start + row, 0, 0)
                .map_err(|field| required_null(column, field, first_row + row))?;
        }
        Ok(())
    }

    fn clear(&mut self) {
        self.def.clear();
        self.rep.clear();
        self.slots.clear();
        self.first_slot = None;
    }

    /// The levels of rows `[start, start + rows)` of `top` when `steps`
    /// hold no list or map: one level slot per row, found a node at a time
    /// from its validity bitmap rather than row by row. Returns the leaf slot
    /// of the first row, or None (levels unfinished) where the general walk
    /// must decide: a list or map on the way, an array of nulls, or a null
    /// where the schema says required (the walk names the first one).
    fn struct_only(
        &mut self,
        steps: &[Step],
        top: &ArrayView<'_>,
        start: usize,
        rows: usize,
    ) -> Option<usize> {
        if steps
            .iter()
            .any(|s| matches!(s.kind, StepKind::Repeated(_)))
        {
            return None;
        }
        self.def.resize(rows, 0);
        self.rep.resize(rows, 0);
        let (mut array, mut first, mut reached) = (top, start, 0i16);
        for step in steps {
            if array.layout() == Layout::Null {
                return None;
            }
            let validity = array.validity_bitmap().map(|bits| Validity {
                bits,
                offset: array.offset() + first,
            });
            // A row is still on its way down while its level is `reached`.
            let add = i16::from(step.optional);
            match validity {
                None => self
                    .def
                    .iter_mut()
                    .for_each(|d| *d += add * i16::from(*d == reached)),
                Some(validity) => {
                    for (i, d) in self.def.iter_mut().enumerate() {
                        if *d != reached {
                            continue;
                        }
                        match (validity.get(i), step.optional) {
                            (true, _) => *d += add,
                            (false, true) => {}
                            (false, false) => return None,
                        }
                    }
                }
            }
            reached += add;
            match step.kind {
                StepKind::Leaf => return Some(first),
                StepKind::Struct(k) => {
                    first += array.offset();
                    array = &array.children()[k];
                }
                StepKind::Repeated(_) => return None,
            }
        }
        None
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arrow::{ArrayData, Buffer, DataType, Field};
    use crate::parquet::write::schema::WriteSchema;
    use crate::test_support::write::{batch, buffer, field, Column};

    /// `len` slots, null where `null(i)`, sliced to start at `offset`.
    fn node(
        data_type: DataType,
        len: usize,
        offset: usize,
        null: impl Fn(usize) -> bool,
        buffers: Vec<Buffer>,
        children: Vec<ArrayData>,
    ) -> ArrayData {
        let mut bits = vec![0u8; len.div_ceil(8)];
        let mut nulls = 0;
        for i in 0..len {
            if null(i) {
                nulls += usize::from(i >= offset);
            } else {
                bits[i / 8] |= 1 << (i % 8);
            }
        }
        let data = ArrayData {
            data_type,
            len,
            offset: 0,
            null_count: (0..len).filter(|&i| null(i)).count(),
            validity: (nulls > 0).then(|| buffer(&bits)),
            buffers,
            children,
            dictionary: None,
        };
        data.slice(offset, len - offset).unwrap()
    }

    /// `s: struct<t: struct<x: long>>` with the given nullability (s, t, x),
    /// nulls at every level and every node sliced differently.
    fn nested(optional: [bool; 3], nulls: [u64; 3]) -> (Field, ArrayData) {
        let len = 300;
        let null = |k: usize| {
            move |i: usize| optional[k] && (i as u64 * 2654435761).is_multiple_of(nulls[k])
        };
        let values: Vec<i64> = (0..len as i64 + 20).collect();
        let x = node(
            DataType::Int64,
            len + 20,
            9,
            null(2),
            vec![buffer(&values)],
            vec![],
        );
        let t = node(DataType::Struct, len + 11, 6, null(1), vec![], vec![x]);
        let s = node(DataType::Struct, len + 5, 5, null(0), vec![], vec![t]);
        batch(&[Column {
            field: field("s", 1, DataType::Struct, optional[0]).with_children(vec![field(
                "t",
                2,
                DataType::Struct,
                optional[1],
            )
            .with_children(vec![field("x", 3, DataType::Int64, optional[2])])]),
            data: s,
        }])
    }

    #[test]
    fn struct_only_levels_match_the_walk() {
        for optional in [
            [true, true, true],
            [true, false, true],
            [false, true, false],
        ] {
            // Every level a row can stop at shows up.
            let mut seen = std::collections::BTreeSet::new();
            let mut max_def = 0;
            for nulls in [[3, 5, 7], [1 << 40, 4, 1 << 40], [2, 1 << 40, 3]] {
                let (schema, batch) = nested(optional, nulls);
                let view = ArrayView::from_data(&batch, &schema).unwrap();
                let column = &WriteSchema::new(&schema).unwrap().columns[0];
                let top = &view.children()[0];
                for (start, rows) in [(0, 300), (7, 100), (131, 169), (299, 1)] {
                    let (mut fast, mut walked) = (LeafLevels::default(), LeafLevels::default());
                    fast.compute(column, top, start, rows, 0).unwrap();
                    walked.walk_rows(column, top, start, rows, 0).unwrap();
                    let what = format!("{optional:?} {nulls:?} {start}+{rows}");
                    let first = fast.first_slot.expect("no lists on the way");
                    assert_eq!(fast.def, walked.def, "{what}");
                    assert_eq!(fast.rep, walked.rep, "{what}");
                    let slots: Vec<usize> = (0..rows)
                        .filter(|&i| fast.def[i] == column.max_def)
                        .map(|i| first + i)
                        .collect();
                    assert_eq!(slots, walked.slots, "{what}");
                    seen.extend(walked.def.iter().copied());
                    max_def = column.max_def;
                }
            }
            assert_eq!(seen, (0..=max_def).collect(), "{optional:?}");
        }
    }

    /// `l: list<x: long>` with the given nullability (l, x): null and empty lists, null
    /// elements where optional, the list array and its elements sliced differently.
    fn list(optional: [bool; 2]) -> (Field, ArrayData) {
        let len = 300;
        let mut offsets = vec![0i32];
        for i in 0..len + 5 {
            // 0 to 4 elements, a list of none every fifth row or so.
            let n = (i * 7 + 3) % 5;
            offsets.push(offsets.last().unwrap() + n as i32);
        }
        let elements = *offsets.last().unwrap() as usize;
        let values: Vec<i64> = (0..elements as i64 + 9).collect();
        let x = node(
            DataType::Int64,
            elements + 9,
            9,
            |i| optional[1] && i % 7 == 2,
            vec![buffer(&values)],
            vec![],
        );
        // The list's offsets count from the elements' slice.
        let l = node(
            DataType::List,
            len + 5,
            5,
            |i| optional[0] && i % 11 == 4,
            vec![buffer(&offsets)],
            vec![x],
        );
        batch(&[Column {
            field: field("l", 1, DataType::List, optional[0]).with_children(vec![field(
                "x",
                2,
                DataType::Int64,
                optional[1],
            )]),
            data: l,
        }])
    }

    #[test]
    fn list_levels_match_the_walk() {
        for optional in [[true, true], [true, false], [false, true], [false, false]] {
            let (schema, batch) = list(optional);
            let view = ArrayView::from_data(&batch, &schema).unwrap();
            let column = &WriteSchema::new(&schema).unwrap().columns[0];
            let top = &view.children()[0];
            // Every level a row can stop at shows up.
            let mut seen = std::collections::BTreeSet::new();
            for (start, rows) in [(0, 300), (7, 100), (131, 169), (299, 1)] {
                let (mut fast, mut walked) = (LeafLevels::default(), LeafLevels::default());
                fast.compute(column, top, start, rows, 0).unwrap();
                walked.walk_rows(column, top, start, rows, 0).unwrap();
                let what = format!("{optional:?} {start}+{rows}");
                assert_eq!(fast.first_slot, None, "{what}");
                assert_eq!(fast.def, walked.def, "{what}");
                assert_eq!(fast.rep, walked.rep, "{what}");
                assert_eq!(fast.slots, walked.slots, "{what}");
                seen.extend(walked.def.iter().copied());
            }
            assert_eq!(seen, (0..=column.max_def).collect(), "{optional:?}");
        }
    }

    #[test]
    fn list_required_nulls_fail_like_the_walk() {
        // A null list, then a null element, where the schema says required.
        for (k, id) in [(0, 1), (1, 2)] {
            let (mut schema, batch) = list([true, true]);
            let mut field = &mut schema.children[0];
            if k == 1 {
                field = &mut field.children[0];
            }
            field.nullable = false;
            let message = required_null_message(&schema, &batch);
            let place = if k == 0 {
                format!("field id {id} on its path")
            } else {
                "the value".to_owned()
            };
            assert!(message.contains(&place), "{message}");
        }
    }

    /// The error of rows 3 to 202 of the first column, the same from `compute` as from the walk.
    fn required_null_message(schema: &Field, batch: &ArrayData) -> String {
        let view = ArrayView::from_data(batch, schema).unwrap();
        let column = &WriteSchema::new(schema).unwrap().columns[0];
        let mut levels = LeafLevels::default();
        let fast = levels.compute(column, &view.children()[0], 3, 200, 10);
        let walked = levels.walk_rows(column, &view.children()[0], 3, 200, 10);
        let (fast, walked) = (fast.unwrap_err(), walked.unwrap_err());
        assert_eq!(fast.message(), walked.message());
        fast.message().to_owned()
    }

    #[test]
    fn struct_only_required_nulls_fail_like_the_walk() {
        // `t` is required but null in some rows its parent holds.
        let (mut schema, batch) = nested([true, true, true], [7, 5, 3]);
        schema.children[0].children[0].nullable = false;
        let message = required_null_message(&schema, &batch);
        assert!(message.contains("field id 2 on its path"), "{message}");
    }
}
