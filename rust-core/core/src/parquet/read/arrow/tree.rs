//! The Arrow shape of a Parquet schema: one [`ArrowNode`] per top-level field,
//! with structs, lists and maps recognised as the format's compatibility rules
//! describe.
//!
//! - A group annotated LIST holds one repeated field. If that field is a
//!   primitive, a group of several fields, or a group named `array` or
//!   `<list>_tuple`, it is itself the element (the legacy 2-level forms);
//!   otherwise its only child is the element (the 3-level form Iceberg writes:
//!   `<name> (LIST) { repeated group list { element } }`).
//! - A group annotated MAP (or MAP_KEY_VALUE) holds one repeated group of a
//!   key and a value (`key_value { key, value }`), the map's entries.
//! - A repeated field anywhere else is a non-null list of non-null elements.
//! - Any other group is a struct.
//!
//! Field ids go into each Arrow field's metadata as `PARQUET:field_id`.

use crate::arrow::field::encode_metadata;
use crate::arrow::{DataType, Field};
use crate::error::{Error, Result};
use crate::parquet::format::{ConvertedType, LogicalType, Repetition, SchemaElement};
use crate::parquet::read::column::Conversion;
use crate::parquet::schema::SchemaDescriptor;

use super::types::leaf_type;

/// The Arrow field metadata key of Parquet field ids.
pub(crate) const FIELD_ID_KEY: &str = "PARQUET:field_id";

/// One Arrow field and how to assemble it from the levels of its leaves.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ArrowNode {
    /// The complete Arrow field of this subtree.
    pub field: Field,
    pub field_id: Option<i32>,
    /// A slot of this node is non-null when its level entry's definition level
    /// is at least this (always so for a node that cannot be null).
    pub def_level: i16,
    pub kind: NodeKind,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum NodeKind {
    Leaf {
        /// The leaf's index among the schema's columns.
        column: usize,
        conversion: Conversion,
    },
    Struct {
        children: Vec<ArrowNode>,
    },
    /// A list, or a map whose element is the entries struct.
    List {
        element: Box<ArrowNode>,
        /// Entries with at least this definition level hold an element.
        element_def: i16,
        /// Entries with this repetition level start a new element.
        rep_level: i16,
    },
    /// A struct field the file lacks (added to the table later): all nulls,
    /// as many as its struct has slots.
    Missing,
}

impl ArrowNode {
    /// The first leaf below this node, whose levels describe its slots.
    pub(crate) fn first_column(&self) -> Option<usize> {
        match &self.kind {
            NodeKind::Leaf { column, .. } => Some(*column),
            NodeKind::Struct { children } => children.iter().find_map(ArrowNode::first_column),
            NodeKind::List { element, .. } => element.first_column(),
            NodeKind::Missing => None,
        }
    }
}

/// The Arrow node of every top-level field, in schema order. A field this
/// build cannot represent yields its error, so that callers can refuse exactly
/// the fields they need.
pub(crate) fn top_level_nodes(schema: &SchemaDescriptor) -> Vec<Result<ArrowNode>> {
    let Some(root) = schema.nodes().first() else {
        return Vec::new();
    };
    root.children
        .iter()
        .map(|&index| Builder { schema }.node(index, false))
        .collect()
}

struct Builder<'s> {
    schema: &'s SchemaDescriptor,
}

