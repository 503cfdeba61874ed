//! The schema tree and the per-column facts a column reader needs.
//!
//! A footer stores the schema as a depth-first list of [`SchemaElement`]s in
//! which groups say how many children follow. [`SchemaDescriptor::new`] checks
//! that the counts describe exactly one tree covering the whole list, and
//! derives for every leaf its path and its maximum definition and repetition
//! levels: one definition level per OPTIONAL or REPEATED node on the way from
//! the root (exclusive) to the leaf (inclusive), one repetition level per
//! REPEATED node.

use super::format::{ConvertedType, LogicalType, PhysicalType, Repetition, SchemaElement};
use crate::error::{Error, Result};

/// Deepest nesting accepted, counting the root as depth 0; it keeps level
/// values small and the tree walk's stack bounded.
pub(crate) const MAX_SCHEMA_DEPTH: usize = 128;

/// One node of the tree. Node `i` describes schema element `i`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SchemaNode {
    /// `None` for the root only.
    pub(crate) parent: Option<usize>,
    /// Child node indices, in order; empty for leaves.
    pub(crate) children: Vec<usize>,
    /// For leaves, the index of its column in [`SchemaDescriptor::columns`].
    pub(crate) column: Option<usize>,
    /// The definition and repetition levels of values at this node.
    pub(crate) def_level: i16,
    pub(crate) rep_level: i16,
}

/// A leaf column as a column reader sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ColumnDescriptor {
    /// Names from below the root down to the leaf, as in `path_in_schema`.
    pub path: Vec<String>,
    pub physical_type: PhysicalType,
    /// The value width of FIXED_LEN_BYTE_ARRAY columns (checked positive);
    /// whatever the element said for other types.
    pub type_length: Option<i32>,
    pub repetition: Repetition,
    pub max_def_level: i16,
    pub max_rep_level: i16,
    pub logical_type: Option<LogicalType>,
    pub converted_type: Option<ConvertedType>,
    pub scale: Option<i32>,
    pub precision: Option<i32>,
    pub field_id: Option<i32>,
    /// The node (and schema element) index of the leaf.
    pub(crate) node: usize,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SchemaDescriptor {
    elements: Vec<SchemaElement>,
    nodes: Vec<SchemaNode>,
    columns: Vec<ColumnDescriptor>,
}

fn corrupt(index: usize, what: impl std::fmt::Display) -> Error {
    Error::corrupt_data(format!("schema element {index}: {what}"))
}

