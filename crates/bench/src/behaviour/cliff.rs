//! `--test cliff`: sustained writes, first sequential over the test file and then random, with
//! throughput recorded per interval until it falls off the cliff where the drive's write cache
//! (SLC, on most consumer drives) is full. Stops as soon as the cliff is established: every
//! further gigabyte is wear and time for nothing.
//!
//! Writes overwrite the test file in place, so the file never grows past the size the
//! free-space reserve allowed when it was created; the byte budget bounds wear and time only.
//!
//! The test is one engine run of writers at the plan's queue depth that never pause between
//! intervals: an interval's throughput comes from the completions that fell in it, and the
//! writers stop when the completions they saw establish the cliff.

use std::sync::{Mutex, MutexGuard};
use std::time::Duration;

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

use super::analysis::{self, CliffRule};
use super::{
    BehaviourError, BehaviourTest, CliffDrop, CliffResult, CliffStop, ProgressBoard, Session,
    ThroughputPoint, WritePattern,
};
use crate::progress::Phase;
use crate::workload::{Direction, Io, Job, Next, ALIGN};

/// Parameters of the cliff test.
#[derive(Debug, Clone, PartialEq)]
pub struct CliffPlan {
    pub interval: Duration,
    pub sequential_block: u32,
    pub random_block: u32,
    pub queue_depth: u32,
    /// Sequential writes until this many bytes, random after; `None` for one pass over the file.
    pub sequential_bytes: Option<u64>,
    /// Never write more than this in total.
    pub max_bytes: u64,
    pub max_runtime: Duration,
    pub rule: CliffRule,
    pub seed: u64,
    pub max_plot_points: usize,
}

impl Default for CliffPlan {
    fn default() -> Self {
        Self {
            interval: Duration::from_secs(1),
            sequential_block: 1 << 20,
            random_block: 128 << 10,
            queue_depth: 8,
            sequential_bytes: None,
            max_bytes: 1 << 40,
            max_runtime: Duration::from_secs(30 * 60),
            rule: CliffRule::default(),
            seed: 0x6e6f_6465_636c_6966,
            max_plot_points: 4000,
        }
    }
}

/// The throughput series the writers build from their completions, shared by them (several
/// threads on psync).
#[derive(Debug, Default)]
struct Series {
    /// Bytes handed to the engine, and the next sequential offset (before wrapping).
    issued: u64,
    cursor: u64,
    /// Bytes completed.
    completed: u64,
    /// The interval being filled, the bytes completed in it, and the time its measurement
    /// starts from: the last completion of the interval before it (or its start when that one
    /// had none), so that bytes are divided by the time they took from completion to
    /// completion and not by a window that cuts writes in two.
    interval: u32,
    bytes: u64,
    since: Duration,
    last: Duration,
    mb_s: Vec<f64>,
    samples: Vec<ThroughputPoint>,
    stop: Option<CliffStop>,
    interrupted: bool,
}

/// One of the cliff test's writers.
struct CliffWriter<'a> {
    plan: &'a CliffPlan,
    series: &'a Mutex<Series>,
    board: &'a ProgressBoard,
    cancel: &'a (dyn Fn() -> bool + Sync),
    rng: SmallRng,
    /// Sequential writes until this many bytes, random after.
    sequential_bytes: u64,
    /// The test file's bytes.
    size: u64,
}

/// The series, usable even if a writer panicked holding it (the run fails then anyway).
fn lock(series: &Mutex<Series>) -> MutexGuard<'_, Series> {
    series
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl CliffWriter<'_> {
    fn pattern(&self, written: u64) -> (WritePattern, u64) {
        if written < self.sequential_bytes {
            (
                WritePattern::Sequential,
                u64::from(self.plan.sequential_block),
            )
        } else {
            (WritePattern::Random, u64::from(self.plan.random_block))
        }
    }

    /// Closes the intervals that ended before `now`, and decides whether the test is over.
    fn close_intervals(&self, series: &mut Series, now: Duration) {
        let interval = self.plan.interval;
        while series.stop.is_none() && now >= interval * (series.interval + 1) {
            let end = interval * (series.interval + 1);
            let took = series.last.saturating_sub(series.since);
            let rate = if series.bytes > 0 {
                analysis::mb_per_s(series.bytes, took)
            } else {
                0.0
            };
            let (pattern, _) = self.pattern(series.completed - series.bytes);
            series.mb_s.push(rate);
            series.samples.push(ThroughputPoint {
                t_s: end.as_secs_f64(),
                written_bytes: series.completed,
                mb_s: rate,
                pattern,
            });
            self.board.post(
                end,
                format!(
                    "{rate:.0} MB/s, {:.1} GB written",
                    series.completed as f64 / 1e9
                ),
            );
            series.since = if series.bytes > 0 { series.last } else { end };
            series.bytes = 0;
            series.interval += 1;
            if analysis::detect_cliff(&series.mb_s, &self.plan.rule)
                .cliff_index
                .is_some()
            {
                series.stop = Some(CliffStop::CliffEstablished);
            } else if end >= self.plan.max_runtime {
                series.stop = Some(CliffStop::Runtime);
            }
        }
    }
}

