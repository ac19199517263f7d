//! `--test sync`: the client's batch cycle. QD1 random 4 KiB reads while a batch is assembled,
//! then a burst of random 4-16 KiB writes at high queue depth closed by `fdatasync` (the commit)
//! while a QD1 reader keeps sampling, then reads until latency is back to baseline.
//! The parameters and the reasoning behind their defaults are in docs/behaviour.md.

use std::time::Duration;

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

use super::analysis::{self, RecoveryTracker};
use super::{
    BehaviourDevice, BehaviourError, BehaviourTest, LatencyPoint, Recovery, Session, SyncCycle,
    SyncPhase, SyncResult, WriteBurst,
};
use crate::progress::Phase;

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

/// Collects samples and halves their density whenever there are too many, so memory stays
/// bounded on a long run while the plot still covers all of it.
struct Decimator {
    points: Vec<LatencyPoint>,
    stride: u64,
    seen: u64,
    cap: usize,
}

impl Decimator {
    fn new(cap: usize) -> Self {
        Self {
            points: Vec::new(),
            stride: 1,
            seen: 0,
            cap: cap.max(2) * 2,
        }
    }

    fn push(&mut self, point: LatencyPoint) {
        if self.seen.is_multiple_of(self.stride) {
            self.points.push(point);
            if self.points.len() >= self.cap {
                let mut keep = 0;
                self.points.retain(|_| {
                    keep += 1;
                    keep % 2 == 1
                });
                self.stride *= 2;
            }
        }
        self.seen += 1;
    }
}

struct Reader<'a> {
    device: &'a mut dyn BehaviourDevice,
    rng: SmallRng,
    slots: u64,
    cancel: &'a dyn Fn() -> bool,
    progress: &'a mut dyn FnMut(Duration, &str),
    began: Duration,
    next_tick: Duration,
    status: String,
}

impl Reader<'_> {
    /// One QD1 read at a random aligned offset: (start time, latency in µs).
    fn read(&mut self) -> Result<(Duration, f64), BehaviourError> {
        if (self.cancel)() {
            return Err(BehaviourError::Interrupted);
        }
        let offset = self.rng.gen_range(0..self.slots) * 4096;
        let start = self.device.elapsed();
        if start >= self.next_tick {
            self.next_tick = start + PROGRESS_EVERY;
            (self.progress)(start.saturating_sub(self.began), &self.status);
        }
        let latency = self.device.read_qd1(offset)?;
        Ok((start, latency.as_secs_f64() * 1e6))
    }

    /// [`Reader::read`], kept as a plot sample of `phase`.
    fn read_into(
        &mut self,
        phase: SyncPhase,
        samples: &mut Decimator,
    ) -> Result<(Duration, f64), BehaviourError> {
        let (t, lat_us) = self.read()?;
        samples.push(LatencyPoint {
            t_s: t.saturating_sub(self.began).as_secs_f64(),
            lat_us,
            phase,
        });
        Ok((t, lat_us))
    }
}

impl BehaviourTest for SyncPlan {
    type Measured = SyncResult;
    const PHASE: Phase = Phase::Sync;

    fn expected_runtime(&self, _size: u64) -> Duration {
        self.runtime
    }

