//! [`Field`]: an `ArrowSchema` node in owned Rust form, and the rules a schema
//! tree must follow whichever side built it.

use std::fmt;

use super::datatype::DataType;
use crate::error::{Error, Result};

/// How deep fields may nest (dictionaries count as a level). Real schemas stay far
/// below; the bound keeps a malicious or cyclic C struct from overflowing the stack.
pub(crate) const MAX_DEPTH: usize = 64;

/// One level of a schema, mirroring `ArrowSchema`: a dictionary-encoded field has
/// its index type as `data_type` and the value type in `dictionary`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Field {
    pub name: String,
    pub data_type: DataType,
    pub nullable: bool,
    pub children: Vec<Field>,
    pub dictionary: Option<Box<DictionaryType>>,
    /// The C Data Interface's binary metadata encoding (see [`encode_metadata`]).
    pub metadata: Option<Vec<u8>>,
}

/// The values of a dictionary-encoded field.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DictionaryType {
    /// `ARROW_FLAG_DICTIONARY_ORDERED`.
    pub ordered: bool,
    pub values: Field,
}

impl Field {
    pub fn new(name: impl Into<String>, data_type: DataType, nullable: bool) -> Field {
        Field {
            name: name.into(),
            data_type,
            nullable,
            children: Vec::new(),
            dictionary: None,
            metadata: None,
        }
    }

    pub fn with_children(mut self, children: Vec<Field>) -> Field {
        self.children = children;
        self
    }

    /// Makes this field dictionary-encoded: its `data_type` becomes the index type.
    pub fn with_dictionary(mut self, values: Field, ordered: bool) -> Field {
        self.dictionary = Some(Box::new(DictionaryType { ordered, values }));
        self
    }

    pub fn with_metadata(mut self, metadata: Vec<u8>) -> Field {
        self.metadata = Some(metadata);
        self
    }

    /// Checks the rules the C Data Interface puts on a schema tree: children per
    /// type, integer dictionary indices, well-formed metadata, and bounded depth.
    pub(crate) fn check(&self) -> Result<()> {
        self.check_at(&FieldPath::root(&self.name), 0)
    }

    fn check_at(&self, path: &FieldPath, depth: usize) -> Result<()> {
        let fail = |message: String| Err(path.error(&self.data_type, message));
        if depth >= MAX_DEPTH {
            return fail(format!("nested deeper than {MAX_DEPTH} levels"));
        }
        // Types built in Rust can hold what no format string expresses (precision
        // 0, a width beyond int32); they must not reach a consumer.
        DataType::from_format(&self.data_type.format())
            .map_err(|e| path.error(&self.data_type, e.message()))?;
        let children = self.children.len();
        match &self.data_type {
            DataType::Struct => {}
            DataType::List | DataType::LargeList if children != 1 => {
                return fail(format!(
                    "a list has exactly 1 child, this one has {children}"
                ))
            }
            DataType::Map { .. } => check_map_entries(&self.children).or_else(fail)?,
            DataType::List | DataType::LargeList => {}
            _ if children > 0 => {
                return fail(format!(
                    "this type has no children, this field has {children}"
                ))
            }
            _ => {}
        }
        if let Some(metadata) = &self.metadata {
            metadata_len(|at| read_i32(metadata, at))
                .and_then(|len| {
                    if len == metadata.len() {
                        Ok(())
                    } else {
                        Err(format!(
                            "{} bytes follow the last entry",
                            metadata.len() - len
                        ))
                    }
                })
                .map_err(|e| path.error(&self.data_type, format!("bad metadata: {e}")))?;
        }
        for child in &self.children {
            child.check_at(&path.child(&child.name), depth + 1)?;
        }
        if let Some(dictionary) = &self.dictionary {
            if self.data_type.dictionary_index().is_none() {
                return fail("a dictionary's index type must be an integer".into());
            }
            dictionary.values.check_at(&path.dictionary(), depth + 1)?;
        }
        Ok(())
    }
}

