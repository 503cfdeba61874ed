//! The Parquet schema for an Arrow schema of Iceberg columns, as Iceberg's
//! `TypeToMessageType` and parquet-java write it.
//!
//! The Arrow schema is a struct whose children are the table's columns. Each
//! carries its Iceberg field id as the field metadata `PARQUET:field_id`; a
//! `w:16` column with the Arrow extension name `arrow.uuid`
//! (`ARROW:extension:name`) is an Iceberg uuid, any other `w:L` a fixed(L).
//! The struct's own metadata becomes the footer's key/value metadata (where
//! Iceberg puts `iceberg.schema`).

use std::collections::HashSet;

use crate::arrow::field::decode_metadata;
use crate::arrow::{DataType, Field, TimeUnit};
use crate::error::{Error, Result};
use crate::parquet::format::{
    ConvertedType, KeyValue, LogicalType, PhysicalType, Repetition, SchemaElement,
    TimeUnit as ParquetTimeUnit,
};

pub(crate) const FIELD_ID_KEY: &str = "PARQUET:field_id";
pub(crate) const EXTENSION_NAME_KEY: &str = "ARROW:extension:name";
pub(crate) const UUID_EXTENSION: &str = "arrow.uuid";
/// The name of the schema's root, Iceberg's default message name.
pub(crate) const ROOT_NAME: &str = "table";

/// How a column's Arrow values become Parquet values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Source {
    Boolean,
    /// Arrow 32-bit values stored as INT32 (int, date).
    Int32,
    /// Arrow 64-bit values stored as INT64 (long, time, timestamps).
    Int64,
    Float32,
    Float64,
    /// decimal128 narrowed to INT32 (precision <= 9).
    DecimalInt32 {
        precision: u8,
    },
    /// decimal128 narrowed to INT64 (precision <= 18).
    DecimalInt64 {
        precision: u8,
    },
    /// decimal128 as big-endian two's complement of `width` bytes.
    DecimalFixed {
        precision: u8,
        width: usize,
    },
    /// Strings and binaries, with 32- or 64-bit offsets.
    Bytes {
        large: bool,
    },
    /// Fixed-size binary (fixed, uuid).
    Fixed {
        width: usize,
    },
}

/// The order statistics follow, as parquet-java compares values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Order {
    /// Booleans (false < true) and signed integers.
    Signed,
    /// IEEE floats in Java's `Float.compare` / `Double.compare` order.
    Float,
    /// Bytes compared as unsigned, lexicographically.
    Unsigned,
    /// Big-endian two's complement integers (FIXED_LEN_BYTE_ARRAY decimals).
    SignedBytes,
}

/// One leaf column of the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct LeafColumn {
    /// The column's path in the Parquet schema, dot-separated (a top-level
    /// column's name).
    pub name: String,
    pub path: Vec<String>,
    pub field_id: i32,
    /// Whether the leaf itself is optional.
    pub nullable: bool,
    pub physical: PhysicalType,
    /// The byte width of FIXED_LEN_BYTE_ARRAY values.
    pub type_length: Option<usize>,
    pub source: Source,
    pub order: Order,
    /// Whether the deprecated `min`/`max` statistics are written: parquet-java
    /// writes them when the column's legacy sort order is signed (not for
    /// decimals, byte arrays, strings, uuids), or when min equals max.
    pub legacy_stats: bool,
    /// Whether the column index keeps UTF-8 boundaries when it truncates.
    pub utf8: bool,
    /// The top-level column the leaf belongs to.
    pub top: usize,
    /// How the leaf's levels are found from its top-level column's values:
    /// empty for a top-level primitive column, whose validity is its levels.
    pub steps: Vec<Step>,
    pub max_def: i16,
    pub max_rep: i16,
}

impl LeafColumn {
    /// Whether the leaf sits inside a struct, list or map.
    pub(crate) fn is_nested(&self) -> bool {
        !self.steps.is_empty()
    }
}

