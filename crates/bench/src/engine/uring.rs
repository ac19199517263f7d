//! The io_uring engine: one ring per worker thread, the file registered, buffers registered as
//! fixed buffers; `queue` pushes an SQE, `commit` hands what was pushed to the kernel with one
//! `io_uring_enter`, `reap` takes completions straight from the CQ ring (waiting in the kernel
//! only when none is there yet). No async runtime, nothing allocated per I/O. This is what
//! fio's io_uring engine does with `fixedbufs=1 registerfiles=1`.

use std::io;
use std::os::fd::RawFd;
use std::sync::Mutex;

use io_uring::{opcode, squeue, types, IoUring};
use probe::iouring::memlock_limit;

use super::EngineKind;
use super::{AlignedBuffer, Completion, Engine, EngineConfig, IoQueue, Target};
use crate::error::BenchError;
use crate::workload::{Direction, Io};

/// SQPOLL thread idle time before it sleeps and needs a wakeup, in milliseconds.
const SQPOLL_IDLE_MS: u32 = 2000;

pub struct UringEngine {
    config: EngineConfig,
    notes: Mutex<Vec<String>>,
}

impl UringEngine {
    pub fn new(config: EngineConfig) -> Self {
        UringEngine {
            config,
            notes: Mutex::new(Vec::new()),
        }
    }

    pub fn config(&self) -> EngineConfig {
        self.config
    }

    fn note(&self, note: String) {
        if let Ok(mut notes) = self.notes.lock() {
            if !notes.contains(&note) {
                notes.push(note);
            }
        }
    }
}

fn build_ring(config: &EngineConfig, entries: u32) -> io::Result<IoUring> {
    let builder = |task_run_hints: bool| {
        let mut builder = IoUring::builder();
        if config.sqpoll {
            builder.setup_sqpoll(SQPOLL_IDLE_MS);
        }
        if config.iopoll {
            builder.setup_iopoll();
        }
        if task_run_hints && !config.sqpoll {
            // Each ring has one thread (single issuer) that reaps in the kernel only when it
            // asks (deferred task run), so completions do not interrupt it with IPIs; fio sets
            // the same flags. Kernels before 6.1 reject them, then the plain ring is used.
            builder
                .setup_coop_taskrun()
                .setup_single_issuer()
                .setup_defer_taskrun();
        }
        builder
    };
    match builder(true).build(entries) {
        Err(err) if err.raw_os_error() == Some(libc::EINVAL) => builder(false).build(entries),
        other => other,
    }
}

/// Why io_uring is unusable, in the operator's terms (the probe's one explanation).
fn explain_setup_error(err: &io::Error) -> String {
    probe::iouring::explain_setup_error(&probe::Root::live(), err)
}

/// Checks that a ring with `config` can be set up and `registered_bytes` of buffers registered.
/// Returns the config that works (SQPOLL or fixed buffers dropped if they had to be) with the
/// reason, or why io_uring cannot be used at all.
pub fn probe(
    mut config: EngineConfig,
    registered_bytes: usize,
) -> Result<(EngineConfig, Option<String>), String> {
    let mut reasons = Vec::new();
    let ring = match build_ring(&config, 8) {
        Ok(ring) => ring,
        Err(err) if config.sqpoll || config.iopoll => {
            let plain = EngineConfig {
                sqpoll: false,
                iopoll: false,
                ..config
            };
            let ring = build_ring(&plain, 8).map_err(|err| explain_setup_error(&err))?;
            reasons.push(format!(
                "SQPOLL/IOPOLL ring refused ({err}); running without them"
            ));
            config = plain;
            ring
        }
        Err(err) => return Err(explain_setup_error(&err)),
    };
    if config.fixed_buffers {
        let mut buffer = AlignedBuffer::new(registered_bytes, 0).map_err(|err| err.to_string())?;
        let iovec = libc::iovec {
            iov_base: buffer.as_mut_ptr().cast(),
            iov_len: buffer.len(),
        };
        // SAFETY: the buffer outlives the registration: it is unregistered (by dropping the
        // ring) before the buffer is dropped at the end of this scope.
        let registered = unsafe { ring.submitter().register_buffers(&[iovec]) };
        if let Err(err) = registered {
            reasons.push(format!(
                "registering {} KiB of I/O buffers failed ({err}; RLIMIT_MEMLOCK {}); io_uring \
                 without fixed buffers",
                registered_bytes / 1024,
                memlock_limit()
            ));
            config.fixed_buffers = false;
        }
        drop(ring);
        drop(buffer);
    }
    let reason = (!reasons.is_empty()).then(|| reasons.join("; "));
    Ok((config, reason))
}

impl Engine for UringEngine {
    fn kind(&self) -> EngineKind {
        EngineKind::IoUring
    }

    fn max_io_bytes(&self) -> u32 {
        self.config.max_io_bytes
    }

    fn notes(&self) -> Vec<String> {
        self.notes.lock().map(|n| n.clone()).unwrap_or_default()
    }

