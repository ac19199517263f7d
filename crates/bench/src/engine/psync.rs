//! The portable engine: one thread per outstanding I/O doing `pread`/`pwrite`, for kernels and
//! sandboxes where io_uring is unavailable. Same jobs, same statistics, same queue depth.

use std::io;
use std::os::fd::RawFd;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use super::EngineKind;
use super::{run_workers, AlignedBuffer, Engine, EngineConfig, Work};
use crate::error::BenchError;
use crate::workload::{Direction, Io, Job};

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

    fn drive(&self, work: Work<'_, '_>) -> Result<(), BenchError> {
        let (target, queue_depth) = (work.target, work.queue_depth);
        if queue_depth > 1 {
            return Err(BenchError::Engine(format!(
                "the portable engine runs one I/O per thread, not {queue_depth}; split the \
                 queue depth into jobs with layout()"
            )));
        }
        let fd = target.raw_fd()?;
        let max_io = self.config.max_io_bytes;
        run_workers(work, |job, abort, epoch| {
            worker(fd, max_io, job, abort, epoch)
        })
    }
}

fn worker(
    fd: RawFd,
    max_io: u32,
    job: &mut dyn Job,
    abort: &AtomicBool,
    epoch: Instant,
) -> Result<(), BenchError> {
    let mut buffer = AlignedBuffer::new(max_io as usize, epoch.elapsed().as_nanos() as u64)?;
    loop {
        if abort.load(Ordering::Relaxed) {
            return Ok(());
        }
        let Some(io) = job.next_io(epoch.elapsed()) else {
            return Ok(());
        };
        let buf = &mut buffer.as_mut_slice()[..io.len as usize];
        if io.direction == Direction::Write {
            job.fill(&io, buf);
        }
        let started = Instant::now();
        let transferred = transfer(fd, &io, buf)?;
        let done = Instant::now();
        if transferred != io.len as usize {
            return Err(BenchError::Engine(format!(
                "short {} of {} bytes at offset {}: {transferred} bytes",
                io.direction, io.len, io.offset
            )));
        }
        let data: &[u8] = if io.direction == Direction::Read {
            buf
        } else {
            &[]
        };
        job.complete(&io, done - started, done - epoch, data);
    }
}

fn transfer(fd: RawFd, io: &Io, buf: &mut [u8]) -> Result<usize, BenchError> {
    let offset = i64::try_from(io.offset)
        .map_err(|_| BenchError::Engine(format!("offset {} out of range", io.offset)))?;
    loop {
        // SAFETY: buf is valid for buf.len() bytes and fd is open for the duration of the run.
        let result = unsafe {
            match io.direction {
                Direction::Read => libc::pread(fd, buf.as_mut_ptr().cast(), buf.len(), offset),
                Direction::Write => libc::pwrite(fd, buf.as_ptr().cast(), buf.len(), offset),
            }
        };
        if result >= 0 {
            return Ok(result as usize);
        }
        let err = io::Error::last_os_error();
        if err.kind() != io::ErrorKind::Interrupted {
            return Err(BenchError::io(
                format!(
                    "{} of {} bytes at offset {}",
                    io.direction, io.len, io.offset
                ),
                err,
            ));
        }
    }
}
