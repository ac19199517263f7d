//! I/O engines behind one queue-and-reap interface (fio's ioengine ops): io_uring (preferred),
//! portable `pread`/`pwrite` threads, and a simulated device for deterministic tests. An engine
//! only opens an [`IoQueue`] and submits and completes on it; [`run`] is the one loop around
//! every engine (`worker`, fio's `td_io_queue`/`td_io_getevents`), which checks each I/O
//! against the target, pins the workers, and times and accounts every I/O.

mod buffer;
mod guard;
pub mod mock;
pub mod psync;
pub mod uring;
mod worker;

pub use buffer::AlignedBuffer;
pub use guard::{FreeSpace, SpaceWatch, SPACE_CHECK_INTERVAL};
pub use worker::run;

use std::fs::File;
use std::os::fd::{AsRawFd, RawFd};
use std::sync::Mutex;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use strum::{Display, IntoStaticStr};

use crate::error::BenchError;
use crate::workload::{Direction, Io, Job, ALIGN};

/// Which I/O engine produced a result.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[derive(IntoStaticStr, Display)]
#[strum(serialize_all = "snake_case")]
pub enum EngineKind {
    IoUring,
    Psync,
    /// The simulated device used in tests.
    Mock,
}

impl EngineKind {
    /// The engine's name in every output: the same word as in the JSON report.
    pub fn name(self) -> &'static str {
        self.into()
    }
}

/// The file or device an engine runs against.
#[derive(Debug)]
pub struct Target {
    file: Option<File>,
    len: u64,
    writable: bool,
    /// CPUs the workers run on (see [`crate::affinity`]); `None`: wherever the scheduler likes.
    cpus: Option<Vec<usize>>,
    /// The first failure to pin a worker, kept for the report instead of failing the run.
    pin_error: Mutex<Option<String>>,
    /// The free-space reserve held while anything writes to this target.
    space: Option<SpaceWatch>,
}

impl Target {
    /// A file (or block device) already opened with the flags the run needs (O_DIRECT or not).
    /// `writable` must be false for anything but a test file nodecheck created: engines refuse
    /// to issue a write to a read-only target before the kernel would.
    pub fn new(file: File, len: u64, writable: bool) -> Self {
        Target {
            file: Some(file),
            len,
            writable,
            cpus: None,
            pin_error: Mutex::new(None),
            space: None,
        }
    }

    /// Stops every write to this target once free space falls under `watch`'s reserve.
    pub fn watching(mut self, watch: SpaceWatch) -> Self {
        self.space = Some(watch);
        self
    }

    pub(crate) fn space_watch(&self) -> Option<&SpaceWatch> {
        self.space.as_ref()
    }

    /// `fdatasync` outside a run (the prefill's, once its engine run is over); inside a run a
    /// job issues [`Direction::Sync`]. Refused on a read-only target, like a write.
    pub fn sync_data(&self) -> Result<(), BenchError> {
        if !self.writable {
            return Err(BenchError::Refused(
                "a workload tried to sync a read-only target".into(),
            ));
        }
        match &self.file {
            Some(file) => file
                .sync_data()
                .map_err(|err| BenchError::io("fdatasync of the test file", err)),
            None => Ok(()),
        }
    }

    /// Runs the workers on `cpus` (each worker thread is pinned, not the calling process).
    pub fn pinned_to(mut self, cpus: Vec<usize>) -> Self {
        self.cpus = (!cpus.is_empty()).then_some(cpus);
        self
    }

    /// The CPUs the workers were asked to run on.
    pub fn cpus(&self) -> Option<&[usize]> {
        self.cpus.as_deref()
    }

    /// Why a worker could not be pinned, if one could not.
    pub fn pin_error(&self) -> Option<String> {
        self.pin_error.lock().ok().and_then(|error| error.clone())
    }

