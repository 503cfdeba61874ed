//! What a scan reads and how, decided once at open: the projected fields by
//! Iceberg field id (renamed, widened or filled with nulls as the caller's
//! expected schema says), the string columns kept dictionary-encoded, and a
//! [`LeafSpec`] for every leaf to read. Everything a scan cannot do is
//! refused here, before any data is read.

use std::collections::HashSet;

use crate::arrow::field::{decode_metadata, encode_metadata};
use crate::arrow::{DataType, Field, TimeUnit};
use crate::error::{Error, Result};
use crate::parquet::read::arrow::{ArrowNode, NodeKind, FIELD_ID_KEY};
use crate::parquet::read::column::{Conversion, LeafSpec};
use crate::parquet::read::file::ParquetFile;

/// One output field: read from the file, or all nulls.
pub(super) enum OutputColumn {
    Present(ArrowNode),
    Missing(Field),
}

pub(super) struct Projection {
    pub columns: Vec<OutputColumn>,
    /// The leaf columns to read, in output order, and how to read each.
    pub leaves: Vec<usize>,
    pub specs: Vec<LeafSpec>,
    /// The output fields, in order.
    pub fields: Vec<Field>,
}

/// Resolves `field_ids` against `file`. `expected` holds the caller's field
/// for each id, if it gave an expected schema; `mapped_names` the names a name
/// mapping gives each id, for a file without field ids.
pub(super) fn project(
    file: &ParquetFile,
    field_ids: &[i32],
    expected: Option<&Vec<Field>>,
    mapped_names: Option<&[Vec<String>]>,
    row_groups: &[usize],
    keep_dictionaries: bool,
) -> Result<Projection> {
    let location = file.location().clone();
    let invalid = |what: String| location.wrap(Error::invalid_argument(what));
    let root = file
        .schema()
        .nodes()
        .first()
        .map(|n| n.children.clone())
        .unwrap_or_default();
    let ids: Vec<Option<i32>> = root
        .iter()
        .map(|&i| file.schema().element(i).and_then(|e| e.field_id))
        .collect();
    // A file with no ids at the top is read by the table's name mapping,
    // matching the file's top-level names; the caller passes one only where
    // Iceberg would apply it (no id at any depth).
    let by_name = !field_ids.is_empty() && ids.iter().all(Option::is_none);
    if by_name && mapped_names.is_none() {
        return Err(location.wrap(Error::unsupported(
            "the file's fields have no field ids (not written by Iceberg?); reading it needs \
             the table's name mapping (schema.name-mapping.default)",
        )));
    }
    let names: Vec<Option<&str>> = root
        .iter()
        .map(|&i| file.schema().element(i).map(|e| e.name.as_str()))
        .collect();
    let mut seen = HashSet::new();
    let mut columns = Vec::with_capacity(field_ids.len());
    for (k, &id) in field_ids.iter().enumerate() {
        if !seen.insert(id) {
            return Err(invalid(format!("field id {id} is projected twice")));
        }
        let wanted = expected.and_then(|e| e.get(k));
        let index = match mapped_names.filter(|_| by_name) {
            Some(mapped) => {
                let aliases = &mapped[k];
                names
                    .iter()
                    .position(|n| n.is_some_and(|n| aliases.iter().any(|a| a == n)))
            }
            None => ids.iter().position(|&i| i == Some(id)),
        };
        let column = match index {
            Some(index) => {
                let found = file.nodes()[index]
                    .as_ref()
                    .map_err(|e| location.wrap(e.clone().context(format_args!("field id {id}"))))?;
                let mapped;
                let node = if by_name {
                    let mut with_id = found.clone();
                    with_id.field_id = Some(id);
                    mapped = with_id;
                    &mapped
                } else {
                    found
                };
                match wanted {
                    // An UNKNOWN column holds only nulls, which any type can
                    // hold (Iceberg's conversion of the file calls it int).
                    Some(wanted)
                        if node.field.data_type == DataType::Null
                            && wanted.data_type != DataType::Null =>
                    {
                        if !wanted.nullable {
                            return Err(location.wrap(Error::corrupt_data(format!(
                                "field id {id} ('{}') is required, but the file's column has \
                                 logical type UNKNOWN, which holds only nulls",
                                wanted.name
                            ))));
                        }
                        OutputColumn::Missing(wanted.clone())
                    }
                    Some(wanted) => OutputColumn::Present(
                        evolve(node, wanted)
                            .map_err(|e| location.wrap(e.context(format_args!("field id {id}"))))?,
                    ),
                    None => OutputColumn::Present(node.clone()),
                }
            }
            None => match wanted {
                // The file's fault, not the caller's: a file of the table
                // must hold the table's required fields.
                Some(wanted) if !wanted.nullable => {
                    return Err(location.wrap(Error::corrupt_data(format!(
                        "field id {id} ('{}') is required, but the file does not have it",
                        wanted.name
                    ))))
                }
                Some(wanted) => OutputColumn::Missing(wanted.clone()),
                None => {
                    return Err(invalid(format!(
                        "field id {id} is not in the file, and no expected schema gives its type"
                    )))
                }
            },
        };
        columns.push(column);
    }
    if keep_dictionaries {
        for column in &mut columns {
            if let OutputColumn::Present(node) = column {
                keep_dictionary(node, file, row_groups);
            }
        }
    }
    let mut leaves = Vec::new();
    let mut specs = Vec::new();
    for column in &columns {
        if let OutputColumn::Present(node) = column {
            let first = specs.len();
            collect_specs(node, file, &mut leaves, &mut specs)?;
            if let (NodeKind::Leaf { .. }, Some(spec)) = (&node.kind, specs.get_mut(first)) {
                spec.top_level = true;
            }
        }
    }
    // Codecs this build lacks (LZO) are refused now, not at their row group.
    for &row_group in row_groups {
        for &column in &leaves {
            let codec = file.chunk_metadata(row_group, column).map(|m| m.codec);
            if let Some(Err(e)) = codec.map(|c| c.codec()) {
                let path = file.columns()[column].path.join(".");
                return Err(location.row_group(row_group).column(path.into()).wrap(e));
            }
        }
    }
    let fields = columns
        .iter()
        .map(|c| match c {
            OutputColumn::Present(node) => node.field.clone(),
            OutputColumn::Missing(field) => field.clone(),
        })
        .collect();
    Ok(Projection {
        columns,
        leaves,
        specs,
        fields,
    })
}

