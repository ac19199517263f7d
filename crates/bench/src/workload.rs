//! Workloads: generators of `(offset, len, read|write)` with a stop condition, fed to an engine
//! at a queue depth, and told of every completion with its latency.
//!
//! A [`Job`] is one stream of I/O driven by one engine worker. Engines ask it for the next I/O
//! while they have a free slot and hand back each completion; the job decides from what it has
//! seen whether to issue, to wait ([`Next::Idle`]) or to stop ([`Next::Done`]). Time comes from
//! the engine (`now` since the start of the run) so that the mock device can run the same job
//! on virtual time, deterministically.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use crate::cancel::CancelToken;
use crate::stats::LatencyHistogram;

/// The direction of one I/O.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Direction {
    Read,
    Write,
    /// `fdatasync` of the target (fio's `DDIR_DATASYNC`): no bytes, no offset; it completes once
    /// the writes completed before it are on stable storage. A workload that needs its writes
    /// committed issues it after their completions, as a client commits a batch.
    Sync,
}

impl std::fmt::Display for Direction {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Direction::Read => "read",
            Direction::Write => "write",
            Direction::Sync => "fdatasync",
        })
    }
}

/// One I/O request: `len` bytes at byte `offset` of the target. Engines require `offset` and
/// `len` to be multiples of [`ALIGN`] (O_DIRECT) and `len <= EngineConfig::max_io_bytes`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Io {
    pub offset: u64,
    pub len: u32,
    pub direction: Direction,
}

/// Offset, length and buffer alignment O_DIRECT needs on every Linux file system and device.
pub const ALIGN: u64 = 4096;

/// A `len` 0 [`Direction::Sync`] request.
pub const SYNC: Io = Io {
    offset: 0,
    len: 0,
    direction: Direction::Sync,
};

/// What a job answers when the loop has a free slot for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Next {
    /// Issue this I/O.
    Io(Io),
    /// Nothing to issue now (waiting for its own completions, or for another job of the run):
    /// the loop asks again after the next completion, or after [`Job::wait`] when it has
    /// nothing in flight.
    Idle,
    /// Issue nothing more; what is in flight still completes.
    Done,
}

/// One stream of I/O: what to issue next, what to do with each completion.
pub trait Job: Send {
    /// What to do with a free slot at `now`.
    fn next_io(&mut self, now: Duration) -> Next;

    /// On a real engine, the job was [`Next::Idle`] with nothing of its own in flight: wait
    /// up to `timeout` for whatever it waits for (another job's progress) before it is asked
    /// again. The simulated device never calls it: there a run whose every job is idle with
    /// nothing in flight has nothing left that could wake it, and fails.
    fn wait(&mut self, timeout: Duration) {
        std::thread::sleep(timeout);
    }

    /// Called before a write is submitted, with the buffer it will write; the default leaves
    /// the engine's random content.
    fn fill(&mut self, _io: &Io, _buf: &mut [u8]) {}

    /// Called for each completed I/O with its latency (submission to reaping), the time of
    /// completion and, for reads on real engines, the data read (empty on the mock device).
    fn complete(&mut self, io: &Io, latency: Duration, now: Duration, data: &[u8]);

    /// Called just before [`Job::complete`] for an I/O that completed inside the call that
    /// submitted it: its latency is timed from before that call (fio's `lat`), because the
    /// device's whole time fell inside it.
    fn timed_through_submit(&mut self, _io: &Io) {}
}

/// When a job stops issuing I/O: whichever comes first.
#[derive(Debug, Clone)]
pub struct StopCondition {
    pub runtime: Duration,
    /// Stop after this many I/O have been issued (tests, and `--size`-bounded runs).
    pub max_ios: Option<u64>,
    pub cancel: CancelToken,
}

impl StopCondition {
    pub fn new(runtime: Duration, cancel: CancelToken) -> Self {
        StopCondition {
            runtime,
            max_ios: None,
            cancel,
        }
    }

    pub fn reached(&self, now: Duration, issued: u64) -> bool {
        now >= self.runtime
            || self.max_ios.is_some_and(|max| issued >= max)
            || self.cancel.is_cancelled()
    }
}

/// What a random job measured.
#[derive(Debug, Clone)]
pub struct IoStats {
    pub read: LatencyHistogram,
    pub write: LatencyHistogram,
    pub read_bytes: u64,
    pub write_bytes: u64,
    /// Time of the last completion since the start: the measured runtime.
    pub elapsed: Duration,
    /// I/O that completed inside the call that submitted it, timed from before the call.
    pub timed_through_submit: u64,
}

impl IoStats {
    pub fn new() -> Self {
        IoStats {
            read: LatencyHistogram::new(),
            write: LatencyHistogram::new(),
            read_bytes: 0,
            write_bytes: 0,
            elapsed: Duration::ZERO,
            timed_through_submit: 0,
        }
    }

    pub fn merge(&mut self, other: &IoStats) {
        self.read.merge(&other.read);
        self.write.merge(&other.write);
        self.read_bytes += other.read_bytes;
        self.write_bytes += other.write_bytes;
        self.elapsed = self.elapsed.max(other.elapsed);
        self.timed_through_submit += other.timed_through_submit;
    }

    pub fn ios(&self) -> u64 {
        self.read.count() + self.write.count()
    }
}

impl Default for IoStats {
    fn default() -> Self {
        Self::new()
    }
}

/// Shared completion counter for progress display; updated in batches to stay off the hot path.
#[derive(Debug, Clone, Default)]
pub struct ProgressCounter(Arc<AtomicU64>);

impl ProgressCounter {
    pub fn add(&self, n: u64) {
        self.0.fetch_add(n, Ordering::Relaxed);
    }
    pub fn get(&self) -> u64 {
        self.0.load(Ordering::Relaxed)
    }
}