    /// Pins the calling worker thread as asked; a failure is remembered, not fatal.
    pub(crate) fn pin_worker(&self) {
        let Some(cpus) = &self.cpus else { return };
        if let Err(err) = crate::affinity::pin_current_thread(cpus) {
            if let Ok(mut slot) = self.pin_error.lock() {
                slot.get_or_insert_with(|| format!("sched_setaffinity: {err}"));
            }
        }
    }

    /// A target with no file behind it, for the mock device.
    pub fn simulated(len: u64) -> Self {
        Target {
            file: None,
            len,
            writable: true,
            cpus: None,
            pin_error: Mutex::new(None),
            space: None,
        }
    }

    pub fn len(&self) -> u64 {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn is_writable(&self) -> bool {
        self.writable
    }

    pub(crate) fn raw_fd(&self) -> Result<RawFd, BenchError> {
        self.file
            .as_ref()
            .map(AsRawFd::as_raw_fd)
            .ok_or_else(|| BenchError::Engine("a real engine was given a simulated target".into()))
    }

    /// Rejects I/O that would be unsafe or undefined before it reaches the kernel.
    #[inline]
    pub(crate) fn check(&self, io: &Io, max_io_bytes: u32) -> Result<(), BenchError> {
        match io.direction {
            Direction::Write if !self.writable => {
                return Err(BenchError::Refused(
                    "a workload tried to write to a read-only target".into(),
                ))
            }
            Direction::Sync if !self.writable => {
                return Err(BenchError::Refused(
                    "a workload tried to sync a read-only target".into(),
                ))
            }
            Direction::Sync if io.len == 0 && io.offset == 0 => return Ok(()),
            _ => {}
        }
        if io.direction == Direction::Sync
            || io.len == 0
            || io.len > max_io_bytes
            || !io.offset.is_multiple_of(ALIGN)
            || !u64::from(io.len).is_multiple_of(ALIGN)
            || io.offset.saturating_add(u64::from(io.len)) > self.len
        {
            return Err(BenchError::Engine(format!(
                "invalid I/O {io:?} for a {} byte target (max {max_io_bytes} bytes per I/O, \
                 {ALIGN}-byte aligned; a sync has no length or offset)",
                self.len
            )));
        }
        Ok(())
    }
}

/// Options shared by the real engines.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EngineConfig {
    /// The largest single I/O any job will issue; buffers are sized by it.
    pub max_io_bytes: u32,
    /// io_uring: a kernel thread polls the submission queue (IORING_SETUP_SQPOLL).
    pub sqpoll: bool,
    /// io_uring: completions are polled from the device (IORING_SETUP_IOPOLL, O_DIRECT only).
    pub iopoll: bool,
    /// io_uring: register the buffers (READ_FIXED/WRITE_FIXED) to skip per-I/O page pinning.
    pub fixed_buffers: bool,
    /// io_uring: at most this many new requests go to the kernel in one `io_uring_enter`. 1 (the
    /// default, like fio's `iodepth_batch_submit=1`) hands each request to the device as soon as
    /// its slot frees up. Larger batches save system calls, but the block layer plugs them and
    /// the device sees them in bursts: on this project's virtio test VM, submitting whole reaped
    /// batches cost 5-8 % of randrw IOPS against fio (measured with `cargo xtask bench vs-fio`).
    pub submit_batch: u32,
}

impl Default for EngineConfig {
    fn default() -> Self {
        EngineConfig {
            max_io_bytes: ALIGN as u32,
            sqpoll: false,
            iopoll: false,
            fixed_buffers: true,
            submit_batch: 1,
        }
    }
}

/// What one [`run`] drives: every job at its queue depth against `target`, calling `tick` on
/// the calling thread about every 100 ms while they run (for progress).
pub struct Work<'a, 'j> {
    pub target: &'a Target,
    pub jobs: &'a mut [&'j mut dyn Job],
    /// The queue depth of each job, in the order of `jobs` (fio's per-job `iodepth`): a QD1
    /// reader and a QD32 writer can share a run.
    pub depths: Vec<u32>,
    pub tick: &'a mut dyn FnMut(),
}

