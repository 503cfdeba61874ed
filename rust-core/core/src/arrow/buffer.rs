//! Arrow buffers: [`MutableBuffer`] to build one, [`Buffer`] to share it once
//! built.
//!
//! Library allocations are 64-byte aligned and padded to a multiple of 64 bytes,
//! as the Arrow format recommends, so consumers may use aligned SIMD loads.

use std::alloc::{self, Layout};
use std::fmt;
use std::mem::{size_of, size_of_val};
use std::ptr::{self, NonNull};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use super::pool::{size_class, Allocation, BufferPool};
use crate::error::{Error, Result};

pub(crate) const ALIGNMENT: usize = 64;

/// Bytes the library has allocated for buffers and not yet freed.
static ALLOCATED: AtomicUsize = AtomicUsize::new(0);

/// Bytes currently allocated by [`MutableBuffer`]s and the [`Buffer`]s frozen from
/// them: zero when nothing built here is alive, which leak tests check.
pub fn allocated_bytes() -> usize {
    ALLOCATED.load(Ordering::Relaxed)
}

/// A value that may be copied into a buffer as its native-endian bytes: a plain
/// number without padding, for which every bit pattern is valid.
pub trait NativeType: sealed::Sealed + Copy + Send + Sync + 'static {}

mod sealed {
    pub trait Sealed {}
}

macro_rules! native {
    ($($t:ty),+) => {$(
        impl sealed::Sealed for $t {}
        impl NativeType for $t {}
    )+};
}
native!(i8, i16, i32, i64, i128, u8, u16, u32, u64, f32, f64);

/// Views `bytes` as values of `T`: `None` unless they are aligned for `T` and
/// a whole number of values.
pub(crate) fn cast_slice<T: NativeType>(bytes: &[u8]) -> Option<&[T]> {
    // SAFETY: NativeType values are plain numbers without padding for which every
    // bit pattern is valid; align_to only yields correctly aligned whole values.
    let (head, values, tail) = unsafe { bytes.align_to::<T>() };
    (head.is_empty() && tail.is_empty()).then_some(values)
}

/// Mutable [`cast_slice`].
pub(crate) fn cast_slice_mut<T: NativeType>(bytes: &mut [u8]) -> Option<&mut [T]> {
    // SAFETY: as for cast_slice; writes of any T leave valid bytes behind.
    let (head, values, tail) = unsafe { bytes.align_to_mut::<T>() };
    (head.is_empty() && tail.is_empty()).then_some(values)
}

/// The address of an empty buffer: never dereferenced, but aligned like a real one.
fn dangling() -> NonNull<u8> {
    #[repr(align(64))]
    struct Aligned;
    NonNull::<Aligned>::dangling().cast()
}

fn layout(capacity: usize) -> Result<Layout> {
    Layout::from_size_align(capacity, ALIGNMENT).map_err(|_| too_large(capacity))
}

fn too_large(bytes: usize) -> Error {
    Error::out_of_memory(format!(
        "a buffer of {bytes} bytes exceeds what the library will allocate"
    ))
}

/// A growable byte buffer. Growing never panics on a failed allocation: it
/// returns `OutOfMemory`, because sizes often come from foreign input.
///
/// A buffer made with `MutableBuffer::new_in` (a scan's) takes its memory from a
/// [`BufferPool`] where it can and gives every allocation it held back to it
/// (also once frozen and dropped), never to the C allocator.
pub struct MutableBuffer {
    ptr: NonNull<u8>,
    len: usize,
    capacity: usize,
    pool: Option<Arc<BufferPool>>,
}

// SAFETY: the buffer owns its allocation exclusively, like a Vec<u8>.
unsafe impl Send for MutableBuffer {}
// SAFETY: shared access only reads.
unsafe impl Sync for MutableBuffer {}

impl MutableBuffer {
    pub fn new() -> MutableBuffer {
        MutableBuffer {
            ptr: dangling(),
            len: 0,
            capacity: 0,
            pool: None,
        }
    }

    /// An empty buffer whose memory comes from and goes back to `pool`.
    pub(crate) fn new_in(pool: &Arc<BufferPool>) -> MutableBuffer {
        MutableBuffer {
            pool: Some(Arc::clone(pool)),
            ..MutableBuffer::new()
        }
    }

