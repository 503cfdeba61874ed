//! The schema tree: levels and paths of leaf columns, and rejection of lists
//! that do not describe exactly one tree.

use crate::error::Status;
use crate::parquet::format::{LogicalType, PhysicalType, Repetition, SchemaElement};
use crate::parquet::schema::{SchemaDescriptor, MAX_SCHEMA_DEPTH};

fn leaf(name: &str, ty: PhysicalType, repetition: Repetition) -> SchemaElement {
    SchemaElement {
        physical_type: Some(ty),
        repetition: Some(repetition),
        name: name.to_owned(),
        ..SchemaElement::default()
    }
}

fn group(name: &str, repetition: Option<Repetition>, children: i32) -> SchemaElement {
    SchemaElement {
        repetition,
        name: name.to_owned(),
        num_children: Some(children),
        ..SchemaElement::default()
    }
}

use PhysicalType::*;
use Repetition::*;

/// id: required int64; name: optional string; tags: optional list<optional
/// string>; props: optional map<string, optional int32>; point: required
/// struct { x: required double, y: optional double }; legacy: repeated int32
/// (a bare repeated field, as old writers make lists).
fn nested_schema() -> Vec<SchemaElement> {
    vec![
        group("schema", None, 6),
        SchemaElement {
            field_id: Some(1),
            ..leaf("id", Int64, Required)
        },
        SchemaElement {
            logical_type: Some(LogicalType::String),
            field_id: Some(2),
            ..leaf("name", ByteArray, Optional)
        },
        SchemaElement {
            logical_type: Some(LogicalType::List),
            field_id: Some(3),
            ..group("tags", Some(Optional), 1)
        },
        group("list", Some(Repeated), 1),
        SchemaElement {
            field_id: Some(4),
            ..leaf("element", ByteArray, Optional)
        },
        SchemaElement {
            logical_type: Some(LogicalType::Map),
            ..group("props", Some(Optional), 1)
        },
        group("key_value", Some(Repeated), 2),
        leaf("key", ByteArray, Required),
        leaf("value", Int32, Optional),
        group("point", Some(Required), 2),
        leaf("x", Double, Required),
        leaf("y", Double, Optional),
        leaf("legacy", Int32, Repeated),
    ]
}

#[test]
fn levels_and_paths() {
    let schema = SchemaDescriptor::new(&nested_schema()).unwrap();
    let summary: Vec<(String, i16, i16)> = schema
        .columns()
        .iter()
        .map(|c| (c.path.join("."), c.max_def_level, c.max_rep_level))
        .collect();
    let expected = [
        ("id", 0, 0),
        ("name", 1, 0),
        ("tags.list.element", 3, 1),
        ("props.key_value.key", 2, 1),
        ("props.key_value.value", 3, 1),
        ("point.x", 0, 0),
        ("point.y", 1, 0),
        ("legacy", 1, 1),
    ];
    let expected: Vec<(String, i16, i16)> = expected
        .iter()
        .map(|&(p, d, r)| (p.to_owned(), d, r))
        .collect();
    assert_eq!(summary, expected);

    let element = &schema.columns()[2];
    assert_eq!(element.physical_type, ByteArray);
    assert_eq!(element.field_id, Some(4));
    assert_eq!(element.repetition, Optional);
    assert_eq!(element.node, 5);
    assert_eq!(schema.columns()[1].logical_type, Some(LogicalType::String));

    // The tree: node i is element i.
    let nodes = schema.nodes();
    assert_eq!(nodes.len(), 14);
    assert_eq!(nodes[0].children, [1, 2, 3, 6, 10, 13]);
    assert_eq!(nodes[3].children, [4]);
    assert_eq!(nodes[4].parent, Some(3));
    assert_eq!((nodes[4].def_level, nodes[4].rep_level), (2, 1));
    assert_eq!(nodes[7].children, [8, 9]);
    assert_eq!(nodes[9].column, Some(4));
    assert_eq!(nodes[10].column, None);
    assert_eq!(schema.element(3).unwrap().field_id, Some(3));
    assert!(schema.element(14).is_none());
}

