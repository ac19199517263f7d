//! Judging a drive by how it behaves under the load an Ethereum client puts on it, rather than
//! by its name: a sync-like read/burst/recover cycle, the write cliff when an SLC cache runs
//! out, and the read-latency growth when random reads span more data than a DRAM-less drive's
//! mapping cache covers.
//!
//! Each test ([`sync`], [`cliff`], [`span`]) is a set of jobs on the bench's one I/O path
//! ([`crate::engine::run`]): jobs that decide their next I/O from the completions they saw
//! (the sync test's QD1 reader and its QD32 burst writers in one run, the cliff test's
//! sustained writers, the span test's reader). A [`BehaviourDevice`] says which engine and
//! target they run on: the real test file on the run's io_uring or psync engine
//! ([`file::FileDevice`]), or a simulated drive, the mock engine with one of the drive models
//! of [`models`] on its virtual clock ([`models::MockDrive`]), which makes every decision of
//! the tests reproducible. The decisions they take while running (when the drive has
//! recovered, when a cliff is established) live in [`analysis`] as pure functions over time
//! series.

pub mod analysis;
pub mod cliff;
pub mod file;
pub mod models;
mod samples;
pub mod span;
pub mod sync;

use std::sync::Mutex;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::cancel::CancelToken;
use crate::engine::{Engine, EngineChoice, EngineKind, Target, Work};
use crate::error::BenchError;
use crate::progress::{Phase, Progress};
use crate::stats::LatencySummary;
use crate::workload::Job;

/// What can go wrong while measuring behaviour.
#[derive(Debug, thiserror::Error)]
pub enum BehaviourError {
    #[error("invalid behaviour test parameters: {0}")]
    InvalidPlan(String),
    #[error("the test file ({size} bytes) is smaller than the {needed} bytes this test needs")]
    FileTooSmall { size: u64, needed: u64 },
    #[error("interrupted")]
    Interrupted,
    /// The engine refused or failed an I/O of the test.
    #[error(transparent)]
    Engine(#[from] BenchError),
}

/// The access pattern of a sustained-write interval in the cliff test.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WritePattern {
    Sequential,
    Random,
}

/// Where the behaviour tests run: an engine and a target. Reads are 4 KiB at aligned offsets
/// below [`BehaviourDevice::size`]; every I/O, `fdatasync` included, goes through
/// [`crate::engine::run`], so the target's checks and the engine's timing hold for them as for
/// every other test, and on the mock engine the whole test runs on its virtual clock.
pub trait BehaviourDevice {
    /// Bytes of the test file that may be read and written.
    fn size(&self) -> u64;
    /// The engine for I/O of at most `max_io_bytes` bytes each (buffers are sized by it).
    fn engine(&self, max_io_bytes: u32) -> Box<dyn Engine>;
    /// What the I/O runs against.
    fn target(&self) -> &Target;
}

/// Where a read latency sample of the sync test was taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SyncPhase {
    /// Reads alone: the batch-assembly half of the cycle; the baseline.
    Read,
    /// Reads while the write burst is in flight.
    Burst,
    /// Reads after the burst's `fdatasync` returned, until latency is back to baseline.
    Recovery,
}

/// A read latency sample, for plotting.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct LatencyPoint {
    pub t_s: f64,
    pub lat_us: f64,
    pub phase: SyncPhase,
}

/// One read/burst/recover cycle.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SyncCycle {
    pub burst_start_s: f64,
    pub burst_end_s: f64,
    pub burst_write_mb_s: f64,
    pub fdatasync_ms: f64,
    /// `None` when read p99 was not back within tolerance before the recovery timeout.
    pub recovery_ms: Option<f64>,
}