    pub fn with_capacity(bytes: usize) -> Result<MutableBuffer> {
        let mut buffer = MutableBuffer::new();
        buffer.reserve(bytes)?;
        Ok(buffer)
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub(crate) fn capacity(&self) -> usize {
        self.capacity
    }

    pub fn as_slice(&self) -> &[u8] {
        // SAFETY: the first `len` bytes are initialised and owned by self.
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }

    pub(crate) fn as_mut_slice(&mut self) -> &mut [u8] {
        // SAFETY: as for as_slice, and `&mut self` makes the access exclusive.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.len) }
    }

    /// Makes room for `additional` more bytes, at least doubling the capacity so
    /// that pushes stay amortised O(1). Inlined, as decoders call it per value;
    /// growing is the cold path.
    #[inline]
    pub(crate) fn reserve(&mut self, additional: usize) -> Result<()> {
        match self.len.checked_add(additional) {
            Some(required) if required <= self.capacity => Ok(()),
            _ => self.grow(additional),
        }
    }

    #[cold]
    fn grow(&mut self, additional: usize) -> Result<()> {
        let required = self
            .len
            .checked_add(additional)
            .ok_or_else(|| too_large(usize::MAX))?;
        let capacity = required
            .max(self.capacity.saturating_mul(2))
            .checked_next_multiple_of(ALIGNMENT)
            .ok_or_else(|| too_large(required))?;
        self.reallocate(capacity)
    }

    /// Moves the contents to a new allocation of at least `capacity` bytes.
    /// Not `realloc`: the C allocator cannot keep 64-byte alignment, so the
    /// global allocator would allocate, copy the whole old capacity and free,
    /// while only the `len` bytes written so far need copying (decoders
    /// reserve a page's worth ahead, so the rest is often most of it).
    fn reallocate(&mut self, capacity: usize) -> Result<()> {
        let (ptr, capacity) = match &self.pool {
            Some(pool) => match pool.take(capacity) {
                Some(allocation) => (allocation.ptr, allocation.capacity),
                None => {
                    let class = size_class(capacity);
                    (allocate(class)?, class)
                }
            },
            None => (allocate(capacity)?, capacity),
        };
        if self.capacity != 0 {
            // SAFETY: the first `len` bytes of the old allocation are initialised,
            // the new one holds more, and they are distinct allocations.
            unsafe { ptr::copy_nonoverlapping(self.ptr.as_ptr(), ptr.as_ptr(), self.len) };
        }
        let old = std::mem::replace(&mut self.ptr, ptr);
        let old_capacity = std::mem::replace(&mut self.capacity, capacity);
        // SAFETY: the old allocation is this buffer's own and no longer used.
        unsafe { release(old, old_capacity, self.pool.as_deref()) };
        Ok(())
    }

    #[inline]
    pub fn push<T: NativeType>(&mut self, value: T) -> Result<()> {
        self.extend_from_slice(std::slice::from_ref(&value))
    }

    #[inline]
    pub fn extend_from_slice<T: NativeType>(&mut self, values: &[T]) -> Result<()> {
        let bytes = size_of_val(values);
        self.reserve(bytes)?;
        // SAFETY: reserve made room for `bytes` more; NativeType values have no
        // padding, so all their bytes are initialised; the regions cannot overlap
        // because self is borrowed mutably.
        unsafe {
            ptr::copy_nonoverlapping(
                values.as_ptr().cast::<u8>(),
                self.ptr.as_ptr().add(self.len),
                bytes,
            );
        }
        self.len += bytes;
        Ok(())
    }

    /// The allocated but unused bytes after the contents, to be written before
    /// [`MutableBuffer::set_len`] makes them part of it; decoders that know
    /// an upper bound of what they append write there without a check per value.
    pub(crate) fn spare_capacity_mut(&mut self) -> &mut [std::mem::MaybeUninit<u8>] {
        // SAFETY: the allocation holds `capacity` bytes, of which those after
        // `len` are owned by self and not otherwise borrowed.
        unsafe {
            std::slice::from_raw_parts_mut(
                self.ptr.as_ptr().add(self.len).cast(),
                self.capacity - self.len,
            )
        }
    }

    /// Appends `n` values of `T`, the `k`th being `value(k)`, without zeroing
    /// the memory first (decoders that gather or compute every value write it
    /// once). Whole values of `T` must fill the buffer so far.
    #[inline]
    pub(crate) fn extend_with<T: NativeType>(
        &mut self,
        n: usize,
        mut value: impl FnMut(usize) -> T,
    ) -> Result<()> {
        self.try_extend_with(n, |k| Ok(value(k)))
    }

    /// [`MutableBuffer::extend_with`] for values that may fail: on the first
    /// error the buffer is left as it was.
    #[inline]
    pub(crate) fn try_extend_with<T: NativeType>(
        &mut self,
        n: usize,
        mut value: impl FnMut(usize) -> Result<T>,
    ) -> Result<()> {
        let width = size_of::<T>();
        let bytes = n.checked_mul(width).ok_or_else(|| too_large(usize::MAX))?;
        if !self.len.is_multiple_of(width) {
            return Err(Error::internal("a value buffer holds a partial value"));
        }
        self.reserve(bytes)?;
        // SAFETY: reserve made room for `bytes` more after `len`; the allocation is
        // 64-byte aligned and `len` a multiple of T's size, so the slots are
        // aligned for T (at most 16-byte aligned); MaybeUninit needs no init.
        let slots = unsafe {
            std::slice::from_raw_parts_mut(
                self.ptr
                    .as_ptr()
                    .add(self.len)
                    .cast::<std::mem::MaybeUninit<T>>(),
                n,
            )
        };
        for (k, slot) in slots.iter_mut().enumerate() {
            slot.write(value(k)?);
        }
        self.len += bytes;
        Ok(())
    }

    /// Sets the length after writing to [`MutableBuffer::spare_capacity_mut`].
    ///
    /// # Safety
    /// `len` is at most the capacity, and the bytes up to it are initialised.
    pub(crate) unsafe fn set_len(&mut self, len: usize) {
        debug_assert!(len <= self.capacity);
        self.len = len;
    }

    /// Shortens the buffer to `len` bytes; does nothing if it is not longer.
    pub(crate) fn truncate(&mut self, len: usize) {
        self.len = self.len.min(len);
    }

    /// The whole values of `T` the buffer holds. Library buffers are 64-byte
    /// aligned, so the view always exists; decoders write through it into the
    /// buffer that becomes the Arrow array.
    pub(crate) fn typed_mut<T: NativeType>(&mut self) -> &mut [T] {
        let whole = self.len - self.len % size_of::<T>();
        // ALIGNMENT is at least the alignment of every NativeType (16 at most).
        cast_slice_mut(&mut self.as_mut_slice()[..whole]).unwrap_or_default()
    }

    /// Read-only [`MutableBuffer::typed_mut`].
    pub(crate) fn typed<T: NativeType>(&self) -> &[T] {
        let whole = self.len - self.len % size_of::<T>();
        cast_slice(&self.as_slice()[..whole]).unwrap_or_default()
    }

    /// Appends zero bytes; bitmaps grow this way so that unset bits read as 0.
    pub(crate) fn extend_zeros(&mut self, bytes: usize) -> Result<()> {
        self.reserve(bytes)?;
        // SAFETY: reserve made room for `bytes` more.
        unsafe { self.ptr.as_ptr().add(self.len).write_bytes(0, bytes) };
        self.len += bytes;
        Ok(())
    }

    pub fn freeze(mut self) -> Buffer {
        let pool = self.pool.take();
        let this = std::mem::ManuallyDrop::new(self);
        Buffer {
            bytes: Arc::new(Bytes {
                ptr: this.ptr,
                len: this.len,
                owner: Owner::Allocation {
                    capacity: this.capacity,
                    pool,
                },
            }),
        }
    }
}

impl Default for MutableBuffer {
    fn default() -> Self {
        MutableBuffer::new()
    }
}

impl Drop for MutableBuffer {
    fn drop(&mut self) {
        // SAFETY: ptr/capacity describe this buffer's own allocation.
        unsafe { release(self.ptr, self.capacity, self.pool.as_deref()) }
    }
}

impl fmt::Debug for MutableBuffer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "MutableBuffer({} of {} bytes)", self.len, self.capacity)
    }
}