/// Appends the leaves of `node` and how to read them.
fn collect_specs(
    node: &ArrowNode,
    file: &ParquetFile,
    leaves: &mut Vec<usize>,
    specs: &mut Vec<LeafSpec>,
) -> Result<()> {
    match &node.kind {
        NodeKind::Leaf { column, conversion } => {
            let descriptor = file
                .columns()
                .get(*column)
                .ok_or_else(|| Error::internal("leaf column out of range"))?;
            leaves.push(*column);
            specs.push(LeafSpec {
                conversion: *conversion,
                type_length: descriptor.type_length.unwrap_or(0).max(0) as usize,
                max_def: descriptor.max_def_level,
                max_rep: descriptor.max_rep_level,
                keep_indices: node.field.dictionary.is_some(),
                top_level: false,
            });
        }
        NodeKind::Struct { children } => {
            for child in children {
                collect_specs(child, file, leaves, specs)?;
            }
        }
        NodeKind::List { element, .. } => collect_specs(element, file, leaves, specs)?,
        NodeKind::Missing => {}
    }
    Ok(())
}

/// Makes a flat string or binary leaf output dictionary indices if every data
/// page of every selected chunk is dictionary-encoded.
fn keep_dictionary(node: &mut ArrowNode, file: &ParquetFile, row_groups: &[usize]) {
    let NodeKind::Leaf {
        column,
        conversion: Conversion::Utf8 | Conversion::ByteArray,
    } = node.kind
    else {
        return;
    };
    let every_page = row_groups.iter().all(|&rg| {
        file.row_groups()[rg]
            .chunks
            .get(column)
            .and_then(|c| c.all_dictionary)
            == Some(true)
    });
    if !every_page {
        return;
    }
    let values = Field::new("", node.field.data_type.clone(), true);
    let mut field = Field::new(&node.field.name, DataType::Int32, node.field.nullable)
        .with_dictionary(values, false);
    field.metadata = node.field.metadata.clone();
    node.field = field;
}

/// `node` renamed and, where the expected type is a wider one, widened, as
/// Iceberg's schema evolution allows.
fn evolve(node: &ArrowNode, wanted: &Field) -> Result<ArrowNode> {
    let mut node = node.clone();
    node.field.name = wanted.name.clone();
    if let Some(id) = node.field_id {
        node.field.metadata = encode_metadata(&[(FIELD_ID_KEY, id.to_string().as_bytes())]).ok();
    }
    let file_type = node.field.data_type.clone();
    let wanted_type = match &wanted.dictionary {
        Some(dictionary) => dictionary.values.data_type.clone(),
        None => wanted.data_type.clone(),
    };
    if let NodeKind::Leaf { conversion, .. } = &mut node.kind {
        let widened = match (&file_type, &wanted_type, *conversion) {
            (a, b, _) if a == b => None,
            (DataType::Int32, DataType::Int64, Conversion::Int32) => Some(Conversion::Int32To64),
            // INTEGER(8|16, signed), which Iceberg reads as int: the stored INT32 is the value.
            (DataType::Int8, DataType::Int32, Conversion::Int32To8)
            | (DataType::Int16, DataType::Int32, Conversion::Int32To16) => Some(Conversion::Int32),
            (DataType::Int8, DataType::Int64, Conversion::Int32To8)
            | (DataType::Int16, DataType::Int64, Conversion::Int32To16) => {
                Some(Conversion::Int32To64)
            }
            // TIMESTAMP(MILLIS), which Iceberg reads as a timestamp in micros.
            (
                DataType::Timestamp {
                    unit: TimeUnit::Millisecond,
                    timezone: a,
                },
                DataType::Timestamp {
                    unit: TimeUnit::Microsecond,
                    timezone: b,
                },
                Conversion::Int64,
            ) if a == b => Some(Conversion::Int64MillisToMicros),
            // INT96 (Spark's default timestamps), which Iceberg reads as timestamptz.
            (
                DataType::Timestamp {
                    unit: TimeUnit::Nanosecond,
                    timezone: a,
                },
                DataType::Timestamp {
                    unit: TimeUnit::Microsecond,
                    timezone: b,
                },
                Conversion::Int96ToNanos,
            ) if a == b => Some(Conversion::Int96ToMicros),
            (DataType::Float32, DataType::Float64, Conversion::Float) => {
                Some(Conversion::FloatToDouble)
            }
            (
                DataType::Decimal128 {
                    precision: p1,
                    scale: s1,
                },
                DataType::Decimal128 {
                    precision: p2,
                    scale: s2,
                },
                c,
            ) if s1 == s2 && p2 >= p1 => Some(c),
            _ => {
                return Err(Error::unsupported(format!(
                    "the file's type '{file_type}' cannot be read as '{wanted_type}'"
                )))
            }
        };
        if let Some(widened) = widened {
            *conversion = widened;
            node.field.data_type = wanted_type;
        }
        return Ok(node);
    }
    evolve_nested(node, wanted)
}

