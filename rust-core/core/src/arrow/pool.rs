//! [`BufferPool`]: allocations that the buffers of a producer (a scan's
//! batches, or those of a run of scans that share the pool) give back when
//! they are dropped, for the next batches to reuse, and the scratch buffers
//! the scans' readers decode and read files through.
//!
//! Why: a scan produces batches of nearly the same shape one after another,
//! and a run of small files produces scans of nearly the same shape. Through
//! the C allocator each batch's buffers would be fresh memory, and how fast
//! that is depends on what the consumer holds: glibc trims its heap when a
//! run of released batches frees the top of it, and the next batches fault the
//! pages back in (a scan whose consumer held eight batches at a time took a
//! third longer; a job over 256 small files whose scans shared one pool, the
//! readers' pages and windows included, took about two thirds fewer page
//! faults in its decoding threads than with a pool per scan and fresh
//! scratch buffers per file). From a pool, a batch reuses the allocations of
//! one released before it, already mapped and often still in cache, whatever
//! the consumer holds.
//!
//! The pool never frees a batch's allocation it was given back before it is
//! dropped itself (only a range buffer that a larger range replaced), so
//! memory it handed out for batches stays mapped for as long as anything
//! holds the pool:
//! a consumer that keeps views of released batches for a while (Java's arenas,
//! docs/ownership.md) holds the pool for that long, and such a view reads
//! whatever a later batch wrote there, never freed memory. The pool holds at
//! most what was outstanding at once, plus the buffers its producers drop
//! that no later request fitted; allocations are made in size classes
//! ([`size_class`]) so that a later batch's slightly larger buffer fits one
//! given back. Scratch buffers (decompressed pages, local files' read
//! windows, and the buffers a caller reads a row group's column chunks into)
//! are taken when a column chunk's reader or a row group starts and given
//! back once its readers are done, so the pool keeps at most as many as were
//! in use at once, as plain `Vec`s: page and window buffers grown to the
//! largest they have held, range buffers replaced when a range outgrows them.

use std::ptr::NonNull;
use std::sync::{Mutex, PoisonError};

/// A free allocation: `capacity` bytes at `ptr`, allocated by `MutableBuffer`.
pub(crate) struct Allocation {
    pub ptr: NonNull<u8>,
    pub capacity: usize,
}

// SAFETY: a free allocation is plain memory that nothing else references.
unsafe impl Send for Allocation {}

#[derive(Default)]
pub struct BufferPool {
    free: Mutex<Free>,
}

#[derive(Default)]
struct Free {
    allocations: Vec<Allocation>,
    pages: Vec<Vec<u8>>,
    windows: Vec<Vec<u8>>,
    ranges: Vec<Vec<u8>>,
}

/// What a scratch buffer holds: kept apart, as a chunk's pages and its read
/// windows have sizes of their own, and a buffer taken for the other use
/// would grow every buffer to the larger of the two.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Scratch {
    /// A decompressed page.
    Page,
    /// A window of a local file's column chunk.
    Window,
    /// A row group's column chunks, read by the caller (a file opened from
    /// its footer).
    Range,
}

impl Free {
    fn scratch(&mut self, kind: Scratch) -> &mut Vec<Vec<u8>> {
        match kind {
            Scratch::Page => &mut self.pages,
            Scratch::Window => &mut self.windows,
            Scratch::Range => &mut self.ranges,
        }
    }
}

/// The capacity to allocate for a pooled buffer of at least `bytes`, which
/// must be a multiple of 64 (so is the result): above 4 KiB, rounded up to
/// one of eight steps per power of two, so less than 12.5% more, of which the
/// unwritten part is never touched.
pub(crate) fn size_class(bytes: usize) -> usize {
    if bytes <= 4096 {
        return bytes;
    }
    let step = 1usize << (usize::BITS - 1 - bytes.leading_zeros() - 3);
    bytes.checked_next_multiple_of(step).unwrap_or(bytes)
}

impl BufferPool {
    /// The smallest free allocation of at least `bytes`, if any.
    pub(crate) fn take(&self, bytes: usize) -> Option<Allocation> {
        let mut free = self.free.lock().unwrap_or_else(PoisonError::into_inner);
        let free = &mut free.allocations;
        let best = free
            .iter()
            .enumerate()
            .filter(|(_, a)| a.capacity >= bytes)
            .min_by_key(|(_, a)| a.capacity)
            .map(|(i, _)| i)?;
        Some(free.swap_remove(best))
    }

    /// Takes `allocation` back for reuse; it is freed when the pool is dropped.
    pub(crate) fn give_back(&self, allocation: Allocation) {
        self.free
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .allocations
            .push(allocation);
    }

    /// The largest scratch buffer of `kind` given back, or an empty one: its
    /// contents are stale and its length whatever it was; only its capacity
    /// is reused.
    pub(crate) fn take_scratch(&self, kind: Scratch) -> Vec<u8> {
        self.take_largest(kind).unwrap_or_default()
    }