/// A new allocation of `capacity` bytes (a non-zero multiple of 64).
fn allocate(capacity: usize) -> Result<NonNull<u8>> {
    // SAFETY: the layout has a non-zero size.
    let ptr = NonNull::new(unsafe { alloc::alloc(layout(capacity)?) }).ok_or_else(|| {
        Error::out_of_memory(format!("allocating a buffer of {capacity} bytes failed"))
    })?;
    ALLOCATED.fetch_add(capacity, Ordering::Relaxed);
    Ok(ptr)
}

/// Gives an allocation back to its pool, or frees it without one.
///
/// # Safety
/// As for [`free`], and nothing uses the allocation any more.
unsafe fn release(ptr: NonNull<u8>, capacity: usize, pool: Option<&BufferPool>) {
    match pool {
        Some(pool) if capacity != 0 => pool.give_back(Allocation { ptr, capacity }),
        // SAFETY: per the caller.
        _ => unsafe { free(ptr, capacity) },
    }
}

/// # Safety
/// `ptr` was allocated by [`MutableBuffer`] with this `capacity` (0: nothing to free).
pub(super) unsafe fn free(ptr: NonNull<u8>, capacity: usize) {
    if capacity == 0 {
        return;
    }
    if let Ok(layout) = layout(capacity) {
        // SAFETY: per the caller; the layout is the one allocated with.
        unsafe { alloc::dealloc(ptr.as_ptr(), layout) };
        ALLOCATED.fetch_sub(capacity, Ordering::Relaxed);
    }
}