    /// Runs the sync-like workload on `device` until `plan.runtime` has passed, telling
    /// `progress` the elapsed time and what is happening about ten times a second.
    fn run(&self, session: Session<'_>) -> Result<SyncResult, BehaviourError> {
        let size = session.device.size();
        self.validate(size)?;
        let engine = session.device.engine();
        let burst_engine = session.device.burst_engine();
        let began = session.device.elapsed();
        let mut reader = Reader {
            device: session.device,
            rng: SmallRng::seed_from_u64(self.seed),
            slots: size / 4096,
            cancel: session.cancel,
            progress: session.progress,
            began,
            next_tick: began,
            status: String::new(),
        };
        let mut baseline = analysis::read_latencies();
        let mut during_burst = analysis::read_latencies();
        let mut samples = Decimator::new(self.max_plot_points);
        let mut cycles = Vec::new();
        let secs = |d: Duration| d.saturating_sub(began).as_secs_f64();

        for cycle in 0u64.. {
            if cycle > 0 && reader.device.elapsed().saturating_sub(began) >= self.runtime {
                break;
            }
            reader.status = format!("cycle {}: reads", cycle + 1);
            let phase_end = reader.device.elapsed() + self.read_phase;
            while reader.device.elapsed() < phase_end {
                let (_, lat) = reader.read_into(SyncPhase::Read, &mut samples)?;
                baseline.record(Duration::from_secs_f64(lat / 1e6));
            }
            let baseline_p99 = baseline.quantile_us(0.99);

            reader.status = format!("cycle {}: write burst", cycle + 1);
            let burst_start = reader.device.elapsed();
            reader.device.start_burst(&WriteBurst {
                total_bytes: self.burst_bytes,
                min_block: self.burst_block_min,
                max_block: self.burst_block_max,
                queue_depth: self.burst_queue_depth,
                seed: self.seed.wrapping_add(cycle),
            })?;
            let outcome = loop {
                let (_, lat) = reader.read_into(SyncPhase::Burst, &mut samples)?;
                during_burst.record(Duration::from_secs_f64(lat / 1e6));
                if let Some(outcome) = reader.device.poll_burst()? {
                    break outcome;
                }
            };
            let burst_end = reader.device.elapsed();

            let mut tracker = RecoveryTracker::new(
                baseline_p99,
                self.recovery_tolerance,
                self.recovery_window,
                burst_end,
            );
            reader.status = format!("cycle {}: recovery", cycle + 1);
            let mut recovery = None;
            while reader.device.elapsed().saturating_sub(burst_end) < self.recovery_timeout {
                let (t, lat) = reader.read_into(SyncPhase::Recovery, &mut samples)?;
                if let Some(r) = tracker.push(t, lat) {
                    recovery = Some(r);
                    break;
                }
            }
            cycles.push(SyncCycle {
                burst_start_s: secs(burst_start),
                burst_end_s: secs(burst_end),
                burst_write_mb_s: analysis::mb_per_s(outcome.bytes, outcome.duration),
                fdatasync_ms: outcome.fdatasync.as_secs_f64() * 1e3,
                recovery_ms: recovery.map(|r| r.as_secs_f64() * 1e3),
            });
        }

        let recovered: Vec<f64> = cycles.iter().filter_map(|c| c.recovery_ms).collect();
        let throughputs: Vec<f64> = cycles.iter().map(|c| c.burst_write_mb_s).collect();
        let unrecovered = cycles.iter().filter(|c| c.recovery_ms.is_none()).count();
        Ok(SyncResult {
            engine,
            burst_engine: Some(burst_engine),
            runtime_s: secs(reader.device.elapsed()),
            span_bytes: size,
            burst_bytes: self.burst_bytes,
            burst_queue_depth: self.burst_queue_depth,
            burst_block_min: self.burst_block_min,
            burst_block_max: self.burst_block_max,
            recovery_tolerance: self.recovery_tolerance,
            recovery_timeout_s: self.recovery_timeout.as_secs_f64(),
            baseline_lat_us: baseline.summary_us(),
            burst_lat_us: during_burst.summary_us(),
            burst_write_mb_s: analysis::median(&throughputs).unwrap_or(0.0),
            recovery: Recovery {
                recovery_ms_median: analysis::median(&recovered),
                recovery_ms_max: recovered.iter().copied().reduce(f64::max),
                unrecovered_cycles: u32::try_from(unrecovered).unwrap_or(u32::MAX),
            },
            cycles,
            samples: analysis::thin(&samples.points, self.max_plot_points),
        })
    }
}
