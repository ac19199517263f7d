//! `--test sync`: the client's batch cycle. QD1 random 4 KiB reads while a batch is assembled,
//! then a burst of random 4-16 KiB writes at high queue depth closed by `fdatasync` (the commit)
//! while a QD1 reader keeps sampling, then reads until latency is back to baseline.
//! The parameters and the reasoning behind their defaults are in docs/behaviour.md.
//!
//! The whole test is one engine run of two kinds of job: the QD1 [`Reader`], which leads the
//! cycle from the completions it sees (it orders a burst when its read phase is over, and goes
//! over to recovery when the burst's `fdatasync` has completed), and the burst [`Writer`]s
//! (one job at the burst's queue depth on io_uring and the mock engine, one per I/O in flight
//! on psync), idle between bursts; the last writer to finish its share issues the
//! `fdatasync` ([`Direction::Sync`]) once every write of the burst has completed.

use std::sync::{Condvar, Mutex, MutexGuard};
use std::time::Duration;

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

use super::analysis::{self, RecoveryTracker};
use super::samples::Decimator;
use super::{
    BehaviourError, BehaviourTest, LatencyPoint, ProgressBoard, Recovery, Session, SyncCycle,
    SyncPhase, SyncResult,
};
use crate::progress::Phase;
use crate::stats::LatencyHistogram;
use crate::workload::{Direction, Io, Job, Next, ALIGN, SYNC};

const PROGRESS_EVERY: Duration = Duration::from_millis(100);

/// The smallest write burst worth timing: below it the burst does not fill the queue
/// (32 writes of up to 16 KiB) and ends inside a single QD1 read, so its MB/s and the recovery
/// after it measure nothing.
pub const MIN_BURST_BYTES: u64 = 1 << 20;

/// Parameters of the sync-like workload.
#[derive(Debug, Clone, PartialEq)]
pub struct SyncPlan {
    /// QD1 reads alone before each burst; also the baseline.
    pub read_phase: Duration,
    pub burst_bytes: u64,
    pub burst_block_min: u32,
    pub burst_block_max: u32,
    pub burst_queue_depth: u32,
    /// Cycles repeat until this much time has passed (at least one cycle always runs).
    pub runtime: Duration,
    /// Recovered once read p99 is within this fraction of the baseline p99.
    pub recovery_tolerance: f64,
    /// Reads per sliding window when judging recovery.
    pub recovery_window: usize,
    /// Give up waiting for recovery after this long.
    pub recovery_timeout: Duration,
    pub seed: u64,
    /// Latency samples kept in the report for plotting.
    pub max_plot_points: usize,
}

impl Default for SyncPlan {
    fn default() -> Self {
        Self {
            read_phase: Duration::from_secs(2),
            burst_bytes: 1 << 30,
            burst_block_min: 4096,
            burst_block_max: 16384,
            burst_queue_depth: 32,
            runtime: Duration::from_secs(60),
            recovery_tolerance: 0.2,
            recovery_window: 200,
            recovery_timeout: Duration::from_secs(24),
            seed: 0x6e6f_6465_6368_6b31,
            max_plot_points: 4000,
        }
    }
}

impl SyncPlan {
    fn validate(&self, size: u64) -> Result<(), BehaviourError> {
        let invalid = |why: &str| Err(BehaviourError::InvalidPlan(why.to_string()));
        if self.burst_block_min < 4096
            || !self.burst_block_min.is_multiple_of(4096)
            || !self.burst_block_max.is_multiple_of(4096)
            || self.burst_block_max < self.burst_block_min
        {
            return invalid("burst block sizes must be multiples of 4 KiB with min <= max");
        }
        if self.burst_queue_depth == 0 {
            return invalid("the burst queue depth must be positive");
        }
        if self.burst_bytes < MIN_BURST_BYTES {
            return Err(BehaviourError::InvalidPlan(format!(
                "a write burst of {} is below the {} that gives a meaningful figure",
                crate::error::ByteSize(self.burst_bytes),
                crate::error::ByteSize(MIN_BURST_BYTES)
            )));
        }
        if !(self.recovery_tolerance.is_finite() && self.recovery_tolerance >= 0.0) {
            return invalid("recovery tolerance must be a non-negative fraction");
        }
        if self.read_phase.is_zero() {
            return invalid("the read phase must last some time");
        }
        let needed = u64::from(self.burst_block_max).max(1 << 20);
        if size < needed {
            return Err(BehaviourError::FileTooSmall { size, needed });
        }
        Ok(())
    }
}

/// The size of every read.
const READ_LEN: u32 = ALIGN as u32;

/// A burst the reader ordered.
#[derive(Debug, Clone, Copy)]
struct Order {
    /// Counts the bursts of the run; a writer takes its share of each once.
    number: u64,
    /// When the reader ordered it: the burst's duration runs from here.
    started: Duration,
    seed: u64,
}