    fn open<'e>(
        &'e self,
        target: &Target,
        slots: u32,
        seed: u64,
    ) -> Result<Box<dyn IoQueue + 'e>, BenchError> {
        let fd = target.raw_fd()?;
        let slots = slots.max(1);
        let slot_len = self.config.max_io_bytes as usize;
        let ring = build_ring(&self.config, slots.next_power_of_two())
            .map_err(|err| BenchError::Unsupported(explain_setup_error(&err)))?;
        let mut buffers = AlignedBuffer::new(slots as usize * slot_len, seed)?;
        let mut fixed_buffers = false;
        if self.config.fixed_buffers {
            let iovec = libc::iovec {
                iov_base: buffers.as_mut_ptr().cast(),
                iov_len: buffers.len(),
            };
            // SAFETY: the ring is closed before `buffers` is freed (the field order of
            // `UringQueue`), so the registration never outlives the memory.
            match unsafe { ring.submitter().register_buffers(&[iovec]) } {
                Ok(()) => fixed_buffers = true,
                Err(err) => self.note(format!(
                    "registering I/O buffers failed ({err}; RLIMIT_MEMLOCK {}): ran without fixed \
                     buffers",
                    memlock_limit()
                )),
            }
        }
        let fixed_file = ring.submitter().register_files(&[fd]).is_ok();
        Ok(Box::new(UringQueue {
            ring,
            buffers,
            slot_len,
            fd,
            fixed_file,
            fixed_buffers,
            unsubmitted: false,
            iopoll: self.config.iopoll,
            submit_batch: self.config.submit_batch,
            synced_outside: Vec::with_capacity(1),
        }))
    }
}

/// One worker's ring and its registered buffers, a slot of `slot_len` bytes per I/O in flight.
struct UringQueue {
    // Declared before `buffers`: the ring is closed (and the buffers unregistered) first.
    ring: IoUring,
    buffers: AlignedBuffer,
    slot_len: usize,
    fd: RawFd,
    fixed_file: bool,
    fixed_buffers: bool,
    /// SQEs pushed since the last `io_uring_enter`.
    unsubmitted: bool,
    iopoll: bool,
    submit_batch: u32,
    /// `fdatasync`s done outside the ring, reported at the next reap. A polled ring accepts
    /// only O_DIRECT reads and writes (the kernel fails an fsync SQE on it with EINVAL), so
    /// with `--iopoll` the sync test's `fdatasync` runs as a plain system call instead.
    synced_outside: Vec<Completion>,
}

impl UringQueue {
    /// The slot's bytes, if the slot exists and `len` fits it.
    fn slot_range(&self, slot: u32, len: u32) -> Option<std::ops::Range<usize>> {
        let start = (slot as usize).checked_mul(self.slot_len)?;
        let len = len as usize;
        (len <= self.slot_len && start + len <= self.buffers.len()).then_some(start..start + len)
    }
}

impl IoQueue for UringQueue {
    fn commit_batch(&self) -> u32 {
        self.submit_batch
    }

    fn buffer(&mut self, slot: u32, len: u32) -> Option<&mut [u8]> {
        let range = self.slot_range(slot, len)?;
        self.buffers.as_mut_slice().get_mut(range)
    }

    fn data(&self, slot: u32, len: u32) -> &[u8] {
        match self.slot_range(slot, len) {
            Some(range) => self.buffers.as_slice().get(range).unwrap_or(&[]),
            None => &[],
        }
    }

    fn queue(&mut self, slot: u32, io: &Io) -> Result<(), BenchError> {
        if self.iopoll && io.direction == Direction::Sync {
            // SAFETY: `fd` is the open test file this queue was built for.
            let result = if unsafe { libc::fdatasync(self.fd) } == 0 {
                0
            } else {
                -i64::from(
                    io::Error::last_os_error()
                        .raw_os_error()
                        .unwrap_or(libc::EIO),
                )
            };
            self.synced_outside.push(Completion { slot, result });
            return Ok(());
        }
        // The pointer handed to the kernel must stay inside this slot of the buffers.
        let Some(range) = self.slot_range(slot, io.len) else {
            return Err(BenchError::Engine(format!(
                "an I/O of {} bytes does not fit the {}-byte buffers",
                io.len, self.slot_len
            )));
        };
        // SAFETY: `range` lies inside `buffers` (checked above).
        let buf = unsafe { self.buffers.as_mut_ptr().add(range.start) };
        let entry = build_entry(io, buf, self.fd, self.fixed_file, self.fixed_buffers)
            .user_data(u64::from(slot));
        // SAFETY: the buffer stays valid and untouched until the completion for this slot is
        // reaped (the loop does not reuse a slot before), and the ring has at least as many
        // entries as slots, so only a broken caller can overflow it (refused below).
        if unsafe { self.ring.submission().push(&entry) }.is_err() {
            return Err(BenchError::Engine(
                "the io_uring submission queue is full".into(),
            ));
        }
        self.unsubmitted = true;
        Ok(())
    }

