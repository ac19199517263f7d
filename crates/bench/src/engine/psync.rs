//! The portable engine: one thread per outstanding I/O doing `pread`/`pwrite`, for kernels and
//! sandboxes where io_uring is unavailable. A synchronous engine (fio's psync): `queue` does the
//! I/O, `reap` hands its completion back; same jobs, same statistics, same queue depth (split
//! into one job per outstanding I/O by [`Engine::layout`]).

use std::io;
use std::os::fd::RawFd;

use super::EngineKind;
use super::{AlignedBuffer, Completion, Engine, EngineConfig, IoQueue, Target};
use crate::error::BenchError;
use crate::workload::{Direction, Io};

pub struct PsyncEngine {
    config: EngineConfig,
}

impl PsyncEngine {
    pub fn new(config: EngineConfig) -> Self {
        PsyncEngine { config }
    }
}

impl Engine for PsyncEngine {
    fn kind(&self) -> EngineKind {
        EngineKind::Psync
    }

    fn layout(&self, queue_depth: u32) -> (u32, u32) {
        (queue_depth.max(1), 1)
    }

    fn max_io_bytes(&self) -> u32 {
        self.config.max_io_bytes
    }

    fn open<'e>(
        &'e self,
        target: &Target,
        slots: u32,
        seed: u64,
    ) -> Result<Box<dyn IoQueue + 'e>, BenchError> {
        if slots > 1 {
            return Err(BenchError::Engine(format!(
                "the portable engine runs one I/O per thread, not {slots}; split the \
                 queue depth into jobs with layout()"
            )));
        }
        Ok(Box::new(PsyncQueue {
            fd: target.raw_fd()?,
            buffer: AlignedBuffer::new(self.config.max_io_bytes as usize, seed)?,
            done: None,
        }))
    }
}

/// One thread's `pread`/`pwrite` on its one buffer.
struct PsyncQueue {
    fd: RawFd,
    buffer: AlignedBuffer,
    /// The I/O `queue` did, until it is reaped.
    done: Option<Completion>,
}

impl IoQueue for PsyncQueue {
    fn synchronous(&self) -> bool {
        true
    }

    fn buffer(&mut self, _slot: u32, len: u32) -> Option<&mut [u8]> {
        self.buffer.as_mut_slice().get_mut(..len as usize)
    }

    fn data(&self, _slot: u32, len: u32) -> &[u8] {
        self.buffer.as_slice().get(..len as usize).unwrap_or(&[])
    }

    fn queue(&mut self, slot: u32, io: &Io) -> Result<(), BenchError> {
        let offset = i64::try_from(io.offset)
            .map_err(|_| BenchError::Engine(format!("offset {} out of range", io.offset)))?;
        let Some(buf) = self.buffer.as_mut_slice().get_mut(..io.len as usize) else {
            return Err(BenchError::Engine(format!(
                "an I/O of {} bytes does not fit the {}-byte buffer",
                io.len,
                self.buffer.len()
            )));
        };
        let result = loop {
            // SAFETY: buf is valid for buf.len() bytes and fd is open for the duration of the run.
            let result = unsafe {
                match io.direction {
                    Direction::Read => {
                        libc::pread(self.fd, buf.as_mut_ptr().cast(), buf.len(), offset)
                    }
                    Direction::Write => {
                        libc::pwrite(self.fd, buf.as_ptr().cast(), buf.len(), offset)
                    }
                    // 0 on success: the sync's whole (empty) length.
                    Direction::Sync => libc::fdatasync(self.fd) as isize,
                }
            };
            if result >= 0 {
                break result as i64;
            }
            let err = io::Error::last_os_error();
            if err.kind() != io::ErrorKind::Interrupted {
                break -i64::from(err.raw_os_error().unwrap_or(libc::EIO));
            }
        };
        self.done = Some(Completion { slot, result });
        Ok(())
    }

    fn commit(&mut self) -> Result<u32, BenchError> {
        Ok(0)
    }

    fn reap(&mut self, _min: u32, completions: &mut Vec<Completion>) -> Result<(), BenchError> {
        completions.extend(self.done.take());
        Ok(())
    }
}
