//! From Parquet columns to Arrow arrays.
//!
//! - [`types`]: the Arrow type and value conversion of each leaf column.
//! - [`tree`]: the Arrow shape of the schema (structs, lists, maps).
//! - [`assemble`]: a batch's arrays built from its leaves' levels and values.
//! - [`nulls`]: all-null arrays of any type, for fields a file lacks.

pub(crate) mod assemble;
pub(crate) mod nulls;
pub(crate) mod tree;
pub(crate) mod types;

pub(crate) use tree::{top_level_nodes, with_field_id, ArrowNode, NodeKind, FIELD_ID_KEY};
pub(crate) use types::leaf_type;