/// A struct's, list's or map's node read as `wanted`. A struct's fields are
/// matched by field id where the file's fields have ids, as Iceberg matches
/// them, so that fields reordered, renamed or left out of the projection read
/// as `wanted` says (and only the projected ones are read); by position when
/// none has an id (a file read through a name mapping, whose caller checks
/// that they line up). A struct whose fields only partly have ids is refused.
fn evolve_nested(mut node: ArrowNode, wanted: &Field) -> Result<ArrowNode> {
    let differs = |node: &ArrowNode| {
        Error::unsupported(format!(
            "the file's nested type '{}' differs from the expected '{}'",
            shape(&node.field),
            shape(wanted)
        ))
    };
    if std::mem::discriminant(&node.field.data_type) != std::mem::discriminant(&wanted.data_type)
        || wanted.children.is_empty()
    {
        return Err(differs(&node));
    }
    let name = node.field.name.clone();
    match &mut node.kind {
        NodeKind::Leaf { .. } | NodeKind::Missing => return Err(differs(&node)),
        NodeKind::Struct { children } => {
            let evolved = if children.iter().all(|c| c.field_id.is_some()) {
                let mut evolved = Vec::with_capacity(wanted.children.len());
                for field in &wanted.children {
                    let Some(id) = field_id(field) else {
                        return Err(differs(&node));
                    };
                    let Some(child) = children.iter().find(|c| c.field_id == Some(id)) else {
                        // Added to the table after the file was written: nulls, as
                        // Iceberg reads it (a required one cannot have been added).
                        if !field.nullable {
                            return Err(Error::corrupt_data(format!(
                                "field id {id} ('{}') of '{name}' is required, but the file's \
                                 struct does not have it",
                                field.name
                            )));
                        }
                        evolved.push(ArrowNode {
                            field: field.clone(),
                            field_id: Some(id),
                            def_level: 0,
                            kind: NodeKind::Missing,
                        });
                        continue;
                    };
                    evolved.push(
                        evolve(child, field)
                            .map_err(|e| e.context(format_args!("field id {id}")))?,
                    );
                }
                evolved
            } else {
                if children.iter().any(|c| c.field_id.is_some()) {
                    return Err(Error::unsupported(format!(
                        "only some of the fields of the file's struct '{name}' have field ids"
                    )));
                }
                if children.len() != wanted.children.len() {
                    return Err(differs(&node));
                }
                children
                    .iter()
                    .zip(&wanted.children)
                    .map(|(c, w)| evolve(c, w))
                    .collect::<Result<Vec<_>>>()?
            };
            if evolved.iter().all(|c| c.kind == NodeKind::Missing) {
                return Err(Error::unsupported(format!(
                    "the file holds none of the projected fields of '{name}'"
                )));
            }
            node.field.children = evolved.iter().map(|c| c.field.clone()).collect();
            *children = evolved;
        }
        NodeKind::List { element, .. } => {
            let evolved = evolve(element, &wanted.children[0])?;
            node.field.children = vec![evolved.field.clone()];
            **element = evolved;
        }
    }
    Ok(node)
}

/// The Iceberg field id in a field's metadata.
fn field_id(field: &Field) -> Option<i32> {
    let metadata = decode_metadata(field.metadata.as_deref()?).ok()?;
    let (_, value) = metadata.iter().find(|(key, _)| key == FIELD_ID_KEY)?;
    std::str::from_utf8(value).ok()?.trim().parse().ok()
}

fn shape(field: &Field) -> String {
    if field.children.is_empty() {
        return field.data_type.format();
    }
    let children: Vec<String> = field.children.iter().map(shape).collect();
    format!("{}<{}>", field.data_type.format(), children.join(","))
}