/// An immutable, cheaply cloned buffer.
#[derive(Clone)]
pub struct Buffer {
    bytes: Arc<Bytes>,
}

struct Bytes {
    ptr: NonNull<u8>,
    len: usize,
    owner: Owner,
}

enum Owner {
    Allocation {
        capacity: usize,
        pool: Option<Arc<BufferPool>>,
    },
    /// Whatever keeps foreign memory alive; dropping it lets the memory go.
    #[cfg(any(test, feature = "test-support"))]
    Foreign {
        _keep_alive: Box<dyn std::any::Any + Send + Sync>,
    },
}

// SAFETY: the bytes are never written after construction, and the owner is
// Send + Sync, so the memory may be read and released from any thread.
unsafe impl Send for Bytes {}
// SAFETY: as above.
unsafe impl Sync for Bytes {}

impl Drop for Bytes {
    fn drop(&mut self) {
        match &self.owner {
            // SAFETY: a frozen MutableBuffer's allocation, read by nothing now.
            Owner::Allocation { capacity, pool } => unsafe {
                release(self.ptr, *capacity, pool.as_deref())
            },
            // Dropping the owner (after this) lets the memory go.
            #[cfg(any(test, feature = "test-support"))]
            Owner::Foreign { .. } => {}
        }
    }
}

impl Buffer {
    /// Wraps `len` bytes at `ptr` without copying; `owner` is dropped (releasing
    /// the memory) when the last clone of the buffer is. The library itself
    /// never wraps memory it did not allocate in a `Buffer` (imported arrays are
    /// read through [`ArrayView`](super::ArrayView)s); tests use this to give a
    /// buffer an owner that misbehaves when released.
    ///
    /// # Safety
    /// `ptr` is readable for `len` bytes, and the memory is not written, for as
    /// long as `owner` is alive.
    #[cfg(any(test, feature = "test-support"))]
    pub unsafe fn from_foreign(
        ptr: NonNull<u8>,
        len: usize,
        owner: impl std::any::Any + Send + Sync,
    ) -> Buffer {
        Buffer {
            bytes: Arc::new(Bytes {
                ptr,
                len,
                owner: Owner::Foreign {
                    _keep_alive: Box::new(owner),
                },
            }),
        }
    }

    pub fn len(&self) -> usize {
        self.bytes.len
    }

    pub fn is_empty(&self) -> bool {
        self.bytes.len == 0
    }

    pub(crate) fn as_ptr(&self) -> *const u8 {
        self.bytes.ptr.as_ptr()
    }

    pub fn as_slice(&self) -> &[u8] {
        // SAFETY: `len` readable bytes, kept alive by self (allocation or owner).
        unsafe { std::slice::from_raw_parts(self.bytes.ptr.as_ptr(), self.bytes.len) }
    }
}

