//! The checks of the one loop every engine runs behind (`worker`, fio's `td_io_queue`): each
//! I/O a job asks for is checked against the target before any engine sees it, and while a job
//! writes, the file system's free space is watched on the engine's clock, so the read-only
//! guard and the free-space reserve hold for every test on every engine, the mock device
//! included.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use super::Target;
use crate::error::{BenchError, ByteSize};
use crate::workload::{Direction, Io};

/// Where free space is read from while the bench writes: the directory of the test file, by
/// its descriptor (`fstatvfs`), or a simulated file system in tests.
pub trait FreeSpace: Send + Sync {
    /// Bytes an unprivileged writer can still use (`f_bavail`).
    fn available(&self) -> Result<u64, BenchError>;
    /// The file system, for messages.
    fn name(&self) -> String;
}

/// The free-space reserve, held while a test writes: below `reserve` the run stops.
#[derive(Clone)]
pub struct SpaceWatch {
    source: Arc<dyn FreeSpace>,
    reserve: u64,
    every: Duration,
    /// On a copy-on-write file system whose test file could not be made `nodatacow`: the free
    /// space before the test file existed and the bytes written since, shared by every clone.
    /// Such a file system frees the overwritten blocks only when it commits, seconds later,
    /// so `statvfs` lags the writes; every byte written is counted as taken until then.
    written_since: Option<(u64, Arc<AtomicU64>)>,
}

impl std::fmt::Debug for SpaceWatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SpaceWatch")
            .field("fs", &self.source.name())
            .field("reserve", &self.reserve)
            .field("every", &self.every)
            .field("counts_writes", &self.written_since.is_some())
            .finish()
    }
}

/// How often free space is read while a test writes, at the least: one `fstatvfs` per 100 ms
/// costs nothing measurable. It is also read again whenever the bytes written since the last
/// reading reach half the room that reading left above the reserve, so that even a file system
/// where every byte written takes a new byte (copy-on-write) cannot cross the reserve between
/// two readings, however fast the drive.
pub const SPACE_CHECK_INTERVAL: Duration = Duration::from_millis(100);

impl SpaceWatch {
    pub fn new(source: Arc<dyn FreeSpace>, reserve: u64) -> Self {
        SpaceWatch {
            source,
            reserve,
            every: SPACE_CHECK_INTERVAL,
            written_since: None,
        }
    }

    /// Sizes the reserve for the bytes written as well, for a copy-on-write file system where
    /// the test file is not `nodatacow`: free space counts as `available_before` less every
    /// byte written from now on, or what `statvfs` says if that is less.
    pub fn counting_writes(mut self, available_before: u64) -> Self {
        self.written_since = Some((available_before, Arc::new(AtomicU64::new(0))));
        self
    }

    fn count_write(&self, len: u64) {
        if let Some((_, written)) = &self.written_since {
            written.fetch_add(len, Ordering::Relaxed);
        }
    }

    /// The room left above the reserve, or `Err(ReserveReached)` once free space is under it.
    pub fn headroom(&self) -> Result<u64, BenchError> {
        let mut available = self.source.available()?;
        if let Some((before, written)) = &self.written_since {
            available = available.min(before.saturating_sub(written.load(Ordering::Relaxed)));
        }
        if available >= self.reserve {
            return Ok(available - self.reserve);
        }
        Err(BenchError::ReserveReached {
            fs: self.source.name(),
            avail: ByteSize(available),
            reserve: ByteSize(self.reserve),
        })
    }
}

/// What the jobs of one run share: the target, the first refusal, and when free space is read
/// next: at a time (nanoseconds of the engine's clock) or after some bytes, whichever first.
pub(super) struct Guard<'a> {
    target: &'a Target,
    max_io_bytes: u32,
    stopped: AtomicBool,
    error: Mutex<Option<BenchError>>,
    next_space_check: AtomicU64,
    written_since_check: AtomicU64,
    check_after_bytes: AtomicU64,
    /// One job reads the space at a time; the others go on writing meanwhile.
    checking: AtomicBool,
}

impl<'a> Guard<'a> {
    pub(super) fn new(target: &'a Target, max_io_bytes: u32) -> Self {
        Guard {
            target,
            max_io_bytes,
            stopped: AtomicBool::new(false),
            error: Mutex::new(None),
            next_space_check: AtomicU64::new(0),
            written_since_check: AtomicU64::new(0),
            check_after_bytes: AtomicU64::new(0),
            checking: AtomicBool::new(false),
        }
    }

    /// Ends the run: every worker stops issuing, and `err` is what [`super::run`] returns.
    pub(super) fn refuse(&self, err: BenchError) {
        self.stopped.store(true, Ordering::Relaxed);
        if let Ok(mut slot) = self.error.lock() {
            slot.get_or_insert(err);
        }
    }

    /// The first refusal, if any: it ended the run.
    pub(super) fn into_error(self) -> Option<BenchError> {
        self.error.into_inner().ok().flatten()
    }

    /// Whether a refusal ended the run.
    #[inline]
    pub(super) fn stopped(&self) -> bool {
        self.stopped.load(Ordering::Relaxed)
    }

    /// Checks `io` before it is queued: against the target, and against the free-space reserve
    /// when it writes.
    #[inline]
    pub(super) fn admit(&self, io: &Io, now: Duration) -> Result<(), BenchError> {
        self.target.check(io, self.max_io_bytes)?;
        if io.direction == Direction::Write {
            if let Some(watch) = self.target.space_watch() {
                self.watch_space(watch, u64::from(io.len), now)?;
            }
        }
        Ok(())
    }

    /// Reads free space when the interval has passed or the bytes written since the last
    /// reading reached half its headroom (see [`SPACE_CHECK_INTERVAL`]).
    fn watch_space(&self, watch: &SpaceWatch, len: u64, now: Duration) -> Result<(), BenchError> {
        watch.count_write(len);
        let now_ns = u64::try_from(now.as_nanos()).unwrap_or(u64::MAX);
        let written = self.written_since_check.fetch_add(len, Ordering::Relaxed) + len;
        let due = now_ns >= self.next_space_check.load(Ordering::Relaxed)
            || written >= self.check_after_bytes.load(Ordering::Relaxed);
        if !due || self.checking.swap(true, Ordering::Acquire) {
            return Ok(());
        }
        let reading = watch.headroom();
        if let Ok(headroom) = reading {
            let every = u64::try_from(watch.every.as_nanos()).unwrap_or(u64::MAX);
            self.written_since_check.store(0, Ordering::Relaxed);
            self.check_after_bytes
                .store(headroom / 2, Ordering::Relaxed);
            self.next_space_check
                .store(now_ns.saturating_add(every), Ordering::Relaxed);
        }
        self.checking.store(false, Ordering::Release);
        reading.map(|_| ())
    }
}
