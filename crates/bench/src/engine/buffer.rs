//! The I/O buffers of every engine and of the behaviour tests.

use rand::rngs::SmallRng;
use rand::{RngCore, SeedableRng};

use crate::error::BenchError;
use crate::workload::ALIGN;

/// A heap buffer whose bytes start on a 4 KiB boundary, as O_DIRECT requires, filled with
/// random bytes so that writes from it are incompressible. Over-allocating by one alignment
/// and starting at the first aligned byte keeps it free of `unsafe`; the storage is never
/// reallocated, so the pointer io_uring registers stays valid for the buffer's life.
pub struct AlignedBuffer {
    storage: Vec<u8>,
    start: usize,
    len: usize,
}

impl AlignedBuffer {
    /// At least one alignment unit of random bytes from `seed`; fails rather than aborting
    /// when the memory is not there.
    pub fn new(len: usize, seed: u64) -> Result<Self, BenchError> {
        let align = ALIGN as usize;
        let len = len.max(align);
        let total = len
            .checked_add(align)
            .ok_or_else(|| BenchError::Engine(format!("buffer of {len} bytes is too large")))?;
        let mut storage = Vec::new();
        storage.try_reserve_exact(total).map_err(|_| {
            BenchError::Engine(format!("could not allocate {len} bytes of I/O buffers"))
        })?;
        storage.resize(total, 0);
        let start = storage.as_ptr().align_offset(align).min(align);
        let mut buffer = AlignedBuffer {
            storage,
            start,
            len,
        };
        SmallRng::seed_from_u64(seed).fill_bytes(buffer.as_mut_slice());
        Ok(buffer)
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn as_mut_ptr(&mut self) -> *mut u8 {
        self.as_mut_slice().as_mut_ptr()
    }

    pub fn as_slice(&self) -> &[u8] {
        &self.storage[self.start..self.start + self.len]
    }

    pub fn as_mut_slice(&mut self) -> &mut [u8] {
        &mut self.storage[self.start..self.start + self.len]
    }

    /// The `index`-th slot of `slot_len` bytes.
    pub fn slot(&mut self, index: usize, slot_len: usize) -> &mut [u8] {
        let start = index * slot_len;
        &mut self.as_mut_slice()[start..start + slot_len]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buffers_are_aligned_sized_and_seeded() {
        for len in [1, 4096, 3 * 4096 + 1, 1 << 20] {
            let mut buffer = AlignedBuffer::new(len, 7).unwrap();
            assert_eq!(buffer.as_mut_ptr() as usize % ALIGN as usize, 0);
            assert_eq!(buffer.len(), len.max(4096));
            assert_eq!(buffer.as_slice().len(), buffer.len());
        }
        let a = AlignedBuffer::new(4096, 1).unwrap();
        let b = AlignedBuffer::new(4096, 1).unwrap();
        let c = AlignedBuffer::new(4096, 2).unwrap();
        assert_eq!(a.as_slice(), b.as_slice());
        assert_ne!(a.as_slice(), c.as_slice());
        assert!(
            a.as_slice().iter().any(|&byte| byte != 0),
            "random, not zeroed"
        );
    }

    #[test]
    fn slots_partition_the_buffer() {
        let mut buffer = AlignedBuffer::new(4 * 4096, 3).unwrap();
        buffer.slot(1, 4096).fill(0xcd);
        buffer.slot(2, 4096).fill(0xab);
        assert!(buffer.as_slice()[4096..2 * 4096].iter().all(|&b| b == 0xcd));
        assert!(buffer.as_slice()[2 * 4096..3 * 4096]
            .iter()
            .all(|&b| b == 0xab));
    }
}