    fn commit(&mut self) -> Result<u32, BenchError> {
        if !self.unsubmitted {
            return Ok(0);
        }
        // Nothing consumes the completion queue between the two readings, so what it gained
        // was posted while `io_uring_enter` ran.
        let before = self.ring.completion().len();
        enter(|| self.ring.submit())?;
        self.unsubmitted = false;
        let after = self.ring.completion().len();
        Ok(u32::try_from(after.saturating_sub(before)).unwrap_or(u32::MAX))
    }

    fn reap(&mut self, min: u32, completions: &mut Vec<Completion>) -> Result<(), BenchError> {
        let synced = self.synced_outside.len() as u32;
        completions.append(&mut self.synced_outside);
        let min = min.saturating_sub(synced);
        // Buffered reads of cached data complete during submission: no need to wait then.
        if min > 0 && self.ring.completion().is_empty() {
            enter(|| self.ring.submit_and_wait(min as usize))?;
        }
        for cqe in self.ring.completion() {
            let Ok(slot) = u32::try_from(cqe.user_data()) else {
                continue;
            };
            completions.push(Completion {
                slot,
                result: i64::from(cqe.result()),
            });
        }
        Ok(())
    }

    fn failure(&self, io: &Io, errno: i64) -> BenchError {
        io_failure(io, io::Error::from_raw_os_error(errno as i32), self.iopoll)
    }
}

/// An `io_uring_enter`, where an interrupted or momentarily busy ring is not an error: the
/// caller's loop simply comes round again.
fn enter(call: impl FnOnce() -> io::Result<usize>) -> Result<(), BenchError> {
    match call() {
        Ok(_) => Ok(()),
        Err(err)
            if matches!(
                err.raw_os_error(),
                Some(libc::EINTR) | Some(libc::EAGAIN) | Some(libc::EBUSY)
            ) =>
        {
            Ok(())
        }
        Err(err) => Err(BenchError::io("io_uring_enter", err)),
    }
}

fn io_failure(io: &Io, err: io::Error, iopoll: bool) -> BenchError {
    let hint = if iopoll && err.raw_os_error() == Some(libc::EOPNOTSUPP) {
        " (the device has no poll queues, so polled I/O cannot run on it)"
    } else {
        ""
    };
    BenchError::io(
        format!(
            "{} of {} bytes at offset {}{hint}",
            io.direction, io.len, io.offset
        ),
        err,
    )
}

#[inline]
fn build_entry(
    io: &Io,
    buf: *mut u8,
    fd: RawFd,
    fixed_file: bool,
    fixed_buffers: bool,
) -> squeue::Entry {
    // The registered buffer is the whole area at index 0; READ_FIXED addresses inside it.
    macro_rules! with_fd {
        ($make:expr) => {
            if fixed_file {
                $make(types::Fixed(0))
            } else {
                $make(types::Fd(fd))
            }
        };
    }
    match (io.direction, fixed_buffers) {
        (Direction::Read, true) => with_fd!(|fd| opcode::ReadFixed::new(fd, buf, io.len, 0)
            .offset(io.offset)
            .build()),
        (Direction::Read, false) => {
            with_fd!(|fd| opcode::Read::new(fd, buf, io.len).offset(io.offset).build())
        }
        (Direction::Write, true) => with_fd!(|fd| opcode::WriteFixed::new(fd, buf, io.len, 0)
            .offset(io.offset)
            .build()),
        (Direction::Write, false) => with_fd!(|fd| opcode::Write::new(fd, buf, io.len)
            .offset(io.offset)
            .build()),
        (Direction::Sync, _) => with_fd!(|fd| opcode::Fsync::new(fd)
            .flags(types::FsyncFlags::DATASYNC)
            .build()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::SYNC;

    /// A polled ring refuses an fsync SQE, so with `--iopoll` the sync test's `fdatasync` must
    /// still complete (outside the ring) and be reported at the next reap.
    #[test]
    fn a_polled_ring_still_completes_the_sync_tests_fdatasync() {
        let file = tempfile::tempfile().expect("a temporary file");
        file.set_len(1 << 20).expect("sized");
        let target = Target::new(file, 1 << 20, true);
        let config = EngineConfig {
            iopoll: true,
            ..EngineConfig::default()
        };
        let engine = UringEngine::new(config);
        let mut queue = match engine.open(&target, 4, 1) {
            Ok(queue) => queue,
            Err(err) => {
                eprintln!("skipped: no io_uring with IOPOLL here ({err})");
                return;
            }
        };
        queue.queue(3, &SYNC).expect("queued");
        queue.commit().expect("committed");
        let mut completions = Vec::new();
        queue
            .reap(1, &mut completions)
            .expect("reaped without blocking");
        assert_eq!(completions, vec![Completion { slot: 3, result: 0 }]);
    }
}
