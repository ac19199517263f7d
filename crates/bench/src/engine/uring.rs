//! The io_uring engine: one ring per worker thread, the file registered, buffers registered as
//! fixed buffers, SQEs for a whole batch pushed then submitted with one `io_uring_enter`,
//! completions reaped straight from the CQ ring (waiting in the kernel only when none is there
//! yet). No async runtime, nothing allocated per I/O. This is what fio's io_uring engine does
//! with `fixedbufs=1 registerfiles=1`.

use std::io;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use io_uring::{opcode, squeue, types, IoUring};
use probe::iouring::memlock_limit;

use super::EngineKind;
use super::{run_workers, AlignedBuffer, Engine, EngineConfig, Work};
use crate::error::BenchError;
use crate::workload::{Direction, Io, Job};

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

#[derive(Clone, Copy)]
struct Slot {
    io: Io,
    submitted: Instant,
}

impl Engine for UringEngine {
    fn kind(&self) -> EngineKind {
        EngineKind::IoUring
    }

    fn drive(&self, work: Work<'_, '_>) -> Result<(), BenchError> {
        let (target, queue_depth) = (work.target, work.queue_depth.max(1));
        let fd = target.raw_fd()?;
        run_workers(work, |job, abort, epoch| {
            self.run_worker(fd, queue_depth, job, abort, epoch)
        })
    }

    fn max_io_bytes(&self) -> u32 {
        self.config.max_io_bytes
    }

    fn notes(&self) -> Vec<String> {
        self.notes.lock().map(|n| n.clone()).unwrap_or_default()
    }
}

