//! The stored pages of a column chunk, held in blocks rather than one growing
//! vector, and a small process-wide cache of the full-size blocks.
//!
//! A vector that grows by doubling copies what it holds at every step, and past
//! malloc's mmap threshold each step maps fresh pages whose first write faults.
//! A row group holds every column's pages until it is written out, so a writer
//! faulted in its whole row group again for every row group and every file: in
//! `EncodeBenchmark`'s native leg that was nearly all of the encoder's page
//! faults (`docs/benchmarks.md`, the sink's path). Here a chunk's bytes go into
//! blocks that never move, and full-size blocks written out return to a cache
//! that the next row group, of this writer or another, fills again.

use std::sync::{Mutex, MutexGuard, PoisonError};

/// The size of a full block.
pub(crate) const BLOCK: usize = 1 << 20;

/// The first block of a chunk; each next one doubles up to [`BLOCK`], so a
/// small chunk (a wide table's narrow columns) takes little memory.
const FIRST_BLOCK: usize = 64 << 10;

/// Full blocks the cache keeps between uses (64 MiB): what the process holds
/// for the next row group once its writers are done, at most.
const CACHED_BLOCKS: usize = 64;

static CACHE: BlockCache = BlockCache::new(CACHED_BLOCKS);

/// Full blocks kept for reuse, up to `limit` of them.
struct BlockCache {
    blocks: Mutex<Vec<Vec<u8>>>,
    limit: usize,
}

impl BlockCache {
    const fn new(limit: usize) -> BlockCache {
        BlockCache {
            blocks: Mutex::new(Vec::new()),
            limit,
        }
    }

    /// The blocks; a panic elsewhere while holding them leaves them usable
    /// (each is a plain vector, whole whenever the lock is released).
    fn lock(&self) -> MutexGuard<'_, Vec<Vec<u8>>> {
        self.blocks.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// A cached full block, or a new one.
    fn take(&self) -> Vec<u8> {
        let cached = self.lock().pop();
        cached.unwrap_or_else(|| Vec::with_capacity(BLOCK))
    }

    /// Keeps `block` if it is a full block and there is room; frees it
    /// otherwise.
    fn give(&self, mut block: Vec<u8>) {
        if block.capacity() != BLOCK {
            return;
        }
        block.clear();
        let mut blocks = self.lock();
        if blocks.len() < self.limit {
            blocks.push(block);
        }
    }
}

/// Returns a block taken from a [`ChunkBlocks`] once its bytes are written:
/// a full block goes back to the cache if it has room, anything else is freed.
pub(crate) fn recycle(block: Vec<u8>) {
    CACHE.give(block);
}

/// The bytes of a chunk's stored pages, in order, across blocks.
#[derive(Default)]
pub(crate) struct ChunkBlocks {
    blocks: Vec<Vec<u8>>,
    len: usize,
}

impl ChunkBlocks {
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    pub(crate) fn extend_from_slice(&mut self, mut bytes: &[u8]) {
        self.len += bytes.len();
        while !bytes.is_empty() {
            let room = self.blocks.last().map_or(0, |b| b.capacity() - b.len());
            if room == 0 {
                let size = FIRST_BLOCK << self.blocks.len().min(4);
                self.blocks.push(if size >= BLOCK {
                    CACHE.take()
                } else {
                    Vec::with_capacity(size)
                });
                continue;
            }
            let (now, rest) = bytes.split_at(room.min(bytes.len()));
            if let Some(block) = self.blocks.last_mut() {
                block.extend_from_slice(now);
            }
            bytes = rest;
        }
    }

    /// The blocks, in order, leaving the chunk empty. Whoever takes them gives
    /// full ones to [`recycle`] once their bytes are written.
    pub(crate) fn take_blocks(&mut self) -> Vec<Vec<u8>> {
        self.len = 0;
        std::mem::take(&mut self.blocks)
    }

    pub(crate) fn clear(&mut self) {
        self.take_blocks().into_iter().for_each(recycle);
    }
}

impl Drop for ChunkBlocks {
    fn drop(&mut self) {
        self.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bytes(chunk: &mut ChunkBlocks) -> Vec<u8> {
        chunk.take_blocks().concat()
    }

    #[test]
    fn bytes_come_back_in_order_across_blocks_of_growing_size() {
        let mut chunk = ChunkBlocks::default();
        let mut expected = Vec::new();
        let mut n = 0u32;
        while expected.len() < 5 * BLOCK {
            // Odd lengths, so pieces straddle block boundaries.
            let piece: Vec<u8> = (0..(n % 4093 + 1)).map(|i| (i ^ n) as u8).collect();
            chunk.extend_from_slice(&piece);
            expected.extend_from_slice(&piece);
            n += 1;
        }
        assert_eq!(chunk.len(), expected.len());
        let capacities: Vec<usize> = chunk.blocks.iter().map(Vec::capacity).collect();
        assert_eq!(
            capacities[..5],
            [
                FIRST_BLOCK,
                2 * FIRST_BLOCK,
                4 * FIRST_BLOCK,
                8 * FIRST_BLOCK,
                BLOCK
            ]
        );
        assert!(capacities[4..].iter().all(|&c| c == BLOCK));
        assert!(chunk
            .blocks
            .iter()
            .rev()
            .skip(1)
            .all(|b| b.len() == b.capacity()));
        assert_eq!(bytes(&mut chunk), expected);
        assert_eq!(chunk.len(), 0);
    }

    #[test]
    fn a_small_chunk_takes_one_small_block() {
        let mut chunk = ChunkBlocks::default();
        chunk.extend_from_slice(&[7; 100]);
        assert_eq!(chunk.blocks.len(), 1);
        assert_eq!(chunk.blocks[0].capacity(), FIRST_BLOCK);
        assert_eq!(bytes(&mut chunk), vec![7; 100]);
    }

    #[test]
    fn the_cache_keeps_full_blocks_up_to_its_limit_and_hands_them_out_again() {
        let cache = BlockCache::new(3);
        cache.give(Vec::with_capacity(FIRST_BLOCK));
        cache.give(Vec::with_capacity(BLOCK + 1));
        assert!(cache.blocks.lock().unwrap().is_empty());

        let given: Vec<Vec<u8>> = (0..5)
            .map(|i| {
                let mut block = Vec::with_capacity(BLOCK);
                block.push(i);
                block
            })
            .collect();
        let addresses: Vec<*const u8> = given.iter().map(|b| b.as_ptr()).collect();
        given.into_iter().for_each(|b| cache.give(b));
        assert_eq!(cache.blocks.lock().unwrap().len(), 3);

        for _ in 0..3 {
            let block = cache.take();
            assert!(block.is_empty() && block.capacity() == BLOCK);
            assert!(addresses[..3].contains(&block.as_ptr()));
        }
        let fresh = cache.take();
        assert_eq!(fresh.capacity(), BLOCK);
        assert!(cache.blocks.lock().unwrap().is_empty());
    }
}