/// One node on the way from a top-level column down to a leaf: whether it
/// is optional (a null there is a definition level), and what it holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Step {
    pub optional: bool,
    pub kind: StepKind,
    /// The field id of the node (for messages); none for a map's entries.
    pub field_id: Option<i32>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum StepKind {
    /// The leaf's own values.
    Leaf,
    /// A struct: the leaf is under child `usize`, at the same slot.
    Struct(usize),
    /// A list or a map: each slot's range of child slots repeats at this
    /// repetition level (a map's child is its entries struct).
    Repeated(i16),
}

/// The writer's view of the schema: footer elements and leaf columns.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct WriteSchema {
    pub elements: Vec<SchemaElement>,
    pub columns: Vec<LeafColumn>,
    pub key_value_metadata: Vec<KeyValue>,
    /// The Arrow schema batches are validated against.
    pub arrow: Field,
}

impl WriteSchema {
    /// Maps `root` (a struct of columns, which may nest structs, lists and
    /// maps) to the Parquet schema. Types Iceberg has no Parquet mapping for
    /// are UNSUPPORTED; a missing or bad field id is INVALID_ARGUMENT.
    pub(crate) fn new(root: &Field) -> Result<WriteSchema> {
        root.check()?;
        if root.data_type != DataType::Struct {
            return Err(Error::invalid_argument(format!(
                "the schema must be a struct of columns (format '+s'), not '{}'",
                root.data_type
            )));
        }
        if root.dictionary.is_some() {
            return Err(Error::unsupported(
                "a dictionary-encoded root schema is not supported",
            ));
        }
        if root.children.is_empty() {
            return Err(Error::invalid_argument("the schema has no columns"));
        }
        let mut elements = vec![SchemaElement {
            name: ROOT_NAME.to_owned(),
            num_children: Some(i32::try_from(root.children.len()).map_err(|_| {
                Error::invalid_argument(format!("{} columns are too many", root.children.len()))
            })?),
            ..SchemaElement::default()
        }];
        let mut nodes = Nodes::default();
        let mut names = HashSet::new();
        for (top, field) in root.children.iter().enumerate() {
            if !names.insert(field.name.clone()) {
                return Err(Error::invalid_argument(format!(
                    "column '{}' appears twice",
                    field.name
                )));
            }
            nodes.add(field, &field.name, &Parent::default(), top)?;
        }
        elements.append(&mut nodes.elements);
        let columns = nodes.columns;
        let key_value_metadata = match &root.metadata {
            None => Vec::new(),
            Some(bytes) => decode_metadata(bytes)?
                .into_iter()
                .map(|(key, value)| {
                    let value = String::from_utf8(value).map_err(|_| {
                        Error::invalid_argument(format!(
                            "schema metadata '{key}': the value is not UTF-8"
                        ))
                    })?;
                    Ok(KeyValue {
                        key,
                        value: Some(value),
                    })
                })
                .collect::<Result<_>>()?,
        };
        Ok(WriteSchema {
            elements,
            columns,
            key_value_metadata,
            arrow: root.clone(),
        })
    }
}

/// The nodes above a field: their path, steps and the levels they add.
#[derive(Default, Clone)]
struct Parent {
    path: Vec<String>,
    steps: Vec<Step>,
    def: i16,
    rep: i16,
}

impl Parent {
    fn below(&self, name: &str, step: Step, def: i16, rep: i16) -> Parent {
        let mut path = self.path.clone();
        path.push(name.to_owned());
        let mut steps = self.steps.clone();
        steps.push(step);
        Parent {
            path,
            steps,
            def,
            rep,
        }
    }

    /// The same levels one group deeper (a list's repeated `list` group).
    fn below_group(mut self, name: &str) -> Parent {
        self.path.push(name.to_owned());
        self
    }
}

/// The schema elements (in Parquet's depth-first order) and leaves found so far.
#[derive(Default)]
struct Nodes {
    elements: Vec<SchemaElement>,
    columns: Vec<LeafColumn>,
    ids: HashSet<i32>,
}