impl UringEngine {
    fn run_worker(
        &self,
        fd: std::os::fd::RawFd,
        queue_depth: u32,
        job: &mut dyn Job,
        abort: &AtomicBool,
        epoch: Instant,
    ) -> Result<(), BenchError> {
        let max_io = self.config.max_io_bytes;
        let slot_len = max_io as usize;
        let qd = queue_depth as usize;
        let mut ring = build_ring(&self.config, queue_depth.next_power_of_two())
            .map_err(|err| BenchError::Unsupported(explain_setup_error(&err)))?;
        let mut buffers = AlignedBuffer::new(qd * slot_len, epoch.elapsed().as_nanos() as u64)?;
        let base = buffers.as_mut_ptr();

        let mut fixed_buffers = false;
        if self.config.fixed_buffers {
            let iovec = libc::iovec {
                iov_base: base.cast(),
                iov_len: buffers.len(),
            };
            // SAFETY: `buffers` is freed only after the ring is closed (explicit drops below), so
            // the registration never outlives the memory.
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

        let mut slots = vec![
            Slot {
                io: Io {
                    offset: 0,
                    len: 0,
                    direction: Direction::Read
                },
                submitted: epoch,
            };
            qd
        ];
        let mut free: Vec<u32> = (0..queue_depth).rev().collect();
        // Slots pushed since the last submission, stamped once the kernel has taken them.
        let mut batch: Vec<u32> = Vec::with_capacity(qd);
        let submit_batch = self.config.submit_batch.max(1) as usize;
        let mut inflight = 0usize;
        let mut issuing = true;
        let mut failure: Option<BenchError> = None;

        loop {
            if issuing {
                if abort.load(Ordering::Relaxed) {
                    issuing = false;
                }
                let now = Instant::now();
                let since_start = now - epoch;
                let (submitter, mut submission, _) = ring.split();
                while issuing {
                    let Some(&slot) = free.last() else { break };
                    let Some(io) = job.next_io(since_start) else {
                        issuing = false;
                        break;
                    };
                    // engine::run checked the I/O against the target; the buffer bound is
                    // checked again here because the pointer arithmetic below relies on it.
                    if io.len > max_io {
                        failure = Some(BenchError::Engine(format!(
                            "an I/O of {} bytes does not fit the {max_io}-byte buffers",
                            io.len
                        )));
                        issuing = false;
                        break;
                    }
                    free.pop();
                    let offset_in_buffer = slot as usize * slot_len;
                    // SAFETY: offset_in_buffer + io.len <= qd * slot_len (checked io.len <= max_io).
                    let buf = unsafe { base.add(offset_in_buffer) };
                    if io.direction == Direction::Write {
                        // SAFETY: this slot is free: no I/O in flight uses it, and the slice
                        // ends before it is submitted.
                        let slot_buf =
                            unsafe { std::slice::from_raw_parts_mut(buf, io.len as usize) };
                        job.fill(&io, slot_buf);
                    }
                    let entry = build_entry(&io, buf, fd, fixed_file, fixed_buffers)
                        .user_data(u64::from(slot));
                    // SAFETY: the buffer stays valid and untouched until the completion for this
                    // slot is reaped (the slot is not reused before), and the ring has at least
                    // `qd` entries, so the push cannot overflow.
                    if unsafe { submission.push(&entry) }.is_err() {
                        free.push(slot);
                        break;
                    }
                    slots[slot as usize] = Slot { io, submitted: now };
                    batch.push(slot);
                    inflight += 1;
                    if batch.len() >= submit_batch {
                        submission.sync();
                        if let Err(err) = enter(|| submitter.submit()) {
                            failure = Some(err);
                            issuing = false;
                            break;
                        }
                        stamp(&mut slots, &mut batch);
                    }
                }
            }
            if inflight == 0 {
                break;
            }
            if !batch.is_empty() {
                if let Err(err) = enter(|| ring.submit()) {
                    failure.get_or_insert(err);
                    break;
                }
                stamp(&mut slots, &mut batch);
            }
            // Buffered reads of cached data complete during submission: no need to wait then.
            if ring.completion().is_empty() {
                if let Err(err) = enter(|| ring.submit_and_wait(1)) {
                    failure.get_or_insert(err);
                    // The ring is unusable; in-flight I/O is dropped with it.
                    break;
                }
            }
            let reaped_at = Instant::now();
            let since_start = reaped_at - epoch;
            for cqe in ring.completion() {
                let Ok(index) = usize::try_from(cqe.user_data()) else {
                    continue;
                };
                let Some(slot) = slots.get(index).copied() else {
                    continue;
                };
                inflight = inflight.saturating_sub(1);
                free.push(index as u32);
                let result = cqe.result();
                if result < 0 {
                    let err = io::Error::from_raw_os_error(-result);
                    failure.get_or_insert(io_failure(&slot.io, err, self.config.iopoll));
                    issuing = false;
                    continue;
                }
                if result as u32 != slot.io.len {
                    failure.get_or_insert(BenchError::Engine(format!(
                        "short {} of {} bytes at offset {}: {} bytes",
                        slot.io.direction, slot.io.len, slot.io.offset, result
                    )));
                    issuing = false;
                    continue;
                }
                let latency = reaped_at.saturating_duration_since(slot.submitted);
                let data: &[u8] = if slot.io.direction == Direction::Read {
                    // SAFETY: the kernel finished writing this slot; nothing else aliases it now.
                    unsafe {
                        std::slice::from_raw_parts(base.add(index * slot_len), slot.io.len as usize)
                    }
                } else {
                    &[]
                };
                job.complete(&slot.io, latency, since_start, data);
            }
        }
        // Unregister (by closing the ring) before the buffers are freed.
        drop(ring);
        drop(buffers);
        match failure {
            Some(err) => Err(err),
            None => Ok(()),
        }
    }
}

/// Marks the requests just submitted as submitted now. Latency is measured like fio's completion
/// latency (clat): from the moment the kernel has taken the request to its reaping. Submission
/// cost (on a VM, the virtqueue kick) is the engine's, not the drive's; fio leaves it out too,
/// so the figures compare.
#[inline]
fn stamp(slots: &mut [Slot], batch: &mut Vec<u32>) {
    let submitted = Instant::now();
    for &slot in batch.iter() {
        if let Some(entry) = slots.get_mut(slot as usize) {
            entry.submitted = submitted;
        }
    }
    batch.clear();
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
    fd: std::os::fd::RawFd,
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
    }
}