fn check_map_entries(children: &[Field]) -> Result<(), String> {
    let [entries] = children else {
        return Err(format!(
            "a map has exactly 1 child, this one has {}",
            children.len()
        ));
    };
    match (&entries.data_type, &entries.children[..]) {
        (DataType::Struct, [key, _]) if !key.nullable => Ok(()),
        (DataType::Struct, [key, _]) => {
            Err(format!("the map's key field '{}' is nullable", key.name))
        }
        _ => Err(format!(
            "a map's child is a struct of key and value, this one is '{}' with {} children",
            entries.data_type,
            entries.children.len()
        )),
    }
}

/// The dotted path of a field from the top, for error messages: "bids.price".
/// A dictionary's values are "<path>[dictionary]".
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct FieldPath(String);

impl FieldPath {
    pub(crate) fn root(name: &str) -> FieldPath {
        FieldPath(name.to_owned())
    }

    pub(crate) fn child(&self, name: &str) -> FieldPath {
        if self.0.is_empty() {
            FieldPath(name.to_owned())
        } else {
            FieldPath(format!("{}.{name}", self.0))
        }
    }

    pub(crate) fn dictionary(&self) -> FieldPath {
        FieldPath(format!("{}[dictionary]", self.0))
    }

    /// An `InvalidArgument` naming this field and its format.
    pub(crate) fn error(&self, data_type: &DataType, message: impl fmt::Display) -> Error {
        Error::invalid_argument(format!("{self} (format '{data_type}'): {message}"))
    }
}

impl fmt::Display for FieldPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_empty() {
            f.write_str("top-level field")
        } else {
            write!(f, "field '{}'", self.0)
        }
    }
}

/// The key/value pairs of C Data Interface metadata (already checked to be
/// well formed by `Field::check`).
pub fn decode_metadata(bytes: &[u8]) -> Result<Vec<(String, Vec<u8>)>> {
    let bad = || Error::invalid_argument("malformed Arrow field metadata");
    let mut at = 0usize;
    let int = |at: &mut usize| -> Result<usize> {
        let raw = bytes.get(*at..*at + 4).ok_or_else(bad)?;
        *at += 4;
        usize::try_from(i32::from_ne_bytes(raw.try_into().map_err(|_| bad())?)).map_err(|_| bad())
    };
    let count = int(&mut at)?;
    let mut pairs = Vec::with_capacity(count.min(bytes.len() / 8));
    for _ in 0..count {
        let len = int(&mut at)?;
        let key = bytes.get(at..at + len).ok_or_else(bad)?;
        at += len;
        let len = int(&mut at)?;
        let value = bytes.get(at..at + len).ok_or_else(bad)?;
        at += len;
        let key = String::from_utf8(key.to_vec())
            .map_err(|_| Error::invalid_argument("an Arrow metadata key is not UTF-8"))?;
        pairs.push((key, value.to_vec()));
    }
    Ok(pairs)
}

/// Encodes key/value pairs as the C Data Interface's metadata: an int32 count, then
/// per pair an int32 length and the key's bytes, an int32 length and the value's.
pub fn encode_metadata(pairs: &[(&str, &[u8])]) -> Result<Vec<u8>> {
    let int32 = |n: usize| {
        i32::try_from(n)
            .map(i32::to_ne_bytes)
            .map_err(|_| Error::invalid_argument(format!("metadata: {n} exceeds int32")))
    };
    let mut out = int32(pairs.len())?.to_vec();
    for (key, value) in pairs {
        for bytes in [key.as_bytes(), value] {
            out.extend_from_slice(&int32(bytes.len())?);
            out.extend_from_slice(bytes);
        }
    }
    Ok(out)
}

/// The length of an encoded metadata block, reading its int32s through `read_i32`
/// (byte offset -> value), which is how a C pointer of unknown extent is measured.
pub(crate) fn metadata_len(
    mut read_i32: impl FnMut(usize) -> Result<i32, String>,
) -> Result<usize, String> {
    let mut at = 0usize;
    let mut next = |what: &str, at: &mut usize| -> Result<usize, String> {
        let value = read_i32(*at)?;
        *at += 4;
        usize::try_from(value).map_err(|_| format!("{what} is negative ({value})"))
    };
    let pairs = next("the entry count", &mut at)?;
    for _ in 0..pairs {
        for what in ["a key length", "a value length"] {
            let len = next(what, &mut at)?;
            at = at
                .checked_add(len)
                .ok_or_else(|| format!("{what} overflows"))?;
        }
    }
    Ok(at)
}

