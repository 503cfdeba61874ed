//! [`BufferPool`]: allocations that the buffers of one producer (a scan's
//! batches) give back when they are dropped, for the next batches to reuse.
//!
//! Why: a scan produces batches of nearly the same shape one after another.
//! Through the C allocator each batch's buffers would be fresh memory, and
//! how fast that is depends on what the consumer holds: glibc trims its heap
//! when a run of released batches frees the top of it, and the next batches
//! fault the pages back in (a scan whose consumer held eight batches at a time
//! took a third longer). From a pool, a batch reuses the allocations of
//! one released before it, already mapped and often still in cache, whatever
//! the consumer holds.
//!
//! The pool never frees what it was given back before it is dropped itself, so
//! memory it handed out stays mapped for as long as anything holds the pool:
//! a consumer that keeps views of released batches for a while (Java's arenas,
//! docs/ownership.md) holds the pool for that long, and such a view reads
//! whatever a later batch wrote there, never freed memory. The pool holds at
//! most what was outstanding at once, plus the buffers its producer drops.

use std::ptr::NonNull;
use std::sync::{Arc, Mutex, PoisonError};

/// A free allocation: `capacity` bytes at `ptr`, allocated by `MutableBuffer`.
pub(crate) struct Allocation {
    pub ptr: NonNull<u8>,
    pub capacity: usize,
}

// SAFETY: a free allocation is plain memory that nothing else references.
unsafe impl Send for Allocation {}

#[derive(Default)]
pub struct BufferPool {
    free: Mutex<Vec<Allocation>>,
}

impl BufferPool {
    pub(crate) fn new() -> Arc<BufferPool> {
        Arc::new(BufferPool::default())
    }

    /// The smallest free allocation of at least `bytes`, if any.
    pub(crate) fn take(&self, bytes: usize) -> Option<Allocation> {
        let mut free = self.free.lock().unwrap_or_else(PoisonError::into_inner);
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
            .push(allocation);
    }

    /// Bytes held for reuse (allocated, not handed out).
    pub(crate) fn free_bytes(&self) -> usize {
        let free = self.free.lock().unwrap_or_else(PoisonError::into_inner);
        free.iter().map(|a| a.capacity).sum()
    }
}

impl Drop for BufferPool {
    fn drop(&mut self) {
        let free = self.free.get_mut().unwrap_or_else(PoisonError::into_inner);
        for allocation in free.drain(..) {
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