impl Builder<'_> {
    fn element(&self, index: usize) -> Result<&SchemaElement> {
        self.schema
            .element(index)
            .ok_or_else(|| Error::internal("schema node without element"))
    }

    fn def_rep(&self, index: usize) -> Result<(i16, i16, &[usize])> {
        let node = self
            .schema
            .nodes()
            .get(index)
            .ok_or_else(|| Error::internal("schema node out of range"))?;
        Ok((node.def_level, node.rep_level, &node.children))
    }

    /// The dotted path of node `index`, for errors.
    fn path(&self, mut index: usize) -> String {
        let mut names = Vec::new();
        while let (Some(node), Some(element)) =
            (self.schema.nodes().get(index), self.schema.element(index))
        {
            let Some(parent) = node.parent else { break };
            names.push(element.name.clone());
            index = parent;
        }
        names.reverse();
        names.join(".")
    }

    fn unsupported(&self, index: usize, what: impl std::fmt::Display) -> Error {
        Error::unsupported(format!("field '{}': {what}", self.path(index)))
    }

    /// The node of schema element `index`. With `as_element`, a repeated
    /// element is read as the element of the list it forms (not as a list).
    fn node(&self, index: usize, as_element: bool) -> Result<ArrowNode> {
        let element = self.element(index)?;
        let (def_level, rep_level, children) = self.def_rep(index)?;
        let repeated = element.repetition == Some(Repetition::Repeated);
        if repeated && !as_element {
            let item = self.node(index, true)?;
            return Ok(list_node(
                &element.name,
                false,
                element.field_id,
                def_level - 1,
                item,
                (def_level, rep_level),
                DataType::List,
            ));
        }
        let nullable = element.repetition == Some(Repetition::Optional);
        if element.physical_type.is_some() {
            let column = self
                .schema
                .nodes()
                .get(index)
                .and_then(|n| n.column)
                .ok_or_else(|| Error::internal("leaf without column"))?;
            let descriptor = self
                .schema
                .columns()
                .get(column)
                .ok_or_else(|| Error::internal("column out of range"))?;
            let (data_type, conversion) = leaf_type(descriptor)?;
            return Ok(ArrowNode {
                field: with_field_id(
                    Field::new(&element.name, data_type, nullable),
                    element.field_id,
                ),
                field_id: element.field_id,
                def_level,
                kind: NodeKind::Leaf { column, conversion },
            });
        }
        let is_list = matches!(element.logical_type, Some(LogicalType::List))
            || element.converted_type == Some(ConvertedType::List);
        let is_map = matches!(element.logical_type, Some(LogicalType::Map))
            || matches!(
                element.converted_type,
                Some(ConvertedType::Map | ConvertedType::MapKeyValue)
            );
        if is_list {
            return self.list(index, element, nullable, def_level, children);
        }
        if is_map {
            return self.map(index, element, nullable, def_level, children);
        }
        if let Some(logical @ (LogicalType::Variant { .. } | LogicalType::Unrecognized { .. })) =
            &element.logical_type
        {
            return Err(self.unsupported(
                index,
                format_args!("a group of logical type {logical:?} is not supported"),
            ));
        }
        if children.is_empty() {
            return Err(self.unsupported(index, "a struct without fields is not supported"));
        }
        let children = children
            .iter()
            .map(|&child| self.node(child, false))
            .collect::<Result<Vec<_>>>()?;
        let fields = children.iter().map(|c| c.field.clone()).collect();
        Ok(ArrowNode {
            field: with_field_id(
                Field::new(&element.name, DataType::Struct, nullable).with_children(fields),
                element.field_id,
            ),
            field_id: element.field_id,
            def_level,
            kind: NodeKind::Struct { children },
        })
    }

    fn list(
        &self,
        index: usize,
        element: &SchemaElement,
        nullable: bool,
        def_level: i16,
        children: &[usize],
    ) -> Result<ArrowNode> {
        let &[repeated] = children else {
            return Err(self.unsupported(
                index,
                format_args!(
                    "a LIST group with {} fields is not supported",
                    children.len()
                ),
            ));
        };
        let repeated_element = self.element(repeated)?;
        if repeated_element.repetition != Some(Repetition::Repeated) {
            return Err(self.unsupported(
                index,
                "a LIST group whose field is not repeated is not supported",
            ));
        }
        let (element_def, rep_level, grandchildren) = self.def_rep(repeated)?;
        let two_level = repeated_element.physical_type.is_some()
            || grandchildren.len() != 1
            || repeated_element.name == "array"
            || repeated_element.name == format!("{}_tuple", element.name);
        let item = if two_level {
            self.node(repeated, true)?
        } else {
            self.node(grandchildren[0], false)?
        };
        Ok(list_node(
            &element.name,
            nullable,
            element.field_id,
            def_level,
            item,
            (element_def, rep_level),
            DataType::List,
        ))
    }

    fn map(
        &self,
        index: usize,
        element: &SchemaElement,
        nullable: bool,
        def_level: i16,
        children: &[usize],
    ) -> Result<ArrowNode> {
        let &[entries] = children else {
            return Err(self.unsupported(
                index,
                format_args!(
                    "a MAP group with {} fields is not supported",
                    children.len()
                ),
            ));
        };
        let entries_element = self.element(entries)?;
        let (element_def, rep_level, key_value) = self.def_rep(entries)?;
        if entries_element.repetition != Some(Repetition::Repeated)
            || entries_element.physical_type.is_some()
        {
            return Err(self.unsupported(
                index,
                "a MAP whose field is not a repeated group is not supported",
            ));
        }
        let &[key, value] = key_value else {
            return Err(self.unsupported(
                index,
                format_args!(
                    "a MAP with {} fields per entry (not a key and a value) is not supported",
                    key_value.len()
                ),
            ));
        };
        let key = self.node(key, false)?;
        if key.field.nullable {
            return Err(self.unsupported(index, "a MAP with optional keys is not supported"));
        }
        let value = self.node(value, false)?;
        let entries = ArrowNode {
            field: Field::new(&entries_element.name, DataType::Struct, false)
                .with_children(vec![key.field.clone(), value.field.clone()]),
            field_id: entries_element.field_id,
            def_level: element_def,
            kind: NodeKind::Struct {
                children: vec![key, value],
            },
        };
        Ok(list_node(
            &element.name,
            nullable,
            element.field_id,
            def_level,
            entries,
            (element_def, rep_level),
            DataType::Map { keys_sorted: false },
        ))
    }
}

fn list_node(
    name: &str,
    nullable: bool,
    field_id: Option<i32>,
    def_level: i16,
    element: ArrowNode,
    (element_def, rep_level): (i16, i16),
    data_type: DataType,
) -> ArrowNode {
    let field = Field::new(name, data_type, nullable).with_children(vec![element.field.clone()]);
    ArrowNode {
        field: with_field_id(field, field_id),
        field_id,
        def_level,
        kind: NodeKind::List {
            element: Box::new(element),
            element_def,
            rep_level,
        },
    }
}