/// How a finished burst went.
#[derive(Debug, Clone, Copy)]
struct BurstOutcome {
    bytes: u64,
    /// From the order to the completion of the `fdatasync` that closed the burst.
    duration: Duration,
    fdatasync: Duration,
}

/// What the reader and the writers share (they run on different threads on a real engine).
#[derive(Debug, Default)]
struct Cycle {
    order: Option<Order>,
    /// Writers whose share of the current burst has been written and completed.
    writers_done: u32,
    outcome: Option<BurstOutcome>,
    /// The reader has stopped: so do the writers.
    finished: bool,
}

#[derive(Default)]
struct Shared {
    cycle: Mutex<Cycle>,
    /// Rung when a burst is ordered and when the reader stops, for writers waiting idle.
    bell: Condvar,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, Cycle> {
        // A job that panicked holding the lock ends the run anyway; its data is still usable.
        self.cycle
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

/// The reader's place in the cycle.
enum Step {
    /// Reads alone until `until`: the baseline.
    Reading { until: Duration },
    /// Reads while the ordered burst and its `fdatasync` run.
    Burst,
    /// Reads until p99 is back within tolerance of the baseline, or the timeout.
    Recovering {
        tracker: RecoveryTracker,
        burst_end: Duration,
    },
    /// The cycle is over: the reader decides at its next slot whether another one runs.
    CycleOver,
}

/// The QD1 reader, which leads the cycle.
struct Reader<'a> {
    plan: &'a SyncPlan,
    shared: &'a Shared,
    board: &'a ProgressBoard,
    cancel: &'a (dyn Fn() -> bool + Sync),
    rng: SmallRng,
    slots: u64,
    step: Option<Step>,
    cycle: u64,
    burst_start: Duration,
    baseline_p99: f64,
    outcome: Option<BurstOutcome>,
    baseline: LatencyHistogram<u64>,
    during_burst: LatencyHistogram<u64>,
    samples: Decimator,
    cycles: Vec<SyncCycle>,
    /// When the last read completed: the test's runtime.
    last: Duration,
    next_tick: Duration,
    status: String,
    interrupted: bool,
}

impl Reader<'_> {
    fn stop(&mut self) -> Next {
        self.shared.lock().finished = true;
        self.shared.bell.notify_all();
        Next::Done
    }

    fn order_burst(&mut self, now: Duration) {
        self.baseline_p99 = self.baseline.quantile_us(0.99);
        self.burst_start = now;
        {
            let mut cycle = self.shared.lock();
            let number = cycle.order.map_or(0, |order| order.number + 1);
            cycle.order = Some(Order {
                number,
                started: now,
                seed: self.plan.seed.wrapping_add(self.cycle),
            });
            cycle.writers_done = 0;
            cycle.outcome = None;
        }
        self.shared.bell.notify_all();
        self.step = Some(Step::Burst);
        self.status = format!("cycle {}: write burst", self.cycle + 1);
    }

    fn close_cycle(&mut self, recovery: Option<Duration>, burst_end: Duration) {
        let outcome = self.outcome.take().unwrap_or(BurstOutcome {
            bytes: 0,
            duration: Duration::ZERO,
            fdatasync: Duration::ZERO,
        });
        self.cycles.push(SyncCycle {
            burst_start_s: self.burst_start.as_secs_f64(),
            burst_end_s: burst_end.as_secs_f64(),
            burst_write_mb_s: analysis::mb_per_s(outcome.bytes, outcome.duration),
            fdatasync_ms: outcome.fdatasync.as_secs_f64() * 1e3,
            recovery_ms: recovery.map(|r| r.as_secs_f64() * 1e3),
        });
        self.step = Some(Step::CycleOver);
    }

    fn start_reading(&mut self, now: Duration) {
        self.step = Some(Step::Reading {
            until: now + self.plan.read_phase,
        });
        self.status = format!("cycle {}: reads", self.cycle + 1);
    }

    fn sample(&mut self, t: Duration, lat_us: f64, phase: SyncPhase) {
        self.samples.push(LatencyPoint {
            t_s: t.as_secs_f64(),
            lat_us,
            phase,
        });
    }
}