impl<'a, 'j> Work<'a, 'j> {
    /// Every job at `queue_depth`.
    pub fn new(
        target: &'a Target,
        queue_depth: u32,
        jobs: &'a mut [&'j mut dyn Job],
        tick: &'a mut dyn FnMut(),
    ) -> Self {
        let depths = vec![queue_depth; jobs.len()];
        Work {
            target,
            jobs,
            depths,
            tick,
        }
    }

    /// Each job at its own depth: `depths[i]` for `jobs[i]` (a missing depth is 1).
    pub fn with_depths(
        target: &'a Target,
        jobs: &'a mut [&'j mut dyn Job],
        depths: &[u32],
        tick: &'a mut dyn FnMut(),
    ) -> Self {
        let depths = (0..jobs.len())
            .map(|index| depths.get(index).copied().unwrap_or(1))
            .collect();
        Work {
            target,
            jobs,
            depths,
            tick,
        }
    }
}

/// An I/O engine: how a queue of I/O is opened on a target. Everything else of a run (asking
/// the jobs, checking, pinning, timing, accounting) is [`run`]'s, the same for every engine.
pub trait Engine: Send + Sync {
    fn kind(&self) -> EngineKind;

    /// How a total queue depth is split into jobs: `(jobs, queue depth per job)`. io_uring keeps
    /// all of it in one ring (like fio's `numjobs=1, iodepth=64`); synchronous engines need one
    /// thread per outstanding I/O.
    fn layout(&self, queue_depth: u32) -> (u32, u32) {
        (1, queue_depth.max(1))
    }

    /// The largest single I/O the engine's buffers take.
    fn max_io_bytes(&self) -> u32 {
        u32::MAX
    }

    /// A simulated device: all jobs of a run share one queue on the calling thread and its
    /// virtual clock ([`IoQueue::virtual_now`]), which makes a run reproducible. Real engines
    /// get one queue and one (pinned) thread per job and the monotonic clock.
    fn simulated(&self) -> bool {
        false
    }

    /// Opens a queue of `slots` I/O in flight at once on `target` (called on the worker's
    /// thread, once it is pinned, so that rings and buffers are set up where they are used).
    /// `seed` varies the buffers' initial content.
    fn open<'e>(
        &'e self,
        target: &Target,
        slots: u32,
        seed: u64,
    ) -> Result<Box<dyn IoQueue + 'e>, BenchError>;

    /// Something the report should say about how the engine ran (e.g. it had to do without
    /// registered buffers). Empty when it ran as configured.
    fn notes(&self) -> Vec<String> {
        Vec::new()
    }
}

/// One finished I/O as an engine reports it: its slot and, as in an io_uring CQE, the bytes
/// transferred or a negative errno.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Completion {
    pub slot: u32,
    pub result: i64,
}

/// What an engine implements (fio's `queue`, `commit`, `getevents`/`event`): slots `0..slots`
/// of buffers, I/O queued into a slot, handed to the device by `commit`, completions reaped.
/// A slot is queued again only after its completion was reaped.
pub trait IoQueue {
    /// `queue` does the I/O itself (fio's `FIO_Q_COMPLETED`): its latency is timed around
    /// `queue`, not from `commit`.
    fn synchronous(&self) -> bool {
        false
    }

    /// Commit after this many queued I/O (fio's `iodepth_batch_submit`); the loop also commits
    /// whatever is queued before it reaps.
    fn commit_batch(&self) -> u32 {
        1
    }

    /// The device's clock, for a [`Engine::simulated`] engine.
    fn virtual_now(&self) -> Duration {
        Duration::ZERO
    }

    /// The buffer of `slot`, `len` bytes, for a write's content; `None` on a device that moves
    /// no data.
    fn buffer(&mut self, slot: u32, len: u32) -> Option<&mut [u8]>;

    /// What a completed read of `len` bytes left in `slot` (empty on a device that moves no
    /// data).
    fn data(&self, slot: u32, len: u32) -> &[u8];