    fn take_largest(&self, kind: Scratch) -> Option<Vec<u8>> {
        let mut free = self.free.lock().unwrap_or_else(PoisonError::into_inner);
        let scratch = free.scratch(kind);
        let largest = scratch
            .iter()
            .enumerate()
            .max_by_key(|(_, v)| v.capacity())
            .map(|(i, _)| i)?;
        Some(scratch.swap_remove(largest))
    }

    /// The smallest scratch buffer of `kind` that holds `len` bytes, if any.
    pub(crate) fn take_scratch_fitting(&self, kind: Scratch, len: usize) -> Option<Vec<u8>> {
        let mut free = self.free.lock().unwrap_or_else(PoisonError::into_inner);
        let scratch = free.scratch(kind);
        let fitting = scratch
            .iter()
            .enumerate()
            .filter(|(_, v)| v.capacity() >= len)
            .min_by_key(|(_, v)| v.capacity())
            .map(|(i, _)| i)?;
        Some(scratch.swap_remove(fitting))
    }

    /// Frees the largest scratch buffer of `kind`, one that no request fitted:
    /// called before a fresh one replaces it, so that a run of growing
    /// requests leaves no more buffers than were in use at once.
    pub(crate) fn free_largest_scratch(&self, kind: Scratch) {
        // Freed here, outside the lock.
        drop(self.take_largest(kind));
    }

    /// Keeps `scratch` for a later reader's use as `kind`; dropped with the
    /// pool.
    pub(crate) fn give_scratch(&self, kind: Scratch, scratch: Vec<u8>) {
        if scratch.capacity() != 0 {
            self.free
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .scratch(kind)
                .push(scratch);
        }
    }

    /// Where the scratch buffers of `kind` held for reuse are.
    #[cfg(test)]
    pub(crate) fn scratch_addresses(&self, kind: Scratch) -> Vec<usize> {
        let mut free = self.free.lock().unwrap_or_else(PoisonError::into_inner);
        free.scratch(kind)
            .iter()
            .map(|v| v.as_ptr() as usize)
            .collect()
    }

    /// Scratch buffers of `kind` held for reuse.
    #[cfg(test)]
    pub(crate) fn scratch_buffers(&self, kind: Scratch) -> usize {
        let mut free = self.free.lock().unwrap_or_else(PoisonError::into_inner);
        free.scratch(kind).len()
    }

    /// Bytes held for reuse (allocated, not handed out).
    pub(crate) fn free_bytes(&self) -> usize {
        let free = self.free.lock().unwrap_or_else(PoisonError::into_inner);
        free.allocations.iter().map(|a| a.capacity).sum()
    }
}

impl Drop for BufferPool {
    fn drop(&mut self) {
        let free = self.free.get_mut().unwrap_or_else(PoisonError::into_inner);
        for allocation in free.allocations.drain(..) {
            // SAFETY: every allocation given back came from MutableBuffer with
            // this capacity, and nothing refers to it any more.
            unsafe { super::buffer::free(allocation.ptr, allocation.capacity) }
        }
    }
}

impl std::fmt::Debug for BufferPool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "BufferPool({} bytes free)", self.free_bytes())
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;

    #[test]
    fn size_classes_are_multiples_of_64_within_an_eighth_above() {
        assert_eq!(size_class(64), 64);
        assert_eq!(size_class(4096), 4096);
        assert_eq!(size_class(4160), 4608);
        assert_eq!(size_class(1 << 20), 1 << 20);
        assert_eq!(size_class((1 << 20) + 64), (1 << 20) + (1 << 17));
        for bytes in (4096..(1 << 22)).step_by(4096 + 64) {
            let class = size_class(bytes);
            assert!(
                class >= bytes && class.is_multiple_of(64),
                "{bytes} -> {class}"
            );
            assert!(class - bytes <= bytes / 8, "{bytes} -> {class}");
        }
        // Nearby sizes share a class, so a slightly larger request reuses.
        assert_eq!(size_class(299_968), size_class(309_952));
    }

    #[test]
    fn scratch_comes_back_by_kind_largest_first_and_empty_ones_are_not_kept() {
        let pool = Arc::<BufferPool>::default();
        assert_eq!(pool.take_scratch(Scratch::Page).capacity(), 0);
        pool.give_scratch(Scratch::Page, Vec::new());
        assert_eq!(pool.scratch_buffers(Scratch::Page), 0);
        pool.give_scratch(Scratch::Page, Vec::with_capacity(100));
        pool.give_scratch(Scratch::Page, vec![9u8; 5000]);
        pool.give_scratch(Scratch::Page, Vec::with_capacity(10));
        pool.give_scratch(Scratch::Window, Vec::with_capacity(1 << 20));
        let largest = pool.take_scratch(Scratch::Page);
        assert!(largest.capacity() >= 5000 && largest.capacity() < 1 << 20);
        assert_eq!(largest.len(), 5000, "a scratch buffer keeps its length");
        assert!(pool.take_scratch(Scratch::Page).capacity() >= 100);
        assert!(pool.take_scratch(Scratch::Page).capacity() >= 10);
        assert_eq!(pool.scratch_buffers(Scratch::Page), 0);
        assert_eq!(pool.scratch_buffers(Scratch::Window), 1);
        assert!(pool.take_scratch(Scratch::Window).capacity() >= 1 << 20);
    }
}