fn read_i32(bytes: &[u8], at: usize) -> Result<i32, String> {
    bytes
        .get(at..at.saturating_add(4))
        .and_then(|b| b.try_into().ok())
        .map(i32::from_ne_bytes)
        .ok_or_else(|| format!("truncated at byte {at} of {}", bytes.len()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Status;

    fn map(key_nullable: bool) -> Field {
        Field::new("m", DataType::Map { keys_sorted: false }, true).with_children(vec![Field::new(
            "entries",
            DataType::Struct,
            false,
        )
        .with_children(vec![
            Field::new("key", DataType::Utf8, key_nullable),
            Field::new("value", DataType::Int32, true),
        ])])
    }

    fn check_error(field: &Field) -> String {
        let err = field.check().unwrap_err();
        assert_eq!(err.status(), Status::InvalidArgument);
        err.message().to_owned()
    }

    #[test]
    fn shapes_are_checked_with_the_field_path() {
        map(false).check().unwrap();
        assert_eq!(
            check_error(&map(true)),
            "field 'm' (format '+m'): the map's key field 'key' is nullable"
        );
        let list = Field::new("xs", DataType::List, true);
        assert_eq!(
            check_error(&list),
            "field 'xs' (format '+l'): a list has exactly 1 child, this one has 0"
        );
        let nested = Field::new("", DataType::Struct, false).with_children(vec![Field::new(
            "bids",
            DataType::Struct,
            true,
        )
        .with_children(vec![Field::new("price", DataType::Int64, true)
            .with_children(vec![Field::new("x", DataType::Int8, true)])])]);
        assert_eq!(
            check_error(&nested),
            "field 'bids.price' (format 'l'): this type has no children, this field has 1"
        );
        let bad_index = Field::new("d", DataType::Float32, true)
            .with_dictionary(Field::new("", DataType::Utf8, true), false);
        assert_eq!(
            check_error(&bad_index),
            "field 'd' (format 'f'): a dictionary's index type must be an integer"
        );
        let unwritable = Field::new(
            "p",
            DataType::Decimal128 {
                precision: 40,
                scale: 0,
            },
            true,
        );
        assert_eq!(
            check_error(&unwritable),
            "field 'p' (format 'd:40,0'): format 'd:40,0': precision must be 1..=38 \
             (expected d:P,S[,128])"
        );
        let wide = Field::new("w", DataType::FixedSizeBinary(u32::MAX), true);
        assert!(check_error(&wide).contains("bad byte width '4294967295'"));
    }

    #[test]
    fn nesting_is_bounded() {
        let mut field = Field::new("leaf", DataType::Int32, true);
        for _ in 0..MAX_DEPTH {
            field = Field::new("l", DataType::List, true).with_children(vec![field]);
        }
        assert!(check_error(&field).contains("nested deeper than 64 levels"));
    }

    #[test]
    fn metadata_is_measured_and_checked() {
        let metadata = encode_metadata(&[("PARQUET:field_id", b"7"), ("", b"")]).unwrap();
        assert_eq!(metadata.len(), 4 + (4 + 16 + 4 + 1) + (4 + 4));
        assert_eq!(
            metadata_len(|at| read_i32(&metadata, at)),
            Ok(metadata.len())
        );
        let field = Field::new("a", DataType::Int8, true).with_metadata(metadata.clone());
        field.check().unwrap();
        let truncated = Field::new("a", DataType::Int8, true)
            .with_metadata(metadata[..metadata.len() - 1].to_vec());
        assert!(check_error(&truncated).contains("bad metadata: truncated at byte"));
        let mut trailing = metadata;
        trailing.push(0);
        let trailing = Field::new("a", DataType::Int8, true).with_metadata(trailing);
        assert!(check_error(&trailing).ends_with("bad metadata: 1 bytes follow the last entry"));
        let negative =
            Field::new("a", DataType::Int8, true).with_metadata((-1i32).to_ne_bytes().to_vec());
        assert!(check_error(&negative).ends_with("bad metadata: the entry count is negative (-1)"));
    }
}