/// `--test sync`: QD1 reads, a write burst while a QD1 reader keeps sampling, recovery.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SyncResult {
    /// The engine of the QD1 reader.
    pub engine: EngineKind,
    /// The engine that issued the write bursts (io_uring when available: one ring at the
    /// full queue depth instead of a thread per outstanding write).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub burst_engine: Option<EngineKind>,
    pub runtime_s: f64,
    pub span_bytes: u64,
    pub burst_bytes: u64,
    pub burst_queue_depth: u32,
    pub burst_block_min: u32,
    pub burst_block_max: u32,
    /// Read p99 had to come back within this fraction of the baseline p99 (0.2 = 20 %).
    pub recovery_tolerance: f64,
    pub recovery_timeout_s: f64,
    /// QD1 reads with no writes in flight.
    pub baseline_lat_us: LatencySummary,
    /// QD1 reads while the burst was in flight.
    pub burst_lat_us: LatencySummary,
    /// Median write-burst throughput over the cycles (including the `fdatasync`).
    pub burst_write_mb_s: f64,
    /// How the reads recovered over the cycles.
    #[serde(flatten)]
    pub recovery: Recovery,
    pub cycles: Vec<SyncCycle>,
    /// Read samples thinned to a plottable number, in time order.
    #[serde(default)]
    pub samples: Vec<LatencyPoint>,
}

/// How read latency came back after the write bursts of the sync test.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Recovery {
    /// Median and worst recovery over the cycles that recovered.
    pub recovery_ms_median: Option<f64>,
    pub recovery_ms_max: Option<f64>,
    /// Cycles whose reads had not recovered when the timeout ran out.
    pub unrecovered_cycles: u32,
}

/// Throughput of one interval of the cliff test.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ThroughputPoint {
    pub t_s: f64,
    /// Bytes written from the start of the test to the end of this interval.
    pub written_bytes: u64,
    pub mb_s: f64,
    pub pattern: WritePattern,
}

/// Why the cliff test stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CliffStop {
    /// The drop was seen and held long enough to be sure: no point writing more.
    CliffEstablished,
    /// The write budget (what the free-space reserve allows) was used up.
    ByteBudget,
    Runtime,
}

/// `--test cliff`: sustained writes until the write cache runs out.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CliffResult {
    pub engine: EngineKind,
    pub runtime_s: f64,
    pub written_bytes: u64,
    pub span_bytes: u64,
    pub sequential_block: u32,
    pub random_block: u32,
    pub queue_depth: u32,
    /// Where sustained-write throughput dropped, and from what to what.
    #[serde(flatten)]
    pub drop: CliffDrop,
    pub stop: CliffStop,
    #[serde(default)]
    pub samples: Vec<ThroughputPoint>,
}

/// The write cliff: throughput before and after it, and when and after how many bytes it came.
/// Only the throughput before is known when there was no cliff.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct CliffDrop {
    /// Median throughput before the drop (or over the whole run when there was none).
    pub pre_cliff_mb_s: f64,
    /// Bytes written when throughput dropped: the size of the write cache, roughly.
    pub cache_estimate_bytes: Option<u64>,
    pub cliff_at_s: Option<f64>,
    /// Median throughput after the drop.
    pub post_cliff_mb_s: Option<f64>,
}

/// QD1 read latency over one span.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct SpanPoint {
    pub span_bytes: u64,
    pub ios: u64,
    pub lat_us: LatencySummary,
}

/// `--test span`: QD1 random reads over growing spans of the test file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SpanResult {
    pub engine: EngineKind,
    pub runtime_s: f64,
    pub points: Vec<SpanPoint>,
    /// Mean latency over the largest span divided by that over the smallest. The mean, not the
    /// median, because mapping misses raise the mean in proportion to the miss rate while the
    /// median moves only once more than half the reads miss.
    pub latency_ratio: f64,
    /// The same for p99.
    pub p99_ratio: f64,
}

/// One behaviour test, by its parameters: [`sync::SyncPlan`], [`cliff::CliffPlan`] or
/// [`span::SpanPlan`].
pub trait BehaviourTest {
    /// What the test measured.
    type Measured;
    /// The progress phase the test reports as.
    const PHASE: Phase;
    /// About how long the test runs on a test file of `size` bytes, for a progress bar.
    fn expected_runtime(&self, size: u64) -> Duration;
    /// Runs the test in `session`.
    fn run(&self, session: Session<'_>) -> Result<Self::Measured, BehaviourError>;
}

/// What a behaviour test runs with: the device it drives, `cancel`, which says when to stop
/// with [`BehaviourError::Interrupted`] (asked by the jobs, on the engine's threads), and
/// `progress`, which it tells the time since the start and what it is doing.
pub struct Session<'a> {
    pub device: &'a mut dyn BehaviourDevice,
    pub cancel: &'a (dyn Fn() -> bool + Sync),
    pub progress: &'a mut dyn FnMut(Duration, &str),
}