impl Nodes {
    /// Adds `field`, named `name` in the Parquet schema, and everything under
    /// it, as Iceberg's `TypeToMessageType` lays them out: structs as groups,
    /// lists as `<name> (LIST) { repeated group list { element } }`, maps as
    /// `<name> (MAP) { repeated group key_value { key; value } }`.
    fn add(&mut self, field: &Field, name: &str, parent: &Parent, top: usize) -> Result<()> {
        let mut path = parent.path.clone();
        path.push(name.to_owned());
        let dotted = path.join(".");
        let field_id = field_id(field, &dotted)?;
        if !self.ids.insert(field_id) {
            return Err(Error::invalid_argument(format!(
                "column '{dotted}': field id {field_id} is used twice"
            )));
        }
        let optional = field.nullable;
        let def = parent.def + i16::from(optional);
        let repetition = if optional {
            Repetition::Optional
        } else {
            Repetition::Required
        };
        let group =
            |children: usize, annotation: Option<(ConvertedType, LogicalType)>| SchemaElement {
                name: name.to_owned(),
                repetition: Some(repetition),
                num_children: Some(children as i32),
                converted_type: annotation.as_ref().map(|(c, _)| *c),
                logical_type: annotation.map(|(_, l)| l),
                field_id: Some(field_id),
                ..SchemaElement::default()
            };
        let repeated = |name: &str, children: i32| SchemaElement {
            name: name.to_owned(),
            repetition: Some(Repetition::Repeated),
            num_children: Some(children),
            ..SchemaElement::default()
        };
        let step = |kind| Step {
            optional,
            kind,
            field_id: Some(field_id),
        };
        if field.dictionary.is_some() {
            return Err(Error::unsupported(format!(
                "column '{dotted}' (format '{}'): dictionary-encoded input is not supported; \
                 pass the decoded values",
                field.data_type
            )));
        }
        match &field.data_type {
            DataType::Struct => {
                if field.children.is_empty() {
                    return Err(Error::unsupported(format!(
                        "column '{dotted}': a struct without fields has no Parquet type"
                    )));
                }
                self.elements.push(group(field.children.len(), None));
                for (k, child) in field.children.iter().enumerate() {
                    let below = parent.below(name, step(StepKind::Struct(k)), def, parent.rep);
                    self.add(child, &child.name, &below, top)?;
                }
            }
            DataType::List | DataType::LargeList => {
                self.elements
                    .push(group(1, Some((ConvertedType::List, LogicalType::List))));
                self.elements.push(repeated("list", 1));
                let rep = parent.rep + 1;
                let below = parent
                    .below(name, step(StepKind::Repeated(rep)), def + 1, rep)
                    .below_group("list");
                self.add(&field.children[0], "element", &below, top)?;
            }
            DataType::Map { .. } => {
                // Field::check has made sure the entries are a struct of a
                // required key and a value.
                let entries = &field.children[0];
                self.elements
                    .push(group(1, Some((ConvertedType::Map, LogicalType::Map))));
                self.elements.push(repeated("key_value", 2));
                let rep = parent.rep + 1;
                let map = parent.below(name, step(StepKind::Repeated(rep)), def + 1, rep);
                for (k, (child, child_name)) in
                    entries.children.iter().zip(["key", "value"]).enumerate()
                {
                    let entry = Step {
                        optional: false,
                        kind: StepKind::Struct(k),
                        field_id: None,
                    };
                    let below = map.below("key_value", entry, def + 1, rep);
                    self.add(child, child_name, &below, top)?;
                }
            }
            _ => {
                let (mut element, mut column) = primitive(field, &dotted, field_id)?;
                element.name = name.to_owned();
                column.name = dotted;
                column.path = path;
                column.top = top;
                column.max_def = def;
                column.max_rep = parent.rep;
                if !parent.steps.is_empty() {
                    column.steps = parent.steps.clone();
                    column.steps.push(step(StepKind::Leaf));
                }
                self.elements.push(element);
                self.columns.push(column);
            }
        }
        Ok(())
    }
}

/// A field's Iceberg id, from its metadata.
fn field_id(field: &Field, name: &str) -> Result<i32> {
    let metadata = match &field.metadata {
        Some(bytes) => decode_metadata(bytes)?,
        None => Vec::new(),
    };
    match metadata.iter().find(|(k, _)| k == FIELD_ID_KEY) {
        None => Err(Error::invalid_argument(format!(
            "column '{name}' has no Iceberg field id (field metadata {FIELD_ID_KEY})"
        ))),
        Some((_, text)) => std::str::from_utf8(text)
            .ok()
            .and_then(|t| t.trim().parse::<i32>().ok())
            .ok_or_else(|| {
                Error::invalid_argument(format!(
                    "column '{name}': {FIELD_ID_KEY} '{}' is not an integer",
                    String::from_utf8_lossy(text)
                ))
            }),
    }
}

