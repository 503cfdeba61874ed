//! A small Arrow layer: the types, buffers and arrays the library builds (the
//! Parquet decoder's output, the encoder's input), and both sides of the Arrow
//! C Data Interface.
//!
//! - [`DataType`] (one format string each) and [`Field`] (an `ArrowSchema`
//!   node: name, nullability, children, dictionary, metadata).
//! - [`MutableBuffer`], [`Buffer`] and [`BitmapBuilder`]: owned 64-byte-aligned
//!   memory; [`ArrayData`]: an array in the C Data Interface's shape;
//!   [`BufferPool`]: memory a producer's buffers give back for its next ones.
//! - [`ArrayView`]: an array validated against its field, read whether it lives
//!   here or in another producer's memory.
//! - [`c_data`]: the interface's two structs, as the specification and the C
//!   header declare them; [`export`] and [`import_array`] (with
//!   [`import_schema`], [`read_schema`], [`view_array`]): its producer and
//!   consumer sides, with the release protocol; [`stats`]: counts of what
//!   crossed.
//! - [`deep_copy`] and [`checksum`]: deep copies and the canonical checksum of
//!   `docs/arrow-checksum.md`.
//!
//! Inside, one module per concern: `datatype`, `field`, `buffer`, `bitmap`,
//! `array`, `pool`, `view` (validation), `export`, `import`, `copy`,
//! `checksum`.

// Arrow C data is native-endian, and the checksum hashes values as stored where
// its definition says little-endian: on a big-endian target both would need
// byte swapping, which nothing here does.
#[cfg(not(target_endian = "little"))]
compile_error!("the Arrow layer assumes a little-endian target");

pub(crate) mod array;
pub(crate) mod bitmap;
pub(crate) mod buffer;
pub mod c_data;
pub(crate) mod checksum;
pub(crate) mod copy;
pub(crate) mod datatype;
pub(crate) mod export;
pub(crate) mod field;
pub(crate) mod import;
pub(crate) mod pool;
pub mod stats;
pub(crate) mod view;

pub use array::ArrayData;
pub use bitmap::BitmapBuilder;
pub use buffer::{allocated_bytes, Buffer, MutableBuffer, NativeType};
pub use checksum::{checksum, checksum_data};
pub use copy::deep_copy;
pub use datatype::{DataType, TimeUnit};
pub use export::{export, export_array, export_schema};
pub use field::{decode_metadata, encode_metadata, DictionaryType, Field};
pub use import::{import_array, import_schema, read_schema, view_array, ImportedArray};
pub use pool::BufferPool;
pub use view::ArrayView;
