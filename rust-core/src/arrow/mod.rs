//! A small Arrow layer: the types, buffers and arrays the library builds (the
//! Parquet decoder's output), and both sides of the Arrow C Data Interface.
//!
//! - [`datatype`] and [`field`]: [`DataType`] (one format string each) and
//!   [`Field`] (an `ArrowSchema` node: name, nullability, children, dictionary).
//! - [`buffer`], [`bitmap`], [`array`](mod@array): owned 64-byte-aligned memory and
//!   [`ArrayData`], an array in the C Data Interface's shape; [`pool`]: memory a
//!   producer's buffers give back for its next ones.
//! - [`view`]: validation of an array against its field; [`ArrayView`] reads
//!   what passed, whether it lives here or in another producer's memory.
//! - [`c_data`]: the interface's two structs, as the specification and the C
//!   header declare them; [`export`] and [`import`]: its producer and consumer
//!   sides, with the release protocol; [`stats`] counts what crosses.
//! - [`copy`] and [`checksum`]: deep copies and the canonical checksum of
//!   `docs/arrow-checksum.md`.

// Arrow C data is native-endian, and the checksum hashes values as stored where
// its definition says little-endian: on a big-endian target both would need
// byte swapping, which nothing here does.
#[cfg(not(target_endian = "little"))]
compile_error!("the Arrow layer assumes a little-endian target");

pub mod array;
pub mod bitmap;
pub mod buffer;
pub mod c_data;
pub mod checksum;
pub mod copy;
pub mod datatype;
pub mod export;
pub mod field;
pub mod import;
pub mod pool;
pub mod stats;
pub mod view;

pub use array::ArrayData;
pub use buffer::{Buffer, MutableBuffer};
pub use datatype::{DataType, TimeUnit};
pub use field::{DictionaryType, Field};
pub use view::ArrayView;