impl Job for Reader<'_> {
    fn next_io(&mut self, now: Duration) -> Next {
        if (self.cancel)() {
            self.interrupted = true;
            return self.stop();
        }
        match &self.step {
            None => self.start_reading(now),
            Some(Step::Reading { until }) if now >= *until => self.order_burst(now),
            Some(Step::Recovering { burst_end, .. })
                if now.saturating_sub(*burst_end) >= self.plan.recovery_timeout =>
            {
                let burst_end = *burst_end;
                self.close_cycle(None, burst_end);
            }
            _ => {}
        }
        if let Some(Step::CycleOver) = self.step {
            // At least one cycle always runs; another only while the runtime lasts.
            if now >= self.plan.runtime {
                return self.stop();
            }
            self.cycle += 1;
            self.start_reading(now);
        }
        if now >= self.next_tick {
            self.next_tick = now + PROGRESS_EVERY;
            self.board.post(now, self.status.clone());
        }
        let offset = self.rng.gen_range(0..self.slots) * ALIGN;
        Next::Io(Io {
            offset,
            len: READ_LEN,
            direction: Direction::Read,
        })
    }

    fn complete(&mut self, _io: &Io, latency: Duration, now: Duration, _data: &[u8]) {
        self.last = now;
        let start = now.saturating_sub(latency);
        let lat_us = latency.as_secs_f64() * 1e6;
        match &mut self.step {
            Some(Step::Reading { .. }) => {
                self.sample(start, lat_us, SyncPhase::Read);
                self.baseline.record(latency);
            }
            Some(Step::Burst) => {
                self.sample(start, lat_us, SyncPhase::Burst);
                self.during_burst.record(latency);
                let outcome = self.shared.lock().outcome.take();
                if let Some(outcome) = outcome {
                    self.outcome = Some(outcome);
                    self.step = Some(Step::Recovering {
                        tracker: RecoveryTracker::new(
                            self.baseline_p99,
                            self.plan.recovery_tolerance,
                            self.plan.recovery_window,
                            now,
                        ),
                        burst_end: now,
                    });
                    self.status = format!("cycle {}: recovery", self.cycle + 1);
                }
            }
            Some(Step::Recovering { tracker, burst_end }) => {
                let recovered = tracker.push(start, lat_us);
                let burst_end = *burst_end;
                self.sample(start, lat_us, SyncPhase::Recovery);
                if let Some(recovery) = recovered {
                    self.close_cycle(Some(recovery), burst_end);
                }
            }
            // A read issued before the cycle ended counts for nothing.
            Some(Step::CycleOver) | None => {}
        }
    }
}

/// One share of every burst: random writes of 4 KiB multiples, then, for the last writer to
/// finish, the `fdatasync`.
struct Writer<'a> {
    shared: &'a Shared,
    cancel: &'a (dyn Fn() -> bool + Sync),
    /// This writer's index among `writers`.
    index: u64,
    writers: u32,
    share: u64,
    total: u64,
    min_blocks: u64,
    max_blocks: u64,
    slots: u64,
    rng: SmallRng,
    /// The burst this writer works on, the bytes of its share still to issue, its writes in
    /// flight, and whether it has counted itself done.
    burst: Option<u64>,
    remaining: u64,
    inflight: u32,
    reported: bool,
}

impl Job for Writer<'_> {
    fn next_io(&mut self, _now: Duration) -> Next {
        if (self.cancel)() {
            return Next::Done;
        }
        let mut cycle = self.shared.lock();
        if cycle.finished {
            return Next::Done;
        }
        let Some(order) = cycle.order else {
            return Next::Idle;
        };
        if self.burst != Some(order.number) {
            self.burst = Some(order.number);
            self.remaining = self.share;
            self.reported = false;
            self.rng = SmallRng::seed_from_u64(order.seed ^ (self.index << 32));
        }
        if self.remaining > 0 {
            let blocks = self.rng.gen_range(self.min_blocks..=self.max_blocks);
            let len = (blocks * ALIGN).min(self.remaining.div_ceil(ALIGN) * ALIGN);
            self.remaining = self.remaining.saturating_sub(len);
            let offset = self
                .rng
                .gen_range(0..=self.slots.saturating_sub(len / ALIGN))
                * ALIGN;
            self.inflight += 1;
            return Next::Io(Io {
                offset,
                len: u32::try_from(len).unwrap_or(u32::MAX),
                direction: Direction::Write,
            });
        }
        if self.inflight > 0 || self.reported {
            return Next::Idle;
        }
        self.reported = true;
        cycle.writers_done += 1;
        if cycle.writers_done < self.writers {
            return Next::Idle;
        }
        // Every write of the burst has completed: commit them.
        self.inflight += 1;
        Next::Io(SYNC)
    }

    fn wait(&mut self, timeout: Duration) {
        let cycle = self.shared.lock();
        let number = cycle.order.map(|order| order.number);
        let _ = self
            .shared
            .bell
            .wait_timeout_while(cycle, timeout, |cycle| {
                !cycle.finished && cycle.order.map(|order| order.number) == number
            });
    }

    fn complete(&mut self, io: &Io, latency: Duration, now: Duration, _data: &[u8]) {
        self.inflight = self.inflight.saturating_sub(1);
        if io.direction == Direction::Sync {
            let mut cycle = self.shared.lock();
            if let Some(order) = cycle.order {
                cycle.outcome = Some(BurstOutcome {
                    bytes: self.total,
                    duration: now.saturating_sub(order.started),
                    fdatasync: latency,
                });
            }
        }
    }
}

