//! Any compact-protocol struct as a tree of fields, to write what no struct
//! of the format layer can: the same encoding without one of its fields.

use crate::error::Result;
use crate::parquet::thrift::{CompactReader, CompactWriter, WireType};

#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Bool(bool),
    Int(WireType, i64),
    Double(f64),
    Binary(Vec<u8>),
    List(WireType, Vec<Value>),
    Struct(Vec<Field>),
}

#[derive(Debug, Clone, PartialEq)]
pub struct Field {
    pub id: i16,
    pub value: Value,
}

/// The struct at the front of `bytes`.
pub fn read(bytes: &[u8]) -> Result<Vec<Field>> {
    read_struct(&mut CompactReader::new(bytes))
}

fn read_struct(reader: &mut CompactReader<'_>) -> Result<Vec<Field>> {
    let mut fields = Vec::new();
    reader.read_struct("tree", |r, header| {
        let value = match header.ty {
            WireType::Bool => Value::Bool(header.bool_value()),
            ty => read_value(r, ty)?,
        };
        fields.push(Field {
            id: header.id,
            value,
        });
        Ok(true)
    })?;
    Ok(fields)
}

fn read_value(reader: &mut CompactReader<'_>, ty: WireType) -> Result<Value> {
    Ok(match ty {
        WireType::Bool => Value::Bool(reader.read_bool_element()?),
        WireType::I8 => Value::Int(ty, i64::from(reader.read_i8()?)),
        WireType::I16 => Value::Int(ty, i64::from(reader.read_i16()?)),
        WireType::I32 => Value::Int(ty, i64::from(reader.read_i32()?)),
        WireType::I64 => Value::Int(ty, reader.read_i64()?),
        WireType::Double => Value::Double(reader.read_double()?),
        WireType::Binary => Value::Binary(reader.read_binary()?.to_vec()),
        WireType::List | WireType::Set => {
            let (elem, len) = reader.read_list_header()?;
            let items = (0..len)
                .map(|_| read_value(reader, elem))
                .collect::<Result<_>>()?;
            Value::List(elem, items)
        }
        WireType::Struct => Value::Struct(read_struct(reader)?),
        WireType::Map | WireType::Uuid => panic!("Parquet's metadata has no {ty:?}"),
    })
}

pub fn write(fields: &[Field]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut writer = CompactWriter::new(&mut out);
    write_struct(&mut writer, fields);
    writer.finish().unwrap();
    out
}

fn write_struct(writer: &mut CompactWriter<'_>, fields: &[Field]) {
    writer.write_struct(|w| {
        for field in fields {
            match &field.value {
                Value::Bool(v) => w.field_bool(field.id, *v),
                value => {
                    w.field_begin(field.id, wire_type(value));
                    write_value(w, value);
                }
            }
        }
    });
}

fn wire_type(value: &Value) -> WireType {
    match value {
        Value::Bool(_) => WireType::Bool,
        Value::Int(ty, _) => *ty,
        Value::Double(_) => WireType::Double,
        Value::Binary(_) => WireType::Binary,
        Value::List(..) => WireType::List,
        Value::Struct(_) => WireType::Struct,
    }
}

fn write_value(writer: &mut CompactWriter<'_>, value: &Value) {
    match value {
        Value::Bool(v) => writer.write_bool_element(*v),
        Value::Int(WireType::I8, v) => writer.write_i8(*v as i8),
        Value::Int(WireType::I16, v) => writer.write_i16(*v as i16),
        Value::Int(WireType::I32, v) => writer.write_i32(*v as i32),
        Value::Int(_, v) => writer.write_i64(*v),
        Value::Double(v) => writer.write_double(*v),
        Value::Binary(v) => writer.write_binary(v),
        Value::List(elem, items) => {
            writer.list_begin(*elem, items.len());
            for item in items {
                write_value(writer, item);
            }
        }
        Value::Struct(fields) => write_struct(writer, fields),
    }
}

/// A field's place: the field ids and list indices from the top struct down.
pub type Path = Vec<(i16, Option<usize>)>;

/// Every field of the tree, at any depth, by its path.
pub fn paths(fields: &[Field]) -> Vec<Path> {
    let mut out = Vec::new();
    collect(fields, &mut Vec::new(), &mut out);
    out
}

fn collect(fields: &[Field], prefix: &mut Path, out: &mut Vec<Path>) {
    for field in fields {
        prefix.push((field.id, None));
        out.push(prefix.clone());
        match &field.value {
            Value::Struct(inner) => collect(inner, prefix, out),
            Value::List(_, items) => {
                for (i, item) in items.iter().enumerate() {
                    if let Value::Struct(inner) = item {
                        prefix.last_mut().unwrap().1 = Some(i);
                        collect(inner, prefix, out);
                    }
                }
            }
            _ => {}
        }
        prefix.pop();
    }
}

/// The tree without the field at `path`.
pub fn without(fields: &[Field], path: &[(i16, Option<usize>)]) -> Vec<Field> {
    let mut fields = fields.to_vec();
    remove(&mut fields, path);
    fields
}

fn remove(fields: &mut Vec<Field>, path: &[(i16, Option<usize>)]) {
    let ((id, index), rest) = path.split_first().unwrap();
    let at = fields.iter().position(|f| f.id == *id).unwrap();
    if rest.is_empty() {
        fields.remove(at);
        return;
    }
    let inner = match (&mut fields[at].value, index) {
        (Value::Struct(inner), None) => inner,
        (Value::List(_, items), Some(i)) => match &mut items[*i] {
            Value::Struct(inner) => inner,
            _ => unreachable!("paths go through structs"),
        },
        _ => unreachable!("paths go through structs and lists of them"),
    };
    remove(inner, rest);
}