/// The element and leaf of a primitive field, named `name` in messages.
fn primitive(field: &Field, name: &str, field_id: i32) -> Result<(SchemaElement, LeafColumn)> {
    let unsupported = |what: &str| {
        Error::unsupported(format!(
            "column '{name}' (format '{}'): {what}",
            field.data_type
        ))
    };
    let metadata = match &field.metadata {
        Some(bytes) => decode_metadata(bytes)?,
        None => Vec::new(),
    };
    let lookup = |key: &str| {
        metadata
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_slice())
    };
    let uuid = lookup(EXTENSION_NAME_KEY) == Some(UUID_EXTENSION.as_bytes());

    use DataType as A;
    let mut element = SchemaElement {
        name: field.name.clone(),
        repetition: Some(if field.nullable {
            Repetition::Optional
        } else {
            Repetition::Required
        }),
        field_id: Some(field_id),
        ..SchemaElement::default()
    };
    let timestamp = |adjusted: bool, unit: ParquetTimeUnit| LogicalType::Timestamp {
        is_adjusted_to_utc: adjusted,
        unit,
    };
    let (physical, source, order) = match &field.data_type {
        _ if uuid && field.data_type != A::FixedSizeBinary(16) => {
            return Err(Error::invalid_argument(format!(
                "column '{name}' is marked {UUID_EXTENSION} but its format is '{}', not 'w:16'",
                field.data_type
            )))
        }
        A::Boolean => (PhysicalType::Boolean, Source::Boolean, Order::Signed),
        A::Int32 => (PhysicalType::Int32, Source::Int32, Order::Signed),
        A::Int64 => (PhysicalType::Int64, Source::Int64, Order::Signed),
        A::Float32 => (PhysicalType::Float, Source::Float32, Order::Float),
        A::Float64 => (PhysicalType::Double, Source::Float64, Order::Float),
        A::Decimal128 { precision, scale } => {
            if *scale < 0 {
                return Err(unsupported("a negative decimal scale has no Iceberg type"));
            }
            element.converted_type = Some(ConvertedType::Decimal);
            element.scale = Some(i32::from(*scale));
            element.precision = Some(i32::from(*precision));
            element.logical_type = Some(LogicalType::Decimal {
                scale: i32::from(*scale),
                precision: i32::from(*precision),
            });
            let precision = *precision;
            match precision {
                1..=9 => (
                    PhysicalType::Int32,
                    Source::DecimalInt32 { precision },
                    Order::Signed,
                ),
                10..=18 => (
                    PhysicalType::Int64,
                    Source::DecimalInt64 { precision },
                    Order::Signed,
                ),
                _ => {
                    let width = decimal_bytes(precision);
                    element.type_length = Some(width as i32);
                    (
                        PhysicalType::FixedLenByteArray,
                        Source::DecimalFixed { precision, width },
                        Order::SignedBytes,
                    )
                }
            }
        }
        A::Date32 => {
            element.converted_type = Some(ConvertedType::Date);
            element.logical_type = Some(LogicalType::Date);
            (PhysicalType::Int32, Source::Int32, Order::Signed)
        }
        A::Time(TimeUnit::Microsecond) => {
            element.converted_type = Some(ConvertedType::TimeMicros);
            element.logical_type = Some(LogicalType::Time {
                is_adjusted_to_utc: false,
                unit: ParquetTimeUnit::Micros,
            });
            (PhysicalType::Int64, Source::Int64, Order::Signed)
        }
        A::Timestamp {
            unit: TimeUnit::Microsecond,
            timezone,
        } => {
            // parquet-java 1.17 writes TIMESTAMP_MICROS for both, even though the
            // converted type nominally means UTC-adjusted.
            element.converted_type = Some(ConvertedType::TimestampMicros);
            element.logical_type = Some(timestamp(timezone.is_some(), ParquetTimeUnit::Micros));
            (PhysicalType::Int64, Source::Int64, Order::Signed)
        }
        A::Timestamp {
            unit: TimeUnit::Nanosecond,
            timezone,
        } => {
            element.logical_type = Some(timestamp(timezone.is_some(), ParquetTimeUnit::Nanos));
            (PhysicalType::Int64, Source::Int64, Order::Signed)
        }
        A::Utf8 | A::LargeUtf8 => {
            element.converted_type = Some(ConvertedType::Utf8);
            element.logical_type = Some(LogicalType::String);
            let large = field.data_type == A::LargeUtf8;
            (
                PhysicalType::ByteArray,
                Source::Bytes { large },
                Order::Unsigned,
            )
        }
        A::Binary | A::LargeBinary => {
            let large = field.data_type == A::LargeBinary;
            (
                PhysicalType::ByteArray,
                Source::Bytes { large },
                Order::Unsigned,
            )
        }
        A::FixedSizeBinary(width) => {
            if *width == 0 {
                return Err(unsupported("fixed(0) has no Parquet type"));
            }
            if uuid {
                element.logical_type = Some(LogicalType::Uuid);
            }
            element.type_length = Some(*width as i32);
            (
                PhysicalType::FixedLenByteArray,
                Source::Fixed {
                    width: *width as usize,
                },
                Order::Unsigned,
            )
        }
        A::Time(_) => return Err(unsupported("Iceberg's time is microseconds ('ttu')")),
        A::Timestamp { .. } => {
            return Err(unsupported(
                "Iceberg's timestamps are microseconds ('tsu:') or nanoseconds ('tsn:')",
            ))
        }
        A::Date64 => return Err(unsupported("Iceberg's date is days ('tdD')")),
        A::Int8 | A::Int16 => {
            return Err(unsupported(
                "Iceberg has no 8- or 16-bit integers; widen to 'i'",
            ))
        }
        other => return Err(unsupported(&format!("'{other}' has no Iceberg type"))),
    };
    element.physical_type = Some(physical);
    let utf8 = element.logical_type == Some(LogicalType::String);
    let legacy_stats = matches!(
        physical,
        PhysicalType::Boolean
            | PhysicalType::Int32
            | PhysicalType::Int64
            | PhysicalType::Float
            | PhysicalType::Double
    ) && element.converted_type != Some(ConvertedType::Decimal);
    let column = LeafColumn {
        name: name.to_owned(),
        path: vec![name.to_owned()],
        field_id,
        nullable: field.nullable,
        physical,
        type_length: element.type_length.map(|n| n as usize),
        source,
        order,
        legacy_stats,
        utf8,
        top: 0,
        steps: Vec::new(),
        max_def: i16::from(field.nullable),
        max_rep: 0,
    };
    Ok((element, column))
}

/// The fewest bytes that hold every unscaled value of `precision` digits in
/// two's complement (Iceberg's `TypeUtil.decimalRequiredBytes`).
pub(crate) fn decimal_bytes(precision: u8) -> usize {
    let max = 10u128.pow(u32::from(precision)) - 1;
    (1..=16)
        .find(|&bytes| max < 1u128 << (8 * bytes - 1))
        .unwrap_or(16)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arrow::field::encode_metadata;

    #[test]
    fn decimal_widths_are_icebergs() {
        let widths: Vec<usize> = [1, 2, 9, 10, 18, 19, 20, 30, 38]
            .iter()
            .map(|&p| decimal_bytes(p))
            .collect();
        assert_eq!(widths, [1, 1, 4, 5, 8, 9, 9, 13, 16]);
    }

    #[test]
    fn metadata_round_trips() {
        let bytes = encode_metadata(&[("PARQUET:field_id", b"7"), ("k", b"")]).unwrap();
        assert_eq!(
            decode_metadata(&bytes).unwrap(),
            [
                ("PARQUET:field_id".to_owned(), b"7".to_vec()),
                ("k".to_owned(), Vec::new())
            ]
        );
        assert!(decode_metadata(&bytes[..bytes.len() - 1]).is_err());
    }
}