impl SchemaDescriptor {
    pub(crate) fn new(elements: &[SchemaElement]) -> Result<Self> {
        let Some(root) = elements.first() else {
            return Err(Error::corrupt_data("the schema has no elements"));
        };
        if root.physical_type.is_some() {
            return Err(corrupt(
                0,
                format_args!("the root '{}' is not a group", root.name),
            ));
        }
        let root_children = child_count(root, 0, elements.len() - 1)?;
        let mut nodes = Vec::with_capacity(elements.len());
        nodes.push(SchemaNode {
            parent: None,
            children: Vec::new(),
            column: None,
            def_level: 0,
            rep_level: 0,
        });
        let mut columns = Vec::new();
        // The groups from the root down to the current position, with how many
        // of their children are still to come.
        let mut open: Vec<(usize, usize)> = vec![(0, root_children)];
        let mut next = 1;
        while let Some(top) = open.last_mut() {
            if top.1 == 0 {
                open.pop();
                continue;
            }
            top.1 -= 1;
            let parent = top.0;
            let index = next;
            let Some(element) = elements.get(index) else {
                return Err(corrupt(
                    parent,
                    format_args!(
                        "declares more children than the {} schema elements hold",
                        elements.len()
                    ),
                ));
            };
            next += 1;
            let repetition = match element.repetition {
                Some(Repetition::Vector) => {
                    return Err(Error::unsupported(format!(
                        "schema element {index} ('{}'): VECTOR repetition is not supported",
                        element.name
                    )))
                }
                Some(r) => r,
                None => {
                    return Err(corrupt(
                        index,
                        format_args!("'{}' has no repetition type", element.name),
                    ))
                }
            };
            let (parent_def, parent_rep) = nodes
                .get(parent)
                .map(|n| (n.def_level, n.rep_level))
                .ok_or_else(|| Error::internal("schema parent node missing"))?;
            // Depth is bounded by MAX_SCHEMA_DEPTH, so the levels cannot overflow.
            let def_level = parent_def + i16::from(repetition != Repetition::Required);
            let rep_level = parent_rep + i16::from(repetition == Repetition::Repeated);
            let mut node = SchemaNode {
                parent: Some(parent),
                children: Vec::new(),
                column: None,
                def_level,
                rep_level,
            };
            match element.physical_type {
                Some(physical_type) => {
                    if element.num_children.is_some_and(|n| n != 0) {
                        return Err(corrupt(
                            index,
                            format_args!("'{}' has both a type and children", element.name),
                        ));
                    }
                    if physical_type == PhysicalType::FixedLenByteArray
                        && element.type_length.is_none_or(|n| n <= 0)
                    {
                        return Err(corrupt(
                            index,
                            format_args!(
                                "FIXED_LEN_BYTE_ARRAY '{}' needs a positive type_length, not {:?}",
                                element.name, element.type_length
                            ),
                        ));
                    }
                    let path = open
                        .iter()
                        .skip(1)
                        .filter_map(|&(group, _)| elements.get(group).map(|e| e.name.clone()))
                        .chain(std::iter::once(element.name.clone()))
                        .collect();
                    node.column = Some(columns.len());
                    columns.push(ColumnDescriptor {
                        path,
                        physical_type,
                        type_length: element.type_length,
                        repetition,
                        max_def_level: def_level,
                        max_rep_level: rep_level,
                        logical_type: element.logical_type.clone(),
                        converted_type: element.converted_type,
                        scale: element.scale,
                        precision: element.precision,
                        field_id: element.field_id,
                        node: index,
                    });
                }
                None => {
                    let children = child_count(element, index, elements.len() - next)?;
                    if open.len() > MAX_SCHEMA_DEPTH {
                        return Err(corrupt(
                            index,
                            format_args!("nesting deeper than {MAX_SCHEMA_DEPTH} levels"),
                        ));
                    }
                    open.push((index, children));
                }
            }
            nodes.push(node);
            if let Some(parent_node) = nodes.get_mut(parent) {
                parent_node.children.push(index);
            }
        }
        if next != elements.len() {
            return Err(Error::corrupt_data(format!(
                "the schema tree ends after {next} of its {} elements",
                elements.len()
            )));
        }
        Ok(SchemaDescriptor {
            elements: elements.to_vec(),
            nodes,
            columns,
        })
    }

    /// All nodes; index 0 is the root.
    pub(crate) fn nodes(&self) -> &[SchemaNode] {
        &self.nodes
    }

    /// The element a node came from (same index).
    pub(crate) fn element(&self, node: usize) -> Option<&SchemaElement> {
        self.elements.get(node)
    }

    /// The leaf columns in schema order, which is the order of a row group's
    /// column chunks.
    pub(crate) fn columns(&self) -> &[ColumnDescriptor] {
        &self.columns
    }
}

/// A group's declared child count, which must be non-negative and no larger
/// than the number of elements that follow it.
fn child_count(element: &SchemaElement, index: usize, available: usize) -> Result<usize> {
    let Some(declared) = element.num_children else {
        return Err(corrupt(
            index,
            format_args!("'{}' has neither a type nor num_children", element.name),
        ));
    };
    match usize::try_from(declared) {
        Ok(n) if n <= available => Ok(n),
        _ => Err(corrupt(
            index,
            format_args!(
                "'{}' declares {declared} children but only {available} elements follow",
                element.name
            ),
        )),
    }
}