impl Job for CliffWriter<'_> {
    fn next_io(&mut self, now: Duration) -> Next {
        let cancelled = (self.cancel)();
        let mut series = lock(self.series);
        if cancelled {
            series.interrupted = true;
            return Next::Done;
        }
        if series.stop.is_some() {
            return Next::Done;
        }
        if now >= self.plan.max_runtime {
            series.stop = Some(CliffStop::Runtime);
            return Next::Done;
        }
        // The budget ends the test once its last write has completed.
        let left = self.plan.max_bytes.saturating_sub(series.issued) / ALIGN * ALIGN;
        if left == 0 {
            return Next::Done;
        }
        let (pattern, block) = self.pattern(series.issued);
        let span = (self.span(block)).max(block);
        let len = block.min(left);
        let offset = match pattern {
            WritePattern::Sequential => {
                let offset = series.cursor % span;
                series.cursor = offset + block;
                offset
            }
            WritePattern::Random => self.rng.gen_range(0..span / block) * block,
        };
        series.issued += len;
        Next::Io(Io {
            offset,
            len: u32::try_from(len).unwrap_or(u32::MAX),
            direction: Direction::Write,
        })
    }

    fn complete(&mut self, io: &Io, _latency: Duration, now: Duration, _data: &[u8]) {
        let mut series = lock(self.series);
        self.close_intervals(&mut series, now);
        if series.stop.is_some() {
            return;
        }
        let len = u64::from(io.len);
        series.bytes += len;
        series.completed += len;
        // On a real engine another thread may have reaped a later completion first.
        series.last = series.last.max(now);
    }
}

impl CliffWriter<'_> {
    /// The bytes of the test file that blocks of `block` bytes cover.
    fn span(&self, block: u64) -> u64 {
        self.size / block * block
    }
}

impl BehaviourTest for CliffPlan {
    type Measured = CliffResult;
    const PHASE: Phase = Phase::Cliff;

    fn expected_runtime(&self, _size: u64) -> Duration {
        self.max_runtime
    }

    /// Writes until the cliff is established, the budget is spent or the runtime is over,
    /// telling `progress` the elapsed time, throughput and bytes after each interval.
    fn run(&self, mut session: Session<'_>) -> Result<CliffResult, BehaviourError> {
        let size = session.device.size();
        let largest_block = u64::from(self.sequential_block.max(self.random_block));
        if !self.sequential_block.is_multiple_of(4096)
            || !self.random_block.is_multiple_of(4096)
            || self.sequential_block == 0
            || self.random_block == 0
        {
            return Err(BehaviourError::InvalidPlan(
                "cliff block sizes must be positive multiples of 4 KiB".into(),
            ));
        }
        if self.interval.is_zero() || self.queue_depth == 0 {
            return Err(BehaviourError::InvalidPlan(
                "the interval and queue depth must be positive".into(),
            ));
        }
        if size < largest_block {
            return Err(BehaviourError::FileTooSmall {
                size,
                needed: largest_block,
            });
        }
        let engine = session
            .device
            .engine(u32::try_from(largest_block).unwrap_or(u32::MAX));
        let (count, depth) = engine.layout(self.queue_depth);
        let series = Mutex::new(Series::default());
        let board = ProgressBoard::default();
        let mut writers: Vec<CliffWriter<'_>> = (0..u64::from(count.max(1)))
            .map(|index| CliffWriter {
                plan: self,
                series: &series,
                board: &board,
                cancel: session.cancel,
                rng: SmallRng::seed_from_u64(self.seed ^ (index << 32)),
                sequential_bytes: self.sequential_bytes.unwrap_or(size),
                size,
            })
            .collect();
        let depths = vec![depth; writers.len()];
        let mut jobs: Vec<&mut dyn Job> = writers
            .iter_mut()
            .map(|writer| writer as &mut dyn Job)
            .collect();
        let outcome = session.run_jobs(&*engine, &mut jobs, &depths, &board);
        drop(jobs);
        drop(writers);
        outcome?;
        let mut series = series
            .into_inner()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if series.interrupted {
            return Err(BehaviourError::Interrupted);
        }
        if series.stop.is_none() {
            // The budget was spent: its last, partial interval counts too.
            if series.bytes > 0 {
                let rate =
                    analysis::mb_per_s(series.bytes, series.last.saturating_sub(series.since));
                let pattern =
                    if series.completed - series.bytes < self.sequential_bytes.unwrap_or(size) {
                        WritePattern::Sequential
                    } else {
                        WritePattern::Random
                    };
                series.mb_s.push(rate);
                series.samples.push(ThroughputPoint {
                    t_s: series.last.as_secs_f64(),
                    written_bytes: series.completed,
                    mb_s: rate,
                    pattern,
                });
            }
            series.stop = Some(CliffStop::ByteBudget);
        }
        let found = analysis::detect_cliff(&series.mb_s, &self.rule);
        let samples = &series.samples;
        let cache_estimate = found.cliff_index.map(|i| match i {
            0 => 0,
            _ => samples[i - 1].written_bytes,
        });
        Ok(CliffResult {
            engine: engine.kind(),
            runtime_s: series.last.as_secs_f64(),
            written_bytes: series.completed,
            span_bytes: size,
            sequential_block: self.sequential_block,
            random_block: self.random_block,
            queue_depth: self.queue_depth,
            drop: CliffDrop {
                pre_cliff_mb_s: found.pre_mb_s,
                cache_estimate_bytes: cache_estimate,
                cliff_at_s: found.cliff_index.map(|i| samples[i].t_s),
                post_cliff_mb_s: found.post_mb_s,
            },
            stop: series.stop.unwrap_or(CliffStop::ByteBudget),
            samples: analysis::thin(samples, self.max_plot_points),
        })
    }
}