impl From<MutableBuffer> for Buffer {
    fn from(buffer: MutableBuffer) -> Buffer {
        buffer.freeze()
    }
}

impl PartialEq for Buffer {
    fn eq(&self, other: &Buffer) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl Eq for Buffer {}

impl fmt::Debug for Buffer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Buffer({:02x?})", self.as_slice())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Status;
    use std::sync::atomic::AtomicBool;

    #[test]
    fn pushes_grow_aligned_and_padded() {
        let mut buffer = MutableBuffer::new();
        assert_eq!(buffer.as_ptr_for_test() as usize % ALIGNMENT, 0);
        for i in 0..100i32 {
            buffer.push(i).unwrap();
        }
        buffer.push(1.5f64).unwrap();
        buffer.extend_from_slice(&[7u8, 8]).unwrap();
        buffer.push(-1i128).unwrap();
        assert_eq!(buffer.len(), 400 + 8 + 2 + 16);
        assert_eq!(buffer.capacity() % ALIGNMENT, 0);
        assert_eq!(buffer.as_ptr_for_test() as usize % ALIGNMENT, 0);
        let bytes = buffer.freeze();
        assert_eq!(&bytes.as_slice()[396..400], &99i32.to_ne_bytes());
        assert_eq!(&bytes.as_slice()[400..408], &1.5f64.to_ne_bytes());
        assert_eq!(&bytes.as_slice()[408..410], &[7, 8]);
        assert_eq!(&bytes.as_slice()[410..], &[0xff; 16]);
        assert_eq!(bytes.as_ptr() as usize % ALIGNMENT, 0);
        let clone = bytes.clone();
        drop(bytes);
        assert_eq!(clone.len(), 426);
    }

    #[test]
    fn zeros_are_zero_even_after_reuse() {
        let mut dirty = MutableBuffer::with_capacity(256).unwrap();
        dirty.extend_from_slice(&[0xffu8; 256]).unwrap();
        drop(dirty);
        let mut buffer = MutableBuffer::new();
        buffer.push(0xabu8).unwrap();
        buffer.extend_zeros(300).unwrap();
        assert_eq!(buffer.as_slice()[0], 0xab);
        assert!(buffer.as_slice()[1..].iter().all(|&b| b == 0));
        buffer.as_mut_slice()[5] = 1;
        assert_eq!(buffer.freeze().as_slice()[5], 1);
    }

    #[test]
    fn impossible_sizes_are_out_of_memory_not_a_panic() {
        for bytes in [usize::MAX, isize::MAX as usize, 1 << 62] {
            let err = MutableBuffer::with_capacity(bytes).unwrap_err();
            assert_eq!(err.status(), Status::OutOfMemory, "{bytes}: {err}");
        }
        let mut buffer = MutableBuffer::new();
        buffer.push(1u8).unwrap();
        let err = buffer.reserve(usize::MAX).unwrap_err();
        assert_eq!(err.status(), Status::OutOfMemory);
        assert_eq!(
            buffer.as_slice(),
            &[1],
            "a failed reserve keeps the contents"
        );
    }

    #[test]
    fn foreign_memory_lives_as_long_as_its_owner() {
        static DROPPED: AtomicBool = AtomicBool::new(false);
        struct Owner(Vec<u8>);
        impl Drop for Owner {
            fn drop(&mut self) {
                DROPPED.store(true, Ordering::SeqCst);
            }
        }
        let owner = Owner(vec![1, 2, 3]);
        let ptr = NonNull::new(owner.0.as_ptr().cast_mut()).unwrap();
        // SAFETY: the Vec's heap memory does not move when the Owner does.
        let buffer = unsafe { Buffer::from_foreign(ptr, 3, owner) };
        let clone = buffer.clone();
        drop(buffer);
        assert!(!DROPPED.load(Ordering::SeqCst));
        assert_eq!(clone.as_slice(), &[1, 2, 3]);
        drop(clone);
        assert!(DROPPED.load(Ordering::SeqCst));
    }