impl Session<'_> {
    /// Runs `jobs`, `jobs[i]` at queue depth `depths[i]`, on `engine` against the device's
    /// target, passing what the jobs post on `board` to the progress callback while they run.
    fn run_jobs(
        &mut self,
        engine: &dyn Engine,
        jobs: &mut [&mut dyn Job],
        depths: &[u32],
        board: &ProgressBoard,
    ) -> Result<(), BehaviourError> {
        let progress = &mut *self.progress;
        let mut tick = || board.forward(progress);
        crate::engine::run(
            engine,
            Work::with_depths(self.device.target(), jobs, depths, &mut tick),
        )?;
        Ok(())
    }
}

/// The latest progress a test's jobs posted (they run on the engine's threads), for the
/// progress callback on the calling thread.
#[derive(Default)]
struct ProgressBoard {
    latest: Mutex<Option<(Duration, String)>>,
}

impl ProgressBoard {
    fn post(&self, elapsed: Duration, status: String) {
        if let Ok(mut latest) = self.latest.lock() {
            *latest = Some((elapsed, status));
        }
    }

    fn forward(&self, progress: &mut dyn FnMut(Duration, &str)) {
        let latest = self.latest.lock().ok().and_then(|mut latest| latest.take());
        if let Some((elapsed, status)) = latest {
            progress(elapsed, &status);
        }
    }
}

/// Runs `test` on `device` with nobody watching its progress.
pub fn measure<T: BehaviourTest>(
    device: &mut dyn BehaviourDevice,
    test: &T,
    cancel: &(dyn Fn() -> bool + Sync),
) -> Result<T::Measured, BehaviourError> {
    let progress = &mut |_: Duration, _: &str| {};
    test.run(Session {
        device,
        cancel,
        progress,
    })
}

/// Which behaviour tests to run on the bench's test file, with their parameters.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct BehaviourTests {
    pub sync: Option<sync::SyncPlan>,
    pub cliff: Option<cliff::CliffPlan>,
    pub span: Option<span::SpanPlan>,
}

impl BehaviourTests {
    pub fn any(&self) -> bool {
        self.sync.is_some() || self.cliff.is_some() || self.span.is_some()
    }

    /// The sync cycle and the span test, which grade a drive the database does not know by
    /// what it does rather than its name (docs/behaviour.md). On the community's 150 GiB file
    /// and a 60 s runtime they run with their documented defaults; a smaller file or a shorter
    /// runtime scales them down so that they still see several spans and a whole cycle in
    /// about the runtime. The cliff test stays opt-in: it fills the drive's write cache.
    pub fn scaled(runtime: Duration, file_size: u64, seed: u64) -> BehaviourTests {
        const PAGE: u64 = 4096;
        let sync = sync::SyncPlan::default();
        let span = span::SpanPlan::default();
        // A quarter of the file at most, so a burst on a small file does not rewrite it all.
        let burst_bytes = sync.burst_bytes.min((file_size / 4).max(1 << 20)) / PAGE * PAGE;
        let min_span = (span.min_span.min(file_size / 8) / PAGE * PAGE).max(PAGE);
        BehaviourTests {
            sync: Some(sync::SyncPlan {
                runtime,
                read_phase: sync.read_phase.min(runtime / 2),
                recovery_timeout: sync
                    .recovery_timeout
                    .min(runtime.max(Duration::from_secs(2))),
                burst_bytes,
                seed,
                ..sync
            }),
            span: Some(span::SpanPlan {
                min_span,
                time_per_span: span.time_per_span.min(runtime),
                seed,
                ..span
            }),
            cliff: None,
        }
    }
}

/// What the behaviour tests measured; `None` for tests not asked for.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct BehaviourResults {
    pub sync: Option<SyncResult>,
    pub cliff: Option<CliffResult>,
    pub span: Option<SpanResult>,
}