    /// Queues `io` in `slot`. An error means the queue itself is unusable; a failed I/O is a
    /// completion with a negative result.
    fn queue(&mut self, slot: u32, io: &Io) -> Result<(), BenchError>;

    /// Hands what was queued to the device. Returns how many completions the device posted
    /// while the handing-over call ran: a fast device (or a VM whose host finishes the request
    /// during the submission's exit) completes inside the submitting `io_uring_enter`, and the
    /// loop must then time those I/O from before the call (see [`run`]).
    fn commit(&mut self) -> Result<u32, BenchError>;

    /// Appends the completions there are, waiting for at least `min` when there are none.
    /// `completions` has room for every slot: reaping never allocates.
    fn reap(&mut self, min: u32, completions: &mut Vec<Completion>) -> Result<(), BenchError>;

    /// The error of an I/O that failed with `errno`.
    fn failure(&self, io: &Io, errno: i64) -> BenchError {
        BenchError::io(
            format!(
                "{} of {} bytes at offset {}",
                io.direction, io.len, io.offset
            ),
            std::io::Error::from_raw_os_error(i32::try_from(errno).unwrap_or(libc::EIO)),
        )
    }
}

/// Which engine the user asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum EnginePreference {
    /// io_uring when the kernel and sandbox allow it, else the portable engine.
    #[default]
    Auto,
    IoUring,
    Psync,
}

/// The environment variable that makes `Auto` behave as if io_uring were blocked (tests, and
/// operators who want to compare engines).
pub const FORCE_NO_IO_URING_ENV: &str = "NODECHECK_FORCE_NO_IO_URING";

/// The engine a run will use and, when it is not the preferred io_uring engine as configured,
/// why. Engines are built from it per phase, because buffers are sized by the phase's largest
/// I/O (1 MiB for the prefill, 4 KiB for the measurements).
#[derive(Debug, Clone)]
pub struct EngineChoice {
    pub kind: EngineKind,
    pub config: EngineConfig,
    pub reason: Option<String>,
}

impl EngineChoice {
    pub fn engine(&self, max_io_bytes: u32) -> Box<dyn Engine> {
        let config = EngineConfig {
            max_io_bytes,
            ..self.config
        };
        match self.kind {
            EngineKind::IoUring => Box::new(uring::UringEngine::new(config)),
            // The mock device is never chosen here; tests build it directly.
            EngineKind::Psync | EngineKind::Mock => Box::new(psync::PsyncEngine::new(config)),
        }
    }
}

/// Picks the engine: probes io_uring (ring setup with the requested flags and registration of
/// `registered_bytes` of buffers) and falls back as the preference allows.
pub fn select(
    preference: EnginePreference,
    config: EngineConfig,
    registered_bytes: usize,
) -> Result<EngineChoice, BenchError> {
    let psync = |reason: String| EngineChoice {
        kind: EngineKind::Psync,
        config,
        reason: Some(reason),
    };
    match preference {
        EnginePreference::Psync => Ok(psync("the portable engine was requested".into())),
        EnginePreference::Auto | EnginePreference::IoUring => {
            let forced_off = std::env::var_os(FORCE_NO_IO_URING_ENV)
                .is_some_and(|value| !value.is_empty() && value != "0");
            if forced_off {
                let reason = format!("io_uring disabled by {FORCE_NO_IO_URING_ENV}");
                return if preference == EnginePreference::Auto {
                    Ok(psync(format!(
                        "{reason}; fell back to the portable pread/pwrite engine"
                    )))
                } else {
                    Err(BenchError::Unsupported(reason))
                };
            }
            match uring::probe(config, registered_bytes) {
                Ok((config, reason)) => Ok(EngineChoice {
                    kind: EngineKind::IoUring,
                    config,
                    reason,
                }),
                Err(reason) if preference == EnginePreference::Auto => Ok(psync(format!(
                    "{reason}; fell back to the portable pread/pwrite engine"
                ))),
                Err(reason) => Err(BenchError::Unsupported(reason)),
            }
        }
    }
}