/// Block sizes in 4 KiB blocks.
fn block_range(min: u32, max: u32) -> (u64, u64) {
    let min = (u64::from(min) / ALIGN).max(1);
    (min, (u64::from(max) / ALIGN).max(min))
}

impl BehaviourTest for SyncPlan {
    type Measured = SyncResult;
    const PHASE: Phase = Phase::Sync;

    fn expected_runtime(&self, _size: u64) -> Duration {
        self.runtime
    }

    /// Runs the sync-like workload until `plan.runtime` has passed, telling `progress` the
    /// elapsed time and what is happening about ten times a second.
    fn run(&self, mut session: Session<'_>) -> Result<SyncResult, BehaviourError> {
        let size = session.device.size();
        self.validate(size)?;
        let engine = session.device.engine(self.burst_block_max.max(READ_LEN));
        let (writer_count, writer_depth) = engine.layout(self.burst_queue_depth);
        let writer_count = writer_count.max(1);
        let (min_blocks, max_blocks) = block_range(self.burst_block_min, self.burst_block_max);
        let shared = Shared::default();
        let board = ProgressBoard::default();
        let cancel = session.cancel;
        let mut reader = Reader {
            plan: self,
            shared: &shared,
            board: &board,
            cancel,
            rng: SmallRng::seed_from_u64(self.seed),
            slots: size / ALIGN,
            step: None,
            cycle: 0,
            burst_start: Duration::ZERO,
            baseline_p99: 0.0,
            outcome: None,
            baseline: analysis::read_latencies(),
            during_burst: analysis::read_latencies(),
            samples: Decimator::new(self.max_plot_points),
            cycles: Vec::new(),
            last: Duration::ZERO,
            next_tick: Duration::ZERO,
            status: String::new(),
            interrupted: false,
        };
        let mut writers: Vec<Writer<'_>> = (0..writer_count)
            .map(|index| Writer {
                shared: &shared,
                cancel,
                index: u64::from(index),
                writers: writer_count,
                // The first writer takes the remainder so that the shares add up to the burst.
                share: self.burst_bytes / u64::from(writer_count)
                    + if index == 0 {
                        self.burst_bytes % u64::from(writer_count)
                    } else {
                        0
                    },
                total: self.burst_bytes,
                min_blocks,
                max_blocks,
                slots: size / ALIGN,
                rng: SmallRng::seed_from_u64(0),
                burst: None,
                remaining: 0,
                inflight: 0,
                reported: false,
            })
            .collect();
        let mut depths = vec![1];
        depths.extend(std::iter::repeat_n(writer_depth, writers.len()));
        let mut jobs: Vec<&mut dyn Job> = vec![&mut reader];
        jobs.extend(writers.iter_mut().map(|writer| writer as &mut dyn Job));
        let outcome = session.run_jobs(&*engine, &mut jobs, &depths, &board);
        drop(jobs);
        outcome?;
        if reader.interrupted || cancel() {
            return Err(BehaviourError::Interrupted);
        }
        let cycles = reader.cycles;
        let recovered: Vec<f64> = cycles.iter().filter_map(|c| c.recovery_ms).collect();
        let throughputs: Vec<f64> = cycles.iter().map(|c| c.burst_write_mb_s).collect();
        let unrecovered = cycles.iter().filter(|c| c.recovery_ms.is_none()).count();
        Ok(SyncResult {
            engine: engine.kind(),
            burst_engine: Some(engine.kind()),
            runtime_s: reader.last.as_secs_f64(),
            span_bytes: size,
            burst_bytes: self.burst_bytes,
            burst_queue_depth: self.burst_queue_depth,
            burst_block_min: self.burst_block_min,
            burst_block_max: self.burst_block_max,
            recovery_tolerance: self.recovery_tolerance,
            recovery_timeout_s: self.recovery_timeout.as_secs_f64(),
            baseline_lat_us: reader.baseline.summary_us(),
            burst_lat_us: reader.during_burst.summary_us(),
            burst_write_mb_s: analysis::median(&throughputs).unwrap_or(0.0),
            recovery: Recovery {
                recovery_ms_median: analysis::median(&recovered),
                recovery_ms_max: recovered.iter().copied().reduce(f64::max),
                unrecovered_cycles: u32::try_from(unrecovered).unwrap_or(u32::MAX),
            },
            cycles,
            samples: analysis::thin(&reader.samples.finish(), self.max_plot_points),
        })
    }
}