fn bench_error(err: BehaviourError, cancel: &CancelToken) -> BenchError {
    match err {
        BehaviourError::Interrupted => BenchError::Interrupted(cancel.signal().unwrap_or(0)),
        BehaviourError::InvalidPlan(why) => BenchError::InvalidPlan(why),
        other @ BehaviourError::FileTooSmall { .. } => BenchError::InvalidPlan(other.to_string()),
        BehaviourError::Engine(err) => err,
    }
}

/// Runs the requested behaviour tests on the bench's test file, as jobs on the engine of
/// `choice` (the run's io_uring or psync engine) against `target`, the test file's descriptor
/// as the run set it up (pinned like the qd1 test, free space watched while writing). The
/// caller created, filled and will remove the file (so the free-space reserve and the cleanup
/// on signals are the test file's). The span test runs first because the others rewrite the
/// file; the cliff test last because it leaves the drive's write cache full. Progress
/// positions are milliseconds.
pub fn run_on_test_file(
    tests: &BehaviourTests,
    target: Target,
    choice: &EngineChoice,
    cancel: &CancelToken,
    progress: &mut dyn Progress,
) -> Result<BehaviourResults, BenchError> {
    let mut device = file::FileDevice::new(target, choice).map_err(|e| bench_error(e, cancel))?;
    let span = (tests.span.as_ref())
        .map(|test| run_with_progress(test, &mut device, cancel, progress))
        .transpose()?;
    let sync = (tests.sync.as_ref())
        .map(|test| run_with_progress(test, &mut device, cancel, progress))
        .transpose()?;
    let cliff = (tests.cliff.as_ref())
        .map(|test| run_with_progress(test, &mut device, cancel, progress))
        .transpose()?;
    Ok(BehaviourResults { sync, cliff, span })
}

/// Runs `test` on the test file with the run's progress (positions in milliseconds) and
/// cancellation.
fn run_with_progress<T: BehaviourTest>(
    test: &T,
    device: &mut file::FileDevice,
    cancel: &CancelToken,
    progress: &mut dyn Progress,
) -> Result<T::Measured, BenchError> {
    let ms = |d: Duration| u64::try_from(d.as_millis()).unwrap_or(u64::MAX);
    progress.start(T::PHASE, ms(test.expected_runtime(device.size())));
    let cancelled = || cancel.is_cancelled();
    let measured = test.run(Session {
        device,
        cancel: &cancelled,
        progress: &mut |t, s| progress.update(ms(t), s),
    });
    progress.finish(T::PHASE);
    measured.map_err(|err| bench_error(err, cancel))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testfile::COMMUNITY_SIZE;

    #[test]
    fn on_the_community_file_the_tests_keep_their_defaults() {
        let runtime = Duration::from_secs(60);
        let tests = BehaviourTests::scaled(runtime, COMMUNITY_SIZE, 7);
        let (sync, span) = (tests.sync.expect("sync"), tests.span.expect("span"));
        assert!(tests.cliff.is_none(), "the cliff test stays opt-in");
        let defaults = sync::SyncPlan::default();
        assert_eq!(sync.burst_bytes, defaults.burst_bytes);
        assert_eq!(sync.read_phase, defaults.read_phase);
        assert_eq!(sync.recovery_timeout, defaults.recovery_timeout);
        assert_eq!((sync.runtime, sync.seed), (runtime, 7));
        assert_eq!(span.min_span, span::SpanPlan::default().min_span);
        assert_eq!(span.time_per_span, span::SpanPlan::default().time_per_span);
        assert_eq!(span.seed, 7);
    }

    #[test]
    fn a_small_file_and_a_short_runtime_scale_the_tests_down() {
        let tests = BehaviourTests::scaled(Duration::from_secs(1), 64 << 20, 1);
        let sync = tests.sync.expect("sync");
        assert_eq!(sync.burst_bytes, 16 << 20);
        assert_eq!(sync.read_phase, Duration::from_millis(500));
        assert_eq!(sync.recovery_timeout, Duration::from_secs(2));
        let span = tests.span.expect("span");
        assert_eq!(span.min_span, 8 << 20);
        assert_eq!(span::spans(64 << 20, &span).len(), 4);
        assert_eq!(span.time_per_span, Duration::from_secs(1));
    }
}