/// `field` with `id` as its `PARQUET:field_id` metadata, if it has one.
pub(crate) fn with_field_id(field: Field, id: Option<i32>) -> Field {
    match id.and_then(|id| encode_metadata(&[(FIELD_ID_KEY, id.to_string().as_bytes())]).ok()) {
        Some(metadata) => field.with_metadata(metadata),
        None => field,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parquet::format::PhysicalType;

    fn leaf(name: &str, repetition: Repetition, id: i32) -> SchemaElement {
        SchemaElement {
            physical_type: Some(PhysicalType::Int32),
            repetition: Some(repetition),
            name: name.into(),
            field_id: Some(id),
            ..SchemaElement::default()
        }
    }

    fn group(
        name: &str,
        repetition: Repetition,
        children: i32,
        logical: Option<LogicalType>,
    ) -> SchemaElement {
        SchemaElement {
            repetition: Some(repetition),
            name: name.into(),
            num_children: Some(children),
            logical_type: logical,
            ..SchemaElement::default()
        }
    }

    fn root(children: i32) -> SchemaElement {
        SchemaElement {
            name: "table".into(),
            num_children: Some(children),
            ..SchemaElement::default()
        }
    }

    fn formats(node: &ArrowNode) -> String {
        let field = &node.field;
        fn walk(f: &Field) -> String {
            if f.children.is_empty() {
                return f.data_type.format();
            }
            let inner: Vec<_> = f.children.iter().map(walk).collect();
            format!("{}<{}>", f.data_type.format(), inner.join(","))
        }
        walk(field)
    }

    #[test]
    fn iceberg_lists_maps_and_structs() {
        let schema = SchemaDescriptor::new(&[
            root(4),
            group("xs", Repetition::Optional, 1, Some(LogicalType::List)),
            group("list", Repetition::Repeated, 1, None),
            leaf("element", Repetition::Optional, 2),
            group("m", Repetition::Required, 1, Some(LogicalType::Map)),
            group("key_value", Repetition::Repeated, 2, None),
            leaf("key", Repetition::Required, 4),
            leaf("value", Repetition::Optional, 5),
            group("s", Repetition::Optional, 1, None),
            leaf("a", Repetition::Required, 7),
            leaf("flat", Repetition::Optional, 8),
        ])
        .unwrap();
        let nodes: Vec<ArrowNode> = top_level_nodes(&schema)
            .into_iter()
            .map(Result::unwrap)
            .collect();
        assert_eq!(formats(&nodes[0]), "+l<i>");
        let NodeKind::List {
            element_def,
            rep_level,
            ..
        } = &nodes[0].kind
        else {
            panic!()
        };
        assert_eq!((nodes[0].def_level, *element_def, *rep_level), (1, 2, 1));
        assert_eq!(formats(&nodes[1]), "+m<+s<i,i>>");
        assert!(!nodes[1].field.children[0].children[0].nullable);
        assert_eq!(formats(&nodes[2]), "+s<i>");
        assert_eq!(nodes[2].first_column(), Some(3));
        assert_eq!(
            nodes[3].field.metadata,
            Some(encode_metadata(&[(FIELD_ID_KEY, b"8")]).unwrap())
        );
    }

    #[test]
    fn legacy_lists_follow_the_compatibility_rules() {
        let schema = SchemaDescriptor::new(&[
            root(3),
            group("a", Repetition::Optional, 1, Some(LogicalType::List)),
            leaf("item", Repetition::Repeated, 2),
            group("b", Repetition::Optional, 1, Some(LogicalType::List)),
            group("array", Repetition::Repeated, 1, None),
            leaf("x", Repetition::Required, 3),
            leaf("bare", Repetition::Repeated, 4),
        ])
        .unwrap();
        let nodes: Vec<ArrowNode> = top_level_nodes(&schema)
            .into_iter()
            .map(Result::unwrap)
            .collect();
        assert_eq!(formats(&nodes[0]), "+l<i>");
        assert!(!nodes[0].field.children[0].nullable);
        assert_eq!(
            formats(&nodes[1]),
            "+l<+s<i>>",
            "a group named array is the element"
        );
        assert_eq!(formats(&nodes[2]), "+l<i>");
        assert!(!nodes[2].field.nullable);
        assert_eq!(nodes[2].def_level, 0);
    }

    #[test]
    fn unsupported_shapes_are_refused_per_field() {
        let schema = SchemaDescriptor::new(&[
            root(2),
            group("m", Repetition::Optional, 1, Some(LogicalType::Map)),
            group("key_value", Repetition::Repeated, 1, None),
            leaf("key", Repetition::Required, 2),
            leaf("ok", Repetition::Optional, 3),
        ])
        .unwrap();
        let nodes = top_level_nodes(&schema);
        let err = nodes[0].as_ref().unwrap_err();
        assert_eq!(
            err.message(),
            "field 'm': a MAP with 1 fields per entry (not a key and a value) is not supported"
        );
        assert!(nodes[1].is_ok());
    }
}