#[test]
fn leaves_with_zero_children_and_empty_groups() {
    // Some writers set num_children = 0 on leaves; an empty group has no leaves.
    let elements = vec![
        group("schema", None, 2),
        SchemaElement {
            num_children: Some(0),
            ..leaf("a", Boolean, Optional)
        },
        group("empty", Some(Optional), 0),
    ];
    let schema = SchemaDescriptor::new(&elements).unwrap();
    assert_eq!(schema.columns().len(), 1);
    assert!(schema.nodes()[2].children.is_empty());
    // An empty schema (root only) is valid too.
    assert!(SchemaDescriptor::new(&[group("schema", None, 0)])
        .unwrap()
        .columns()
        .is_empty());
}

fn corrupt(elements: &[SchemaElement], needle: &str) {
    let error = SchemaDescriptor::new(elements).unwrap_err();
    assert_eq!(error.status(), Status::CorruptData, "{error}");
    assert!(error.message().contains(needle), "{error}");
}

#[test]
fn malformed_trees() {
    corrupt(&[], "no elements");
    corrupt(&[leaf("a", Int32, Required)], "not a group");
    corrupt(
        &[group("schema", None, 2), leaf("a", Int32, Required)],
        "declares 2 children but only 1",
    );
    corrupt(&[group("schema", None, -1)], "declares -1 children");
    // A group whose children run past the end of the list.
    corrupt(
        &[
            group("schema", None, 1),
            group("g", Some(Optional), 2),
            leaf("a", Int32, Required),
        ],
        "declares 2 children but only 1",
    );
    // Elements left over after the root's children.
    corrupt(
        &[
            group("schema", None, 1),
            leaf("a", Int32, Required),
            leaf("b", Int32, Required),
        ],
        "ends after 2 of its 3 elements",
    );
    corrupt(
        &[
            group("schema", None, 1),
            SchemaElement {
                repetition: None,
                ..leaf("a", Int32, Required)
            },
        ],
        "no repetition type",
    );
    corrupt(
        &[
            group("schema", None, 1),
            SchemaElement {
                num_children: None,
                ..group("g", Some(Optional), 0)
            },
        ],
        "neither a type nor num_children",
    );
    corrupt(
        &[
            group("schema", None, 1),
            SchemaElement {
                num_children: Some(1),
                ..leaf("a", Int32, Optional)
            },
        ],
        "both a type and children",
    );
    corrupt(
        &[
            group("schema", None, 1),
            leaf("f", FixedLenByteArray, Required),
        ],
        "positive type_length",
    );
    corrupt(
        &[
            group("schema", None, 1),
            SchemaElement {
                type_length: Some(0),
                ..leaf("f", FixedLenByteArray, Required)
            },
        ],
        "positive type_length",
    );
    let vector =
        SchemaDescriptor::new(&[group("schema", None, 1), leaf("v", Float, Vector)]).unwrap_err();
    assert_eq!(vector.status(), Status::Unsupported);
}

#[test]
fn depth_is_limited() {
    let chain = |depth: usize| {
        let mut elements = vec![group("schema", None, 1)];
        for i in 0..depth {
            elements.push(group(&format!("g{i}"), Some(Optional), 1));
        }
        elements.push(leaf("leaf", Int32, Optional));
        elements
    };
    let deep = SchemaDescriptor::new(&chain(MAX_SCHEMA_DEPTH - 1)).unwrap();
    let column = &deep.columns()[0];
    assert_eq!(column.max_def_level as usize, MAX_SCHEMA_DEPTH);
    assert_eq!(column.path.len(), MAX_SCHEMA_DEPTH);
    corrupt(&chain(MAX_SCHEMA_DEPTH + 5), "nesting deeper than");
}
