//! A decompressed page together with the decoders reading it.
//!
//! The format layer's decoders borrow the page's bytes, and a page outlives
//! the call that loaded it (a batch may end mid-page), so the page's buffer and
//! its decoders travel together. The decoders' borrow is given the `'static`
//! lifetime; what makes that sound is kept here, in one place:
//!
//! - the slice points into the heap allocation of `buffer`, which does not move
//!   when the `Vec` (or this struct) moves, and is neither written, resized nor
//!   freed while the decoders exist: nothing here hands out `buffer`, and
//!   [`LoadedPage::into_buffer`] drops the decoders before returning it;
//! - fields drop in declaration order, decoders first;
//! - users of [`LoadedPage::decoders`] copy what they read out of the page
//!   before returning, never keeping a borrow of its bytes.

use super::values::ValueDecoder;
use crate::error::{Error, Result};
use crate::parquet::encodings::levels::LevelDecoder;

/// The decoders of one data page's three sections.
pub(super) struct PageDecoders<'a> {
    /// None when the column's maximum level is 0.
    pub rep: Option<LevelDecoder<'a>>,
    pub def: Option<LevelDecoder<'a>>,
    pub values: ValueDecoder<'a>,
}

pub(super) struct LoadedPage {
    decoders: PageDecoders<'static>,
    buffer: Vec<u8>,
    /// The page's ordinal in its column chunk, for errors.
    pub ordinal: usize,
    /// Level entries not yet read.
    pub entries_left: usize,
}

impl LoadedPage {
    /// Builds the decoders of the page in `buffer[..len]` with `build`, which
    /// may only borrow the slice it is given. On error the buffer is dropped.
    pub(super) fn new(
        buffer: Vec<u8>,
        len: usize,
        ordinal: usize,
        entries: usize,
        build: impl for<'a> FnOnce(&'a [u8]) -> Result<PageDecoders<'a>>,
    ) -> Result<LoadedPage> {
        let page = buffer
            .get(..len)
            .ok_or_else(|| Error::internal("a page longer than its buffer"))?;
        // SAFETY: see the module documentation; the memory stays valid and
        // unchanged for as long as the decoders built from it exist.
        let page: &'static [u8] = unsafe { std::slice::from_raw_parts(page.as_ptr(), page.len()) };
        let decoders = build(page)?;
        Ok(LoadedPage {
            decoders,
            buffer,
            ordinal,
            entries_left: entries,
        })
    }

    /// The decoders; whatever they return must be copied before the borrow of
    /// `self` ends.
    pub(super) fn decoders(&mut self) -> &mut PageDecoders<'static> {
        &mut self.decoders
    }

    /// Drops the decoders and returns the buffer for the next page.
    pub(super) fn into_buffer(self) -> Vec<u8> {
        let LoadedPage {
            decoders, buffer, ..
        } = self;
        drop(decoders);
        buffer
    }
}