    #[test]
    fn typed_views_cover_whole_values() {
        let mut buffer = MutableBuffer::new();
        buffer.extend_from_slice(&[1i64, -2]).unwrap();
        buffer.push(7u8).unwrap();
        assert_eq!(buffer.typed::<i64>(), &[1, -2]);
        buffer.typed_mut::<i64>()[1] = 5;
        assert_eq!(buffer.typed::<i32>(), &[1, 0, 5, 0]);
        buffer.truncate(8);
        assert_eq!(buffer.typed::<i64>(), &[1]);
        buffer.truncate(100);
        assert_eq!(buffer.len(), 8);
        buffer.reserve(3).unwrap();
        let spare = buffer.spare_capacity_mut();
        assert!(spare.len() >= 3);
        spare[0].write(9);
        // SAFETY: one more byte was just written.
        unsafe { buffer.set_len(9) };
        assert_eq!(buffer.as_slice()[8], 9);
        let bytes = [0u8; 9];
        assert!(cast_slice::<u8>(&bytes).is_some());
        let odd = if (bytes.as_ptr() as usize).is_multiple_of(2) {
            &bytes[1..]
        } else {
            &bytes[..8]
        };
        assert!(cast_slice::<u16>(odd).is_none(), "misaligned");
    }

    impl MutableBuffer {
        fn as_ptr_for_test(&self) -> *const u8 {
            self.ptr.as_ptr()
        }
    }

    // The pool, through the buffers that draw from it and give back to it.

    #[test]
    fn dropped_buffers_come_back_and_are_reused_best_fit() {
        let pool = Arc::<BufferPool>::default();
        let mut small = MutableBuffer::new_in(&pool);
        small.reserve(100).unwrap();
        let mut large = MutableBuffer::new_in(&pool);
        large.extend_from_slice(&[7u8; 5000]).unwrap();
        let (small_cap, large_cap) = (small.capacity(), large.capacity());
        let large_ptr = large.as_slice().as_ptr();
        let frozen = large.freeze();
        drop(small);
        assert_eq!(
            pool.free_bytes(),
            small_cap,
            "a dropped buffer goes back to the pool"
        );
        drop(frozen);
        assert_eq!(
            pool.free_bytes(),
            small_cap + large_cap,
            "so does a frozen one, when dropped"
        );

        let mut again = MutableBuffer::new_in(&pool);
        again.reserve(1000).unwrap();
        assert_eq!(
            again.capacity(),
            large_cap,
            "the smallest free allocation that fits"
        );
        assert_eq!(again.as_slice().as_ptr(), large_ptr);
        assert_eq!(pool.free_bytes(), small_cap);
    }

    #[test]
    fn pooled_buffers_are_allocated_in_size_classes_so_a_larger_request_reuses() {
        let pool = Arc::<BufferPool>::default();
        let mut first = MutableBuffer::new_in(&pool);
        first.reserve(4160).unwrap();
        assert_eq!(first.capacity(), 4608, "4160 bytes rounded up to the class");
        let ptr = first.as_slice().as_ptr();
        drop(first);
        let mut larger = MutableBuffer::new_in(&pool);
        larger.reserve(4500).unwrap();
        assert_eq!(larger.as_slice().as_ptr(), ptr, "the same allocation");
        let mut unpooled = MutableBuffer::new();
        unpooled.reserve(4160).unwrap();
        assert_eq!(unpooled.capacity(), 4160, "only pooled buffers round up");
    }

    #[test]
    fn growing_gives_the_old_allocation_back_and_a_frozen_buffer_keeps_its_pool() {
        let pool = Arc::<BufferPool>::default();
        let mut buffer = MutableBuffer::new_in(&pool);
        buffer.extend_from_slice(&[1u8; 64]).unwrap();
        let first = buffer.capacity();
        buffer.extend_from_slice(&[2u8; 4096]).unwrap();
        assert_eq!(
            pool.free_bytes(),
            first,
            "the outgrown allocation may still be referenced"
        );
        assert_eq!(
            &buffer.as_slice()[..65],
            &[[1u8; 64].as_slice(), &[2]].concat()[..]
        );
        let frozen = buffer.freeze();
        let weak = Arc::downgrade(&pool);
        drop(pool);
        assert!(weak.upgrade().is_some(), "the frozen buffer holds the pool");
        assert_eq!(frozen.as_slice()[4159], 2);
        drop(frozen);
        assert!(
            weak.upgrade().is_none(),
            "the last buffer gone, the pool is freed"
        );
    }
}
